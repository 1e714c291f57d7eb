"""POST /solve/plan, /solve/replan and /solve/recommend against the real app in-process.

Plans and re-plans run in the real worker pool (one process) on a real store, a SQLite
file and a PostgreSQL server in turn. The published roster is the engine's proven optimum
of a tiny request (4 employees x 7 days), or one written out, and every plan and re-plan
of it is proven optimal too, so no answer depends on the machine's speed; every roster
returned is checked by the independent auditor (reading the same history, when there is
one), and only what holds for any optimal roster is asserted.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.history import History
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import (
    PlanResponse,
    ReplanResponse,
    parse_recommend,
    roster_changes,
)
from shiftsched.contract.size import request_size, units_for
from shiftsched.contract.v1 import Assignment
from shiftsched.questions.recommend import recommend
from shiftsched.service.http.api import create_app
from shiftsched.service.http.gate import MAX_BODY_BYTES
from shiftsched.service.http.operations import RECOMMEND_UNITS
from shiftsched.service.settings import Settings
from shiftsched.service.store import Store
from tests.audited import solved_and_audited
from tests.factories import END_DATE, START_DATE, employee_dict, minimal_request_dict
from tests.service.conftest import BACKENDS
from tests.service.http.test_http import assert_problem, bearer, fresh_key, large_request, post

JSON = {"Content-Type": "application/json"}
PATHS = ("/solve/replan", "/solve/recommend")


@pytest.fixture(scope="module", params=BACKENDS)
def client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'service.db'}"
    else:
        url = request.getfixturevalue("postgres_server").new_database()
    settings = Settings(
        database_url=url,
        jobs_db_path=str(tmp_path_factory.mktemp("queue") / "jobs.db"),  # not the shared var/
        solve_processes=1,
        cp_sat_workers=1,
        diagnosis_budget_seconds=60,  # small diagnoses end on their own long before
        errors_base="https://api.test/v1/public/errors",
    )
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture
def store(client: TestClient) -> Store:
    return client.app.state.store  # type: ignore[no-any-return,attr-defined]


def four_employees() -> dict[str, Any]:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    return data


@pytest.fixture(scope="module")
def published() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The request and its published roster (proven optimal, audited)."""
    data = four_employees()
    solution = solved_and_audited(parse_request(data))
    return data, [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]


def available(client: TestClient, key: str) -> int:
    units: int = client.get("/usage", headers=bearer(key)).json()["available_units"]
    return units


def absence_of(cell: dict[str, Any]) -> dict[str, Any]:
    return {"employee_id": cell["employee_id"], "dates": [cell["date"]]}


# ---------------------------------------------------------------------------- plan


def test_plan_keeps_every_absence_and_charges_a_solve(client: TestClient, store: Store) -> None:
    data = four_employees()
    start = data["schedule_period"]["start_date"]
    absence = {"employee_id": "e1", "dates": [start]}
    key = fresh_key(store, free=10)
    response = post(client, "/solve/plan", {"request": data, "absences": [absence]}, bearer(key))
    assert response.status_code == 200, response.text
    units = units_for(request_size(parse_request(data)))
    assert response.headers["x-units-consumed"] == str(units)
    assert available(client, key) == 10 - units
    result = PlanResponse.model_validate(response.json())
    assert result.status == "completed" and result.solution is not None
    assert (
        result.ledger is not None
        and result.ledger.through.isoformat() == data["schedule_period"]["end_date"]
    )
    assert result.usage is not None and result.usage.units_consumed == units
    worked = {(a.employee_id, a.date.isoformat()) for a in result.solution.assignments}
    assert ("e1", start) not in worked
    report = audit(parse_request(data), result.solution.assignments)
    assert report.hard_violations == []
    assert compare_with_metrics(report, result.solution.metrics, result.solution.shortages) == []


