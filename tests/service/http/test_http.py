"""The v1 HTTP contract against the real app in-process: statuses, headers, billing.

Solves run in the real worker pool (one process) on a real store, a SQLite file and a
PostgreSQL server in turn; every roster returned is checked by the independent auditor.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveResponse
from shiftsched.data import request_body as build
from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.http.gate import MAX_BODY_BYTES
from shiftsched.service.store import Jobs, Store, StoreUnavailable
from tests.factories import minimal_request_dict
from tests.service.conftest import BACKENDS

DEMO_KEY = "sk_test_" + "d" * 64
ROOT = Path(__file__).parent.parent.parent.parent
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module", params=BACKENDS)
def app_and_db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TestClient, str]]:
    """The app on each real backend (the PostgreSQL server comes from conftest)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'service.db'}"
    else:
        url = request.getfixturevalue("postgres_server").new_database()
    settings = Settings(
        database_url=url,
        demo_api_key=DEMO_KEY,
        # The queue file and the billing outbox of this app alone: on PostgreSQL they would
        # otherwise sit in the shared var/, where another test's reconciler could replay
        # (and drop) this app's kept job ends against its own database.
        jobs_db_path=str(tmp_path_factory.mktemp("queue") / "jobs.db"),
        solve_processes=1,
        cp_sat_workers=1,
        diagnosis_budget_seconds=60,  # small diagnoses end on their own long before
        errors_base="https://api.test/v1/public/errors",
    )
    with TestClient(create_app(settings)) as client:
        yield client, url


@pytest.fixture
def client(app_and_db: tuple[TestClient, str]) -> TestClient:
    return app_and_db[0]


@pytest.fixture
def store(app_and_db: tuple[TestClient, str]) -> Store:
    return app_and_db[0].app.state.store  # type: ignore[no-any-return,attr-defined]


def bearer(key: str) -> dict[str, str]:
    return {**JSON, "Authorization": f"Bearer {key}"}


def post(client: TestClient, path: str, body: Any, headers: dict[str, str] | None = None) -> Any:
    return client.post(path, content=json.dumps(body), headers=headers or JSON)


