"""Accounts, API keys, the unit ledger and job records, in one SQL database.

Why a database: keys, balances and jobs must survive restarts and be shared by every
worker process (and, on PostgreSQL, every machine). `DATABASE_URL` picks it; without it a
SQLite file `var/shiftsched.db` under the current directory serves one host.

Billing (docs/semantics.md, "When a solve is charged"): a solve first *reserves* its
units, taken from the free quota first and then from the prepaid balance, and later
settles exactly once: *capture* keeps them, *release* gives both parts back. A
reservation locks the account row before reading it (SELECT ... FOR UPDATE on
PostgreSQL, BEGIN IMMEDIATE on SQLite), so concurrent requests can never overspend;
settling is a conditional state change of the ledger row, so a unit is never charged or
refunded twice. Balances also carry CHECK (>= 0) as a last line of defence.

Payments (x402, mpp) are not units: each one is *claimed* once, by a key that names it
(the x402 authorization nonce, the mpp provider's payment id), before it is verified.
The key is the primary key of the `payments` table, so of two requests carrying the
same payment, concurrently or one after the other, exactly one gets the claim; the other
is refused as a replay. A claim is given back only when the payment was never settled
(rejected at verification, facilitator unreachable, solve not delivered), so the payer
can use it again.

The free quota is kept per account (an account normally has one key; a re-issued key
must not reset the quota).

API keys are stored as SHA-256 hashes plus a short display prefix, never in plaintext;
the plaintext is returned once, when issued.

Every method raises `StoreUnavailable` when the database cannot be reached (nothing has
been charged then), so the HTTP layer can answer 503 with Retry-After.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal, cast

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.engine import URL, Connection, Engine, make_url

from bento.tables import (
    DISPLAY_PREFIX_LENGTH,
    accounts,
    api_keys,
    connections,
    jobs,
    ledger,
    metadata,
    oauth_tokens,
    payments,
)

Tier = Literal["basic", "pro"]
ReservationState = Literal["reserved", "captured", "released"]
JobStatus = Literal["running", "completed", "failed"]
PaymentState = Literal["verifying", "settling", "settled", "settle_failed"]

TIERS: Final[tuple[Tier, ...]] = ("basic", "pro")
DEFAULT_DATABASE_PATH: Final = Path("var") / "shiftsched.db"
DEFAULT_FREE_QUOTA: Final = 100
"""Free units of a new account: about a hundred small solves in the open beta."""
DEMO_FREE_QUOTA: Final = 1000
DEMO_ACCOUNT_ID: Final = "demo"
"""A fixed id, so two workers starting at once cannot both create a demo account."""
KEY_PREFIX: Final = "sk_live_"
ACCESS_TOKEN_PREFIX: Final = "mcp_at_"
"""OAuth access tokens of connected apps; they authenticate like the key they map to."""
LAST_USED_RESOLUTION: Final = timedelta(minutes=1)
CONNECT_TIMEOUT_SECONDS: Final = 5
SQLITE_BUSY_TIMEOUT_SECONDS: Final = 30

_EXPLICIT_KEY = re.compile(r"[\x21-\x7e]{20,200}")
_READ_ONLY: Final = "shiftsched_read_only"
_MIGRATE_LOCK_ID: Final = 0x5348_4946_5453  # "SHIFTS": serializes create_all on PostgreSQL


class StoreUnavailable(Exception):
    """The database cannot be reached; the request changed nothing and may be retried."""


class UnknownAccount(LookupError):
    """No account has this id."""


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    tier: Tier
    free_quota_remaining: int
    balance_units: int
    # The key that authenticated this request (set by authenticate), for the job record.
    key_id: str | None = field(default=None, compare=False)

    @property
    def available_units(self) -> int:
        """Units a solve may still reserve: free quota plus prepaid balance."""
        return self.free_quota_remaining + self.balance_units


@dataclass(frozen=True)
class Reservation:
    """Units held for one solve; `free_part + balance_part == units`."""

    reservation_id: str
    account_id: str
    units: int
    free_part: int
    balance_part: int
    state: ReservationState


@dataclass(frozen=True)
class Job:
    """A queued solve's record; `request_json`/`response_json` are the v1 bodies."""

    id: str
    account_id: str
    status: JobStatus
    units_reserved: int
    reservation_id: str | None
    request_json: Any
    response_json: Any
    error_code: str | None
    created_at: datetime
    updated_at: datetime
    key_id: str | None = None
    size: int | None = None
    objective: float | None = None

    def as_response(self) -> dict[str, Any]:
        """The SolveResponse to show when polled: the stored one, else a minimal one."""
        if isinstance(self.response_json, dict):
            return dict(self.response_json)
        body: dict[str, Any] = {"job_id": self.id, "status": self.status, "solution": None}
        if self.error_code is not None:
            body["error"] = {"code": self.error_code}
        return body


