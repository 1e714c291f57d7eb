"""Job records: queued solves while they run, and finished solves kept to be polled.

Why apart: a job outlives the request that started it and is written by the queue
worker, not the API. Ending a job settles its reservation in the same transaction
(``bento.store.billing.settle``), so a job is never finished without its units
captured or released, nor settled twice.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bento.store.billing import settle
from bento.store.database import Database
from bento.store.rows import Job, JobStatus, job_from_row, now, objective_of, require_account
from bento.tables import jobs


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

    def running_jobs(self) -> list[Job]:
        """Every job still running, oldest first: what a restarted service must account for."""
        query = sa.select(jobs).where(jobs.c.status == "running").order_by(jobs.c.created_at)
        with self.db.read() as conn:
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
            "updated_at": now(),
        }
        with self.db.write() as conn:
            changed = conn.execute(
                jobs.update().where(jobs.c.id == job_id, jobs.c.status == "running").values(values)
            )
            if changed.rowcount != 1:
                return False
            reservation_id = conn.execute(
                sa.select(jobs.c.reservation_id).where(jobs.c.id == job_id)
            ).scalar_one()
            if reservation_id is not None:
                settle(conn, reservation_id, "captured" if status == "completed" else "released")
            return True

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
        moment = now()
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
            "created_at": moment,
            "updated_at": moment,
        }
        with self.db.write() as conn:
            require_account(conn, account_id)
            conn.execute(jobs.insert().values(values))
            return _require_job(conn, account_id, job_id)


def _require_job(conn: Connection, account_id: str, job_id: str) -> Job:
    row = conn.execute(
        sa.select(jobs).where(jobs.c.id == job_id, jobs.c.account_id == account_id)
    ).one()
    return job_from_row(row)