def test_plan_faults_are_422_with_paths_and_cost_nothing(client: TestClient, store: Store) -> None:
    key = fresh_key(store, free=5)
    body = {"request": four_employees(), "absences": [{"employee_id": "nobody", "dates": []}]}
    problem = assert_problem(
        post(client, "/solve/plan", body, bearer(key)), 422, "validation-error"
    )
    paths = {tuple(fault["path"]) for fault in problem["errors"]}
    assert ("absences", 0, "dates") in paths
    assert available(client, key) == 5
    assert_problem(post(client, "/solve/plan", body), 401, "unauthorized")


# ------------------------------------------------------------------------- re-plan


@pytest.mark.slow
def test_replan_covers_an_absence_with_an_audited_roster_and_charges_a_solve(
    client: TestClient, store: Store, published: tuple[dict[str, Any], list[dict[str, Any]]]
) -> None:
    data, roster = published
    sick = roster[0]
    key = fresh_key(store, free=10)
    body = {"request": data, "roster": roster, "absences": [absence_of(sick)]}
    response = post(client, "/solve/replan", body, bearer(key))
    assert response.status_code == 200, response.text
    units = units_for(request_size(parse_request(data)))
    assert response.headers["x-units-consumed"] == str(units)
    assert response.headers["x-units-remaining"] == str(10 - units)
    assert available(client, key) == 10 - units

    result = ReplanResponse.model_validate(response.json())
    assert result.status == "completed" and result.solution is not None
    assert result.usage is not None and result.usage.units_consumed == units
    new = result.solution.assignments
    report = audit(parse_request(data), new)
    assert report.hard_violations == []
    assert compare_with_metrics(report, result.solution.metrics, result.solution.shortages) == []
    before = [Assignment.model_validate(a) for a in roster]
    assert result.changes == roster_changes(before, new)
    assert result.changes  # the absent employee's shift moved to someone else
    worked = {(a.employee_id, a.date.isoformat()) for a in new}
    assert (sick["employee_id"], sick["date"]) not in worked
    polled = client.get(f"/solve/jobs/{result.job_id}", headers=bearer(key))
    assert polled.status_code == 200 and polled.json() == response.json()  # the re-plan's row


def test_an_absence_against_a_pin_is_422_with_a_diagnosis_charged_as_a_solve(
    client: TestClient, store: Store, published: tuple[dict[str, Any], list[dict[str, Any]]]
) -> None:
    """As on POST /solve, an infeasibility explained by a diagnosis is delivered: charged."""
    data, roster = published
    sick = roster[0]
    key = fresh_key(store, free=10)
    body = {"request": data, "roster": roster, "absences": [absence_of(sick)], "pinned": [sick]}
    response = post(client, "/solve/replan", body, bearer(key))
    problem = assert_problem(response, 422, "solver-infeasible")
    assert problem["solver_status"] == "INFEASIBLE"
    diagnosis = problem["diagnosis"]
    assert diagnosis["status"] == "identified"
    assert {c["field"] for c in diagnosis["causes"]} == {"absences[0].dates[0]", "pinned[0]"}
    assert response.headers["x-units-consumed"] == "1"
    assert available(client, key) == 9
    kept = client.get(f"/solve/jobs/{problem['job_id']}", headers=bearer(key))  # its charge's row
    assert kept.status_code == 200 and kept.json()["status"] == "failed"
    assert kept.json()["error"]["diagnosis"] == diagnosis


def test_replan_faults_are_422_with_paths_and_cost_nothing(
    client: TestClient, store: Store, published: tuple[dict[str, Any], list[dict[str, Any]]]
) -> None:
    data, roster = published
    key = fresh_key(store, free=5)
    body = {
        "request": data,
        "roster": roster,
        "absences": [{"employee_id": "nobody", "dates": ["2026-03-02", "2027-01-01"]}],
    }
    problem = assert_problem(
        post(client, "/solve/replan", body, bearer(key)), 422, "validation-error"
    )
    faults = {(tuple(e["path"]), e["code"]) for e in problem["errors"]}
    assert (("absences", 0, "employee_id"), "unknown_employee_id") in faults
    assert (("absences", 0, "dates", 1), "date_outside_period") in faults
    broken: dict[str, Any] = {**body, "absences": [], "request": {**data, "employees": []}}
    problem = assert_problem(
        post(client, "/solve/replan", broken, bearer(key)), 422, "validation-error"
    )
    assert all(e["path"][0] == "request" for e in problem["errors"])
    assert available(client, key) == 5


