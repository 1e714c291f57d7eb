"""``Store``: one object that opens the database and carries every concern on it.

Why a façade: the API, the queue worker, the dashboard and the CLI each hold one store
and call ``store.reserve(...)``, ``store.get_job(...)`` and so on. The work is done by
one repository per concern (``accounts``, ``ledger``, ``jobs``, ``payments``), all on
one :class:`~bento.store.database.Database`; ``Store`` exposes their methods under the
names callers already use (as methods, so a subclass can override one), and adds no
behaviour of its own: each method's contract is documented where it is done.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from types import TracebackType
from typing import Any, Literal

from sqlalchemy.engine import Connection

from bento.store.accounts import DEFAULT_FREE_QUOTA, Accounts
from bento.store.billing import Ledger
from bento.store.database import Database, default_database_url
from bento.store.jobs import Jobs, OrphanOutcome, StopOutcome
from bento.store.payments import (
    DEFAULT_LEASE_SECONDS,
    HeldSettlement,
    Payments,
    PaymentState,
)
from bento.store.rows import Account, Job, JobKind, Reservation, Tier


class Store:
    """All persistent state of the service; safe to share between threads."""

    def __init__(self, url: str) -> None:
        self.db = Database(url)
        self.accounts = Accounts(self.db)
        self.ledger = Ledger(self.db)
        self.jobs = Jobs(self.db)
        self.payments = Payments(self.db)

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

    # The database: schema and transactions (``bento.store.identity`` shares them) ---------------

    def migrate(self) -> None:
        self.db.migrate()

    def write(self) -> AbstractContextManager[Connection]:
        return self.db.write()

    def read(self) -> AbstractContextManager[Connection]:
        return self.db.read()

    # Accounts and keys -------------------------------------------------------------------

    def create_account(
        self,
        name: str,
        tier: Tier = "basic",
        free_quota: int = DEFAULT_FREE_QUOTA,
        balance: int = 0,
    ) -> Account:
        return self.accounts.create_account(name, tier, free_quota, balance)

    def issue_key(
        self,
        account_id: str,
        key: str | None = None,
        *,
        label: str | None = None,
        kind: str | None = None,
    ) -> str:
        return self.accounts.issue_key(account_id, key, label=label, kind=kind)

    def disable_key(self, key_or_prefix: str) -> bool:
        return self.accounts.disable_key(key_or_prefix)

    def set_tier(self, account_id: str, tier: Tier) -> Account:
        return self.accounts.set_tier(account_id, tier)

    def add_balance(self, account_id: str, units: int) -> Account:
        return self.accounts.add_balance(account_id, units)

    def get_account(self, account_id: str) -> Account | None:
        return self.accounts.get_account(account_id)

    def authenticate(self, api_key: str) -> Account | None:
        return self.accounts.authenticate(api_key)

    def ensure_demo_account(self, key: str | None = None) -> tuple[Account, str | None]:
        return self.accounts.ensure_demo_account(key)

    # The unit ledger ---------------------------------------------------------------------

    def reserve(
        self,
        account_id: str,
        units: int,
        reservation_id: str,
        *,
        lease_seconds: float | None = None,
        purpose: str | None = None,
    ) -> Reservation | None:
        return self.ledger.reserve(
            account_id, units, reservation_id, lease_seconds=lease_seconds, purpose=purpose
        )

    def capture(self, reservation_id: str) -> bool:
        return self.ledger.capture(reservation_id)

    def release(self, reservation_id: str) -> bool:
        return self.ledger.release(reservation_id)

    def renew_lease(self, reservation_id: str, seconds: float) -> bool:
        return self.ledger.renew_lease(reservation_id, seconds)

    def get_reservation(self, reservation_id: str) -> Reservation | None:
        return self.ledger.get_reservation(reservation_id)

    def usage(self, account_id: str) -> tuple[int, int, int]:
        return self.ledger.usage(account_id)

    def held_units(self, account_id: str) -> int:
        return self.ledger.held_units(account_id)

    # Jobs --------------------------------------------------------------------------------

    def create_job(
        self,
        account_id: str,
        request_json: Any,
        *,
        units_reserved: int = 0,
        reservation_id: str | None = None,
        key_id: str | None = None,
        size: int | None = None,
        kind: JobKind | None = None,
        job_id: str | None = None,
    ) -> Job:
        return self.jobs.create_job(
            account_id,
            request_json,
            units_reserved=units_reserved,
            reservation_id=reservation_id,
            key_id=key_id,
            size=size,
            kind=kind,
            job_id=job_id,
        )

    def record_solve(
        self,
        account_id: str,
        job_id: str,
        request_json: Any,
        response_json: Any,
        units: int,
        *,
        key_id: str | None = None,
        size: int | None = None,
    ) -> Job:
        return self.jobs.record_solve(
            account_id, job_id, request_json, response_json, units, key_id=key_id, size=size
        )

    def purge_finished_jobs(self, finished_before: datetime) -> int:
        return self.jobs.purge_finished_jobs(finished_before)

    def get_job(self, account_id: str, job_id: str) -> Job | None:
        return self.jobs.get_job(account_id, job_id)

    def find_job(self, job_id: str) -> Job | None:
        return self.jobs.find_job(job_id)

    def running_jobs(self, *, bodies: bool = True) -> list[Job]:
        return self.jobs.running_jobs(bodies=bodies)

    def finish_job(
        self,
        job_id: str,
        status: Literal["completed", "failed"],
        *,
        response_json: Any = None,
        error_code: str | None = None,
        attempt: int | None = None,
        charged: bool | None = None,
    ) -> bool:
        return self.jobs.finish_job(
            job_id,
            status,
            response_json=response_json,
            error_code=error_code,
            attempt=attempt,
            charged=charged,
        )

    def abandon_sync_job(self, job_id: str) -> bool:
        return self.jobs.abandon_sync_job(job_id)

    def record_progress(self, job_id: str, progress: Any, attempt: int | None = None) -> bool:
        return self.jobs.record_progress(job_id, progress, attempt)

    def stop_requested(self, job_id: str, attempt: int | None = None) -> bool:
        return self.jobs.stop_requested(job_id, attempt)

    def settle_orphan(
        self,
        job_id: str,
        attempt: int,
        *,
        max_attempts: int,
        failed_response: Callable[[str], Any],
        silent_since: datetime | None = None,
    ) -> OrphanOutcome | None:
        return self.jobs.settle_orphan(
            job_id,
            attempt,
            max_attempts=max_attempts,
            failed_response=failed_response,
            silent_since=silent_since,
        )

    def stop_job(
        self, account_id: str, job_id: str, cancelled_response: Any
    ) -> tuple[Job, StopOutcome] | None:
        return self.jobs.stop_job(account_id, job_id, cancelled_response)

    # Payments ----------------------------------------------------------------------------

    def claim_payment(
        self,
        key: str,
        scheme: str,
        amount: str,
        request_id: str,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ) -> bool:
        return self.payments.claim_payment(key, scheme, amount, request_id, lease_seconds)

    def start_settling(
        self,
        key: str,
        request_id: str,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        settle_with: str | None = None,
    ) -> bool:
        return self.payments.start_settling(key, request_id, lease_seconds, settle_with)

    def mark_payment(self, key: str, state: PaymentState, detail: str | None = None) -> bool:
        return self.payments.mark_payment(key, state, detail)

    def release_payment(
        self, key: str, request_id: str | None = None, *, settling: bool = False
    ) -> bool:
        return self.payments.release_payment(key, request_id, settling=settling)

    def payment_state(self, key: str) -> PaymentState | None:
        return self.payments.payment_state(key)

    def stale_settling(self, key: str, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> bool:
        return self.payments.stale_settling(key, lease_seconds)

    def resolve_stale_settling(
        self, key: str, moved: bool, detail: str, lease_seconds: float = DEFAULT_LEASE_SECONDS
    ) -> bool:
        return self.payments.resolve_stale_settling(key, moved, detail, lease_seconds)

    def stale_settlements(self, older_than: datetime) -> list[tuple[str, str, str]]:
        return self.payments.stale_settlements(older_than)

    def held_settlements(self, scheme: str, limit: int) -> list[HeldSettlement]:
        return self.payments.held_settlements(scheme, limit)

    def take_held(self, key: str, holder: str, lease_seconds: float) -> bool:
        return self.payments.take_held(key, holder, lease_seconds)

    def finish_held(
        self, key: str, holder: str, state: PaymentState, detail: str | None, *, again: bool
    ) -> bool:
        return self.payments.finish_held(key, holder, state, detail, again=again)
