"""The live stream of a job: its progress as server-sent events, then its end, on the
real app with its embedded queue consumer and a real solve."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.solving.job_control import JobProgress
from tests.service.http.test_http import assert_problem, bearer, fresh_key, post
from tests.service.http.test_planning_http import four_employees

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home = tmp_path_factory.mktemp("events")
    settings = Settings(
        database_url=f"sqlite:///{home / 'service.db'}",
        jobs_db_path=str(home / "jobs.db"),
        solve_processes=1,
        cp_sat_workers=1,
        errors_base="https://api.test/v1/public/errors",
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def events(client: TestClient, path: str, key: str) -> list[tuple[str, Any]]:
    """Every event of the stream until it closes: (event, data) pairs, comments left out."""
    found: list[tuple[str, Any]] = []
    name = "message"
    with client.stream("GET", path, headers=bearer(key)) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                found.append((name, json.loads(line.removeprefix("data:").strip())))
                name = "message"
    return found


def test_a_queued_solve_streams_its_progress_then_its_end(client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    key = fresh_key(store, free=10)
    queued = four_employees()
    queued["options"] = {"solver_timeout_seconds": 60}  # over 30 s: the queued path
    accepted = post(client, "/solve", queued, bearer(key))
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job_id"]
    stream = events(client, f"/solve/jobs/{job_id}/events", key)
    *progress, (last, ended) = stream
    assert last == "end" and ended["job_id"] == job_id and ended["status"] == "completed"
    assert progress and all(name == "progress" for name, _ in progress)
    seen = [JobProgress.model_validate(data) for _, data in progress]
    assert len({json.dumps(data, sort_keys=True) for _, data in progress}) == len(progress)
    assert seen[-1].state == "finished" and seen[-1].best_objective is not None
    job = client.get(f"/solve/jobs/{job_id}", headers=bearer(key)).json()
    assert seen[-1].best_objective == job["solution"]["metrics"]["objective_value"]
    # An ended job's stream is its progress and its end at once.
    again = events(client, f"/solve/jobs/{job_id}/events", key)
    assert [name for name, _ in again] == ["progress", "end"]


def test_the_stream_is_the_accounts_own(client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    key = fresh_key(store, free=10)
    unknown = client.get("/solve/jobs/" + "0" * 32 + "/events", headers=bearer(key))
    assert_problem(unknown, 404, "not-found")
    assert_problem(client.get("/solve/jobs/" + "0" * 32 + "/events"), 401, "unauthorized")
