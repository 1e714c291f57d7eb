"""Admission of solves: one per free process, deadlines from the start, 503 when busy.

The pool is the real one (pebble processes). A task that must outlast something holds
its process until the test releases it (a file appears), so the outcomes depend on the
order of events the pool enforces, never on how busy the machine is.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import shiftsched.service.solving.workers
from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment, SolveResponse
from shiftsched.service.failures import SolveFailed, SolverBusy
from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.solving.workers import SolvePool
from tests.factories import minimal_request_dict
from tests.service.pool_support import LONG_SECONDS, Background, hold, wait_until_running

pytestmark = pytest.mark.slow  # solver processes held past their deadlines

KEY = "sk_test_" + "b" * 64
HEADERS = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"}


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[SolvePool]:
    monkeypatch.setattr(shiftsched.service.solving.workers, "DEADLINE_GRACE_SECONDS", 0.5)
    opened = SolvePool(processes=2, memory_mb=0, cp_sat_workers=1)
    yield opened
    opened.close()


def assignments_of(result: SolveResponse | dict[str, Any]) -> list[Assignment]:
    """The roster of the pool's typed answer, or of an HTTP answer's JSON."""
    response = SolveResponse.model_validate(result)
    assert response.solution is not None, response.error
    return response.solution.assignments


def test_an_overrun_stops_its_own_process_only(pool: SolvePool, tmp_path: Path) -> None:
    survivor = Background(pool, tmp_path)
    wait_until_running(pool, 1)
    with pytest.raises(SolveFailed, match="missed its deadline"):
        pool.run(hold, (str(tmp_path / "never"), "never"), expected_seconds=0.5)
    survivor.release()
    assert survivor.result() == "done"  # its process was not stopped with the other
    # The stopped process was replaced: a real solve runs and is audit-clean.
    data = minimal_request_dict()
    result = pool.solve(parse_request(data), time_limit=LONG_SECONDS, diagnosis_budget=0)
    assert audit(parse_request(data), assignments_of(result)).hard_violations == []


def test_a_deadline_counts_from_the_start_not_from_the_wait(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(shiftsched.service.solving.workers, "DEADLINE_GRACE_SECONDS", 0.5)
    single = SolvePool(processes=1, memory_mb=0, cp_sat_workers=1)
    try:
        first = Background(single, tmp_path)
        wait_until_running(single, 1)
        second = Background(single, tmp_path, expected=3.0)
        time.sleep(5.0)  # at least this long in the line: past its 3.5 s if counted so
        second.release()  # it returns as soon as it starts
        first.release()
        assert first.result() == "done"
        assert second.result() == "done"
    finally:
        single.close()


def test_no_free_process_within_the_wait_is_busy(pool: SolvePool, tmp_path: Path) -> None:
    holders = [Background(pool, tmp_path) for _ in range(2)]
    wait_until_running(pool, 2)
    with pytest.raises(SolverBusy) as busy:
        small = parse_request(minimal_request_dict())
        pool.solve(small, time_limit=5, diagnosis_budget=0, wait_seconds=0.2)
    assert 1 <= busy.value.retry_after_seconds <= LONG_SECONDS + 1
    pool.close()  # stops the holders' processes: their solves fail, nothing hangs
    for holder in holders:
        assert isinstance(holder.result(), SolveFailed)


def one_process_app(folder: Path, queue_length: int = 4) -> Starlette:
    """The public API on a SQLite file, one solver process, a 0.2 s queue wait."""
    return create_app(
        Settings(
            database_url=f"sqlite:///{folder / 'service.db'}",
            demo_api_key=KEY,
            solve_processes=1,
            cp_sat_workers=1,
            diagnosis_budget_seconds=0,
            solve_queue_wait_seconds=0.2,
            solve_queue_length=queue_length,
            jobs_consumer=False,
        )
    )


@pytest.mark.parametrize("queue_length", [0, 4], ids=["line-full", "wait-expires"])
def test_a_busy_service_answers_503_with_retry_after_and_charges_nothing(
    tmp_path: Path, queue_length: int
) -> None:
    app = one_process_app(tmp_path, queue_length)
    body = json.dumps(minimal_request_dict())
    with TestClient(app) as client:
        before = client.get("/usage", headers=HEADERS).json()
        pool: SolvePool = app.state.pool
        holder = Background(pool, tmp_path)
        wait_until_running(pool, 1)
        line = app.state.solve_line
        borrower = object()
        if queue_length == 0:  # the line holds one solving thread only: take it
            assert client.portal is not None
            client.portal.call(line.acquire_on_behalf_of, borrower)

        response = client.post("/solve", content=body, headers=HEADERS)

        assert response.status_code == 503, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        assert int(response.headers["Retry-After"]) >= 1
        problem = response.json()
        assert problem["status"] == 503 and problem["type"].endswith("/service-unavailable")
        assert "nothing was charged" in problem["detail"]
        assert "X-Units-Consumed" not in response.headers
        assert client.get("/usage", headers=HEADERS).json() == before
        if queue_length == 0:
            assert client.portal is not None
            client.portal.call(line.release_on_behalf_of, borrower)
    assert isinstance(holder.result(), SolveFailed)  # the app's stop ended the holder


def test_after_a_busy_answer_the_next_solve_is_served_and_audited(tmp_path: Path) -> None:
    app = one_process_app(tmp_path)
    data = minimal_request_dict()
    with TestClient(app) as client:
        pool: SolvePool = app.state.pool
        holder = Background(pool, tmp_path)
        wait_until_running(pool, 1)
        busy = client.post("/solve", content=json.dumps(data), headers=HEADERS)
        assert busy.status_code == 503
        holder.release()
        assert holder.result() == "done"
        served = client.post("/solve", content=json.dumps(data), headers=HEADERS)
        assert served.status_code == 200, served.text
        solution = served.json()["solution"]
        report = audit(parse_request(data), assignments_of(served.json()))
        assert report.hard_violations == []
        assert compare_with_metrics(report, solution["metrics"], solution["shortages"]) == []
