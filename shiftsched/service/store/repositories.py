"""``Store``: the database, opened once, and one repository per concern on it.

The API, the queue worker, the dashboard and the CLI each hold one store and take the
repository they need from it: ``store.accounts`` (accounts and keys), ``store.ledger``
(the unit ledger), ``store.jobs`` (job records), ``store.job_list`` (jobs as the
dashboard lists them), ``store.payments`` (payment claims), ``store.users`` and
``store.sessions`` (who signs in to the dashboard), ``store.account_view`` (an account as
its user sees it), ``store.authorizations``, ``store.connections`` and ``store.tokens``
(OAuth: consent, connected apps, codes and tokens), ``store.idempotency`` (the keys
of calls a client may retry), ``store.webhooks`` (endpoints and the events' outbox) and
``store.db`` (transactions and
migration). ``Store`` adds no behaviour of its own: each method's contract is documented
where it is done, and no SQL lives outside this package.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import TracebackType

from shiftsched.service.store.account_view import AccountView
from shiftsched.service.store.accounts import Accounts
from shiftsched.service.store.authorizations import Authorizations
from shiftsched.service.store.billing import Ledger
from shiftsched.service.store.connections import Connections
from shiftsched.service.store.database import Database, default_database_url
from shiftsched.service.store.idempotency import Idempotency
from shiftsched.service.store.job_list import JobList
from shiftsched.service.store.jobs import Jobs
from shiftsched.service.store.payments import (
    Payments,
)
from shiftsched.service.store.sessions import Sessions
from shiftsched.service.store.tokens import Tokens
from shiftsched.service.store.users import Users
from shiftsched.service.store.webhooks import Webhooks


class Store:
    """All persistent state of the service; safe to share between threads."""

    def __init__(self, url: str) -> None:
        self.db = Database(url)
        self.accounts = Accounts(self.db)
        self.ledger = Ledger(self.db)
        self.jobs = Jobs(self.db)
        self.job_list = JobList(self.db)
        self.payments = Payments(self.db)
        self.users = Users(self.db)
        self.sessions = Sessions(self.db)
        self.account_view = AccountView(self.db, self.accounts)
        self.authorizations = Authorizations(self.db)
        self.connections = Connections(self.db)
        self.tokens = Tokens(self.db)
        self.idempotency = Idempotency(self.db)
        self.webhooks = Webhooks(self.db)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Store:
        """The store named by DATABASE_URL, else the default SQLite file."""
        env = os.environ if environ is None else environ
        return cls(env.get("DATABASE_URL") or default_database_url())

    def __repr__(self) -> str:
        return f"Store({self.db.describe()!r})"

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close pooled connections (the store can still be used; it reconnects)."""
        self.db.close()
