"""Progress records, stop requests and runs of jobs, on SQLite and PostgreSQL.

A stop decides in one transaction: an ended job is left alone, a job not yet solving
fails ``cancelled`` with its units released, a solving job gets its request recorded and
is ended by its solver later, settling once. A job whose run died is handed to one more
run, then failed; a run given up on can no longer write to the job or end it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import sqlalchemy as sa

from shiftsched.service.store import Store
from shiftsched.service.store.rows import now

REQUEST = {"start_date": "2026-03-02", "end_date": "2026-03-08", "employees": [{"id": "e1"}]}
PROGRESS = {
    "elapsed_seconds": 1.5,
    "best_objective": 12.0,
    "best_bound": 3.0,
    "solutions": 1,
    "improvements": [{"elapsed_seconds": 1.2, "objective": 12.0}],
}
CANCELLED = {"job_id": "x", "status": "failed", "solution": None, "error": {"code": "cancelled"}}


def failed(code: str) -> dict[str, Any]:
    return {"job_id": "x", "status": "failed", "solution": None, "error": {"code": code}}


def _job_holding(store: Store, units: int = 4) -> tuple[str, str]:
    """An account with 10 free units and a running job holding ``units`` of them."""
    account = store.accounts.create_account("Acme", free_quota=10)
    reservation = f"job-{account.id}"
    assert store.ledger.reserve(account.id, units, reservation) is not None
    job = store.jobs.create_job(
        account.id, REQUEST, units_reserved=units, reservation_id=reservation
    )
    return account.id, job.id


def test_progress_is_recorded_while_running_only(store: Store) -> None:
    account_id, job_id = _job_holding(store)
    job = store.jobs.get_job(account_id, job_id)
    assert job is not None and job.progress is None and job.stop_requested_at is None
    assert store.jobs.record_progress(job_id, PROGRESS) is True
    job = store.jobs.get_job(account_id, job_id)
    assert job is not None and job.progress == PROGRESS
    assert store.jobs.finish_job(job_id, "failed", error_code="no_solution")
    assert store.jobs.record_progress(job_id, {**PROGRESS, "solutions": 9}) is False
    job = store.jobs.get_job(account_id, job_id)
    assert job is not None and job.progress == PROGRESS


def test_a_job_not_yet_solving_is_cancelled_at_once_and_costs_nothing(store: Store) -> None:
    account_id, job_id = _job_holding(store)
    assert store.ledger.usage(account_id)[2] == 6
    stopped = store.jobs.stop_job(account_id, job_id, CANCELLED)
    assert stopped is not None
    job, outcome = stopped
    assert outcome == "cancelled"
    assert (job.status, job.error_code, job.response_json) == ("failed", "cancelled", CANCELLED)
    assert store.ledger.usage(account_id)[2] == 10
    assert store.jobs.stop_requested(job_id) is True  # a solver that took it anyway stops
    assert store.jobs.finish_job(job_id, "completed", response_json={}) is False
    again = store.jobs.stop_job(account_id, job_id, CANCELLED)
    assert again is not None and again[1] == "finished" and again[0] == job
    assert store.ledger.usage(account_id)[2] == 10


def test_a_solving_job_records_the_stop_once_and_settles_once(store: Store) -> None:
    account_id, job_id = _job_holding(store)
    store.jobs.record_progress(job_id, PROGRESS)
    assert store.jobs.stop_requested(job_id) is False
    first = store.jobs.stop_job(account_id, job_id, CANCELLED)
    assert first is not None and first[1] == "stopping"
    job = first[0]
    assert job.status == "running" and job.stop_requested_at is not None
    assert store.jobs.stop_requested(job_id) is True
    second = store.jobs.stop_job(account_id, job_id, CANCELLED)
    assert second is not None and second[1] == "stopping"
    assert second[0].stop_requested_at == job.stop_requested_at
    assert store.ledger.usage(account_id)[2] == 6  # still held: the solver ends the job

    assert store.jobs.finish_job(job_id, "completed", response_json={"status": "completed"})
    assert store.jobs.finish_job(job_id, "failed", error_code="cancelled") is False
    assert store.ledger.usage(account_id)[2] == 6  # captured once
    ended = store.jobs.stop_job(account_id, job_id, CANCELLED)
    assert ended is not None and ended[1] == "finished" and ended[0].status == "completed"
    assert store.ledger.usage(account_id)[2] == 6


def test_a_stop_is_only_for_the_jobs_own_account(store: Store) -> None:
    _, job_id = _job_holding(store)
    other = store.accounts.create_account("Other")
    assert store.jobs.stop_job(other.id, job_id, CANCELLED) is None
    assert store.jobs.stop_job(other.id, "0" * 32, CANCELLED) is None
    assert store.jobs.stop_requested(job_id) is False
    assert store.jobs.stop_requested("0" * 32) is True  # gone: nothing left to solve for


OLD_JOBS = [
    """CREATE TABLE accounts (id VARCHAR(64) PRIMARY KEY, name VARCHAR(200) NOT NULL,
       tier VARCHAR(16) NOT NULL, free_quota_remaining BIGINT NOT NULL,
       balance_units BIGINT NOT NULL, created_at TIMESTAMP NOT NULL)""",
    """CREATE TABLE jobs (id VARCHAR(32) PRIMARY KEY, account_id VARCHAR(64) NOT NULL
       REFERENCES accounts(id), status VARCHAR(16) NOT NULL, units_reserved BIGINT NOT NULL,
       reservation_id VARCHAR(128), request_json JSON NOT NULL, response_json JSON,
       error_code VARCHAR(64), created_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL,
       key_id VARCHAR(32), size BIGINT, objective FLOAT)""",
    "INSERT INTO accounts VALUES ('a1', 'Old Co', 'pro', 5, 0, CURRENT_TIMESTAMP)",
    """INSERT INTO jobs (id, account_id, status, units_reserved, request_json, created_at,
       updated_at) VALUES ('j1', 'a1', 'running', 0, '{}', CURRENT_TIMESTAMP,
       CURRENT_TIMESTAMP)""",
]


def test_an_older_jobs_table_gains_the_progress_columns(database_url: str) -> None:
    engine = sa.create_engine(database_url)
    with engine.begin() as conn:
        for statement in OLD_JOBS:
            conn.execute(sa.text(statement))
    engine.dispose()
    with Store(database_url) as store:
        store.db.migrate()
        job = store.jobs.get_job("a1", "j1")
        assert job is not None and job.progress is None and job.stop_requested_at is None
        assert (job.attempt, job.progress_at) == (1, None)  # a row from before: its first run
        assert store.jobs.record_progress("j1", PROGRESS, attempt=1)
        assert store.jobs.settle_orphan("j1", 2, max_attempts=2, failed_response=failed) is None
        stopped = store.jobs.stop_job("a1", "j1", CANCELLED)
        assert stopped is not None and stopped[1] == "stopping"


def test_a_dead_run_is_handed_on_once_and_its_late_writes_are_ignored(store: Store) -> None:
    account_id, job_id = _job_holding(store)
    reservation = f"job-{account_id}"
    assert store.jobs.record_progress(job_id, PROGRESS, attempt=1)
    job = store.jobs.get_job(account_id, job_id)
    assert job is not None and job.progress_at is not None
    beat = job.progress_at

    early = beat - timedelta(seconds=1)  # it has beaten since: alive, nothing changes
    assert (
        store.jobs.settle_orphan(
            job_id, 1, max_attempts=2, failed_response=failed, silent_since=early
        )
        is None
    )
    assert store.jobs.settle_orphan(job_id, 1, max_attempts=2, failed_response=failed) is None
    silent = beat + timedelta(seconds=1)
    assert (
        store.jobs.settle_orphan(
            job_id, 1, max_attempts=2, failed_response=failed, silent_since=silent
        )
        == "rerun"
    )
    # Every other replica that noticed the same death finds it handed on already.
    assert (
        store.jobs.settle_orphan(
            job_id, 1, max_attempts=2, failed_response=failed, silent_since=silent
        )
        is None
    )
    rerun = store.jobs.get_job(account_id, job_id)
    assert rerun is not None and (rerun.status, rerun.attempt) == ("running", 2)
    assert (rerun.progress, rerun.progress_at) == (None, None)  # queued again
    assert store.ledger.get_reservation(reservation).state == "reserved"  # type: ignore[union-attr]
    assert store.ledger.usage(account_id)[2] == 6

    # The first run comes back late (frozen, not killed): it writes and ends nothing.
    assert store.jobs.stop_requested(job_id, attempt=1) is True
    assert store.jobs.stop_requested(job_id, attempt=2) is False
    assert store.jobs.record_progress(job_id, PROGRESS, attempt=1) is False
    assert store.jobs.finish_job(job_id, "completed", response_json={}, attempt=1) is False
    assert store.ledger.get_reservation(reservation).state == "reserved"  # type: ignore[union-attr]

    assert store.jobs.record_progress(job_id, PROGRESS, attempt=2)
    assert store.jobs.finish_job(
        job_id, "completed", response_json={"status": "completed"}, attempt=2
    )
    assert store.ledger.get_reservation(reservation).state == "captured"  # type: ignore[union-attr]
    assert store.ledger.usage(account_id)[2] == 6
    assert store.jobs.settle_orphan(job_id, 2, max_attempts=2, failed_response=failed) is None


def test_a_second_dead_run_fails_the_job_and_releases_its_units(store: Store) -> None:
    account_id, job_id = _job_holding(store)
    assert store.jobs.settle_orphan(job_id, 1, max_attempts=2, failed_response=failed) == "rerun"
    assert store.jobs.record_progress(job_id, PROGRESS, attempt=2)
    silent = now() + timedelta(seconds=1)
    outcome = store.jobs.settle_orphan(
        job_id, 2, max_attempts=2, failed_response=failed, silent_since=silent
    )
    assert outcome == "interrupted"
    job = store.jobs.get_job(account_id, job_id)
    assert job is not None and (job.status, job.error_code) == ("failed", "interrupted")
    assert job.as_response()["error"]["code"] == "interrupted"
    assert store.ledger.get_reservation(f"job-{account_id}").state == "released"  # type: ignore[union-attr]
    assert store.ledger.usage(account_id)[2] == 10
    assert store.jobs.finish_job(job_id, "completed", response_json={}, attempt=2) is False


def test_a_dead_run_whose_client_asked_to_stop_ends_cancelled(store: Store) -> None:
    account_id, job_id = _job_holding(store)
    assert store.jobs.record_progress(job_id, PROGRESS, attempt=1)
    stopped = store.jobs.stop_job(account_id, job_id, CANCELLED)
    assert stopped is not None and stopped[1] == "stopping"
    silent = now() + timedelta(seconds=1)
    outcome = store.jobs.settle_orphan(
        job_id, 1, max_attempts=2, failed_response=failed, silent_since=silent
    )
    assert outcome == "cancelled"
    job = store.jobs.get_job(account_id, job_id)
    assert job is not None and (job.status, job.error_code, job.attempt) == (
        "failed",
        "cancelled",
        1,
    )
    assert store.ledger.usage(account_id)[2] == 10
