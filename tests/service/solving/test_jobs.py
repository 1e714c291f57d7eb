"""The queued path (202 and polling) against the real app, queue, store and solver, for
solves and plans alike.

Each app runs its embedded huey consumer on a SqliteHuey file beside a real SQLite store;
jobs solve in the real worker pool, and every roster returned is audited independently.
"""

from __future__ import annotations

import functools
import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import PlanResponse, parse_plan
from shiftsched.contract.size import request_size, size_class, units_for
from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.solving.job_records import MAX_ATTEMPTS, checked_name, engine_name
from shiftsched.service.solving.jobs import JobContext, JobQueue, create_huey
from shiftsched.service.store import Store
from tests.factories import START_DATE, minimal_request_dict
from tests.service.processes import start_huey_consumer

ROOT = Path(__file__).parent.parent.parent.parent
JSON = {"Content-Type": "application/json"}
# Waits on a job, a consumer or its start: generous, so only a broken queue reaches them.
POLL_LIMIT_SECONDS = 180
PICKUP_LIMIT_SECONDS = 60
CONSUMER_STOP_SECONDS = 60
LARGE_DAYS = 9  # 50 x 12 x 15 x 9 = 81,000 > 80,000


def settings_for(folder: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{folder / 'service.db'}",
        "solve_processes": 2,
        "jobs_workers": 2,
        "cp_sat_workers": 1,
        "diagnosis_budget_seconds": 60,  # small diagnoses end on their own long before
        "errors_base": "https://api.test/v1/public/errors",
        **overrides,
    }
    return Settings(**values)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(settings_for(tmp_path_factory.mktemp("jobs")))) as running:
        yield running


@pytest.fixture
def store(client: TestClient) -> Store:
    return client.app.state.store  # type: ignore[no-any-return,attr-defined]


def bearer(key: str) -> dict[str, str]:
    return {**JSON, "Authorization": f"Bearer {key}"}


def fresh_key(store: Store, tier: str = "pro", free: int = 100) -> str:
    account = store.accounts.create_account("client", tier=tier, free_quota=free)  # type: ignore[arg-type]
    return store.accounts.issue_key(account.id)


def available(client: TestClient, key: str) -> int:
    units: int = client.get("/usage", headers=bearer(key)).json()["available_units"]
    return units


def submit(client: TestClient, key: str, data: Any, path: str = "/solve") -> str:
    """POST ``path`` expecting the queued answer; returns the job id."""
    response = client.post(path, content=json.dumps(data), headers=bearer(key))
    assert response.status_code == 202, response.text
    assert response.headers["retry-after"] == "15"
    body = response.json()
    assert (body["status"], body["solution"]) == ("running", None)
    assert SolveResponse.model_validate(body).job_id == body["job_id"]
    return str(body["job_id"])


def wait_for(client: TestClient, key: str, job_id: str) -> dict[str, Any]:
    """Poll until the job ends; every running answer carries Retry-After."""
    deadline = time.monotonic() + POLL_LIMIT_SECONDS
    while time.monotonic() < deadline:
        response = client.get(f"/solve/jobs/{job_id}", headers=bearer(key))
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        if body["status"] != "running":
            assert "retry-after" not in response.headers
            return body
        assert response.headers["retry-after"] == "15"
        time.sleep(0.25)
    pytest.fail(f"job {job_id} still running after {POLL_LIMIT_SECONDS} s")


