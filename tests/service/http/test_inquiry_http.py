"""POST /solve/audit, /solve/compare, /solve/explain and /solve/why against the real app.

The audit and the comparison are free and open, and answer exactly what the command line
prints. The explanation and the why-not question run in the real worker pool (one
process) on a real store and are charged as a solve of their request; their rosters are
tiny and every re-plan in them ends on its proof. Every fault is a 422 with its JSON
paths that costs nothing, and none is a 500.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.__main__ import main
from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.service.http.api import create_app
from shiftsched.service.settings import Settings
from shiftsched.service.store import Store
from tests.audited import solved_and_audited
from tests.factories import START_DATE, employee_dict, minimal_request_dict
from tests.service.http.test_http import assert_problem, bearer, fresh_key, post

Json = dict[str, Any]
DATASETS = Path(__file__).resolve().parents[3] / "datasets"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path_factory.mktemp('db') / 'service.db'}",
        solve_processes=1,
        cp_sat_workers=1,
        diagnosis_budget_seconds=60,
        errors_base="https://api.test/v1/public/errors",
    )
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture
def store(client: TestClient) -> Store:
    return client.app.state.store  # type: ignore[no-any-return,attr-defined]


def four() -> Json:
    data = minimal_request_dict()
    data["employees"].append(employee_dict("e4"))
    return data


@pytest.fixture(scope="module")
def published() -> tuple[Json, list[Json]]:
    data = four()
    solution = solved_and_audited(parse_request(data))
    return data, [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]


def cli(*argv: str) -> Json:
    out = io.StringIO()
    main(list(argv), out=out, err=io.StringIO())
    answer: Json = json.loads(out.getvalue())
    return answer


def available(client: TestClient, key: str) -> int:
    units: int = client.get("/usage", headers=bearer(key)).json()["available_units"]
    return units


# ----------------------------------------------------------------- audit, compare


@pytest.mark.slow
@pytest.mark.parametrize("dataset", sorted(p.stem for p in DATASETS.glob("*.json")))
def test_the_audit_is_free_and_answers_what_the_command_line_prints(
    client: TestClient, tmp_path: Path, dataset: str
) -> None:
    from shiftsched.solving.greedy import greedy_roster, roster_assignments
    from shiftsched.solving.problem import from_request

    data = json.loads((DATASETS / f"{dataset}.json").read_text())
    problem = from_request(parse_request(data))
    roster = [
        a.model_dump(mode="json", exclude_none=True)
        for a in roster_assignments(problem, greedy_roster(problem))
    ]
    roster[0] = {**roster[0], "shift_id": data["shifts"][-1]["id"]}  # a hand edit
    response = post(client, "/solve/audit", {"request": data, "roster": roster})
    assert response.status_code == 200, response.text
    assert "x-units-consumed" not in response.headers
    (tmp_path / "roster.json").write_text(json.dumps(roster))
    (tmp_path / "request.json").write_text(json.dumps(data))
    printed = cli("audit", str(tmp_path / "request.json"), str(tmp_path / "roster.json"))
    printed.pop("notes")  # the command line says it compared no metrics: a bare list
    assert response.json() == printed
    report = audit(parse_request(data), [parse_roster(a) for a in roster])
    assert response.json()["objective_value"] == report.objective_value
    assert len(response.json()["hard_violations"]) == len(report.hard_violations)


def parse_roster(cell: Json) -> Any:
    from shiftsched.contract.v1 import Assignment

    return Assignment.model_validate(cell)


def test_compare_is_free_and_answers_what_the_command_line_prints(
    client: TestClient, tmp_path: Path, published: tuple[Json, list[Json]]
) -> None:
    data, roster = published
    after = roster[1:]
    response = post(client, "/solve/compare", {"request": data, "before": roster, "after": after})
    assert response.status_code == 200, response.text
    for name, body in (("request", data), ("a", roster), ("b", after)):
        (tmp_path / f"{name}.json").write_text(json.dumps(body))
    printed = cli("compare", *(str(tmp_path / f"{n}.json") for n in ("request", "a", "b")))
    assert response.json() == printed
    assert [c["change"] for c in printed["changes"]] == ["removed"]
    assert printed["objective_delta"] == printed["objective_after"] - printed["objective_before"]


@pytest.mark.parametrize(
    ("path", "body", "fault"),
    [
        (
            "/solve/audit",
            {"roster": [{"employee_id": "zz", "date": START_DATE, "shift_id": "day"}]},
            (["roster"], "roster_of_another_request"),
        ),
        (
            "/solve/audit",
            {"roster": [{"employee_id": "e1", "date": START_DATE, "shift_id": "dusk"}] * 2},
            (["roster", 0, "shift_id"], "unknown_shift_id"),
        ),
        (
            "/solve/compare",
            {"before": [], "after": [{"employee_id": "e1", "date": "2020-01-01", "shift_id": "x"}]},
            (["after"], "roster_of_another_request"),
        ),
    ],
)
def test_a_roster_that_does_not_fit_is_422_with_its_path(
    client: TestClient, path: str, body: Json, fault: tuple[list[Any], str]
) -> None:
    problem = assert_problem(
        post(client, path, {"request": four(), **body}), 422, "validation-error"
    )
    assert (fault[0], fault[1]) in [(e["path"], e["code"]) for e in problem["errors"]]


# ----------------------------------------------------------------- explain, why


@pytest.mark.slow
def test_explain_is_charged_as_a_solve_and_fills_a_hole(
    client: TestClient, store: Store, published: tuple[Json, list[Json]]
) -> None:
    data, roster = published
    key = fresh_key(store, free=10)
    holed = roster[1:]
    response = post(client, "/solve/explain", {"request": data, "roster": holed}, bearer(key))
    assert response.status_code == 200, response.text
    units = units_for(request_size(parse_request(data)))
    assert response.headers["x-units-consumed"] == str(units)
    assert available(client, key) == 10 - units
    [explanation] = response.json()["explanations"]
    assert explanation["verdict"] == "avoidable"
    request = parse_request(data)
    after = audit(request, [parse_roster(a) for a in explanation["roster"]])
    before = audit(request, [parse_roster(a) for a in holed])
    assert after.hard_violations == []
    assert after.objective_value == before.objective_value + explanation["objective_delta"]
    kept = client.get(f"/solve/jobs/{response.json()['job_id']}", headers=bearer(key))
    assert kept.status_code == 200 and kept.json() == response.json()  # its charge's row


@pytest.mark.slow
def test_why_not_is_charged_as_a_solve(
    client: TestClient, store: Store, published: tuple[Json, list[Json]]
) -> None:
    data, roster = published
    key = fresh_key(store, free=10)
    cell = roster[0]
    body = {
        "request": data,
        "roster": roster,
        "employee_id": cell["employee_id"],
        "date": cell["date"],
    }
    response = post(client, "/solve/why", body, bearer(key))
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["verdict"] == "possible"
    assert response.headers["x-units-consumed"] == str(units_for(request_size(parse_request(data))))
    kept = client.get(f"/solve/jobs/{answer['job_id']}", headers=bearer(key))
    assert kept.status_code == 200 and kept.json() == answer  # its charge's row


@pytest.mark.parametrize("path", ["/solve/explain", "/solve/why"])
def test_question_faults_are_422_cost_nothing_and_need_a_key(
    client: TestClient, store: Store, path: str
) -> None:
    key = fresh_key(store, free=5)
    body = {
        "request": four(),
        "roster": [{"employee_id": "e1", "date": "2031-01-01", "shift_id": "day"}],
        "employee_id": "nobody",
        "date": START_DATE,
    }
    if path == "/solve/explain":
        del body["employee_id"], body["date"]
    problem = assert_problem(post(client, path, body, bearer(key)), 422, "validation-error")
    assert problem["errors"][0]["path"][0] in ("roster", "employee_id")
    assert available(client, key) == 5
    assert_problem(post(client, path, body), 401, "unauthorized")