_UNAVAILABLE = (exc.OperationalError, exc.InterfaceError, exc.DisconnectionError, exc.TimeoutError)


def generate_key() -> str:
    """A new random API key: `sk_live_` and 64 hex characters (256 bits)."""
    return KEY_PREFIX + secrets.token_hex(32)


def hash_key(key: str) -> str:
    """The stored form of a key; lookups go by this hash, so no secret is compared."""
    return hashlib.sha256(key.encode()).hexdigest()


def default_database_url() -> str:
    """SQLite file var/shiftsched.db under the current directory (the folder is created)."""
    path = Path.cwd() / DEFAULT_DATABASE_PATH
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreUnavailable(f"cannot create {path.parent}: {error.strerror}") from error
    return f"sqlite:///{path}"


class Store:
    """All persistent state of the service; safe to share between threads."""

    def __init__(self, url: str) -> None:
        self._url = _normalize_url(url)
        self._postgres = self._url.get_backend_name() == "postgresql"
        self._engine = _create_engine(self._url)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Store:
        """The store named by DATABASE_URL, else the default SQLite file."""
        env = os.environ if environ is None else environ
        return cls(env.get("DATABASE_URL") or default_database_url())

    def __repr__(self) -> str:
        return f"Store({self._url.render_as_string(hide_password=True)!r})"

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
        self._engine.dispose()

    def migrate(self) -> None:
        """Create missing tables; idempotent, and safe when several workers start at once."""
        with self._write() as conn:
            if self._postgres:
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_MIGRATE_LOCK_ID)))
            metadata.create_all(conn)
            _add_missing_columns(conn)

    # Accounts and keys -------------------------------------------------------------------

    def create_account(
        self,
        name: str,
        tier: Tier = "basic",
        free_quota: int = DEFAULT_FREE_QUOTA,
        balance: int = 0,
    ) -> Account:
        _check_name(name)
        _check_tier(tier)
        _check_non_negative(free_quota=free_quota, balance=balance)
        account_id = uuid.uuid4().hex
        with self._write() as conn:
            insert_account(conn, account_id, name, tier, free_quota, balance)
            return _require_account(conn, account_id)

    def issue_key(
        self,
        account_id: str,
        key: str | None = None,
        *,
        label: str | None = None,
        kind: str | None = None,
    ) -> str:
        """Store a new key for the account and return its plaintext, the only time it is seen.

        An explicit key (a fixed demo key) must be 20-200 visible ASCII characters.
        """
        key = _check_explicit_key(key) if key is not None else generate_key()
        try:
            with self._write() as conn:
                _require_account(conn, account_id)
                insert_key(conn, account_id, key, label=label, kind=kind)
        except exc.IntegrityError as error:
            raise ValueError("this key is already issued") from error
        return key

    def disable_key(self, key_or_prefix: str) -> bool:
        """Disable the key given in full or by its display prefix; False when none matches.

        A prefix shared by several keys is refused (ValueError) rather than guessed.
        """
        match = sa.or_(
            api_keys.c.key_hash == hash_key(key_or_prefix), api_keys.c.prefix == key_or_prefix
        )
        with self._write() as conn:
            ids = conn.execute(sa.select(api_keys.c.id).where(match)).scalars().all()
            if len(ids) > 1:
                raise ValueError(f"prefix {key_or_prefix!r} matches {len(ids)} keys; give the key")
            if not ids:
                return False
            conn.execute(api_keys.update().where(api_keys.c.id == ids[0]).values(disabled=True))
            return True

    def set_tier(self, account_id: str, tier: Tier) -> Account:
        _check_tier(tier)
        return self._update_account(account_id, tier=tier)

    def add_balance(self, account_id: str, units: int) -> Account:
        """Credit prepaid units (a purchase); `units` must be positive."""
        if units <= 0:
            raise ValueError("units must be a positive integer")
        return self._update_account(account_id, balance_units=accounts.c.balance_units + units)

    def get_account(self, account_id: str) -> Account | None:
        with self._read() as conn:
            return _fetch_account(conn, account_id)

    def authenticate(self, api_key: str) -> Account | None:
        """The account of an enabled key, or of a live OAuth access token whose connected
        app is not revoked and whose key is enabled; None otherwise.

        A key's ``last_used_at`` is refreshed at most once a minute, so authenticating
        stays a read on almost every request.
        """
        if not api_key:
            return None
        digest = hash_key(api_key)
        if api_key.startswith(ACCESS_TOKEN_PREFIX):
            key_id = _key_of_access_token(digest)
        else:
            key_id = api_keys.c.id
        query = (
            sa.select(*accounts.c, api_keys.c.id.label("key_id"), api_keys.c.last_used_at)
            .join(api_keys, api_keys.c.account_id == accounts.c.id)
            .where(api_keys.c.disabled.is_(False))
        )
        if api_key.startswith(ACCESS_TOKEN_PREFIX):
            query = query.where(api_keys.c.id == key_id)
        else:
            query = query.where(api_keys.c.key_hash == digest)
        with self._read() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        now = _now()
        if row.last_used_at is None or now - _aware(row.last_used_at) > LAST_USED_RESOLUTION:
            with self._write() as conn:
                conn.execute(
                    api_keys.update().where(api_keys.c.id == row.key_id).values(last_used_at=now)
                )
        return replace(account_from_row(row), key_id=row.key_id)

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction, for the other stores on this database (``bento.identity``)."""
        with self._write() as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self._read() as conn:
            yield conn

    def ensure_demo_account(self, key: str | None = None) -> tuple[Account, str | None]:
        """The demo account (pro tier, DEMO_FREE_QUOTA), created once, with a key.

        Returns the plaintext key when one was issued now: a random one when the account
        was just created, or the explicit `key` when it was not stored yet. A key that is
        already stored is left as it is (even if an operator disabled it).
        """
        try:
            return self._ensure_demo(key)
        except exc.IntegrityError:
            # Another worker created the account or key at the same moment; it exists now.
            return self._ensure_demo(key)

    # Billing -----------------------------------------------------------------------------

    def reserve(self, account_id: str, units: int, reservation_id: str) -> Reservation | None:
        """Hold `units` (free quota first, then balance); None, changing nothing, if short.

        Reserving an id again for the same account and units returns the existing
        reservation instead of charging twice (a retried request); otherwise ValueError.
        """
        if units <= 0:
            raise ValueError("units must be a positive integer")
        _check_reservation_id(reservation_id)
        try:
            with self._write() as conn:
                return _reserve(conn, account_id, units, reservation_id)
        except exc.IntegrityError as error:
            if self.get_reservation(reservation_id) is None:
                raise
            # The same id was reserved concurrently for another account.
            raise ValueError(f"reservation id {reservation_id!r} is already in use") from error

    def capture(self, reservation_id: str) -> bool:
        """Keep the reserved units (the solve was delivered); True only the first time."""
        with self._write() as conn:
            return _settle(conn, reservation_id, "captured")

    def release(self, reservation_id: str) -> bool:
        """Give the free and balance parts back; True only the first time, never after capture."""
        with self._write() as conn:
            return _settle(conn, reservation_id, "released")

    def get_reservation(self, reservation_id: str) -> Reservation | None:
        with self._read() as conn:
            return _fetch_reservation(conn, reservation_id)

    def usage(self, account_id: str) -> tuple[int, int, int]:
        """(free_quota_remaining, balance_units, available_units) of the account."""
        account = self.get_account(account_id)
        if account is None:
            raise UnknownAccount(account_id)
        return account.free_quota_remaining, account.balance_units, account.available_units

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
    ) -> Job:
        """Record a queued solve as running; its units were reserved under `reservation_id`.
        ``key_id`` and ``size`` are for people (the dashboard's list of jobs)."""
        return self._insert_job(
            account_id,
            uuid.uuid4().hex,
            "running",
            units_reserved,
            reservation_id,
            request_json,
            key_id=key_id,
            size=size,
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
        """Keep a completed synchronous solve as a finished job, so its ``job_id`` can be
        polled like a queued one's (until :meth:`purge_finished_jobs`). Its units were
        settled by the solve itself, so no reservation is attached."""
        return self._insert_job(
            account_id,
            job_id,
            "completed",
            units,
            None,
            request_json,
            response_json,
            key_id=key_id,
            size=size,
        )

    def _insert_job(
        self,
        account_id: str,
        job_id: str,
        status: JobStatus,
        units: int,
        reservation_id: str | None,
        request_json: Any,
        response_json: Any = None,
        *,
        key_id: str | None = None,
        size: int | None = None,
    ) -> Job:
        now = _now()
        values = {
            "key_id": key_id,
            "size": size,
            "objective": objective_of(response_json),
            "id": job_id,
            "account_id": account_id,
            "status": status,
            "units_reserved": units,
            "reservation_id": reservation_id,
            "request_json": request_json,
            "response_json": response_json,
            "created_at": now,
            "updated_at": now,
        }
        with self._write() as conn:
            _require_account(conn, account_id)
            conn.execute(jobs.insert().values(values))
            return _require_job(conn, account_id, job_id)

    def purge_finished_jobs(self, finished_before: datetime) -> int:
        """Delete the jobs that ended before ``finished_before``; running ones stay.
        Returns how many were deleted."""
        query = jobs.delete().where(jobs.c.status != "running", jobs.c.updated_at < finished_before)
        with self._write() as conn:
            return int(conn.execute(query).rowcount)

    def get_job(self, account_id: str, job_id: str) -> Job | None:
        """The job, only if it belongs to the account (others' jobs are invisible)."""
        with self._read() as conn:
            row = conn.execute(
                sa.select(jobs).where(jobs.c.id == job_id, jobs.c.account_id == account_id)
            ).first()
        return job_from_row(row) if row is not None else None

    def find_job(self, job_id: str) -> Job | None:
        """The job whatever its account: for the queue worker, never for a caller."""
        with self._read() as conn:
            row = conn.execute(sa.select(jobs).where(jobs.c.id == job_id)).first()
        return job_from_row(row) if row is not None else None

    def running_jobs(self) -> list[Job]:
        """Every job still running, oldest first: what a restarted service must account for."""
        query = sa.select(jobs).where(jobs.c.status == "running").order_by(jobs.c.created_at)
        with self._read() as conn:
            return [job_from_row(row) for row in conn.execute(query)]

    def finish_job(
        self,
        job_id: str,
        status: Literal["completed", "failed"],
        *,
        response_json: Any = None,
        error_code: str | None = None,
    ) -> bool:
        """End a running job once and settle its reservation in the same transaction:
        captured when completed, released when failed. False if it was not running."""
        if status not in ("completed", "failed"):
            raise ValueError(f"a job ends completed or failed, not {status!r}")
        values = {
            "status": status,
            "response_json": response_json,
            "error_code": error_code,
            "objective": objective_of(response_json),
            "updated_at": _now(),
        }
        with self._write() as conn:
            changed = conn.execute(
                jobs.update().where(jobs.c.id == job_id, jobs.c.status == "running").values(values)
            )
            if changed.rowcount != 1:
                return False
            reservation_id = conn.execute(
                sa.select(jobs.c.reservation_id).where(jobs.c.id == job_id)
            ).scalar_one()
            if reservation_id is not None:
                _settle(conn, reservation_id, "captured" if status == "completed" else "released")
            return True

    # Payments ----------------------------------------------------------------------------

    def claim_payment(self, key: str, scheme: str, amount: str, request_id: str) -> bool:
        """Take a payment for this request; False if it was claimed before (a replay)."""
        if not 1 <= len(key) <= 200:
            raise ValueError("a payment key has 1 to 200 characters")
        now = _now()
        values = {
            "key": key,
            "scheme": scheme,
            "amount": amount,
            "request_id": request_id,
            "state": "verifying",
            "created_at": now,
            "updated_at": now,
        }
        try:
            with self._write() as conn:
                conn.execute(payments.insert().values(values))
        except exc.IntegrityError:
            return False
        return True

    def mark_payment(self, key: str, state: PaymentState, detail: str | None = None) -> bool:
        """Move a claimed payment on (settling, settled, settle_failed); False if unknown."""
        values = {"state": state, "detail": (detail or "")[:500] or None, "updated_at": _now()}
        with self._write() as conn:
            changed = conn.execute(payments.update().where(payments.c.key == key).values(values))
        return bool(changed.rowcount == 1)

    def release_payment(self, key: str) -> bool:
        """Give back a claim that was never settled, so the payment can be used again."""
        with self._write() as conn:
            changed = conn.execute(
                payments.delete().where(payments.c.key == key, payments.c.state == "verifying")
            )
        return bool(changed.rowcount == 1)

    def payment_state(self, key: str) -> PaymentState | None:
        with self._read() as conn:
            state = conn.execute(
                sa.select(payments.c.state).where(payments.c.key == key)
            ).scalar_one_or_none()
        return cast(PaymentState | None, state)

    # Internals ---------------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A transaction that holds the write lock from its start on SQLite."""
        with _unavailable_as_error(), self._engine.begin() as conn:
            yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        """A plain (deferred) transaction, rolled back at the end."""
        with _unavailable_as_error(), self._engine.connect() as conn:
            yield conn.execution_options(**{_READ_ONLY: True})

    def _update_account(self, account_id: str, **values: Any) -> Account:
        with self._write() as conn:
            changed = conn.execute(
                accounts.update().where(accounts.c.id == account_id).values(**values)
            )
            if changed.rowcount != 1:
                raise UnknownAccount(account_id)
            return _require_account(conn, account_id)

    def _ensure_demo(self, key: str | None) -> tuple[Account, str | None]:
        if key is not None:
            _check_explicit_key(key)
        with self._write() as conn:
            created = _fetch_account(conn, DEMO_ACCOUNT_ID) is None
            if created:
                insert_account(conn, DEMO_ACCOUNT_ID, "demo", "pro", DEMO_FREE_QUOTA, 0)
            issued = _demo_key_to_issue(conn, key, created)
            if issued is not None:
                insert_key(conn, DEMO_ACCOUNT_ID, issued)
            return _require_account(conn, DEMO_ACCOUNT_ID), issued


# Engine set-up ---------------------------------------------------------------------------


def _normalize_url(url: str) -> URL:
    """`postgres://` and `postgresql://` (as hosting platforms write them) mean psycopg 3."""
    parsed = make_url(url)
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _create_engine(url: URL) -> Engine:
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    connect_args: dict[str, Any] = {}
    if url.get_backend_name() == "postgresql":
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_SECONDS
    return sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args)


def _sqlite_engine(url: URL) -> Engine:
    """SQLite with SQLAlchemy in charge of BEGIN, so writers can take the lock up front."""
    engine = sa.create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS})
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # pysqlite must not emit its own BEGIN
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")  # readers do not wait for the writer
    finally:
        cursor.close()