def large_request(timeout: int = 8, days: int = LARGE_DAYS) -> dict[str, Any]:
    """max_size.json cut to its first days: still large, but a roster comes within seconds.

    The full month (size 279,000) needs about 20 s on two cores before its first roster.
    The cut one is never proven optimal, so its solve lasts ``timeout`` seconds; its first
    roster comes well within a second of search, but a machine busy enough could leave
    none within the limit, which a test must accept (:func:`ended_without_a_charge`).
    """
    data: dict[str, Any] = json.loads((ROOT / "datasets" / "max_size.json").read_text())
    end = f"{data['schedule_period']['start_date'][:8]}{days:02d}"
    data["schedule_period"]["end_date"] = end
    for shift in data["shifts"]:
        for key in ("staffing_demand", "manager_demand"):
            if key in shift:
                shift[key] = shift[key][:days]
    for duty in data["duties"]:
        by_shift = duty["staffing_demand_by_shift"]
        duty["staffing_demand_by_shift"] = {k: v[:days] for k, v in by_shift.items()}
    for employee in data["employees"]:
        for key in ("preferences", "fixed_assignments"):
            employee[key] = [p for p in employee.get(key, []) if p["date"] <= end]
    constraints = data.get("constraints", {})
    demands = constraints.get("cross_shift_demands", [])
    constraints["cross_shift_demands"] = [c for c in demands if c["date"] <= end]
    data["options"] = {"solver_timeout_seconds": timeout}
    return data


def ended_without_a_charge(client: TestClient, key: str, body: dict[str, Any], held: int) -> bool:
    """True when a job of :func:`large_request` found no roster within its wall-clock limit
    (possible on a busy machine only): it then failed cleanly and took nothing."""
    if body["status"] != "failed":
        return False
    assert (body["error"]["code"], body["solution"]) == ("solver_timeout", None), body
    assert "usage" not in body
    assert available(client, key) == held
    return True


def test_the_trimmed_dataset_is_still_large() -> None:
    size = request_size(parse_request(large_request()))
    assert size_class(size) == "large" and size == 50 * 12 * 15 * LARGE_DAYS


def infeasible_request() -> dict[str, Any]:
    """Small, but queued by its 60 s limit; a fixed shift on a holiday admits no roster."""
    data = minimal_request_dict()
    data["options"] = {"solver_timeout_seconds": 60}
    data["schedule_period"]["holidays"] = ["2026-03-04"]
    first = data["employees"][0]
    first["fixed_assignments"] = [{"date": "2026-03-04", "shift_id": "day"}]
    return data


@pytest.mark.slow
def test_large_job_completes_audited_and_is_charged_exactly_once(
    client: TestClient, store: Store
) -> None:
    key, data = fresh_key(store), large_request()
    units = units_for(request_size(parse_request(data)))
    job_id = submit(client, key, data)
    assert available(client, key) == 100 - units  # held from acceptance

    body = wait_for(client, key, job_id)
    if ended_without_a_charge(client, key, body, held=100):
        return
    assert body["status"] == "completed", body
    result = SolveResponse.model_validate(body)
    assert result.job_id == job_id and result.solution is not None
    assert result.usage is not None
    assert (result.usage.units_consumed, result.usage.units_remaining) == (units, 100 - units)
    report = audit(parse_request(data), result.solution.assignments)
    assert report.hard_violations == [], report.hard_violations

    for _ in range(20):
        again = client.get(f"/solve/jobs/{job_id}", headers=bearer(key))
        assert again.status_code == 200 and again.json() == body
    assert available(client, key) == 100 - units
    job = store.jobs.find_job(job_id)
    assert job is not None and job.reservation_id is not None
    reservation = store.ledger.get_reservation(job.reservation_id)
    assert reservation is not None and reservation.state == "captured"


@pytest.mark.slow
def test_long_time_limit_on_a_small_problem_is_queued_for_a_pro_key(
    client: TestClient, store: Store
) -> None:
    key, data = fresh_key(store, free=5), minimal_request_dict()
    data["options"] = {"solver_timeout_seconds": 31}
    body = wait_for(client, key, submit(client, key, data))
    assert body["status"] == "completed", body
    assert body["usage"] == {"units_consumed": 1, "units_remaining": 4}