def assert_problem(response: Any, status: int, slug: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["type"] == f"https://api.test/v1/public/errors/{slug}"
    assert body["status"] == status
    assert body["request_id"] == response.headers["x-request-id"]
    return body


def fresh_key(store: Store, tier: str = "pro", free: int = 100, balance: int = 0) -> str:
    account = store.accounts.create_account("client", tier=tier, free_quota=free, balance=balance)  # type: ignore[arg-type]
    return store.accounts.issue_key(account.id)


# ------------------------------------------------------------------------- validate


def test_validate_is_free_and_answers_counts(client: TestClient) -> None:
    response = post(client, "/solve/validate", minimal_request_dict())
    assert response.status_code == 200
    body = response.json()
    assert (body["valid"], body["schedule_days"], body["employee_count"]) == (True, 7, 3)
    assert response.headers["x-request-id"]


def test_wrong_content_type_is_415(client: TestClient) -> None:
    response = client.post("/solve/validate", content="{}", headers={"Content-Type": "text/plain"})
    assert_problem(response, 415, "unsupported-media-type")


def test_invalid_json_is_400(client: TestClient) -> None:
    response = client.post("/solve/validate", content="{nope", headers=JSON)
    assert_problem(response, 400, "invalid-json")


def test_body_over_the_cap_is_413_even_without_content_length(client: TestClient) -> None:
    big = b'{"x": "' + b"a" * MAX_BODY_BYTES + b'"}'
    assert_problem(
        client.post("/solve/validate", content=big, headers=JSON), 413, "payload-too-large"
    )

    def chunks() -> Iterator[bytes]:
        yield big[:1000]
        yield big[1000:]

    response = client.post("/solve/validate", content=chunks(), headers=JSON)
    assert_problem(response, 413, "payload-too-large")


def test_schema_mismatch_is_422_with_json_paths(client: TestClient) -> None:
    data = minimal_request_dict()
    data["employees"][1]["assignable_shift_ids"] = ["nowhere"]
    body = assert_problem(post(client, "/solve/validate", data), 422, "validation-error")
    assert {"path": ["employees", 1, "assignable_shift_ids", 0], "code": "unknown_shift_id"} in [
        {"path": e["path"], "code": e["code"]} for e in body["errors"]
    ]


# --------------------------------------------------------------------------- solve


def test_solve_without_credential_is_402_with_accepts(client: TestClient) -> None:
    response = post(client, "/solve", minimal_request_dict())
    body = assert_problem(response, 402, "payment-required")
    assert body["accepts"][0]["scheme"] == "api_key"
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_unknown_key_is_401_naming_bearer(client: TestClient) -> None:
    response = post(client, "/solve", minimal_request_dict(), bearer("sk_live_unknown"))
    assert_problem(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_x_payment_without_x402_configured_is_401_naming_x402(client: TestClient) -> None:
    headers = {**JSON, "X-PAYMENT": "eyJ4NDAyVmVyc2lvbiI6MX0="}
    response = post(client, "/solve", minimal_request_dict(), headers)
    assert_problem(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("X402")


def test_disabled_key_is_401(client: TestClient, store: Store) -> None:
    key = fresh_key(store)
    assert store.accounts.disable_key(key)
    assert_problem(post(client, "/solve", minimal_request_dict(), bearer(key)), 401, "unauthorized")


@pytest.mark.slow
def test_solve_returns_an_audited_roster_and_charges_units(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=3)
    data = minimal_request_dict()
    response = post(client, "/solve", data, bearer(key))
    assert response.status_code == 200, response.text
    assert (response.headers["x-units-consumed"], response.headers["x-units-remaining"]) == (
        "1",
        "2",
    )
    assert "x-service-billing-status" not in response.headers
    result = SolveResponse.model_validate(response.json())
    assert result.status == "completed" and result.solution is not None
    assert result.usage is not None and result.usage.units_remaining == 2
    report = audit(parse_request(data), result.solution.assignments)
    assert report.feasible
    assert compare_with_metrics(report, result.solution.metrics) == []


def test_invalid_input_costs_nothing(client: TestClient, store: Store) -> None:
    key = fresh_key(store, free=1)
    data = minimal_request_dict()
    data["shifts"][0]["staffing_demand"] = []
    assert_problem(post(client, "/solve", data, bearer(key)), 422, "validation-error")
    usage = client.get("/usage", headers=bearer(key)).json()
    assert usage["available_units"] == 1


def test_infeasible_is_422_with_diagnosis_and_consumes_units(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=5)
    data = minimal_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-04"]
    first = data["employees"][0]
    first["fixed_assignments"] = [
        {"date": "2026-03-04", "shift_id": first["assignable_shift_ids"][0]}
    ]
    response = post(client, "/solve", data, bearer(key))
    body = assert_problem(response, 422, "solver-infeasible")
    assert body["solver_status"] == "INFEASIBLE"
    assert body["diagnosis"]["status"] == "identified"
    fields = [c["field"] for c in body["diagnosis"]["causes"]]
    assert "employees[0].fixed_assignments[0]" in fields
    assert response.headers["x-units-consumed"] == "1"
    assert client.get("/usage", headers=bearer(key)).json()["available_units"] == 4


def test_exhausted_quota_is_429_without_retry_after(client: TestClient, store: Store) -> None:
    key = fresh_key(store, free=0, balance=0)
    response = post(client, "/solve", minimal_request_dict(), bearer(key))
    problem = assert_problem(response, 429, "quota-exceeded")
    assert "retry-after" not in response.headers
    # The API says what the dashboard's Tier page says: ask the operator.
    assert problem["detail"] == (
        "this solve needs 1 unit(s) and 0 are available: "
        "ask the operator of this service for prepaid units"
    )


def large_request() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "datasets" / "max_size.json").read_text())
    return data


def test_large_problem_on_a_basic_key_is_422_tier_limit(client: TestClient, store: Store) -> None:
    key = fresh_key(store, tier="basic", free=100)
    response = post(client, "/solve", large_request(), bearer(key))
    assert_problem(response, 422, "tier-limit-exceeded")
    assert client.get("/usage", headers=bearer(key)).json()["available_units"] == 100


def test_long_timeout_on_a_basic_key_is_501(client: TestClient, store: Store) -> None:
    key = fresh_key(store, tier="basic")
    data = minimal_request_dict()
    data["options"] = {"solver_timeout_seconds": 120}
    assert_problem(post(client, "/solve", data, bearer(key)), 501, "not-implemented")


# ------------------------------------------------------------------ usage and jobs


def test_usage_reports_the_demo_account(client: TestClient) -> None:
    response = client.get("/usage", headers={"Authorization": f"Bearer {DEMO_KEY}"})
    assert response.status_code == 200
    body = response.json()
    assert body["available_units"] == body["free_quota_remaining"] + body["balance_units"]


def test_usage_without_key_is_401_not_402(client: TestClient) -> None:
    assert_problem(client.get("/usage"), 401, "unauthorized")


def test_unknown_job_is_404(client: TestClient) -> None:
    response = client.get("/solve/jobs/nope", headers={"Authorization": f"Bearer {DEMO_KEY}"})
    assert_problem(response, 404, "not-found")


def test_unknown_path_is_problem_json_404(client: TestClient) -> None:
    assert_problem(client.get("/nowhere"), 404, "not-found")


def test_a_path_no_route_pattern_accepts_is_problem_json_404(client: TestClient) -> None:
    # A newline defeats the catch-all pattern, so Starlette itself answers the 404.
    assert_problem(client.get("/x%0Ay"), 404, "not-found")


def test_unreachable_store_is_503_with_retry_after(client: TestClient) -> None:
    app: Any = client.app
    working = app.state.store
    app.state.store = Store("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=1")
    try:
        response = post(client, "/solve", minimal_request_dict(), bearer(DEMO_KEY))
        assert_problem(response, 503, "service-unavailable")
        assert response.headers["retry-after"].isdigit()
        assert_problem(client.get("/usage", headers=bearer(DEMO_KEY)), 503, "service-unavailable")
    finally:
        app.state.store = working


# ---------------------------------------------------------------------------- openapi


def test_openapi_describes_every_operation(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    assert document["info"]["version"] == "v1"
    operations = {op["operationId"] for path in document["paths"].values() for op in path.values()}
    assert {"validate_shift_input", "solve_shift", "get_solve_job", "get_usage"} <= operations
    schemas = document["components"]["schemas"]
    assert {"SolveRequest", "SolveResponse", "ValidateResponse", "UsageResponse"} <= set(schemas)
    assert schemas["SolveRequest"]["additionalProperties"] is False


class _EndingFails(Jobs):
    """The real job records, except that ending a job (the capture of its units) fails:
    the database went away between the solve's start and its end."""

    def finish_job(self, job_id: str, *args: Any, **kwargs: Any) -> bool:
        raise StoreUnavailable("the database went away")


class _CaptureFails(Store):
    """The real store, with job records whose ending fails."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.jobs = _EndingFails(self.db)


SETTLE_TIMEOUT_SECONDS = 60  # the service's reconciler runs every few seconds


@pytest.mark.slow
def test_delivered_solution_with_failed_billing_says_so_and_is_captured_later(
    app_and_db: tuple[TestClient, str],
) -> None:
    client, url = app_and_db
    app: Any = client.app
    working = app.state.store
    before = client.get("/usage", headers=bearer(DEMO_KEY)).json()["available_units"]
    app.state.store = _CaptureFails(url)
    settings = app.state.settings  # an outage longer than the request waits for the store
    app.state.settings = replace(settings, settle_patience_seconds=0.5)
    try:
        response = post(client, "/solve", minimal_request_dict(), bearer(DEMO_KEY))
    finally:
        app.state.store.close()
        app.state.store = working
        app.state.settings = settings
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "completed"
    assert response.headers["x-service-billing-status"] == "failed"
    # Units remaining are not known: none are claimed (never a false 0).
    assert "x-units-remaining" not in response.headers
    assert "usage" not in body
    assert response.headers["x-units-consumed"] == "1"
    # The kept end is written once the store takes it: the roster can be polled, and the
    # unit is captured, once.
    deadline = time.monotonic() + SETTLE_TIMEOUT_SECONDS
    while True:
        polled = client.get(f"/solve/jobs/{body['job_id']}", headers=bearer(DEMO_KEY))
        assert polled.status_code == 200, polled.text
        if polled.json()["status"] != "running" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert polled.json()["status"] == "completed"
    assert polled.json()["solution"] == body["solution"]
    after = client.get("/usage", headers=bearer(DEMO_KEY)).json()["available_units"]
    assert after == before - 1
    job = working.jobs.get_job(working.accounts.authenticate(DEMO_KEY).id, body["job_id"])
    assert working.ledger.get_reservation(job.reservation_id).state == "captured"


def too_big_for_one_second() -> dict[str, Any]:
    """Just below the large class (50 x 12 x 133 days = 79,800), with a 1 s limit: building
    the model alone takes longer than the budget, so no roster can be found in time."""
    days = 133
    shifts = [
        build.shift(
            f"s{i}",
            build.demand(days, 2, 4),
            name=f"Shift {i}",
            hours=(f"{2 * i:02d}:00", f"{(2 * i + 8) % 24:02d}:00"),
        )
        for i in range(12)
    ]
    employees = [build.employee(f"e{i}", [s["id"] for s in shifts]) for i in range(50)]
    options = {"solver_timeout_seconds": 1}
    return build.request_body(shifts, employees, start="2026-01-05", days=days, options=options)


@pytest.mark.slow
def test_no_roster_within_the_limit_is_504_and_costs_nothing(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, tier="basic", free=20)
    response = post(client, "/solve", too_big_for_one_second(), bearer(key))
    assert_problem(response, 504, "solver-timeout")
    assert client.get("/usage", headers=bearer(key)).json()["available_units"] == 20


def test_a_completed_synchronous_solve_can_be_fetched_by_its_job_id(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store)
    solved = post(client, "/solve", minimal_request_dict(), bearer(key))
    assert solved.status_code == 200, solved.text
    body = solved.json()
    fetched = client.get(f"/solve/jobs/{body['job_id']}", headers=bearer(key))
    assert fetched.status_code == 200
    assert fetched.json() == body
    assert "retry-after" not in fetched.headers
    stranger = fresh_key(store)  # another account sees nothing
    hidden = client.get(f"/solve/jobs/{body['job_id']}", headers=bearer(stranger))
    assert_problem(hidden, 404, "not-found")
