"""The queued path in the distributed configuration: RedisHuey and a PostgreSQL store.

Both servers are throw-away ones started by conftest. The app's own consumer, and a
separate ``huey_consumer`` process in the service's environment, take jobs from Redis and
settle them in PostgreSQL; the restart rule reads the queue and the marks from Redis.
"""

from __future__ import annotations

import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from starlette.testclient import TestClient

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.solving.job_records import MAX_ATTEMPTS
from shiftsched.service.solving.jobs import JobContext, JobQueue, create_huey
from shiftsched.service.store import Store, tables
from shiftsched.service.store.rows import now
from tests.factories import minimal_request_dict
from tests.service.processes import start_huey_consumer
from tests.service.solving.test_jobs import (
    CONSUMER_STOP_SECONDS,
    POLL_LIMIT_SECONDS,
    available,
    bearer,
    ended_without_a_charge,
    fresh_key,
    large_request,
    submit,
    wait_for,
)


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    """The session's Redis, emptied: no task left by an earlier test reaches this one."""
    with redis.Redis.from_url(redis_server) as client:
        client.flushdb()
    yield redis_server


def distributed(redis_url: str, database_url: str, **overrides: Any) -> Settings:
    # The billing outbox sits beside jobs_db_path: a folder of this app's own, not the
    # shared var/, where another test's reconciler could replay this app's kept job ends.
    outbox_home = Path(tempfile.mkdtemp(prefix="shiftsched-outbox-"))
    values: dict[str, Any] = {
        "database_url": database_url,
        "jobs_db_path": str(outbox_home / "jobs.db"),
        "jobs_redis_url": redis_url,
        "solve_processes": 2,
        "jobs_workers": 1,
        "cp_sat_workers": 1,
        "diagnosis_budget_seconds": 5,
        "errors_base": "https://api.test/v1/public/errors",
        **overrides,
    }
    return Settings(**values)


@pytest.fixture
def pg_url(postgres_server: Any) -> str:
    """An empty database on the session's PostgreSQL server."""
    url: str = postgres_server.new_database()
    return url


def no_context() -> JobContext:
    raise AssertionError("this queue only produces; it never runs a task")


def test_queued_job_completes_audited_and_is_charged_once(redis_url: str, pg_url: str) -> None:
    with TestClient(create_app(distributed(redis_url, pg_url))) as client:
        store: Store = client.app.state.store  # type: ignore[attr-defined]
        key, data = fresh_key(store), large_request()
        units = units_for(request_size(parse_request(data)))
        job_id = submit(client, key, data)
        assert available(client, key) == 100 - units

        body = wait_for(client, key, job_id)
        if ended_without_a_charge(client, key, body, held=100):
            return
        assert body["status"] == "completed", body
        result = SolveResponse.model_validate(body)
        assert result.solution is not None and result.usage is not None
        assert (result.usage.units_consumed, result.usage.units_remaining) == (units, 100 - units)
        report = audit(parse_request(data), result.solution.assignments)
        assert report.hard_violations == [], report.hard_violations

        assert client.get(f"/solve/jobs/{job_id}", headers=bearer(key)).json() == body
        assert available(client, key) == 100 - units
        job = store.jobs.find_job(job_id)
        assert job is not None and job.reservation_id is not None
        reservation = store.ledger.get_reservation(job.reservation_id)
        assert reservation is not None and reservation.state == "captured"
        queue: JobQueue = client.app.state.jobs  # type: ignore[attr-defined]
        assert queue.huey.get(f"executing:{job_id}", peek=True) is None  # mark cleared


