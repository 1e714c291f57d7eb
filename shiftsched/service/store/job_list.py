"""The Jobs page's rows: an account's jobs with the units each one charged, filtered and
a page at a time.

Why apart: the list must agree with the Usage page, which adds up the ledger's captured
units. So a row's units are read from the ledger row of its hold (captured: its units;
still reserved: held, not charged yet; released: none), never from what the job
reserved: a cancelled job that reserved 28 units and released them shows 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import sqlalchemy as sa

from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import aware
from shiftsched.service.store.tables import api_keys, jobs, ledger

PAGE_SIZE: Final = 25
PLAN_CALL: Final = "shiftsched.periods.plan:plan"
"""What a queued plan runs: a row from before operations were recorded is a plan if it
names this function, and a solve otherwise."""


@dataclass(frozen=True)
class JobFilter:
    """Which jobs to list; None: any."""

    status: str | None = None
    operation: str | None = None
    key_id: str | None = None


@dataclass(frozen=True)
class JobRow:
    """A job as the dashboard lists it: no request or answer bodies."""

    id: str
    operation: str
    name: str | None
    status: str
    error_code: str | None
    stopped: bool  # its account asked a queued job to stop (a synchronous solve heeds none)
    charged: int  # units captured for it (the ledger's), 0 while held or once released
    held: int  # units held while it runs, not charged yet
    size: int | None
    objective: float | None
    key_prefix: str | None  # of the key that asked for it, when known
    key_label: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class JobsPage:
    rows: list[JobRow]
    page: int
    has_older: bool  # another page of older rows follows


class JobList:
    """The account's jobs as rows for people."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def page(
        self, account_id: str, where: JobFilter, page: int = 1, size: int = PAGE_SIZE
    ) -> JobsPage:
        """Page ``page`` (1: the newest) of the account's jobs that pass ``where``,
        newest first, with the key each came from and the units it charged."""
        page = max(1, page)
        query = (
            _columns()
            .where(jobs.c.account_id == account_id, *_conditions(where))
            .order_by(jobs.c.created_at.desc(), jobs.c.id)
            .offset((page - 1) * size)
            .limit(size + 1)
        )
        with self.db.read() as conn:
            rows = [_row(found) for found in conn.execute(query)]
        return JobsPage(rows[:size], page, has_older=len(rows) > size)


def _columns() -> sa.Select[Any]:
    joined = jobs.outerjoin(api_keys, api_keys.c.id == jobs.c.key_id).outerjoin(
        ledger, ledger.c.reservation_id == jobs.c.reservation_id
    )
    return sa.select(
        jobs.c.id,
        _operation_of().label("operation"),
        jobs.c.name,
        jobs.c.status,
        jobs.c.error_code,
        jobs.c.stop_requested_at,
        jobs.c.kind,
        jobs.c.units_reserved,
        jobs.c.size,
        jobs.c.objective,
        jobs.c.created_at,
        jobs.c.updated_at,
        api_keys.c.prefix,
        api_keys.c.label,
        ledger.c.state.label("hold"),
        ledger.c.units.label("hold_units"),
    ).select_from(joined)


def _operation_of() -> sa.ColumnElement[str]:
    """The operation of a job row, rows written before it was recorded included."""
    return sa.func.coalesce(
        jobs.c.operation, sa.case((jobs.c.call == PLAN_CALL, "plan"), else_="solve")
    )


def _conditions(where: JobFilter) -> list[sa.ColumnElement[bool]]:
    conditions = []
    if where.status is not None:
        conditions.append(jobs.c.status == where.status)
    if where.operation is not None:
        conditions.append(_operation_of() == where.operation)
    if where.key_id is not None:
        conditions.append(jobs.c.key_id == where.key_id)
    return conditions


def _row(found: Any) -> JobRow:
    charged, held = _units(found)
    return JobRow(
        id=found.id,
        operation=str(found.operation),
        name=found.name,
        status=found.status,
        error_code=found.error_code,
        stopped=found.stop_requested_at is not None and found.kind is None,
        charged=charged,
        held=held,
        size=None if found.size is None else int(found.size),
        objective=found.objective,
        key_prefix=found.prefix,
        key_label=found.label,
        created_at=aware(found.created_at),
        updated_at=aware(found.updated_at),
    )


def _units(found: Any) -> tuple[int, int]:
    """(charged, held) from the hold's ledger row. A row with no hold is a synchronous
    solve recorded after it settled (before solves were recorded as they ran): charged
    if it completed."""
    if found.hold is None:
        return (int(found.units_reserved) if found.status == "completed" else 0), 0
    units = int(found.hold_units)
    if found.hold == "captured":
        return units, 0
    return 0, (units if found.hold == "reserved" else 0)
