"""Dates at the calendar's edge and a period too long, over HTTP, on every operation.

A period starting within a year of 0001-01-01 with a history, or on 0001-01-01 with any
history, once crashed the audit, the seam and the plan's ledger (a 500 OverflowError: a
year of history read before the period, the day before it). Every date is bounded to
1900-01-01 .. 2199-12-31 instead, so each such body is a 422 naming the date's path,
and nothing is charged. A period over 400 days is one fault at its end date.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.contract.v1 import MAX_PERIOD_DAYS
from shiftsched.data import request_body as build
from shiftsched.service.http.api import Settings, create_app
from tests.factories import demand, minimal_request_dict

KEY = "sk_test_" + "d" * 64
AUTH = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"}
START = ("schedule_period", "start_date")
# Each operation's body around its request (None: the body is the request itself).
WITH_HISTORY: dict[str, dict[str, Any]] = {
    "/solve/plan": {},
    "/solve/replan": {"roster": []},
    "/solve/recommend": {"roster": [], "slot": {"date": "0001-01-03", "shift_id": "day"}},
    "/solve/audit": {"roster": []},
    "/solve/compare": {"before": [], "after": []},
    "/solve/explain": {"roster": []},
    "/solve/why": {"roster": [], "employee_id": "e1", "date": "0001-01-03"},
}
BARE = ("/solve/validate", "/solve")
HISTORIES: list[tuple[dict[str, Any], tuple[str | int, ...]]] = [
    ({"start_date": "0001-01-01"}, ("history", "start_date")),
    (
        {"assignments": [{"employee_id": "e1", "date": "0001-01-01", "shift_id": "night"}]},
        ("history", "assignments", 0, "date"),
    ),
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = tmp_path_factory.mktemp("db") / "service.db"
    settings = Settings(
        database_url=f"sqlite:///{database}",
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
        errors_base="https://api.test/v1/public/errors",
    )
    with TestClient(create_app(settings)) as client:
        yield client


def available(client: TestClient) -> int:
    units: int = client.get("/usage", headers=AUTH).json()["available_units"]
    return units


def request_from(start: str, days: int = 7) -> dict[str, Any]:
    """The minimal request moved to the ``days`` days from ``start``."""
    data = minimal_request_dict()
    data["schedule_period"] |= {"start_date": start, "end_date": build.day(start, days - 1)}
    for shift in data["shifts"]:
        shift["staffing_demand"] = demand(days=days)
    data["duties"][0]["staffing_demand_by_shift"]["day"] = demand(0, 1, days=days)
    return data


def refused(client: TestClient, path: str, body: dict[str, Any]) -> set[tuple[Any, ...]]:
    """The (path, code) of every fault of a 422 validation-error answer to ``body``."""
    response = client.post(path, content=json.dumps(body), headers=AUTH)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["type"] == "https://api.test/v1/public/errors/validation-error"
    return {(tuple(e["path"]), e["code"]) for e in problem["errors"]}


@pytest.mark.parametrize("path", BARE)
@pytest.mark.parametrize("start", ["0001-01-01", "0001-01-02"])
def test_a_request_at_the_calendars_start_is_422_with_its_path(
    client: TestClient, path: str, start: str
) -> None:
    before = available(client)
    assert (START, "out_of_range") in refused(client, path, request_from(start))
    assert available(client) == before


@pytest.mark.parametrize("path", list(WITH_HISTORY))
@pytest.mark.parametrize(("history", "at"), HISTORIES, ids=["start_date", "assignment"])
def test_a_history_before_a_period_at_the_calendars_start_is_422_with_both_paths(
    client: TestClient, path: str, history: dict[str, Any], at: tuple[str | int, ...]
) -> None:
    before = available(client)
    body = {"request": request_from("0001-01-02"), **WITH_HISTORY[path], "history": history}
    faults = refused(client, path, body)
    assert {(("request", *START), "out_of_range"), (at, "out_of_range")} <= faults
    assert available(client) == before


@pytest.mark.parametrize("path", list(WITH_HISTORY))
def test_a_period_on_the_first_day_with_any_history_is_422(client: TestClient, path: str) -> None:
    before = available(client)
    body = {"request": request_from("0001-01-01"), **WITH_HISTORY[path], "history": {}}
    assert (("request", *START), "out_of_range") in refused(client, path, body)
    assert available(client) == before


def test_a_period_over_the_ceiling_is_one_fault_on_the_free_audit(client: TestClient) -> None:
    body = {"request": request_from("2026-01-01", MAX_PERIOD_DAYS + 1), "roster": []}
    end = ("request", "schedule_period", "end_date")
    assert refused(client, "/solve/audit", body) == {(end, "out_of_range")}