def _sqlite_on_begin(conn: Connection) -> None:
    """BEGIN IMMEDIATE for writes: read-then-update cannot interleave between processes."""
    read_only = conn.get_execution_options().get(_READ_ONLY, False)
    conn.exec_driver_sql("BEGIN DEFERRED" if read_only else "BEGIN IMMEDIATE")


@contextmanager
def _unavailable_as_error() -> Iterator[None]:
    try:
        yield
    except _UNAVAILABLE as error:
        raise StoreUnavailable(_describe(error)) from error


def _describe(error: exc.SQLAlchemyError) -> str:
    """The driver's first line only: the full text would carry SQL and parameters."""
    original = getattr(error, "orig", None)
    text = str(original if original is not None else error).strip()
    first = text.splitlines()[0] if text else type(error).__name__
    return f"database unavailable: {first}"


# Row helpers -----------------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    """SQLite returns naive datetimes; they were written in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def account_from_row(row: Any) -> Account:
    """An account from a row of ``accounts`` (shared with bento.identity, which keeps
    users and sessions on the same database)."""
    return Account(
        id=row.id,
        name=row.name,
        tier=cast(Tier, row.tier),
        free_quota_remaining=int(row.free_quota_remaining),
        balance_units=int(row.balance_units),
    )


def _reservation_from_row(row: sa.Row[Any]) -> Reservation:
    return Reservation(
        reservation_id=row.reservation_id,
        account_id=row.account_id,
        units=int(row.units),
        free_part=int(row.free_part),
        balance_part=int(row.balance_part),
        state=cast(ReservationState, row.state),
    )


