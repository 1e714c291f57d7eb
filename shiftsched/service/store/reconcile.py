"""The reconciler: holds that outlived their lease are settled, and the ledger is audited.

Why apart: a hold is taken by a request that may never come back (the service killed, the
database away when the solve ended, a full disk). Nothing in that request can settle it
then, so something else must, and must agree with every other process doing the same:

- a hold past its lease (``ledger.expires_at``) whose synchronous solve is still recorded
  as running never delivered (the request would have ended the job before the lease ran
  out, the lease being the solve's deadline plus a margin): the job fails
  ``interrupted`` and the hold is released, in one transaction;
- a hold whose job has ended is settled as the job ended (captured if it was charged,
  else released): a capture that failed is completed here;
- a hold with no job at all (a call whose record could not be written, or a re-plan or
  recommendation from before every keyed call kept a job) is released;
- a queued job's hold has no lease: the job's own sweep for dead runs settles it
  (``shiftsched.service.solving.jobs``), so the two never judge one hold.

A hold written before leases existed (no lease, no running job holding it) counts as past
its lease :data:`UNLEASED_HOLD_AGE` after it was taken.

Each hold is settled in one write transaction that locks the job row first, then the
ledger row (the order ``Jobs.finish_job`` takes), and settling is conditional on the row
still being ``reserved``: any number of processes may reconcile at once and a hold is
settled once. :func:`audit` reads the whole database and says whether it is whole.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from shiftsched.operations import by_name
from shiftsched.service.store.billing import settle
from shiftsched.service.store.database import Database
from shiftsched.service.store.jobs import end_job
from shiftsched.service.store.rows import aware, charged_for, now
from shiftsched.service.store.tables import accounts, jobs, ledger, payments

UNLEASED_HOLD_AGE: Final = timedelta(hours=1)
"""When a hold without a lease and without a running job counts as stale. Only rows
written before leases existed, or a ledger edited by hand, are like that."""
BATCH: Final = 200
"""Holds settled per pass: a backlog is worked off over a few passes, none of them long."""
MAX_LISTED: Final = 50
"""Violations listed by :func:`audit` per check (all are counted)."""

HoldOutcome = Literal["captured", "released", "interrupted"]


def interrupted_response(job_id: str) -> dict[str, Any]:
    """The answer kept for a synchronous solve that never came back."""
    return {
        "job_id": job_id,
        "status": "failed",
        "solution": None,
        "error": {
            "code": "interrupted",
            "message": "the service stopped before this solve was delivered; nothing was charged",
        },
    }


def stale_holds(db: Database, moment: datetime | None = None, limit: int = BATCH) -> list[str]:
    """Reservation ids of holds past their lease (or stale without one), oldest first; a
    cheap query on ``ix_ledger_state_expires_at``."""
    moment = moment or now()
    query = (
        sa.select(ledger.c.reservation_id)
        .where(ledger.c.state == "reserved", _past_lease(moment))
        .order_by(ledger.c.created_at)
        .limit(limit)
    )
    with db.read() as conn:
        return [str(row) for row in conn.execute(query).scalars()]


def settle_stale_holds(db: Database, moment: datetime | None = None) -> dict[str, HoldOutcome]:
    """Settle every stale hold found (one pass of at most :data:`BATCH`); what became of
    each that this call settled (another process may have settled some first)."""
    moment = moment or now()
    outcomes: dict[str, HoldOutcome] = {}
    for reservation_id in stale_holds(db, moment):
        outcome = settle_hold(db, reservation_id, moment)
        if outcome is not None:
            outcomes[reservation_id] = outcome
    return outcomes


def settle_hold(
    db: Database, reservation_id: str, moment: datetime | None = None
) -> HoldOutcome | None:
    """Settle one hold if it is still stale at ``moment``; None if it is not (settled
    meanwhile, a live lease, or a queued job's hold)."""
    moment = moment or now()
    with db.read() as conn:
        job_id = conn.execute(
            sa.select(jobs.c.id).where(jobs.c.reservation_id == reservation_id).limit(1)
        ).scalar()
    with db.write() as conn:
        job = None
        if job_id is not None:  # the job row first, as finishing a job locks them
            job = conn.execute(
                sa.select(jobs.c.id, jobs.c.status, jobs.c.kind, jobs.c.response_json)
                .where(jobs.c.id == job_id)
                .with_for_update()
            ).first()
        hold = conn.execute(
            sa.select(ledger.c.state, ledger.c.expires_at, ledger.c.created_at)
            .where(ledger.c.reservation_id == reservation_id)
            .with_for_update()
        ).first()
        if hold is None or hold.state != "reserved":
            return None
        if job is not None and job.status == "running":
            if job.kind is None or hold.expires_at is None or aware(hold.expires_at) >= moment:
                return None  # a queued job's (its sweep's), or a lease renewed meanwhile
            end_job(conn, job.id, "failed", interrupted_response(job.id), "interrupted")
            return "interrupted"
        if not _is_stale(hold.expires_at, hold.created_at, moment):
            return None
        charged = job is not None and charged_for(job.kind, job.status, job.response_json)
        if charged:
            return "captured" if settle(conn, reservation_id, "captured") else None
        return "released" if settle(conn, reservation_id, "released") else None


def _past_lease(moment: datetime) -> sa.ColumnElement[bool]:
    """Past its lease; or, without one, old and held by no running queued job (whose
    sweep governs it)."""
    held_by_queued_job = (
        sa.exists()
        .where(
            jobs.c.reservation_id == ledger.c.reservation_id,
            jobs.c.status == "running",
            jobs.c.kind.is_(None),
        )
        .correlate(ledger)
    )
    return sa.or_(
        ledger.c.expires_at < moment,
        sa.and_(
            ledger.c.expires_at.is_(None),
            ledger.c.created_at < moment - UNLEASED_HOLD_AGE,
            ~held_by_queued_job,
        ),
    )


def _is_stale(expires_at: datetime | None, created_at: datetime, moment: datetime) -> bool:
    if expires_at is not None:
        return aware(expires_at) < moment
    return aware(created_at) < moment - UNLEASED_HOLD_AGE


# ------------------------------------------------------------------------------ audit


@dataclass
class Audit:
    """What :func:`audit` found; ``ok`` when every check held."""

    captured_units: int = 0
    units_by_cause: Counter[str] = field(default_factory=Counter)
    holds: Counter[str] = field(default_factory=Counter)
    paid_requests: Counter[str] = field(default_factory=Counter)
    violations: Counter[str] = field(default_factory=Counter)
    listed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations and self.captured_units == sum(self.units_by_cause.values())

    def violate(self, check: str, **what: Any) -> None:
        self.violations[check] += 1
        if sum(1 for item in self.listed if item["check"] == check) < MAX_LISTED:
            self.listed.append({"check": check, **what})

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "units_captured": self.captured_units,
            "units_captured_by_cause": dict(sorted(self.units_by_cause.items())),
            "holds": dict(sorted(self.holds.items())),
            "paid_requests": dict(sorted(self.paid_requests.items())),
            "violations": dict(sorted(self.violations.items())),
            "listed": self.listed,
        }


