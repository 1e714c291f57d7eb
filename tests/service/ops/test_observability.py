"""What a request leaves behind for operators, through the real app on a SQLite store:
the solve counters and the units counters move with the right labels (read from the
metrics text, as a scraper would), the scrape-time job gauges count the store's records,
and the service's log line of a solve carries the answer's X-Request-Id."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from shiftsched.contract.parse import parse_request
from shiftsched.service.http.api import create_app
from shiftsched.service.metrics import REGISTRY
from shiftsched.service.ops.gauges import StateGauges, job_counts, queue_depth
from shiftsched.service.ops.logs import RequestContext
from shiftsched.service.settings import Settings
from shiftsched.service.solving.jobs import JobContext, JobQueue
from shiftsched.service.solving.runtime import open_queue
from shiftsched.service.store import Store
from tests.audited import solved_and_audited
from tests.factories import employee_dict, minimal_request_dict

KEY = "sk_test_" + "b" * 64
SOLVES = "shiftsched_solves_total"
SYNC_COMPLETED = {"path": "sync", "outcome": "completed"}
JOB_LIMIT_SECONDS = 180  # generous: only a broken queue takes this long


def sample(text: str, name: str, labels: dict[str, str] | None = None) -> float | None:
    """The value of one series in a metrics text, None when it is absent."""
    for family in text_string_to_metric_families(text):
        for found in family.samples:
            if found.name == name and found.labels == (labels or {}):
                return float(found.value)
    return None


def counter(name: str, labels: dict[str, str] | None = None) -> float:
    return sample(generate_latest(REGISTRY).decode(), name, labels) or 0.0


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home = tmp_path_factory.mktemp("observed")
    settings = Settings(
        database_url=f"sqlite:///{home / 'service.db'}",
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
    )
    with TestClient(create_app(settings)) as opened:
        yield opened


def solve(client: TestClient, key: str = KEY) -> httpx2.Response:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    return client.post("/solve", content=json.dumps(minimal_request_dict()), headers=headers)


@pytest.mark.slow
def test_a_solve_is_counted_with_its_path_outcome_duration_and_units(client: TestClient) -> None:
    solves = counter(SOLVES, SYNC_COMPLETED)
    timed = counter("shiftsched_solve_duration_seconds_count", SYNC_COMPLETED)
    consumed = counter("shiftsched_units_consumed_total")
    errors = counter(SOLVES, {"path": "sync", "outcome": "error"})  # other tests' count
    response = solve(client)
    assert response.status_code == 200, response.text
    assert counter(SOLVES, SYNC_COMPLETED) == solves + 1
    assert counter("shiftsched_solve_duration_seconds_count", SYNC_COMPLETED) == timed + 1
    assert counter("shiftsched_units_consumed_total") == consumed + 1
    assert counter(SOLVES, {"path": "sync", "outcome": "error"}) == errors


def test_an_infeasible_replan_is_counted_as_no_solution(client: TestClient) -> None:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    solution = solved_and_audited(parse_request(data))
    roster = [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]
    sick = roster[0]
    absence = {"employee_id": sick["employee_id"], "dates": [sick["date"]]}
    body = {"request": data, "roster": roster, "absences": [absence], "pinned": [sick]}
    no_solution = {"path": "replan", "outcome": "no_solution"}
    before = counter(SOLVES, no_solution)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"}
    response = client.post("/solve/replan", content=json.dumps(body), headers=headers)
    assert response.status_code == 422, response.text  # absent, yet pinned to the shift
    assert counter(SOLVES, no_solution) == before + 1


def test_a_quota_refusal_counts_the_units_refused(client: TestClient) -> None:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    account = store.accounts.create_account("broke", free_quota=0)
    key = store.accounts.issue_key(account.id)
    refused, solves = counter("shiftsched_units_refused_total"), counter(SOLVES, SYNC_COMPLETED)
    response = solve(client, key)
    assert response.status_code == 429
    assert counter("shiftsched_units_refused_total") == refused + 1
    assert counter(SOLVES, SYNC_COMPLETED) == solves  # refused: no solve ran


@pytest.mark.slow
def test_a_queued_solve_is_counted_and_logged_with_its_job_id(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="shiftsched.service")
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    key = store.accounts.issue_key(store.accounts.create_account("pro", tier="pro").id)
    queued = {"path": "queued", "outcome": "completed"}
    before = counter(SOLVES, queued)
    data = minimal_request_dict()
    data["options"] = {"solver_timeout_seconds": 31}  # over 30 s: the queued path
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    response = client.post("/solve", content=json.dumps(data), headers=headers)
    assert response.status_code == 202, response.text
    job_id = response.json()["job_id"]
    deadline = time.monotonic() + JOB_LIMIT_SECONDS
    while (job := client.get(f"/solve/jobs/{job_id}", headers=headers).json())["status"] == (
        "running"
    ):
        assert time.monotonic() < deadline, f"job {job_id} still running"
        time.sleep(0.25)
    assert job["status"] == "completed"
    assert counter(SOLVES, queued) == before + 1  # counted before the job is ended
    lines = [r for r in caplog.records if r.getMessage().startswith("solve path=queued")]
    assert [getattr(r, "job_id", None) for r in lines] == [job_id]


def no_context() -> JobContext:
    raise AssertionError("no consumer runs this queue's tasks")


def test_the_job_gauges_count_the_stores_records_and_the_waiting_tasks(
    client: TestClient, tmp_path: Path
) -> None:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    assert solve(client).status_code == 200
    counts = job_counts(store)
    assert set(counts) == {"running", "completed", "failed"}
    assert counts["completed"] >= 1  # a completed synchronous solve is kept as a job
    huey = open_queue(Settings(jobs_db_path=str(tmp_path / "jobs.db")))  # no consumer
    assert queue_depth(huey) == 0
    JobQueue(huey, no_context).enqueue("job-never-run")
    assert queue_depth(huey) == 1

    text = StateGauges(lambda: (store, huey)).text()
    assert sample(text, "shiftsched_queue_depth") == 1
    assert sample(text, "shiftsched_jobs", {"state": "completed"}) == counts["completed"]
    assert sample(text, "shiftsched_jobs", {"state": "failed"}) == counts["failed"]


def test_gauges_whose_sources_are_not_open_are_left_out() -> None:
    def not_started() -> tuple[Store, object]:
        raise AttributeError("'State' object has no attribute 'store'")

    assert StateGauges(not_started).text() == ""


def test_the_log_line_of_a_solve_carries_the_answers_request_id(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="shiftsched.service")
    caplog.handler.addFilter(RequestContext())
    response = solve(client)
    assert response.status_code == 200
    request_id = response.headers["x-request-id"]
    lines = [r for r in caplog.records if r.getMessage().startswith("solve path=sync")]
    assert [r.getMessage().split()[:3] for r in lines] == [
        ["solve", "path=sync", "outcome=completed"]
    ]
    assert lines[0].request_id == request_id  # type: ignore[attr-defined]


def test_lines_logged_outside_a_request_carry_no_request_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.handler.addFilter(RequestContext())
    logging.getLogger("bento.test").warning("between requests")
    assert caplog.records[-1].request_id is None  # type: ignore[attr-defined]