def objective_of(response_json: Any) -> float | None:
    """The roster's objective in a stored SolveResponse, when it has one."""
    try:
        value = response_json["solution"]["metrics"]["objective_value"]
    except (KeyError, TypeError):
        return None
    return float(value) if isinstance(value, int | float) else None


def job_from_row(row: sa.Row[Any]) -> Job:
    """A job from a row of ``jobs``."""
    return Job(
        id=row.id,
        account_id=row.account_id,
        status=cast(JobStatus, row.status),
        units_reserved=int(row.units_reserved),
        reservation_id=row.reservation_id,
        request_json=row.request_json,
        response_json=row.response_json,
        error_code=row.error_code,
        created_at=_aware(row.created_at),
        updated_at=_aware(row.updated_at),
        key_id=row.key_id,
        size=None if row.size is None else int(row.size),
        objective=row.objective,
    )


def _fetch_account(conn: Connection, account_id: str, *, lock: bool = False) -> Account | None:
    query = sa.select(accounts).where(accounts.c.id == account_id)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return account_from_row(row) if row is not None else None


def _require_account(conn: Connection, account_id: str, *, lock: bool = False) -> Account:
    account = _fetch_account(conn, account_id, lock=lock)
    if account is None:
        raise UnknownAccount(account_id)
    return account


