"""A history that is wrong as a whole is one fault, on every operation that reads one.

A roster of another request given as a history, or the period's own roster, used to
give one fault per cell (hundreds); each is now one fault at ``history.assignments``,
as an audit says of a roster of another request. Both rosters are greedy ones: only
their employees, shifts and dates matter.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import parse_plan, parse_recommend, parse_replan
from shiftsched.errors import InvalidRequest
from shiftsched.questions.inquiry import parse_audit, parse_compare, parse_explain, parse_why
from shiftsched.solving.greedy import greedy_roster, roster_assignments
from shiftsched.solving.problem import from_request

DATASETS = Path(__file__).parent.parent.parent / "datasets"
Json = dict[str, Any]


def _greedy(name: str) -> tuple[Json, list[Json]]:
    data = json.loads((DATASETS / f"{name}.json").read_text())
    problem = from_request(parse_request(data))
    roster = roster_assignments(problem, greedy_roster(problem))
    return data, [a.model_dump(mode="json", exclude_none=True) for a in roster]


@pytest.fixture(scope="module")
def ward() -> tuple[Json, list[Json]]:
    return _greedy("ward_24_7")


@pytest.fixture(scope="module")
def retail_roster() -> list[Json]:
    return _greedy("retail_weekdays")[1]


def _bodies(request: Json, roster: list[Json]) -> dict[str, tuple[Callable[[Any], Any], Json]]:
    """Every operation's body that reads a history, around one request and roster (the
    history is added by each test)."""
    first = roster[0]
    cell = {"employee_id": first["employee_id"], "date": first["date"]}
    return {
        "plan": (parse_plan, {"request": request}),
        "replan": (
            parse_replan,
            {
                "request": request,
                "roster": roster,
                "absences": [{"employee_id": first["employee_id"], "dates": [first["date"]]}],
            },
        ),
        "recommend": (
            parse_recommend,
            {
                "request": request,
                "roster": roster,
                "slot": {"date": first["date"], "shift_id": first["shift_id"]},
            },
        ),
        "audit": (parse_audit, {"request": request, "roster": roster}),
        "compare": (parse_compare, {"request": request, "before": roster, "after": roster}),
        "explain": (parse_explain, {"request": request, "roster": roster}),
        "why": (parse_why, {"request": request, "roster": roster, **cell}),
    }


OPERATIONS = ("plan", "replan", "recommend", "audit", "compare", "explain", "why")


def _faults(parse: Callable[[Any], Any], body: Json) -> list[tuple[tuple[str | int, ...], str]]:
    with pytest.raises(InvalidRequest) as raised:
        parse(body)
    return [(f.path, f.code) for f in raised.value.errors]


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_roster_of_another_request_as_history_is_one_fault(
    operation: str, ward: tuple[Json, list[Json]], retail_roster: list[Json]
) -> None:
    request, roster = ward
    history = {"assignments": retail_roster}
    parse, body = _bodies(request, roster)[operation]
    faults = _faults(parse, body | {"history": history})
    assert faults == [(("history", "assignments"), "history_of_another_request")]


@pytest.mark.parametrize("operation", OPERATIONS)
def test_the_periods_own_roster_as_history_is_one_fault(
    operation: str, ward: tuple[Json, list[Json]]
) -> None:
    request, roster = ward
    answer = {"job_id": "j", "status": "completed", "solution": {"assignments": roster}}
    parse, body = _bodies(request, roster)[operation]
    faults = _faults(parse, body | {"history": answer})
    assert faults == [(("history", "assignments"), "history_overlaps_period")]
