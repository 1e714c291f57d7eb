"""Watching and stopping queued jobs over HTTP: the real app, queue, store and solver.

The app runs its embedded huey consumer on a SqliteHuey file beside a real SQLite store;
jobs solve in the real worker pool, which records their progress and heeds a stop through
the store. One test runs the distributed way instead: a Redis queue, a PostgreSQL store
and a separate consumer process. Every wait is a polling loop with a generous deadline
that only a broken queue reaches; no test depends on how fast the machine is.
"""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from starlette.testclient import TestClient

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.http.api import create_app
from shiftsched.service.solving.job_control import JobProgress
from shiftsched.service.store import Store
from tests.service.processes import start_huey_consumer
from tests.service.solving.test_jobs import (
    CONSUMER_STOP_SECONDS,
    ROOT,
    available,
    bearer,
    fresh_key,
    large_request,
    settings_for,
    submit,
    wait_for,
)

pytestmark = pytest.mark.slow  # queued jobs on solver processes, polled until they move

WAIT_SECONDS = 60  # for a job to start solving or find a roster: only a broken queue fails
LONG_LIMIT = 300  # far beyond any test: only a stop ends these jobs


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("job-control")
    with TestClient(create_app(settings_for(folder, jobs_workers=1))) as running:
        yield running


@pytest.fixture
def store(client: TestClient) -> Store:
    return client.app.state.store  # type: ignore[no-any-return,attr-defined]


def progress(client: TestClient, key: str, job_id: str) -> JobProgress:
    response = client.get(f"/solve/jobs/{job_id}/progress", headers=bearer(key))
    assert response.status_code == 200, response.text
    body = JobProgress.model_validate(response.json())
    running = body.status == "running"
    assert (response.headers.get("retry-after") == "15") is running
    assert body.job_id == job_id
    return body


def poll_progress(
    client: TestClient, key: str, job_id: str, until: Callable[[JobProgress], bool]
) -> list[JobProgress]:
    """Every progress answer until ``until`` holds (the last one is the first that does)."""
    seen: list[JobProgress] = []
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        seen.append(progress(client, key, job_id))
        if until(seen[-1]):
            return seen
        assert seen[-1].state != "finished", seen[-1]
        time.sleep(0.1)
    pytest.fail(f"job {job_id}: never reached the awaited progress; last {seen[-1:]}")


def stop(client: TestClient, key: str, job_id: str) -> tuple[int, dict[str, Any]]:
    response = client.delete(f"/solve/jobs/{job_id}", headers=bearer(key))
    assert response.status_code in (200, 202), response.text
    if response.status_code == 202:
        assert response.headers["retry-after"] == "1"
    return response.status_code, response.json()


def assert_audited(data: dict[str, Any], body: dict[str, Any]) -> None:
    result = SolveResponse.model_validate(body)
    assert result.status == "completed" and result.solution is not None
    report = audit(parse_request(data), result.solution.assignments)
    assert report.hard_violations == []
    solution = result.solution
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []


def test_progress_of_a_running_job_moves_on(client: TestClient, store: Store) -> None:
    key = fresh_key(store)
    job_id = submit(client, key, large_request(timeout=LONG_LIMIT))
    seen = poll_progress(client, key, job_id, lambda p: p.solutions >= 1)
    assert all(p.status == "running" for p in seen)
    assert {p.state for p in seen} <= {"queued", "solving"}
    first_roster = seen[-1]
    assert first_roster.state == "solving" and first_roster.best_objective is not None
    assert [i.objective for i in first_roster.improvements][-1] == first_roster.best_objective
    later = poll_progress(
        client, key, job_id, lambda p: p.elapsed_seconds > first_roster.elapsed_seconds
    )
    timeline = [*seen, *later]
    for before, after in itertools.pairwise(timeline):
        assert after.elapsed_seconds >= before.elapsed_seconds
        assert after.solutions >= before.solutions
    last = timeline[-1]
    assert len(last.improvements) <= 10 and last.solutions >= len(last.improvements)
    objectives = [i.objective for i in last.improvements]
    assert objectives == sorted(objectives, reverse=True)
    assert all(i.elapsed_seconds <= last.elapsed_seconds for i in last.improvements)

    stranger = fresh_key(store)
    response = client.get(f"/solve/jobs/{job_id}/progress", headers=bearer(stranger))
    assert response.status_code == 404
    assert response.json()["type"] == "https://api.test/v1/public/errors/not-found"
    assert client.delete(f"/solve/jobs/{job_id}", headers=bearer(stranger)).status_code == 404
    assert client.get(f"/solve/jobs/{job_id}/progress").status_code == 401
    unauthenticated = client.delete(f"/solve/jobs/{job_id}")
    assert unauthenticated.status_code == 401
    assert unauthenticated.headers["content-type"].startswith("application/problem+json")
    assert progress(client, key, job_id).status == "running"  # the stranger stopped nothing

    stop(client, key, job_id)  # ends the job: the next test needs the solver
    assert wait_for(client, key, job_id)["status"] == "completed"