def test_a_separate_consumer_process_runs_jobs_the_service_queued(
    redis_url: str, pg_url: str
) -> None:
    """Scale-out: JOBS_CONSUMER=external on the service,
    `huey_consumer shiftsched.service.solving.jobs.huey`."""
    settings = distributed(redis_url, pg_url, jobs_consumer=False, solve_processes=1)
    with TestClient(create_app(settings)) as client:
        store: Store = client.app.state.store  # type: ignore[attr-defined]
        key, data = fresh_key(store, free=10), minimal_request_dict()
        data["options"] = {"solver_timeout_seconds": 40}
        job_id = submit(client, key, data)
        queue: JobQueue = client.app.state.jobs  # type: ignore[attr-defined]
        assert [task.args for task in queue.huey.pending()] == [(job_id,)]

        process = start_huey_consumer({"DATABASE_URL": pg_url, "JOBS_REDIS_URL": redis_url})
        try:
            deadline = time.monotonic() + POLL_LIMIT_SECONDS
            while (found := store.jobs.find_job(job_id)) is not None and found.status == "running":
                assert process.poll() is None, "the consumer exited"
                assert time.monotonic() < deadline, "the consumer never finished the job"
                time.sleep(0.25)
        finally:
            process.send_signal(signal.SIGINT)  # huey's graceful stop
            try:
                process.wait(timeout=CONSUMER_STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        body = wait_for(client, key, job_id)
        assert body["status"] == "completed", body
        assert body["usage"] == {"units_consumed": 1, "units_remaining": 9}
        assert available(client, key) == 9


def test_restart_keeps_queued_and_live_jobs_and_settles_orphans(
    redis_url: str, pg_url: str
) -> None:
    """The restart rule reads Redis: the waiting tasks and the marks of live consumers. An
    orphan on its first run runs again; one whose consumer died on its second run fails."""
    settings = distributed(redis_url, pg_url, jobs_consumer=False, solve_processes=1)
    store = Store(pg_url)
    store.db.migrate()
    account = store.accounts.create_account("owner", tier="pro", free_quota=10)
    jobs = {}
    for name in ("orphan", "queued", "solving", "stale"):
        assert store.ledger.reserve(account.id, 2, name) is not None
        jobs[name] = store.jobs.create_job(account.id, {}, units_reserved=2, reservation_id=name)
    handed_on = store.jobs.settle_orphan(
        jobs["stale"].id, 1, max_attempts=MAX_ATTEMPTS, failed_response=lambda code: None
    )
    assert handed_on == "rerun"  # the stale mark below is its second run's
    producer = JobQueue(create_huey(settings), no_context)
    producer.enqueue(jobs["queued"].id)
    producer.huey.put(f"executing:{jobs['solving'].id}", time.time() + 120)  # a live consumer
    producer.huey.put(f"executing:{jobs['stale'].id}", time.time() - 1)  # one that died

    with TestClient(create_app(settings)) as client:
        queue: JobQueue = client.app.state.jobs  # type: ignore[attr-defined]
        states = {name: store.jobs.find_job(job.id) for name, job in jobs.items()}
        assert {name: (job.status, job.attempt) for name, job in states.items() if job} == {
            "orphan": ("running", 2),
            "queued": ("running", 1),
            "solving": ("running", 1),
            "stale": ("failed", 2),
        }
        assert states["stale"].error_code == "interrupted"  # type: ignore[union-attr]
        assert store.ledger.get_reservation("stale").state == "released"  # type: ignore[union-attr]
        assert store.ledger.get_reservation("orphan").state == "reserved"  # type: ignore[union-attr]
        assert queue.huey.get(f"executing:{jobs['stale'].id}", peek=True) is None
        waiting = [*queue.huey.pending(), *queue.huey.scheduled()]  # no consumer moves them
        assert sorted((task.name, task.args, task.kwargs) for task in waiting) == sorted(
            [
                ("check_solve_job", (jobs["solving"].id,), {}),  # at the live one's deadline
                ("run_solve_job", (jobs["queued"].id,), {}),
                ("run_solve_job", (jobs["orphan"].id,), {"attempt": 2}),
            ]
        )
        assert store.ledger.usage(account.id)[2] == 4
    store.close()


def test_a_consumer_marks_its_job_before_opening_the_store(redis_url: str) -> None:
    """The task has left the queue: from then on only the mark keeps a restart off the job."""
    settings = distributed(redis_url, "sqlite://", jobs_consumer=False)
    seen: list[Any] = []

    class Opening(Exception):
        pass

    def opening_context() -> JobContext:
        seen.append(queue.huey.get("executing:job-1", peek=True))
        raise Opening

    queue = JobQueue(create_huey(settings), opening_context)
    with pytest.raises(Opening):
        queue.run_solve_job("job-1")
    assert len(seen) == 1 and seen[0] > time.time()
    assert queue.huey.get("executing:job-1", peek=True) is None  # gone with the attempt


def test_the_sweep_runs_dead_jobs_again_once_and_leaves_live_ones(
    redis_url: str, pg_url: str
) -> None:
    """What every consumer does every few seconds (shiftsched.service.solving.jobs, retry policy): a
    solving job whose heartbeat went silent, or a job taken but never solving whose consumer's
    mark is gone, runs again once; a second death fails it; live jobs are left alone."""
    settings = distributed(redis_url, pg_url, jobs_consumer=False)
    store = Store(pg_url)
    store.db.migrate()
    account = store.accounts.create_account("owner", tier="pro", free_quota=100)
    names = ("fresh", "waiting", "taken", "lost", "beating", "silent", "silent twice")
    jobs = {}
    for name in names:
        assert store.ledger.reserve(account.id, 2, name) is not None
        jobs[name] = store.jobs.create_job(account.id, {}, units_reserved=2, reservation_id=name)
    queue = JobQueue(create_huey(settings), no_context)
    queue.enqueue(jobs["waiting"].id)
    queue.huey.put(f"executing:{jobs['taken'].id}", time.time() + 30)
    for name in ("beating", "silent", "silent twice"):
        assert store.jobs.record_progress(jobs[name].id, {"elapsed_seconds": 1.0})
    silent = now() + timedelta(seconds=1)
    outcome = store.jobs.settle_orphan(
        jobs["silent twice"].id,
        1,
        max_attempts=2,
        failed_response=orphan_response_of,
        silent_since=silent,
    )
    assert outcome == "rerun"
    assert store.jobs.record_progress(jobs["silent twice"].id, {"elapsed_seconds": 1.0}, attempt=2)
    long_ago = now() - timedelta(minutes=5)
    quiet = [jobs[name].id for name in ("waiting", "taken", "lost")]
    silenced = [jobs[name].id for name in ("silent", "silent twice")]
    with store.db.write() as conn:  # as if minutes had passed, without waiting for them
        conn.execute(
            tables.jobs.update().where(tables.jobs.c.id.in_(quiet)).values(updated_at=long_ago)
        )
        conn.execute(
            tables.jobs.update().where(tables.jobs.c.id.in_(silenced)).values(progress_at=long_ago)
        )

    outcomes = queue.sweep_orphans(store)
    assert outcomes == {
        jobs["lost"].id: "rerun",
        jobs["silent"].id: "rerun",
        jobs["silent twice"].id: "interrupted",
    }
    states = {name: store.jobs.find_job(job.id) for name, job in jobs.items()}
    assert {name: (job.status, job.attempt) for name, job in states.items() if job} == {
        "fresh": ("running", 1),
        "waiting": ("running", 1),
        "taken": ("running", 1),
        "lost": ("running", 2),
        "beating": ("running", 1),
        "silent": ("running", 2),
        "silent twice": ("failed", 2),
    }
    assert store.ledger.get_reservation("silent twice").state == "released"  # type: ignore[union-attr]
    assert store.ledger.get_reservation("silent").state == "reserved"  # type: ignore[union-attr]
    assert sorted((task.args, task.kwargs) for task in queue.huey.pending()) == sorted(
        [
            ((jobs["waiting"].id,), {}),
            ((jobs["lost"].id,), {"attempt": 2}),
            ((jobs["silent"].id,), {"attempt": 2}),
        ]
    )
    # A second sweep (another consumer's) finds nothing more to do: the re-runs are queued.
    assert queue.sweep_orphans(store) == {}
    assert store.ledger.usage(account.id)[2] == 100 - 2 * 6
    store.close()


def orphan_response_of(code: str) -> dict[str, Any]:
    return {"status": "failed", "solution": None, "error": {"code": code}}