def _require_job(conn: Connection, account_id: str, job_id: str) -> Job:
    row = conn.execute(
        sa.select(jobs).where(jobs.c.id == job_id, jobs.c.account_id == account_id)
    ).one()
    return job_from_row(row)


def _fetch_reservation(
    conn: Connection, reservation_id: str, *, lock: bool = False
) -> Reservation | None:
    query = sa.select(ledger).where(ledger.c.reservation_id == reservation_id)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return _reservation_from_row(row) if row is not None else None


def insert_account(
    conn: Connection, account_id: str, name: str, tier: Tier, free_quota: int, balance: int
) -> None:
    conn.execute(
        accounts.insert().values(
            id=account_id,
            name=name,
            tier=tier,
            free_quota_remaining=free_quota,
            balance_units=balance,
            created_at=_now(),
        )
    )


def insert_key(
    conn: Connection,
    account_id: str,
    key: str,
    *,
    label: str | None = None,
    kind: str | None = None,
) -> str:
    key_id = uuid.uuid4().hex
    conn.execute(
        api_keys.insert().values(
            id=key_id,
            account_id=account_id,
            prefix=key[:DISPLAY_PREFIX_LENGTH],
            key_hash=hash_key(key),
            disabled=False,
            created_at=_now(),
            label=label,
            kind=kind,
        )
    )
    return key_id


