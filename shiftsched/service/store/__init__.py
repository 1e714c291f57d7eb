"""Accounts, API keys, the unit ledger, job records and payment claims, in one SQL database.

Why a database: keys, balances and jobs must survive restarts and be shared by every
worker process (and, on PostgreSQL, every machine). One module per concern, each saying
why it stands apart:

* ``database``: the engine, its transactions, ``StoreUnavailable`` and migration;
* ``credentials``: the form of API keys and how they are hashed;
* ``rows``: the records handed out (``Account``, ``Reservation``, ``Job``) and the row
  reads and writes several concerns share;
* ``accounts``: accounts and API keys; ``billing``: the unit ledger (reserve, capture,
  release, usage); ``jobs``: job records; ``job_list``: jobs as the dashboard lists
  them, with the units each charged; ``payments``: payment claims;
* ``reconcile``: settling holds past their lease, and the audit that proves the ledger
  agrees with the jobs;
* ``users`` and ``sessions``: who signs in to the dashboard; ``account_view``: an
  account as its signed-in user sees it (balance, own keys, units per day);
* ``authorizations``, ``connections`` and ``tokens``: the OAuth flow (clients and their
  parked requests, connected apps, codes and tokens);
* ``idempotency``: the keys of charged calls a client may retry, each answered once;
* ``webhooks``: an account's endpoints, and the outbox of the events sent to them;
* ``repositories``: ``Store``, which opens the database once and holds one repository per
  concern (``store.ledger.reserve(...)``, ``store.jobs.get_job(...)``).

No SQL on the service's database is written outside this package.

Every method raises ``StoreUnavailable`` when the database cannot be reached (nothing has
been charged then), so the HTTP layer can answer 503 with Retry-After.
"""

from shiftsched.service.store.accounts import (
    DEFAULT_FREE_QUOTA,
    DEMO_ACCOUNT_ID,
    DEMO_FREE_QUOTA,
    LAST_USED_RESOLUTION,
    Accounts,
)
from shiftsched.service.store.billing import Ledger
from shiftsched.service.store.credentials import (
    ACCESS_TOKEN_PREFIX,
    KEY_PREFIX,
    generate_key,
    hash_key,
)
from shiftsched.service.store.database import (
    CONNECT_TIMEOUT_SECONDS,
    DEFAULT_DATABASE_PATH,
    SQLITE_BUSY_TIMEOUT_SECONDS,
    Database,
    StoreUnavailable,
    default_database_url,
)
from shiftsched.service.store.jobs import Jobs, OrphanOutcome, StopOutcome
from shiftsched.service.store.payments import HeldSettlement, Payments, PaymentState
from shiftsched.service.store.repositories import Store
from shiftsched.service.store.rows import (
    TIERS,
    Account,
    Job,
    JobKind,
    JobStatus,
    Reservation,
    ReservationState,
    Tier,
    UnknownAccount,
    account_from_row,
    insert_account,
    insert_key,
    job_from_row,
    objective_of,
)

# The tables, for callers that inspect the rows behind the store directly.
from shiftsched.service.store.tables import api_keys, ledger

__all__ = [
    "ACCESS_TOKEN_PREFIX",
    "CONNECT_TIMEOUT_SECONDS",
    "DEFAULT_DATABASE_PATH",
    "DEFAULT_FREE_QUOTA",
    "DEMO_ACCOUNT_ID",
    "DEMO_FREE_QUOTA",
    "KEY_PREFIX",
    "LAST_USED_RESOLUTION",
    "SQLITE_BUSY_TIMEOUT_SECONDS",
    "TIERS",
    "Account",
    "Accounts",
    "Database",
    "HeldSettlement",
    "Job",
    "JobKind",
    "JobStatus",
    "Jobs",
    "Ledger",
    "OrphanOutcome",
    "PaymentState",
    "Payments",
    "Reservation",
    "ReservationState",
    "StopOutcome",
    "Store",
    "StoreUnavailable",
    "Tier",
    "UnknownAccount",
    "account_from_row",
    "api_keys",
    "default_database_url",
    "generate_key",
    "hash_key",
    "insert_account",
    "insert_key",
    "job_from_row",
    "ledger",
    "objective_of",
]