def test_a_stopped_job_completes_with_its_best_roster_charged_once(
    client: TestClient, store: Store
) -> None:
    key, data = fresh_key(store), large_request(timeout=LONG_LIMIT)
    units = units_for(request_size(parse_request(data)))
    job_id = submit(client, key, data)
    poll_progress(client, key, job_id, lambda p: p.solutions >= 1)

    status, body = stop(client, key, job_id)
    assert (status, body["status"], body["solution"]) == (202, "running", None)
    assert stop(client, key, job_id)[0] == 202  # asked again while it stops: the same
    final = wait_for(client, key, job_id)
    assert final["status"] == "completed", final
    assert_audited(data, final)
    assert final["usage"] == {"units_consumed": units, "units_remaining": 100 - units}
    assert available(client, key) == 100 - units

    assert stop(client, key, job_id) == (200, final)  # ended: nothing changes
    assert available(client, key) == 100 - units
    job = store.jobs.find_job(job_id)
    assert job is not None and job.reservation_id is not None
    reservation = store.ledger.get_reservation(job.reservation_id)
    assert reservation is not None and reservation.state == "captured"
    done = progress(client, key, job_id)
    assert (done.state, done.status) == ("finished", "completed")
    assert done.best_objective == final["solution"]["metrics"]["objective_value"]
    assert done.solutions >= 1


def full_month_request() -> dict[str, Any]:
    """max_size.json (size 279,000): building its model alone takes seconds, so a stop
    asked as soon as the job starts solving arrives before any roster can exist."""
    data: dict[str, Any] = json.loads((ROOT / "datasets" / "max_size.json").read_text())
    data["options"] = {"solver_timeout_seconds": LONG_LIMIT}
    return data


def test_a_job_stopped_before_its_first_roster_fails_cancelled_for_free(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store)
    job_id = submit(client, key, full_month_request())
    assert available(client, key) < 100
    started = poll_progress(client, key, job_id, lambda p: p.state == "solving")[-1]
    assert (started.solutions, started.best_objective) == (0, None)

    assert stop(client, key, job_id)[0] == 202
    final = wait_for(client, key, job_id)
    assert (final["status"], final["solution"]) == ("failed", None)
    assert final["error"]["code"] == "cancelled" and "usage" not in final
    assert available(client, key) == 100
    assert stop(client, key, job_id) == (200, final)
    assert available(client, key) == 100
    done = progress(client, key, job_id)
    assert (done.state, done.status, done.solutions) == ("finished", "failed", 0)


def test_a_job_still_queued_is_cancelled_at_once_and_never_solved(tmp_path: Path) -> None:
    """No consumer runs here, so the job waits in the queue when it is stopped."""
    with TestClient(create_app(settings_for(tmp_path, jobs_consumer=False))) as client:
        app_store: Store = client.app.state.store  # type: ignore[attr-defined]
        key = fresh_key(app_store, free=20)
        job_id = submit(client, key, large_request(timeout=LONG_LIMIT))
        assert available(client, key) < 20
        queued = progress(client, key, job_id)
        assert (queued.state, queued.elapsed_seconds, queued.best_objective) == (
            "queued",
            0.0,
            None,
        )

        status, body = stop(client, key, job_id)
        assert (status, body["status"], body["solution"]) == (200, "failed", None)
        assert body["error"]["code"] == "cancelled"
        assert available(client, key) == 20
        assert client.get(f"/solve/jobs/{job_id}", headers=bearer(key)).json() == body
        assert stop(client, key, job_id) == (200, body)
        assert available(client, key) == 20
        assert progress(client, key, job_id).state == "finished"


