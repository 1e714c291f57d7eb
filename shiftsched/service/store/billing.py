"""The unit ledger: reserving a solve's units, then capturing or releasing them once.

Why apart: this is where money moves (docs/semantics.md, "When a solve is charged"). A
solve first *reserves* its units, taken from the free quota first and then from the
prepaid balance, and later settles exactly once: *capture* keeps them, *release* gives
both parts back. A reservation locks the account row before reading it (SELECT ... FOR
UPDATE on PostgreSQL, BEGIN IMMEDIATE on SQLite), so concurrent requests can never
overspend; settling is a conditional state change of the ledger row, so a unit is never
charged or refunded twice. Balances also carry CHECK (>= 0) as a last line of defence.

A hold is bounded in time: a synchronous solve's carries a lease (``expires_at``, its
deadline plus a margin), a queued job's follows its job once recorded; a hold past its
lease is settled by the reconciler (``shiftsched.service.store.reconcile``), so a crash or an outage
never keeps units held for good.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Connection

from shiftsched.service import metrics
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import (
    Reservation,
    ReservationState,
    UnknownAccount,
    fetch_account,
    now,
    require_account,
    reservation_from_row,
)
from shiftsched.service.store.tables import accounts, ledger


class Ledger:
    """Reservations of units and the free quota and balance they draw on."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def reserve(
        self,
        account_id: str,
        units: int,
        reservation_id: str,
        *,
        lease_seconds: float | None = None,
        purpose: str | None = None,
    ) -> Reservation | None:
        """Hold `units` (free quota first, then balance); None, changing nothing, if short.

        ``lease_seconds``: how long the hold may stay unsettled before the reconciler
        settles it (None: no lease, the hold follows a job); ``purpose`` says what it is
        for (solve, job, replan, recommend), for the reconciliation report.

        Reserving an id again for the same account and units returns the existing
        reservation instead of charging twice (a retried request); otherwise ValueError.
        """
        if units <= 0:
            raise ValueError("units must be a positive integer")
        _check_reservation_id(reservation_id)
        expires_at = None if lease_seconds is None else now() + timedelta(seconds=lease_seconds)
        try:
            with self.db.write() as conn:
                return _reserve(conn, account_id, units, reservation_id, expires_at, purpose)
        except exc.IntegrityError as error:
            if self.get_reservation(reservation_id) is None:
                raise
            # The same id was reserved concurrently for another account.
            raise ValueError(f"reservation id {reservation_id!r} is already in use") from error

    def capture(self, reservation_id: str) -> bool:
        """Keep the reserved units (the solve was delivered); True only the first time."""
        with self.db.write() as conn:
            return settle(conn, reservation_id, "captured")

    def release(self, reservation_id: str) -> bool:
        """Give the free and balance parts back; True only the first time, never after capture."""
        with self.db.write() as conn:
            return settle(conn, reservation_id, "released")

    def renew_lease(self, reservation_id: str, seconds: float) -> bool:
        """Set a hold's lease to end ``seconds`` from now; False if it is no longer held."""
        query = (
            ledger.update()
            .where(ledger.c.reservation_id == reservation_id, ledger.c.state == "reserved")
            .values(expires_at=now() + timedelta(seconds=seconds))
        )
        with self.db.write() as conn:
            return bool(conn.execute(query).rowcount == 1)

    def get_reservation(self, reservation_id: str) -> Reservation | None:
        with self.db.read() as conn:
            return _fetch_reservation(conn, reservation_id)

    def usage(self, account_id: str) -> tuple[int, int, int]:
        """(free_quota_remaining, balance_units, available_units) of the account."""
        with self.db.read() as conn:
            account = fetch_account(conn, account_id)
        if account is None:
            raise UnknownAccount(account_id)
        return account.free_quota_remaining, account.balance_units, account.available_units

    def held_units(self, account_id: str) -> int:
        """Units of the account in reservations not yet settled (solves under way): they
        come back if those solves fail, so a solve short of units only by them may be
        retried, where one short of the account's whole balance may not."""
        query = sa.select(sa.func.coalesce(sa.func.sum(ledger.c.units), 0)).where(
            ledger.c.account_id == account_id, ledger.c.state == "reserved"
        )
        with self.db.read() as conn:
            return int(conn.execute(query).scalar_one())


def settle(conn: Connection, reservation_id: str, state: ReservationState) -> bool:
    """Move a reserved ledger row to `state` once, in the caller's transaction (a job
    ends and settles together); a release refunds both parts."""
    reservation = _fetch_reservation(conn, reservation_id, lock=True)
    if reservation is None or reservation.state != "reserved":
        return False
    changed = conn.execute(
        ledger.update()
        .where(ledger.c.reservation_id == reservation_id, ledger.c.state == "reserved")
        .values(state=state, settled_at=now())
    )
    if changed.rowcount != 1:
        return False
    # Counted inside the caller's transaction: one rolled back after this (a store fault
    # later in a job's finish) would count units that were not kept; rare and small.
    if state == "captured":
        metrics.units_consumed(reservation.units)
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


def _fetch_reservation(
    conn: Connection, reservation_id: str, *, lock: bool = False
) -> Reservation | None:
    query = sa.select(ledger).where(ledger.c.reservation_id == reservation_id)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return reservation_from_row(row) if row is not None else None


def _reserve(
    conn: Connection,
    account_id: str,
    units: int,
    reservation_id: str,
    expires_at: datetime | None,
    purpose: str | None,
) -> Reservation | None:
    account = require_account(conn, account_id, lock=True)
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
            created_at=now(),
            expires_at=expires_at,
            purpose=purpose,
        )
    )
    return Reservation(reservation_id, account_id, units, free_part, balance_part, "reserved")


def _check_reservation_id(reservation_id: str) -> None:
    if not 1 <= len(reservation_id) <= 128:
        raise ValueError("a reservation id has 1 to 128 characters")


def follow_job(conn: Connection, reservation_id: str) -> None:
    """A queued job now holds the reservation (in the caller's transaction, which records
    the job): its lease goes, and the job's own sweep for dead runs
    (``shiftsched.service.solving.jobs``) settles it from now on, so the reconciler and the sweep
    never both judge one hold."""
    conn.execute(
        ledger.update()
        .where(ledger.c.reservation_id == reservation_id, ledger.c.state == "reserved")
        .values(expires_at=None)
    )