def test_a_large_request_is_422_even_on_a_pro_key(client: TestClient, store: Store) -> None:
    """A re-plan runs synchronously only, and large problems only on the queued path."""
    key = fresh_key(store, tier="pro", free=100)
    large = {"request": large_request(), "roster": []}
    problem = assert_problem(
        post(client, "/solve/replan", large, bearer(key)), 422, "tier-limit-exceeded"
    )
    assert "synchronously only" in problem["detail"]
    assert available(client, key) == 100


def test_a_long_time_limit_runs_synchronously_on_a_basic_key(
    client: TestClient, store: Store, published: tuple[dict[str, Any], list[dict[str, Any]]]
) -> None:
    """Capped at the synchronous limit rather than refused (POST /solve answers 501); the
    tiny re-plan is proven optimal long before any limit."""
    data, roster = published
    key = fresh_key(store, tier="basic", free=5)
    long = {"request": {**data, "options": {"solver_timeout_seconds": 300}}, "roster": roster}
    response = post(client, "/solve/replan", long, bearer(key))
    assert response.status_code == 200, response.text
    assert response.json()["changes"] == []  # nothing changed: the published optimum stays
    assert available(client, key) == 4


# ----------------------------------------------------------------------- recommend


def recommend_body(data: dict[str, Any], roster: list[dict[str, Any]]) -> dict[str, Any]:
    """Who could take the first cell's shift from its absent employee."""
    sick = roster[0]
    return {
        "request": data,
        "roster": roster,
        "slot": {"date": sick["date"], "shift_id": sick["shift_id"]},
        "absences": [absence_of(sick)],
    }


def test_recommend_ranks_the_candidates_and_charges_a_flat_unit(
    client: TestClient, store: Store, published: tuple[dict[str, Any], list[dict[str, Any]]]
) -> None:
    data, roster = published
    key = fresh_key(store, free=10)
    body = recommend_body(data, roster)
    response = post(client, "/solve/recommend", body, bearer(key))
    assert response.status_code == 200, response.text
    assert response.headers["x-units-consumed"] == str(RECOMMEND_UNITS)
    assert response.headers["x-units-remaining"] == str(10 - RECOMMEND_UNITS)
    assert available(client, key) == 10 - RECOMMEND_UNITS

    answer = response.json()
    expected = recommend(parse_recommend(body)).model_dump(mode="json", exclude_none=True)
    assert {**answer, "job_id": None} == {**expected, "job_id": None}  # the engine's ranking
    polled = client.get(f"/solve/jobs/{answer['job_id']}", headers=bearer(key))
    assert polled.status_code == 200 and polled.json() == answer  # kept with its charge
    ranked = answer["recommendations"]
    sick = roster[0]["employee_id"]
    assert ranked and sick not in {r["employee_id"] for r in ranked}
    assert answer["candidates"] == len(ranked) == 3  # everyone but the absent one
    order = [(not r["feasible"], r["objective_delta"]) for r in ranked]
    assert order == sorted(order)


def test_recommend_faults_are_422_with_paths_and_cost_nothing(
    client: TestClient, store: Store, published: tuple[dict[str, Any], list[dict[str, Any]]]
) -> None:
    data, roster = published
    key = fresh_key(store, free=5)
    body = recommend_body(data, roster)
    body["slot"]["shift_id"] = "nowhere"
    body["absences"][0]["employee_id"] = "nobody"
    problem = assert_problem(
        post(client, "/solve/recommend", body, bearer(key)), 422, "validation-error"
    )
    paths = {tuple(e["path"]) for e in problem["errors"]}
    assert {("slot", "shift_id"), ("absences", 0, "employee_id")} <= paths
    assert_problem(
        post(client, "/solve/recommend", {**body, "top": 0}, bearer(key)), 422, "validation-error"
    )
    assert available(client, key) == 5


