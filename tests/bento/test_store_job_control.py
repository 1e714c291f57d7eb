"""Progress records and stop requests of jobs, on SQLite and PostgreSQL.

A stop decides in one transaction: an ended job is left alone, a job not yet solving
fails ``cancelled`` with its units released, a solving job gets its request recorded and
is ended by its solver later, settling once.
"""

from __future__ import annotations

import sqlalchemy as sa

from bento.store import Store

REQUEST = {"start_date": "2026-03-02", "end_date": "2026-03-08", "employees": [{"id": "e1"}]}
PROGRESS = {
    "elapsed_seconds": 1.5,
    "best_objective": 12.0,
    "best_bound": 3.0,
    "solutions": 1,
    "improvements": [{"elapsed_seconds": 1.2, "objective": 12.0}],
}
CANCELLED = {"job_id": "x", "status": "failed", "solution": None, "error": {"code": "cancelled"}}


def _job_holding(store: Store, units: int = 4) -> tuple[str, str]:
    """An account with 10 free units and a running job holding ``units`` of them."""
    account = store.create_account("Acme", free_quota=10)
    reservation = f"job-{account.id}"
    assert store.reserve(account.id, units, reservation) is not None
    job = store.create_job(account.id, REQUEST, units_reserved=units, reservation_id=reservation)
    return account.id, job.id


def test_progress_is_recorded_while_running_only(store: Store) -> None:
    account_id, job_id = _job_holding(store)
    job = store.get_job(account_id, job_id)
    assert job is not None and job.progress is None and job.stop_requested_at is None
    assert store.record_progress(job_id, PROGRESS) is True
    job = store.get_job(account_id, job_id)
    assert job is not None and job.progress == PROGRESS
    assert store.finish_job(job_id, "failed", error_code="no_solution")
    assert store.record_progress(job_id, {**PROGRESS, "solutions": 9}) is False
    job = store.get_job(account_id, job_id)
    assert job is not None and job.progress == PROGRESS


def test_a_job_not_yet_solving_is_cancelled_at_once_and_costs_nothing(store: Store) -> None:
    account_id, job_id = _job_holding(store)
    assert store.usage(account_id)[2] == 6
    stopped = store.stop_job(account_id, job_id, CANCELLED)
    assert stopped is not None
    job, outcome = stopped
    assert outcome == "cancelled"
    assert (job.status, job.error_code, job.response_json) == ("failed", "cancelled", CANCELLED)
    assert store.usage(account_id)[2] == 10
    assert store.stop_requested(job_id) is True  # a solver that took it anyway stops
    assert store.finish_job(job_id, "completed", response_json={}) is False
    again = store.stop_job(account_id, job_id, CANCELLED)
    assert again is not None and again[1] == "finished" and again[0] == job
    assert store.usage(account_id)[2] == 10


def test_a_solving_job_records_the_stop_once_and_settles_once(store: Store) -> None:
    account_id, job_id = _job_holding(store)
    store.record_progress(job_id, PROGRESS)
    assert store.stop_requested(job_id) is False
    first = store.stop_job(account_id, job_id, CANCELLED)
    assert first is not None and first[1] == "stopping"
    job = first[0]
    assert job.status == "running" and job.stop_requested_at is not None
    assert store.stop_requested(job_id) is True
    second = store.stop_job(account_id, job_id, CANCELLED)
    assert second is not None and second[1] == "stopping"
    assert second[0].stop_requested_at == job.stop_requested_at
    assert store.usage(account_id)[2] == 6  # still held: the solver ends the job

    assert store.finish_job(job_id, "completed", response_json={"status": "completed"})
    assert store.finish_job(job_id, "failed", error_code="cancelled") is False
    assert store.usage(account_id)[2] == 6  # captured once
    ended = store.stop_job(account_id, job_id, CANCELLED)
    assert ended is not None and ended[1] == "finished" and ended[0].status == "completed"
    assert store.usage(account_id)[2] == 6


def test_a_stop_is_only_for_the_jobs_own_account(store: Store) -> None:
    _, job_id = _job_holding(store)
    other = store.create_account("Other")
    assert store.stop_job(other.id, job_id, CANCELLED) is None
    assert store.stop_job(other.id, "0" * 32, CANCELLED) is None
    assert store.stop_requested(job_id) is False
    assert store.stop_requested("0" * 32) is True  # gone: nothing left to solve for


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
        store.migrate()
        job = store.get_job("a1", "j1")
        assert job is not None and job.progress is None and job.stop_requested_at is None
        assert store.record_progress("j1", PROGRESS)
        stopped = store.stop_job("a1", "j1", CANCELLED)
        assert stopped is not None and stopped[1] == "stopping"
