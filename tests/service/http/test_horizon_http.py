"""POST /solve/plan with a horizon: the period's answer says where each employee stands
against their targets and its ledger carries the counts; a horizon that does not hold
the period is 422 at its path and charges nothing. On the real app, store and solver."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.planning import PlanResponse, parse_plan
from shiftsched.service.http.api import create_app
from shiftsched.service.settings import Settings
from shiftsched.service.store import Store
from tests.factories import END_DATE, START_DATE, minimal_request_dict
from tests.service.http.test_http import assert_problem, bearer, fresh_key, post


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home = tmp_path_factory.mktemp("horizon")
    settings = Settings(
        database_url=f"sqlite:///{home / 'service.db'}",
        jobs_db_path=str(home / "jobs.db"),
        solve_processes=1,
        cp_sat_workers=1,
        errors_base="https://api.test/v1/public/errors",
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def store_of(client: TestClient) -> Store:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    return store


def test_a_plan_with_a_horizon_answers_the_progress_and_hands_on_the_counts(
    client: TestClient,
) -> None:
    key = fresh_key(store_of(client), free=10)
    targets = [{"employee_id": e, "max_days": 3, "max_weekends": 0} for e in ("e1", "e2", "e3")]
    body = {
        "request": minimal_request_dict(),
        "horizon": {"start": START_DATE, "end": END_DATE, "targets": targets},
    }
    response = post(client, "/solve/plan", body, bearer(key))
    assert response.status_code == 200, response.text
    answer = PlanResponse.model_validate(response.json())
    assert answer.solution is not None and answer.horizon_progress is not None
    assert answer.ledger is not None and answer.ledger.horizon is not None
    ask = parse_plan(body)
    report = audit(ask.request, answer.solution.assignments, horizon=ask.horizon)
    assert report.hard_violations == []
    metrics = answer.solution.metrics
    assert compare_with_metrics(report, metrics, answer.solution.shortages) == []
    worked = {p.employee_id: p.days_worked for p in answer.horizon_progress}
    assert sum(worked.values()) == len(answer.solution.assignments)
    counts = {c.employee_id: c.days_worked for c in answer.ledger.horizon.employees}
    assert counts == worked


def test_a_horizon_that_ends_before_the_period_is_422_and_costs_nothing(
    client: TestClient,
) -> None:
    store = store_of(client)
    key = fresh_key(store, free=5)
    horizon = {"start": START_DATE, "end": START_DATE, "targets": [{"employee_id": "e1"}]}
    body = {"request": minimal_request_dict(), "horizon": horizon}
    problem = assert_problem(
        post(client, "/solve/plan", body, bearer(key)), 422, "validation-error"
    )
    assert [fault["path"] for fault in problem["errors"]] == [["horizon", "end"]]
    usage = client.get("/usage", headers=bearer(key)).json()
    assert usage["available_units"] == 5