def test_infeasible_job_fails_with_diagnosis_and_costs_nothing(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=5)
    job_id = submit(client, key, infeasible_request())
    assert available(client, key) == 4
    body = wait_for(client, key, job_id)
    assert (body["status"], body["solution"]) == ("failed", None)
    error = body["error"]
    assert (error["code"], error["solver_status"]) == ("no_solution", "INFEASIBLE")
    assert error["diagnosis"]["status"] == "identified"
    assert "usage" not in body
    # docs/semantics.md, "When a solve is charged": a failed queued job costs nothing.
    assert available(client, key) == 5


def test_jobs_are_visible_to_their_own_account_only(client: TestClient, store: Store) -> None:
    owner, stranger = fresh_key(store, free=5), fresh_key(store, free=5)
    data = minimal_request_dict()
    data["options"] = {"solver_timeout_seconds": 45}
    job_id = submit(client, owner, data)
    response = client.get(f"/solve/jobs/{job_id}", headers=bearer(stranger))
    assert response.status_code == 404
    assert response.json()["type"] == "https://api.test/v1/public/errors/not-found"
    assert client.get(f"/solve/jobs/{job_id}").status_code == 401
    assert wait_for(client, owner, job_id)["status"] == "completed"


def test_large_problem_on_a_basic_key_is_refused_without_a_job(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, tier="basic")
    response = client.post("/solve", content=json.dumps(large_request()), headers=bearer(key))
    assert response.status_code == 422
    assert response.json()["type"].endswith("/tier-limit-exceeded")
    assert available(client, key) == 100


def test_queued_job_without_units_is_429(client: TestClient, store: Store) -> None:
    key = fresh_key(store, free=3)
    response = client.post("/solve", content=json.dumps(large_request()), headers=bearer(key))
    assert response.status_code == 429
    assert response.json()["type"].endswith("/quota-exceeded")
    assert "retry-after" not in response.headers
    assert available(client, key) == 3


# ------------------------------------------------------------------------ queued plans


def long_plan() -> dict[str, Any]:
    """A plan queued by its 31 s limit, small enough to be proven optimal at once: e1
    worked the 3 days before the period, the most in a row, and wants the day shift on
    its first date, which the history rules out."""
    data = minimal_request_dict()
    data["options"] = {"solver_timeout_seconds": 31}
    data.setdefault("constraints", {})["max_consecutive_working_days"] = 3
    data["employees"][0]["preferences"] = [
        {"type": "preferred_shift", "date": START_DATE, "shift_id": "day"}
    ]
    before = [f"2026-02-{day}" for day in (27, 28)] + ["2026-03-01"]
    history = {"assignments": [{"employee_id": "e1", "date": d, "shift_id": "day"} for d in before]}
    return {"request": data, "absences": [{"employee_id": "e2", "dates": [START_DATE]}]} | {
        "history": history
    }


@pytest.mark.slow
def test_a_long_plan_is_queued_polled_to_its_ledger_and_charged_once(
    client: TestClient, store: Store
) -> None:
    key, body = fresh_key(store, free=5), long_plan()
    units = units_for(request_size(parse_request(body["request"])))
    job_id = submit(client, key, body, path="/solve/plan")
    assert available(client, key) == 5 - units  # held from acceptance
    record = store.jobs.find_job(job_id)
    assert record is not None
    assert (record.parse, record.call) == (
        "shiftsched.contract.planning:parse_plan",
        "shiftsched.periods.plan:plan",
    )

    answer = wait_for(client, key, job_id)
    assert answer["status"] == "completed", answer
    planned = PlanResponse.model_validate(answer)
    assert planned.job_id == job_id and planned.solution is not None
    assert planned.usage is not None
    assert (planned.usage.units_consumed, planned.usage.units_remaining) == (units, 5 - units)
    ask = parse_plan(body)
    roster = planned.solution.assignments
    report = audit(ask.request, roster, history=ask.history)
    assert report.hard_violations == []
    assert compare_with_metrics(report, planned.solution.metrics, planned.solution.shortages) == []
    first = {a.employee_id for a in roster if a.date.isoformat() == START_DATE}
    assert not first & {"e1", "e2"}  # e1 by the history, e2 by its absence
    assert planned.ledger is not None and planned.ledger.through.isoformat() == "2026-03-08"
    e1 = next(e for e in planned.ledger.employees if e.employee_id == "e1")
    assert e1.days_worked == 3 + sum(a.employee_id == "e1" for a in roster)

    progress = client.get(f"/solve/jobs/{job_id}/progress", headers=bearer(key)).json()
    assert (progress["status"], progress["state"]) == ("completed", "finished")
    stopped = client.delete(f"/solve/jobs/{job_id}", headers=bearer(key))
    assert (stopped.status_code, stopped.json()) == (200, answer)  # ended: nothing changes
    for _ in range(5):
        assert client.get(f"/solve/jobs/{job_id}", headers=bearer(key)).json() == answer
    assert available(client, key) == 5 - units  # charged once
    reservation = store.ledger.get_reservation(str(record.reservation_id))
    assert reservation is not None and reservation.state == "captured"


