"""The records the store hands out, and the row reads and writes several concerns share.

Why apart: an account row is read by the accounts, the ledger, the jobs and
``shiftsched.service.store.account_view`` (the dashboard's view of it), and written by
sign-up (``shiftsched.service.store.users``) as well as by the operator's CLI. Mapping
rows to records in one place keeps every reader agreeing on what a row means; these
names are public so no module has to reach into another's internals.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from shiftsched.service.store.credentials import hash_key
from shiftsched.service.store.tables import DISPLAY_PREFIX_LENGTH, accounts, api_keys

Tier = Literal["basic", "pro"]
ReservationState = Literal["reserved", "captured", "released"]
JobStatus = Literal["running", "completed", "failed"]
JobKind = Literal["sync"]
"""A job's kind when it is not a queued job (NULL): a synchronous solve's record."""

TIERS: Final[tuple[Tier, ...]] = ("basic", "pro")


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
    """A job's record: a queued solve or plan, or a synchronous call paid with a key
    (``kind`` "sync"). `request_json` is the body as accepted (a v1 request, or an
    operation's body), `response_json` the answer; `parse` and `call` name what runs a
    queued one."""

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
    progress: Any = None  # the last progress record while solving (Jobs.record_progress)
    stop_requested_at: datetime | None = None
    attempt: int = 1  # which run of the job is under way (a dead consumer's job runs again)
    progress_at: datetime | None = None  # the run's last progress record (its heartbeat)
    kind: JobKind | None = None  # None: queued; "sync": a synchronous solve's record
    parse: str | None = None  # module:function reading request_json; None: parse_request
    call: str | None = None  # module:function solving it; None: shiftsched.solving.solve:solve
    operation: str | None = None  # the operation it was; None: a row from before (a solve)
    name: str | None = None  # what a person calls it (shiftsched.service.http.job_names)

    def as_response(self) -> dict[str, Any]:
        """The answer to show when polled: the stored one (a SolveResponse, or the
        answer of the operation the job was), else a minimal SolveResponse."""
        if isinstance(self.response_json, dict):
            return dict(self.response_json)
        body: dict[str, Any] = {"job_id": self.id, "status": self.status, "solution": None}
        if self.error_code is not None:
            body["error"] = {"code": self.error_code}
        return body


def now() -> datetime:
    """The time every row is stamped with: aware, in UTC."""
    return datetime.now(UTC)


def aware(moment: datetime) -> datetime:
    """SQLite returns naive datetimes; they were written in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def account_from_row(row: Any) -> Account:
    """An account from a row of ``accounts``."""
    return Account(
        id=row.id,
        name=row.name,
        tier=cast(Tier, row.tier),
        free_quota_remaining=int(row.free_quota_remaining),
        balance_units=int(row.balance_units),
    )


def reservation_from_row(row: sa.Row[Any]) -> Reservation:
    """A reservation from a row of ``ledger``."""
    return Reservation(
        reservation_id=row.reservation_id,
        account_id=row.account_id,
        units=int(row.units),
        free_part=int(row.free_part),
        balance_part=int(row.balance_part),
        state=cast(ReservationState, row.state),
    )


def charged_for(kind: str | None, status: str, response_json: Any) -> bool:
    """Whether a job that ended was paid for (docs/semantics.md, "When a solve is
    charged"): a queued job when it completed; a synchronous solve when it delivered a
    roster or a diagnosed infeasibility (``shiftsched.service.solving.outcome.delivered``)."""
    if status == "completed":
        return True
    if kind != "sync" or status != "failed" or not isinstance(response_json, dict):
        return False
    error = response_json.get("error") or {}
    return isinstance(error, dict) and (
        error.get("code") == "no_solution" and error.get("diagnosis") is not None
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
        created_at=aware(row.created_at),
        updated_at=aware(row.updated_at),
        key_id=row.key_id,
        size=None if row.size is None else int(row.size),
        objective=row.objective,
        progress=row.progress_json,
        stop_requested_at=None if row.stop_requested_at is None else aware(row.stop_requested_at),
        attempt=1 if row.attempt is None else int(row.attempt),
        progress_at=None if row.progress_at is None else aware(row.progress_at),
        kind=cast(JobKind | None, row.kind),
        parse=row.parse,
        call=row.call,
        operation=row.operation,
        name=row.name,
    )


def fetch_account(conn: Connection, account_id: str, *, lock: bool = False) -> Account | None:
    """The account, or None; ``lock`` holds its row (FOR UPDATE) to the end of the
    transaction, so a balance read and its update cannot interleave."""
    query = sa.select(accounts).where(accounts.c.id == account_id)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return account_from_row(row) if row is not None else None


def require_account(conn: Connection, account_id: str, *, lock: bool = False) -> Account:
    """The account; UnknownAccount when there is none."""
    account = fetch_account(conn, account_id, lock=lock)
    if account is None:
        raise UnknownAccount(account_id)
    return account


def insert_account(
    conn: Connection, account_id: str, name: str, tier: Tier, free_quota: int, balance: int
) -> None:
    """A new account row (the caller checked the arguments)."""
    conn.execute(
        accounts.insert().values(
            id=account_id,
            name=name,
            tier=tier,
            free_quota_remaining=free_quota,
            balance_units=balance,
            created_at=now(),
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
    """Store a key of the account as its hash and display prefix; its new id."""
    key_id = uuid.uuid4().hex
    conn.execute(
        api_keys.insert().values(
            id=key_id,
            account_id=account_id,
            prefix=key[:DISPLAY_PREFIX_LENGTH],
            key_hash=hash_key(key),
            disabled=False,
            created_at=now(),
            label=label,
            kind=kind,
        )
    )
    return key_id
