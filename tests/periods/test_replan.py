"""Re-planning: hard absences and pins, the fewest changes, metrics equal to the audit.

Every solve here is proven optimal with one worker (tests.audited.EXACT), so each
assertion about the optimum holds on any machine under any load.
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import (
    DEFAULT_CHANGE_WEIGHT,
    ReplanResponse,
    parse_replan,
    roster_changes,
)
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.errors import InvalidRequest
from shiftsched.periods.replan import replan
from tests.audited import EXACT, solved_and_audited
from tests.factories import employee_dict, minimal_request_dict

DAY = dt.date(2026, 3, 4)


def five_employees() -> dict[str, Any]:
    """The minimal request with five employees: spare hands to cover an absence."""
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 6)]
    return data


def published(data: dict[str, Any]) -> list[dict[str, Any]]:
    solution = solved_and_audited(parse_request(data))
    return [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]


def worker_on(roster: list[dict[str, Any]], day: dt.date) -> dict[str, Any]:
    return next(a for a in roster if a["date"] == day.isoformat())


def replanned(data: dict[str, Any], roster: list[dict[str, Any]], **change: Any) -> ReplanResponse:
    """Re-plan, and insist the roster keeps every hard rule and its metrics are the audit's."""
    ask = parse_replan({"request": data, "roster": roster, **change})
    response = replan(ask, EXACT)
    assert response.status == "completed", response.error
    assert response.solution is not None
    report = audit(ask.request, response.solution.assignments)
    assert report.hard_violations == []
    metrics = response.solution.metrics
    assert compare_with_metrics(report, metrics, response.solution.shortages) == []
    before = [Assignment.model_validate(a) for a in roster]
    assert response.changes == roster_changes(before, response.solution.assignments)
    return response


def combined(request: SolveRequest, before: list[Assignment], after: list[Assignment]) -> float:
    """What a re-plan minimises, priced by the audit and a plain comparison."""
    changed = roster_changes(before, after)
    return audit(request, after).objective_value + DEFAULT_CHANGE_WEIGHT * len(changed)


def test_nothing_changed_keeps_the_published_roster() -> None:
    data = five_employees()
    roster = published(data)
    response = replanned(data, roster)
    assert response.changes == []


def test_an_absence_is_covered_with_the_fewest_changes() -> None:
    data = five_employees()
    roster = published(data)
    sick = worker_on(roster, DAY)
    response = replanned(
        data, roster, absences=[{"employee_id": sick["employee_id"], "dates": [DAY.isoformat()]}]
    )
    assert response.solution is not None
    new = response.solution.assignments
    assert not [a for a in new if a.employee_id == sick["employee_id"] and a.date == DAY]
    assert response.solution.shortages == []  # four others can fill the gap
    # The optimum is no worse than the obvious repair: someone idle takes the slot.
    request = parse_request(data)
    before = [Assignment.model_validate(a) for a in roster]
    working = {a.employee_id for a in before if a.date == DAY}
    idle = sorted({e["id"] for e in data["employees"]} - working)[0]
    repair = [a for a in before if not (a.employee_id == sick["employee_id"] and a.date == DAY)]
    repair.append(Assignment(employee_id=idle, date=DAY, shift_id=sick["shift_id"]))
    assert combined(request, before, new) <= combined(request, before, repair)
    assert 1 <= len(response.changes) <= 2


def test_pins_hold_and_cells_before_pin_before_stay() -> None:
    data = five_employees()
    roster = published(data)
    sick = worker_on(roster, DAY)
    later = next(a for a in roster if a["date"] > DAY.isoformat())
    response = replanned(
        data,
        roster,
        absences=[{"employee_id": sick["employee_id"], "dates": [DAY.isoformat(), "2026-03-05"]}],
        pin_before=DAY.isoformat(),
        pinned=[later],
        change_weight=1,
    )
    assert all(c.date >= DAY for c in response.changes)
    assert response.solution is not None
    assert Assignment.model_validate(later) in response.solution.assignments