def test_a_plan_is_admitted_like_a_solve(client: TestClient, store: Store) -> None:
    """Large, or longer than 30 s: queued on a pro key, refused on a basic one; the pro
    key here cannot cover the large plan, so it is refused before any job is made."""
    basic, poor = fresh_key(store, tier="basic", free=5), fresh_key(store, free=3)
    large = {"request": large_request()}
    refused = client.post("/solve/plan", content=json.dumps(large), headers=bearer(basic))
    assert refused.status_code == 422
    assert refused.json()["type"].endswith("/tier-limit-exceeded")
    long = client.post("/solve/plan", content=json.dumps(long_plan()), headers=bearer(basic))
    assert long.status_code == 501
    assert long.json()["type"].endswith("/not-implemented")
    short = client.post("/solve/plan", content=json.dumps(large), headers=bearer(poor))
    assert short.status_code == 429  # the queued path holds the units first
    assert short.json()["type"].endswith("/quota-exceeded")
    assert (available(client, basic), available(client, poor)) == (5, 3)


def test_a_record_names_functions_of_the_engine_only() -> None:
    assert engine_name(parse_plan) == "shiftsched.contract.planning:parse_plan"
    assert checked_name("shiftsched.periods.plan:plan") == "shiftsched.periods.plan:plan"
    for name in (
        "os:system",
        "shiftsched.periods.plan",
        "shiftsched.periods.plan:plan()",
        "builtins:eval",
        "shiftsched.service.ops.admin:main",
    ):
        with pytest.raises(ValueError, match="names no function of the engine"):
            checked_name(name)
    for outside in (lambda data: data, functools.partial(parse_plan)):
        with pytest.raises(ValueError):  # a declaration naming one is refused
            engine_name(outside)


def test_restart_runs_orphans_once_more_and_keeps_queued_ones(tmp_path: Path) -> None:
    """The retry policy at a restart: an orphan on its first run is queued again with its
    units still held; one whose second run was orphaned too fails interrupted."""
    settings = settings_for(tmp_path, jobs_consumer=False, solve_processes=1)
    store = Store(str(settings.database_url))
    store.db.migrate()
    account = store.accounts.create_account("owner", tier="pro", free_quota=10)
    jobs = []
    for name in ("orphan", "again", "queued"):
        assert store.ledger.reserve(account.id, 2, name) is not None
        jobs.append(store.jobs.create_job(account.id, {}, units_reserved=2, reservation_id=name))
    orphan, again, queued = jobs
    handed_on = store.jobs.settle_orphan(
        again.id, 1, max_attempts=MAX_ATTEMPTS, failed_response=lambda code: None
    )
    assert handed_on == "rerun"  # its first run died earlier; its second has not started

    def no_context() -> JobContext:
        raise AssertionError("nothing runs before the app starts")

    JobQueue(create_huey(settings), no_context).enqueue(queued.id)  # still in the queue
    assert store.ledger.usage(account.id)[2] == 4

    with TestClient(create_app(settings)) as client:
        rerun = store.jobs.find_job(orphan.id)
        assert rerun is not None and (rerun.status, rerun.attempt) == ("running", 2)
        assert store.ledger.get_reservation("orphan").state == "reserved"  # type: ignore[union-attr]
        failed = store.jobs.find_job(again.id)
        assert failed is not None and (failed.status, failed.error_code) == (
            "failed",
            "interrupted",
        )
        assert failed.as_response()["error"]["code"] == "interrupted"
        assert store.ledger.get_reservation("again").state == "released"  # type: ignore[union-attr]
        waiting = store.jobs.find_job(queued.id)
        assert waiting is not None and (waiting.status, waiting.attempt) == ("running", 1)
        assert store.ledger.usage(account.id)[2] == 6
        queue: JobQueue = client.app.state.jobs  # type: ignore[attr-defined]
        tasks = sorted((task.args, task.kwargs) for task in queue.huey.pending())
        assert tasks == sorted([((queued.id,), {}), ((orphan.id,), {"attempt": 2})])
    store.close()