def test_recommend_on_an_exhausted_account_is_429(
    client: TestClient, store: Store, published: tuple[dict[str, Any], list[dict[str, Any]]]
) -> None:
    key = fresh_key(store, free=0, balance=0)
    response = post(client, "/solve/recommend", recommend_body(*published), bearer(key))
    assert_problem(response, 429, "quota-exceeded")


# ------------------------------------------------------------------- after a history
# The seam rule of these tests: at most 3 worked days in a row, and the history's
# employee worked the 3 days before the period, so working its first date would make 4.

CAP = 3
START = date.fromisoformat(START_DATE)


def capped(cap: int = CAP) -> dict[str, Any]:
    """Four employees, at most ``cap`` worked days in a row."""
    data = four_employees()
    data.setdefault("constraints", {})["max_consecutive_working_days"] = cap
    return data


def wanting(data: dict[str, Any], employee_id: str, on: str) -> dict[str, Any]:
    """``data`` with ``employee_id`` preferring the day shift on date ``on`` (soft): a
    solve that ignored the history would grant it, one that reads it cannot."""
    preference = {"type": "preferred_shift", "date": on, "shift_id": "day"}
    employee = next(e for e in data["employees"] if e["id"] == employee_id)
    employee["preferences"] = [preference]
    return data


def worked_before(employee_id: str, days: int = CAP) -> list[dict[str, str]]:
    """``employee_id`` on the day shift each of the ``days`` dates right before START."""
    return [
        {"employee_id": employee_id, "date": (START - timedelta(days=back)).isoformat()}
        | {"shift_id": "day"}
        for back in range(days, 0, -1)
    ]


def audited_with(data: dict[str, Any], answer: Any, history: History) -> list[Assignment]:
    """The answer's roster, which the audit reading the same history finds clean and
    prices as the answer does."""
    assert answer.status == "completed" and answer.solution is not None
    solution = answer.solution
    report = audit(parse_request(data), solution.assignments, history=history)
    assert report.hard_violations == []
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    assignments: list[Assignment] = solution.assignments
    return assignments


def hand_roster() -> list[dict[str, str]]:
    """A published roster of :func:`capped` written out: e1 (day) and e2 (night) on the
    first two dates and the 5th and 6th, e3 and e4 on the others; no run is over 2."""
    pairs = ["e1 e2", "e1 e2", "e3 e4", "e3 e4", "e1 e2", "e1 e2", "e3 e4"]
    roster = []
    for offset, pair in enumerate(pairs):
        on = (START + timedelta(days=offset)).isoformat()
        for employee_id, shift_id in zip(pair.split(), ("day", "night"), strict=True):
            roster.append({"employee_id": employee_id, "date": on, "shift_id": shift_id})
    return roster


def test_plan_keeps_the_run_before_the_period_and_answers_the_ledger(
    client: TestClient, store: Store
) -> None:
    data = wanting(capped(), "e1", START_DATE)
    key = fresh_key(store, free=10)
    body = {"request": data, "history": {"assignments": worked_before("e1")}}
    response = post(client, "/solve/plan", body, bearer(key))
    assert response.status_code == 200, response.text
    result = PlanResponse.model_validate(response.json())
    history = History.model_validate(body["history"])
    roster = audited_with(data, result, history)
    assert not any(a.employee_id == "e1" and a.date == START for a in roster)
    ledger = result.ledger
    assert ledger is not None and ledger.through.isoformat() == END_DATE
    entries = {e.employee_id: e for e in ledger.employees}
    for employee_id in ("e1", "e2", "e3", "e4"):
        in_period = sum(a.employee_id == employee_id for a in roster)
        before = CAP if employee_id == "e1" else 0
        assert entries[employee_id].days_worked == in_period + before
    assert (entries["e1"].preferences_granted, entries["e1"].preferences_refused) == (0, 1)