def test_a_dropped_employee_is_listed_as_removed() -> None:
    data = five_employees()
    roster = published(data)
    gone = roster[0]["employee_id"]
    edited = copy.deepcopy(data)
    edited["employees"] = [e for e in data["employees"] if e["id"] != gone]
    edited["employees"].append(employee_dict("e9"))
    response = replanned(edited, roster)
    removed = {c.date for c in response.changes if c.employee_id == gone}
    assert removed == {dt.date.fromisoformat(a["date"]) for a in roster if a["employee_id"] == gone}
    assert all(c.change == "removed" for c in response.changes if c.employee_id == gone)


def test_an_absence_against_a_pin_is_diagnosed_by_paths() -> None:
    data = five_employees()
    roster = published(data)
    sick = worker_on(roster, DAY)
    ask = parse_replan(
        {
            "request": data,
            "roster": roster,
            "absences": [{"employee_id": sick["employee_id"], "dates": [DAY.isoformat()]}],
            "pinned": [roster[-1], sick],
        }
    )
    response = replan(ask, EXACT)
    assert response.status == "failed"
    assert response.error is not None and response.error.code == "no_solution"
    diagnosis = response.error.diagnosis
    assert diagnosis is not None and diagnosis.status == "identified"
    assert {c.field for c in diagnosis.causes} == {"absences[0].dates[0]", "pinned[1]"}
    assert {c.cause_type for c in diagnosis.causes} == {"absence", "pinned_assignment"}
    assert response.changes == []


def test_a_request_without_any_roster_gets_its_own_diagnosis() -> None:
    data = five_employees()
    roster = published(data)
    broken = copy.deepcopy(data)
    broken["employees"][0]["shift_count_limits"] = [{"shift_id": "night", "min": 7}]
    broken["constraints"] = {"max_consecutive_working_days": 5}
    response = replan(parse_replan({"request": broken, "roster": roster}), EXACT)
    assert response.status == "failed"
    assert response.error is not None and response.error.diagnosis is not None
    fields = {c.field for c in response.error.diagnosis.causes}
    assert "request.employees[0].shift_count_limits[0]" in fields


def test_an_absence_against_a_fixed_assignment_names_both() -> None:
    data = five_employees()
    data["employees"][0]["fixed_assignments"] = [{"date": DAY.isoformat(), "shift_id": "night"}]
    roster = published(data)
    ask = parse_replan(
        {
            "request": data,
            "roster": roster,
            "absences": [{"employee_id": "e1", "dates": [DAY.isoformat()]}],
        }
    )
    response = replan(ask, EXACT)
    assert response.error is not None and response.error.diagnosis is not None
    causes = {(c.cause_type, c.field) for c in response.error.diagnosis.causes}
    assert causes == {
        ("absence", "absences[0].dates[0]"),
        ("fixed_assignment", "request.employees[0].fixed_assignments[0]"),
    }


def test_faults_name_their_paths() -> None:
    data = five_employees()
    roster = [{"employee_id": "e1", "date": "2026-03-02", "shift_id": "day"}] * 2
    with pytest.raises(InvalidRequest) as caught:
        parse_replan(
            {
                "request": data,
                "roster": roster,
                "absences": [{"employee_id": "zz", "dates": ["2026-04-01"]}],
                "pinned": [{"employee_id": "e1", "date": "2026-03-02", "shift_id": "x"}],
                "change_weight": -1,
            }
        )
    assert {e.path for e in caught.value.errors} == {("change_weight",)}
    with pytest.raises(InvalidRequest) as caught:
        parse_replan(
            {
                "request": data,
                "roster": roster,
                "absences": [{"employee_id": "zz", "dates": ["2026-04-01"]}],
                "pinned": [{"employee_id": "e1", "date": "2026-03-02", "shift_id": "x"}],
            }
        )
    assert {(e.path, e.code) for e in caught.value.errors} == {
        (("roster", 1), "duplicate_assignment"),
        (("absences", 0, "employee_id"), "unknown_employee_id"),
        (("absences", 0, "dates", 0), "date_outside_period"),
        (("pinned", 0, "shift_id"), "unknown_shift_id"),
    }
    broken = copy.deepcopy(data)
    broken["employees"][0]["assignable_shift_ids"] = ["nope"]
    with pytest.raises(InvalidRequest) as caught:
        parse_replan({"request": broken, "roster": []})
    assert caught.value.errors[0].path[:2] == ("request", "employees")