@pytest.mark.slow
def test_shutdown_fails_the_job_it_was_solving(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, solve_processes=1, jobs_workers=1)
    with TestClient(create_app(settings)) as app_client:
        app_store: Store = app_client.app.state.store  # type: ignore[attr-defined]
        key = fresh_key(app_store, free=50)
        job_id = submit(app_client, key, large_request(timeout=120))
        queue: JobQueue = app_client.app.state.jobs  # type: ignore[attr-defined]
        deadline = time.monotonic() + PICKUP_LIMIT_SECONDS
        while queue.huey.get(f"executing:{job_id}", peek=True) is None:
            assert time.monotonic() < deadline, "the consumer never picked the job up"
            time.sleep(0.1)
    store = Store(str(settings.database_url))
    job = store.jobs.find_job(job_id)
    assert job is not None and (job.status, job.error_code) == ("failed", "interrupted")
    assert store.ledger.get_reservation(str(job.reservation_id)).state == "released"  # type: ignore[union-attr]
    store.close()


def test_openapi_describes_the_queued_answer_and_polling(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    queued = paths["/solve"]["post"]["responses"]["202"]
    assert queued["content"]["application/json"]["schema"]["$ref"].endswith("/SolveResponse")
    assert "Retry-After" in queued["headers"]
    polled = paths["/solve/jobs/{id}"]["get"]["responses"]
    assert "Retry-After" in polled["200"]["headers"]
    assert {"401", "404"} <= set(polled)
    assert "releases" in polled["200"]["description"]


@pytest.mark.slow
def test_a_separate_consumer_process_runs_queued_jobs(tmp_path: Path) -> None:
    """Scale-out: `huey_consumer shiftsched.service.solving.jobs.huey` with the service's
    environment."""
    settings = settings_for(tmp_path, jobs_consumer=False)
    store = Store(str(settings.database_url))
    store.db.migrate()
    account = store.accounts.create_account("owner", tier="pro", free_quota=10)
    data = minimal_request_dict()
    data["options"] = {"solver_timeout_seconds": 40}
    assert store.ledger.reserve(account.id, 1, "scale-out") is not None
    job = store.jobs.create_job(account.id, data, units_reserved=1, reservation_id="scale-out")

    def no_context() -> JobContext:
        raise AssertionError("the producer never runs tasks")

    JobQueue(create_huey(settings), no_context).enqueue(job.id)
    process = start_huey_consumer({"DATABASE_URL": str(settings.database_url)})
    try:
        deadline = time.monotonic() + POLL_LIMIT_SECONDS
        while (found := store.jobs.find_job(job.id)) is not None and found.status == "running":
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
    assert found is not None and found.status == "completed", found
    assert found.as_response()["usage"] == {"units_consumed": 1, "units_remaining": 9}
    assert store.ledger.get_reservation("scale-out").state == "captured"  # type: ignore[union-attr]
    store.close()