def _key_of_access_token(digest: str) -> Any:
    """The api_keys.id behind a live access token of a connected app not revoked."""
    return (
        sa.select(connections.c.api_key_id)
        .join(oauth_tokens, oauth_tokens.c.connection_id == connections.c.id)
        .where(
            oauth_tokens.c.token_hash == digest,
            oauth_tokens.c.kind == "access",
            oauth_tokens.c.revoked.is_(False),
            oauth_tokens.c.expires_at > _now(),
            connections.c.revoked_at.is_(None),
        )
        .scalar_subquery()
    )


def _add_missing_columns(conn: Connection) -> None:
    """Add columns a newer release defined to tables an older one created (all such
    columns are nullable), so an existing database keeps working after an upgrade."""
    inspector = sa.inspect(conn)
    for table in metadata.sorted_tables:
        present = {column["name"] for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name in present:
                continue
            kind = column.type.compile(dialect=conn.dialect)
            conn.execute(sa.text(f'ALTER TABLE {table.name} ADD COLUMN "{column.name}" {kind}'))


def _demo_key_to_issue(conn: Connection, key: str | None, created: bool) -> str | None:
    """The demo key to store now: a random one for a new account, or a new explicit one."""
    if key is None:
        return generate_key() if created else None
    owner = conn.execute(
        sa.select(api_keys.c.account_id).where(api_keys.c.key_hash == hash_key(key))
    ).scalar()
    if owner is None:
        return key
    if owner != DEMO_ACCOUNT_ID:
        raise ValueError("the demo key is already issued to another account")
    return None


def _reserve(
    conn: Connection, account_id: str, units: int, reservation_id: str
) -> Reservation | None:
    account = _require_account(conn, account_id, lock=True)
    existing = _fetch_reservation(conn, reservation_id)
    if existing is not None:
        if (existing.account_id, existing.units) != (account_id, units):
            raise ValueError(f"reservation id {reservation_id!r} is already in use")
        return existing
    if account.available_units < units:
        return None
    free_part = min(account.free_quota_remaining, units)
    balance_part = units - free_part
    conn.execute(
        accounts.update()
        .where(accounts.c.id == account_id)
        .values(
            free_quota_remaining=accounts.c.free_quota_remaining - free_part,
            balance_units=accounts.c.balance_units - balance_part,
        )
    )
    conn.execute(
        ledger.insert().values(
            account_id=account_id,
            reservation_id=reservation_id,
            units=units,
            free_part=free_part,
            balance_part=balance_part,
            state="reserved",
            created_at=_now(),
        )
    )
    return Reservation(reservation_id, account_id, units, free_part, balance_part, "reserved")


def _settle(conn: Connection, reservation_id: str, state: ReservationState) -> bool:
    """Move a reserved ledger row to `state` once; a release refunds both parts."""
    reservation = _fetch_reservation(conn, reservation_id, lock=True)
    if reservation is None or reservation.state != "reserved":
        return False
    changed = conn.execute(
        ledger.update()
        .where(ledger.c.reservation_id == reservation_id, ledger.c.state == "reserved")
        .values(state=state, settled_at=_now())
    )
    if changed.rowcount != 1:
        return False
    if state == "released":
        conn.execute(
            accounts.update()
            .where(accounts.c.id == reservation.account_id)
            .values(
                free_quota_remaining=accounts.c.free_quota_remaining + reservation.free_part,
                balance_units=accounts.c.balance_units + reservation.balance_part,
            )
        )
    return True


# Argument checks -------------------------------------------------------------------------


def _check_name(name: str) -> None:
    if not 1 <= len(name) <= 200:
        raise ValueError("an account name has 1 to 200 characters")


def _check_tier(tier: str) -> None:
    if tier not in TIERS:
        raise ValueError(f"tier must be one of {', '.join(TIERS)}, not {tier!r}")


def _check_non_negative(**values: int) -> None:
    for label, value in values.items():
        if value < 0:
            raise ValueError(f"{label} must be >= 0")


def _check_explicit_key(key: str) -> str:
    if not _EXPLICIT_KEY.fullmatch(key):
        raise ValueError("an API key has 20 to 200 visible ASCII characters, no spaces")
    return key


def _check_reservation_id(reservation_id: str) -> None:
    if not 1 <= len(reservation_id) <= 128:
        raise ValueError("a reservation id has 1 to 128 characters")