def audit(db: Database, moment: datetime | None = None) -> Audit:
    """Check the whole database (read only) at ``moment``:

    - every unit captured is a charged job's (completed queued job; synchronous call that
      delivered a roster, a diagnosed infeasibility or another answer, counted by its
      operation), a re-plan's or a recommendation's from before they kept jobs, or a row
      whose job is gone (purged after its retention, or kept before synchronous
      solves were recorded as jobs); a captured hold of a job not charged is a violation,
      and so is a charged job whose hold is not captured, or a charged synchronous job
      of an operation no declaration names (``unknown_operation``, its units uncounted);
    - no hold is reserved past its lease, nor without a lease unless a queued job that is
      running holds it;
    - no account has a negative free quota or balance.

    Paid requests (x402, mpp) are paid per request in money and never touch the ledger:
    they are counted by the state of their claim, not in units.
    """
    moment = moment or now()
    found = Audit()
    with db.read() as conn:
        if db.postgres:  # one snapshot for every query, while the service writes
            conn.execution_options(isolation_level="REPEATABLE READ")
        _audit_jobs(conn, found)
        _audit_holds(conn, found, moment)
        _audit_accounts(conn, found)
        for state, count in conn.execute(
            sa.select(payments.c.state, sa.func.count()).group_by(payments.c.state)
        ):
            found.paid_requests[str(state)] = int(count)
    return found


