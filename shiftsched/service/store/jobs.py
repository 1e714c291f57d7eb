"""Job records: queued solves while they run, every call paid with a key from its hold
to its settlement, and finished ones kept to be polled.

Why apart: a job outlives the request that started it and is written by the queue
worker, not the API. Ending a job settles its reservation in the same transaction
(``shiftsched.service.store.billing.settle``), so a job is never finished without its units
captured or released, nor settled twice.

Progress and stopping live here too, because any replica of the service must see them:
the process solving a job writes its progress record (:meth:`Jobs.record_progress`) and
reads whether its client asked to stop (:meth:`Jobs.stop_requested`); the API sets that
request (:meth:`Jobs.stop_job`), or fails a job that has not started solving at once.

A job whose consumer died is run once more (``shiftsched.service.solving.jobs``, retry policy): each
run has an attempt number, and what a run writes (its progress, its end) is conditional on the
job still being on that attempt, so a run that was given up on and comes back late can
neither overwrite the new run's progress nor end the job a second time.
:meth:`Jobs.settle_orphan` decides, in one locked transaction, between running it again
and failing it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from shiftsched.service.store.billing import follow_job, settle
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import (
    Job,
    JobKind,
    JobStatus,
    aware,
    job_from_row,
    now,
    objective_of,
    require_account,
)
from shiftsched.service.store.tables import JOB_NAME_LENGTH, jobs

_BODIES = frozenset({"request_json", "response_json", "progress_json"})

StopOutcome = Literal["finished", "cancelled", "stopping"]
"""What a stop request did: nothing (the job had ended), ended the job at once (it had not
started solving), or asked the process solving it to stop."""
OrphanOutcome = Literal["rerun", "interrupted", "cancelled"]
"""What became of a job whose consumer died: queued for another run (the caller enqueues
it), failed ``interrupted`` (no run left), or failed ``cancelled`` (its client had asked
to stop it); the last two released its units."""


class Jobs:
    """The job records of every account."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
        parse: str | None = None,
        call: str | None = None,
        operation: str | None = None,
        name: str | None = None,
    ) -> Job:
        """Record a keyed call as running; its units were reserved under `reservation_id`.
        ``key_id``, ``size``, ``operation`` (solve, plan, replan, ...) and ``name`` are for
        people (the dashboard's list of jobs); ``parse`` and ``call`` name the engine's
        parser of ``request_json`` and the function that solves it (module:function;
        None: a v1 solve).

        ``kind`` None is a queued job: its hold loses its lease here, in the same
        transaction, and follows the job (the consumers' sweep settles it). ``"sync"`` is a
        synchronous solve recorded before it solves: its hold keeps its lease, and the
        reconciler (``shiftsched.service.store.reconcile``) ends the job if the solve never comes
        back.
        """
        return self._insert_job(
            account_id,
            job_id or uuid.uuid4().hex,
            "running",
            units_reserved,
            reservation_id,
            request_json,
            key_id=key_id,
            size=size,
            kind=kind,
            parse=parse,
            call=call,
            operation=operation,
            name=name,
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

    def count_by_status(self) -> dict[str, int]:
        """How many job records there are in each status that has any."""
        query = sa.select(jobs.c.status, sa.func.count()).group_by(jobs.c.status)
        with self.db.read() as conn:
            return {str(status): int(count) for status, count in conn.execute(query)}

    def purge_finished_jobs(self, finished_before: datetime) -> int:
        """Delete the jobs that ended before ``finished_before``; running ones stay.
        Returns how many were deleted."""
        query = jobs.delete().where(jobs.c.status != "running", jobs.c.updated_at < finished_before)
        with self.db.write() as conn:
            return int(conn.execute(query).rowcount)

    def get_job(self, account_id: str, job_id: str) -> Job | None:
        """The job, only if it belongs to the account (others' jobs are invisible)."""
        with self.db.read() as conn:
            row = conn.execute(
                sa.select(jobs).where(jobs.c.id == job_id, jobs.c.account_id == account_id)
            ).first()
        return job_from_row(row) if row is not None else None

    def find_job(self, job_id: str) -> Job | None:
        """The job whatever its account: for the queue worker, never for a caller."""
        with self.db.read() as conn:
            row = conn.execute(sa.select(jobs).where(jobs.c.id == job_id)).first()
        return job_from_row(row) if row is not None else None

    def running_jobs(self, *, bodies: bool = True) -> list[Job]:
        """Every queued job still running, oldest first: what a restarted service must
        account for. A synchronous solve's record is not one (its lease governs it).

        ``bodies=False`` leaves the request, answer and progress records out (None): a
        caller that looks at every running job every few seconds (the consumers' sweep for
        dead runs) needs only their state, and a large request weighs a megabyte.
        """
        columns = [
            column if bodies or column.name not in _BODIES else sa.null().label(column.name)
            for column in jobs.c
        ]
        query = (
            sa.select(*columns)
            .where(jobs.c.status == "running", jobs.c.kind.is_(None))
            .order_by(jobs.c.created_at)
        )
        with self.db.read() as conn:
            return [job_from_row(row) for row in conn.execute(query)]

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
        """End a running job once and settle its reservation in the same transaction:
        captured when completed, released when failed (``charged`` overrides that: a
        synchronous solve's diagnosed infeasibility is failed yet charged). False if it
        was not running, or (``attempt`` given) if it is no longer on that run: a run
        given up on never ends the job that was handed to another."""
        if status not in ("completed", "failed"):
            raise ValueError(f"a job ends completed or failed, not {status!r}")
        with self.db.write() as conn:
            return end_job(conn, job_id, status, response_json, error_code, attempt, charged)

    def abandon_sync_job(self, job_id: str) -> bool:
        """Forget a synchronous solve that delivered nothing (the solvers were busy, the
        process died, it ran out of time): its record goes and its units are released, in
        one transaction. Only a charge needs a job to trace to; an undelivered solve is an
        error answer, as before it was recorded. False if there was no such running record."""
        query = sa.select(jobs.c.reservation_id).where(
            jobs.c.id == job_id, jobs.c.status == "running", jobs.c.kind == "sync"
        )
        with self.db.write() as conn:
            row = conn.execute(query.with_for_update()).first()
            if row is None:
                return False
            conn.execute(jobs.delete().where(jobs.c.id == job_id))
            if row.reservation_id is not None:
                settle(conn, row.reservation_id, "released")
            return True

    def record_progress(self, job_id: str, progress: Any, attempt: int | None = None) -> bool:
        """Replace a running job's progress record (JSON data) and stamp its heartbeat;
        False if it has ended or (``attempt`` given) moved on to another run, which
        leaves the record as it was."""
        query = (
            jobs.update()
            .where(jobs.c.id == job_id, jobs.c.status == "running", *_on_attempt(attempt))
            .values(progress_json=progress, progress_at=now())
        )
        with self.db.write() as conn:
            return bool(conn.execute(query).rowcount == 1)

    def stop_requested(self, job_id: str, attempt: int | None = None) -> bool:
        """Whether the process solving this job should stop: its client asked to, the
        job has ended meanwhile (cancelled before it started, interrupted, purged), or
        (``attempt`` given) it was handed to another run."""
        query = sa.select(jobs.c.status, jobs.c.stop_requested_at, jobs.c.attempt).where(
            jobs.c.id == job_id
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        if row is None or row.status != "running" or row.stop_requested_at is not None:
            return True
        return attempt is not None and (row.attempt or 1) != attempt

    def settle_orphan(
        self,
        job_id: str,
        attempt: int,
        *,
        max_attempts: int,
        failed_response: Callable[[str], Any],
        silent_since: datetime | None = None,
    ) -> OrphanOutcome | None:
        """Decide, once, what becomes of a running job whose run ``attempt`` lost its
        consumer; None (nothing changed) if the job ended, moved on to another run, or
        its run was heard from after all: it wrote progress after ``silent_since``, or
        (None: it was never heard from) wrote any.

        In one transaction holding the job's row, so consumers and replicas that all
        notice the same death agree on one outcome: a stop its client asked for ends it
        ``cancelled``; a run short of ``max_attempts`` hands it to the next run (attempt
        + 1, progress cleared so it shows as queued, reservation kept: the caller then
        enqueues it); otherwise it fails ``interrupted``. Failing settles the reservation
        like :meth:`finish_job`; ``failed_response(code)`` is the answer to store.
        """
        query = sa.select(jobs).where(jobs.c.id == job_id)
        with self.db.write() as conn:
            row = conn.execute(query.with_for_update()).first()
            if row is None or row.status != "running" or (row.attempt or 1) != attempt:
                return None
            heard = None if row.progress_at is None else aware(row.progress_at)
            if (heard is None) != (silent_since is None):
                return None
            if heard is not None and silent_since is not None and heard > silent_since:
                return None
            if row.stop_requested_at is not None or attempt >= max_attempts:
                code: OrphanOutcome = (
                    "cancelled" if row.stop_requested_at is not None else "interrupted"
                )
                end_job(conn, job_id, "failed", failed_response(code), code, attempt)
                return code
            conn.execute(
                jobs.update()
                .where(jobs.c.id == job_id)
                .values(attempt=attempt + 1, progress_json=None, progress_at=None, updated_at=now())
            )
            return "rerun"

    def stop_job(
        self, account_id: str, job_id: str, cancelled_response: Any
    ) -> tuple[Job, StopOutcome] | None:
        """A client's request to stop its job, decided in one transaction (None: no such
        job for this account).

        An ended job is left as it is (``finished``). A running job with no progress
        record has not started solving: it fails at once with ``cancelled_response``
        (error code ``cancelled``) and its units are released (``cancelled``). A job
        that is solving gets its stop request recorded, once (``stopping``); the process
        solving it sees the request and ends the job itself, settling it once.
        """
        query = sa.select(jobs).where(jobs.c.id == job_id, jobs.c.account_id == account_id)
        with self.db.write() as conn:
            row = conn.execute(query.with_for_update()).first()
            if row is None:
                return None
            outcome: StopOutcome = "finished"
            if row.status == "running" and row.progress_json is None and row.kind is None:
                # A synchronous solve's record is never cancelled: it is being delivered.
                end_job(conn, job_id, "failed", cancelled_response, "cancelled")
                outcome = "cancelled"
            elif row.status == "running":
                if row.stop_requested_at is None:
                    conn.execute(
                        jobs.update().where(jobs.c.id == job_id).values(stop_requested_at=now())
                    )
                outcome = "stopping"
            return _require_job(conn, account_id, job_id), outcome

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
        kind: JobKind | None = None,
        parse: str | None = None,
        call: str | None = None,
        operation: str | None = None,
        name: str | None = None,
    ) -> Job:
        moment = now()
        values = {
            "kind": kind,
            "parse": parse,
            "call": call,
            "operation": operation,
            "name": None if name is None else name[:JOB_NAME_LENGTH],
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
            "created_at": moment,
            "updated_at": moment,
        }
        with self.db.write() as conn:
            require_account(conn, account_id)
            conn.execute(jobs.insert().values(values))
            if reservation_id is not None and status == "running" and kind is None:
                follow_job(conn, reservation_id)
            return _require_job(conn, account_id, job_id)


def end_job(
    conn: Connection,
    job_id: str,
    status: Literal["completed", "failed"],
    response_json: Any,
    error_code: str | None,
    attempt: int | None = None,
    charged: bool | None = None,
) -> bool:
    """End a running job (on run ``attempt``, when given) and settle its reservation, in
    the caller's transaction: captured if ``charged`` (by default: if completed)."""
    values = {
        "status": status,
        "response_json": response_json,
        "error_code": error_code,
        "objective": objective_of(response_json),
        "updated_at": now(),
    }
    changed = conn.execute(
        jobs.update()
        .where(jobs.c.id == job_id, jobs.c.status == "running", *_on_attempt(attempt))
        .values(values)
    )
    if changed.rowcount != 1:
        return False
    reservation_id = conn.execute(
        sa.select(jobs.c.reservation_id).where(jobs.c.id == job_id)
    ).scalar_one()
    if charged is None:
        charged = status == "completed"
    if reservation_id is not None:
        settle(conn, reservation_id, "captured" if charged else "released")
    return True


def _on_attempt(attempt: int | None) -> list[sa.ColumnElement[bool]]:
    """The condition that the job is on run ``attempt`` (none when not given); a row
    written before runs were counted is on its first."""
    if attempt is None:
        return []
    return [sa.func.coalesce(jobs.c.attempt, 1) == attempt]


def _require_job(conn: Connection, account_id: str, job_id: str) -> Job:
    row = conn.execute(
        sa.select(jobs).where(jobs.c.id == job_id, jobs.c.account_id == account_id)
    ).one()
    return job_from_row(row)