@pytest.mark.slow
def test_the_history_is_not_billed(client: TestClient, store: Store) -> None:
    """The same request costs the same with a history covering four years as without.
    Billed as days of the period, those years would cost more than one unit."""
    data = capped()
    covered = (START - date(2022, 3, 2)).days
    size = request_size(parse_request(data))
    assert units_for(size * (7 + covered) // 7) > units_for(size) == 1
    history = {"start_date": "2022-03-02", "assignments": worked_before("e1")}
    key = fresh_key(store, free=10)
    without = post(client, "/solve/plan", {"request": data}, bearer(key))
    with_history = post(client, "/solve/plan", {"request": data, "history": history}, bearer(key))
    for response in (without, with_history):
        assert response.status_code == 200, response.text
        assert response.headers["x-units-consumed"] == str(units_for(size))
    assert available(client, key) == 10 - 2 * units_for(size)


def test_a_history_against_the_request_is_422_with_paths_and_costs_nothing(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=5)
    cells = [
        {"employee_id": "nobody", "date": "2026-03-01", "shift_id": "day"},
        {"employee_id": "e1", "date": START_DATE, "shift_id": "day"},  # in the period
    ]
    for path in ("/solve/plan", "/solve/replan"):
        body = {"request": capped(), "history": {"assignments": cells}}
        if path == "/solve/replan":
            body["roster"] = hand_roster()
        response = post(client, path, body, bearer(key))
        problem = assert_problem(response, 422, "validation-error")
        faults = {(tuple(e["path"]), e["code"]) for e in problem["errors"]}
        assert (("history", "assignments", 0, "employee_id"), "unknown_employee_id") in faults
        assert (("history", "assignments", 1, "date"), "not_before_period") in faults
        assert "x-units-consumed" not in response.headers
    assert available(client, key) == 5


@pytest.mark.slow
def test_a_previous_solve_answer_is_a_history_as_it_stands(
    client: TestClient, store: Store
) -> None:
    """Week one solved by POST /solve; its answer, untouched, is week two's history.

    No one works two days in a row, and someone who worked week one's last date wants
    the day shift on week two's first: read as a history, the answer refuses it."""
    key = fresh_key(store, free=10)
    solved = post(client, "/solve", capped(cap=1), bearer(key))
    assert solved.status_code == 200, solved.text
    answer = solved.json()
    assert {"job_id", "status", "solution", "usage"} <= set(answer)
    before = [Assignment.model_validate(a) for a in answer["solution"]["assignments"]]
    last = min(a.employee_id for a in before if a.date.isoformat() == END_DATE)
    second = wanting(capped(cap=1), last, "2026-03-09")
    second["schedule_period"] |= {"start_date": "2026-03-09", "end_date": "2026-03-15"}
    response = post(client, "/solve/plan", {"request": second, "history": answer}, bearer(key))
    assert response.status_code == 200, response.text
    planned = PlanResponse.model_validate(response.json())
    roster = audited_with(second, planned, History.model_validate(answer))
    assert not any(a.employee_id == last and a.date.isoformat() == "2026-03-09" for a in roster)
    assert planned.ledger is not None
    worked = {e.employee_id: e.days_worked for e in planned.ledger.employees}
    for employee_id in ("e1", "e2", "e3", "e4"):
        count = sum(a.employee_id == employee_id for a in [*before, *roster])
        assert worked[employee_id] == count


def test_replan_after_a_history_moves_the_run_off_the_first_date(
    client: TestClient, store: Store
) -> None:
    """e1 works the first two dates of the published roster, after 3 worked days."""
    data, published = capped(), hand_roster()
    key = fresh_key(store, free=10)
    history = {"assignments": worked_before("e1")}
    body = {"request": data, "roster": published, "history": history}
    response = post(client, "/solve/replan", body, bearer(key))
    assert response.status_code == 200, response.text
    assert response.headers["x-units-consumed"] == str(units_for(request_size(parse_request(data))))
    result = ReplanResponse.model_validate(response.json())
    roster = audited_with(data, result, History.model_validate(history))
    assert not any(a.employee_id == "e1" and a.date == START for a in roster)
    before = [Assignment.model_validate(a) for a in published]
    assert result.changes == roster_changes(before, roster)
    assert ("e1", START) in {(c.employee_id, c.date) for c in result.changes}


def test_recommend_after_a_history_ranks_a_move_across_the_seam_infeasible(
    client: TestClient, store: Store
) -> None:
    """e1 is away on the first date; e3 and e4 are off that date and could take its day
    shift. After 3 worked days before the period, e3 taking it is a 4th day in a row."""
    data, roster = capped(), hand_roster()
    key = fresh_key(store, free=10)
    base = {
        "request": data,
        "roster": roster,
        "slot": {"date": START_DATE, "shift_id": "day"},
        "absences": [{"employee_id": "e1", "dates": [START_DATE]}],
    }
    body = base | {"history": {"assignments": worked_before("e3")}}
    response = post(client, "/solve/recommend", body, bearer(key))
    assert response.status_code == 200, response.text
    assert response.headers["x-units-consumed"] == str(RECOMMEND_UNITS)
    answer = response.json()
    ranking = recommend(parse_recommend(body)).model_dump(mode="json", exclude_none=True)
    assert answer == {**ranking, "job_id": answer["job_id"]}
    ranked = {r["employee_id"]: r for r in answer["recommendations"]}
    codes = {v["code"] for v in ranked["e3"]["hard_violations"]}
    assert ranked["e3"]["feasible"] is False and "max_consecutive_days" in codes
    assert ranked["e4"]["feasible"] is True
    assert answer["recommendations"][-1]["employee_id"] == "e3"  # infeasible moves last
    # Without the history, e3's move breaks nothing.
    alone = recommend(parse_recommend(base)).recommendations
    assert {r.employee_id: r.feasible for r in alone}["e3"] is True


# --------------------------------------------------------------------- both: gate


@pytest.mark.parametrize("path", PATHS)
def test_a_key_is_required_and_a_bad_one_refused(
    client: TestClient, path: str, published: tuple[dict[str, Any], list[dict[str, Any]]]
) -> None:
    body = recommend_body(*published)
    missing = post(client, path, body)
    assert_problem(missing, 401, "unauthorized")  # no 402 offer: these take no payment
    assert missing.headers["www-authenticate"].startswith("Bearer")
    wrong = post(client, path, body, bearer("sk_live_unknown"))
    assert_problem(wrong, 401, "unauthorized")
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]