def _audit_jobs(conn: Connection, found: Audit) -> None:
    """Each job's hold against how the job ended; the captured units by cause."""
    linked = (
        sa.select(
            jobs.c.id,
            jobs.c.status,
            jobs.c.kind,
            jobs.c.error_code,
            jobs.c.operation,
            ledger.c.state,
            ledger.c.units,
        )
        .select_from(jobs.outerjoin(ledger, ledger.c.reservation_id == jobs.c.reservation_id))
        .where(jobs.c.reservation_id.is_not(None))
    )
    for row in conn.execute(linked):
        if row.state is None:
            found.violate("job_without_hold", job_id=row.id)
            continue
        if row.status == "running":
            if row.state != "reserved":
                found.violate("running_job_settled", job_id=row.id, hold=row.state)
            continue
        response = None
        if row.kind == "sync" and row.error_code == "no_solution":
            response = conn.execute(
                sa.select(jobs.c.response_json).where(jobs.c.id == row.id)
            ).scalar()
        charged = charged_for(row.kind, row.status, response)
        expected = "captured" if charged else "released"
        if row.state != expected:
            found.violate(
                "job_hold_mismatch",
                job_id=row.id,
                job=row.status,
                hold=row.state,
                expected=expected,
            )
        if charged and row.state == "captured":
            cause = _cause(row.kind, row.operation)
            if cause is None:  # its units are left uncounted, so the audit is not ok
                found.violate("unknown_operation", job_id=row.id, operation=row.operation)
            else:
                found.units_by_cause[cause] += int(row.units)
    job_ids = sa.select(jobs.c.reservation_id).where(jobs.c.reservation_id.is_not(None))
    unlinked = (
        sa.select(ledger.c.purpose, sa.func.sum(ledger.c.units))
        .where(ledger.c.state == "captured", ledger.c.reservation_id.not_in(job_ids))
        .group_by(ledger.c.purpose)
    )
    for purpose, units in conn.execute(unlinked):
        cause = {"replan": "replans", "recommend": "recommendations"}.get(purpose, "jobs_gone")
        found.units_by_cause[cause] += int(units or 0)
    total = conn.execute(
        sa.select(sa.func.coalesce(sa.func.sum(ledger.c.units), 0)).where(
            ledger.c.state == "captured"
        )
    ).scalar()
    found.captured_units = int(total or 0)


def _cause(kind: str | None, operation: str | None) -> str | None:
    """What a charged job's units are counted under: a queued job's, or a synchronous
    call's by its operation's declaration (``shiftsched.operations``; a row from before
    operations were recorded: a solve's). None for an operation no declaration names:
    never counted as another's."""
    if kind != "sync":
        return "queued_jobs"
    try:
        return by_name(operation or "solve").counted_as
    except LookupError:
        return None


def _audit_holds(conn: Connection, found: Audit, moment: datetime) -> None:
    """Reserved holds: none past its lease; none without one unless a running queued job
    holds it."""
    running_queued = sa.select(jobs.c.reservation_id).where(
        jobs.c.status == "running", jobs.c.kind.is_(None), jobs.c.reservation_id.is_not(None)
    )
    for state, count in conn.execute(
        sa.select(ledger.c.state, sa.func.count()).group_by(ledger.c.state)
    ):
        found.holds[str(state)] = int(count)
    past = sa.select(ledger.c.reservation_id, ledger.c.expires_at).where(
        ledger.c.state == "reserved", ledger.c.expires_at < moment
    )
    for reservation_id, expires_at in conn.execute(past):
        found.violate(
            "hold_past_lease",
            reservation_id=reservation_id,
            expires_at=aware(expires_at).isoformat(),
        )
    unleased = sa.select(ledger.c.reservation_id).where(
        ledger.c.state == "reserved",
        ledger.c.expires_at.is_(None),
        ledger.c.reservation_id.not_in(running_queued),
    )
    for reservation_id in conn.execute(unleased).scalars():
        found.violate("hold_without_lease", reservation_id=reservation_id)


def _audit_accounts(conn: Connection, found: Audit) -> None:
    negative = sa.select(
        accounts.c.id, accounts.c.free_quota_remaining, accounts.c.balance_units
    ).where(sa.or_(accounts.c.free_quota_remaining < 0, accounts.c.balance_units < 0))
    for row in conn.execute(negative):
        found.violate(
            "negative_balance",
            account_id=row.id,
            free_quota_remaining=int(row.free_quota_remaining),
            balance_units=int(row.balance_units),
        )