def test_the_202_links_the_job_its_progress_and_its_stop(tmp_path: Path) -> None:
    """A client follows the headers alone: Location polls the job, rel="monitor" its
    progress, the stop relation (DELETE) cancels it. No consumer runs, so it stays
    queued; the API is mounted at /v1/public, as in the service."""
    public = "https://rosters.example.org"  # the stop relation is absolute: from PUBLIC_URL
    app = create_app(settings_for(tmp_path, jobs_consumer=False, public_url=public))
    with TestClient(app, root_path="/v1/public") as client:
        key = fresh_key(client.app.state.store, free=20)  # type: ignore[attr-defined]
        answer = client.post(
            "/solve", content=json.dumps(large_request(timeout=LONG_LIMIT)), headers=bearer(key)
        )
        assert answer.status_code == 202, answer.text
        job_id = answer.json()["job_id"]
        assert answer.headers["location"] == f"/v1/public/solve/jobs/{job_id}"
        links = {link["rel"]: link["url"] for link in answer.links.values()}
        stop_rel = f"{public}/v1/public/openapi.json#stop_solve_job"
        assert links == {
            "monitor": f"/v1/public/solve/jobs/{job_id}/progress",
            stop_rel: answer.headers["location"],
            "alternate": f"/dashboard/jobs/{job_id}",
        }
        operation_ids = {
            item.get("operationId")
            for path in client.get("/openapi.json").json()["paths"].values()
            for item in path.values()
        }
        assert "stop_solve_job" in operation_ids  # the relation names a documented operation

        polled = client.get(answer.headers["location"], headers=bearer(key))
        assert (polled.status_code, polled.json()) == (200, answer.json())
        watched = client.get(links["monitor"], headers=bearer(key))
        assert (watched.status_code, watched.json()["state"]) == (200, "queued")
        stopped = client.delete(links[stop_rel], headers=bearer(key))
        assert (stopped.status_code, stopped.json()["error"]["code"]) == (200, "cancelled")
        assert available(client, key) == 20


def test_stop_and_progress_of_an_unknown_job_are_404(client: TestClient, store: Store) -> None:
    key = fresh_key(store)
    for response in (
        client.delete("/solve/jobs/" + "0" * 32, headers=bearer(key)),
        client.get("/solve/jobs/" + "0" * 32 + "/progress", headers=bearer(key)),
    ):
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("application/problem+json")
    assert available(client, key) == 100


def test_a_separate_consumer_on_redis_and_postgresql_heeds_the_stop(
    redis_server: str, postgres_server: Any, tmp_path: Path
) -> None:
    """Scale-out: the service only queues (Redis) and answers; a `huey_consumer` process
    solves, records the progress in PostgreSQL and sees the stop asked of the service."""
    with redis.Redis.from_url(redis_server) as queue_client:
        queue_client.flushdb()
    pg_url: str = postgres_server.new_database()
    settings = settings_for(
        tmp_path,
        database_url=pg_url,
        jobs_redis_url=redis_server,
        jobs_consumer=False,
        jobs_db_path=str(tmp_path / "jobs.db"),  # its billing outbox here, not the shared var/
    )
    with TestClient(create_app(settings)) as client:
        app_store: Store = client.app.state.store  # type: ignore[attr-defined]
        key, data = fresh_key(app_store), large_request(timeout=LONG_LIMIT)
        units = units_for(request_size(parse_request(data)))
        job_id = submit(client, key, data)
        process = start_huey_consumer({"DATABASE_URL": pg_url, "JOBS_REDIS_URL": redis_server})
        try:
            poll_progress(client, key, job_id, lambda p: p.solutions >= 1)
            assert stop(client, key, job_id)[0] == 202
            final = wait_for(client, key, job_id)
        finally:
            process.send_signal(signal.SIGINT)  # huey's graceful stop
            try:
                process.wait(timeout=CONSUMER_STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        assert final["status"] == "completed", final
        assert_audited(data, final)
        assert final["usage"]["units_consumed"] == units
        assert available(client, key) == 100 - units