@pytest.mark.parametrize("path", PATHS)
def test_unreadable_bodies_are_415_400_413(client: TestClient, store: Store, path: str) -> None:
    key = fresh_key(store, free=1)
    text = {"Content-Type": "text/plain", "Authorization": f"Bearer {key}"}
    assert_problem(client.post(path, content="{}", headers=text), 415, "unsupported-media-type")
    assert_problem(client.post(path, content="{nope", headers=bearer(key)), 400, "invalid-json")
    big = b'{"x": "' + b"a" * MAX_BODY_BYTES + b'"}'
    assert_problem(client.post(path, content=big, headers=bearer(key)), 413, "payload-too-large")
    assert available(client, key) == 1


def test_openapi_describes_both_operations(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    replan = document["paths"]["/solve/replan"]["post"]
    recommend_ = document["paths"]["/solve/recommend"]["post"]
    assert (replan["operationId"], recommend_["operationId"]) == (
        "replan_shift",
        "recommend_employees",
    )
    for operation in (replan, recommend_):
        assert operation["security"] == [{"apiKey": []}]
        assert {"200", "400", "401", "413", "415", "422", "429", "503"} <= set(
            operation["responses"]
        )
    schemas = document["components"]["schemas"]
    assert {"ReplanRequest", "ReplanResponse", "RecommendRequest", "RecommendResponse"} <= set(
        schemas
    )
    # v1's Assignment is one schema still; a published roster's is a schema of its own
    assert "Assignment-Input" not in schemas and "Assignment-Output" not in schemas
    roster = schemas["ReplanRequest"]["properties"]["roster"]["items"]
    assert roster == {"$ref": "#/components/schemas/RosterAssignment"}
    changes = schemas["ReplanResponse"]["properties"]["changes"]["items"]
    assert changes == {"$ref": "#/components/schemas/Change"}
