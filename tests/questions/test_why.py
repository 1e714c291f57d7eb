"""Why-not questions: answered by re-planning with the cell made so, or by what forbids it.

The roster asked about is the engine's proven optimum of a small request and every
re-plan ends on its proof (tests.audited.EXACT), so only what holds for any optimal
roster is asserted: the verdict, the cell made so, the hard rules kept, the stated price
equal to the audit's, never cheaper than the optimum, and the forbidding item named.
"""

from __future__ import annotations

from typing import Any

import pytest

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import roster_changes
from shiftsched.contract.v1 import Assignment
from shiftsched.errors import InvalidRequest
from shiftsched.questions.inquiry import WhyResponse, parse_why
from shiftsched.questions.why import why_not
from tests.audited import EXACT, solved_and_audited
from tests.factories import START_DATE, employee_dict, minimal_request_dict

Json = dict[str, Any]


def four() -> Json:
    data = minimal_request_dict()
    data["employees"].append(employee_dict("e4"))
    return data


def roster_of(data: Json) -> list[Json]:
    solution = solved_and_audited(parse_request(data))
    return [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]


def asked(data: Json, roster: list[Json], **question: Any) -> WhyResponse:
    return why_not(parse_why({"request": data, "roster": roster, **question}), EXACT)


def priced_and_kept(data: Json, roster: list[Json], answer: WhyResponse) -> None:
    """The answer's roster keeps every hard rule, at the price and changes it states."""
    request = parse_request(data)
    assert answer.roster is not None and answer.objective_delta is not None
    before = audit(request, [Assignment.model_validate(a) for a in roster])
    after = audit(request, answer.roster)
    assert after.hard_violations == []
    assert after.objective_value == before.objective_value + answer.objective_delta
    assert answer.objective_delta >= 0  # the roster asked about is optimal
    original = [Assignment.model_validate(a) for a in roster]
    assert answer.changes == roster_changes(original, answer.roster)


@pytest.mark.slow
def test_why_not_off_gives_the_replan_that_frees_the_day() -> None:
    data = four()
    roster = roster_of(data)
    cell = roster[0]
    answer = asked(data, roster, employee_id=cell["employee_id"], date=cell["date"])
    assert answer.verdict == "possible", answer.summary
    assert answer.question == f"why is {cell['employee_id']} not off on {cell['date']}?"
    count = len(answer.changes)
    assert (f"{count} cells change" if count != 1 else "1 cell changes") in answer.summary
    priced_and_kept(data, roster, answer)
    assert answer.roster is not None
    assert not [
        a
        for a in answer.roster
        if a.employee_id == cell["employee_id"] and a.date.isoformat() == cell["date"]
    ]


@pytest.mark.slow
def test_why_not_on_a_shift_gives_the_replan_that_puts_them_there() -> None:
    data = four()
    roster = roster_of(data)
    cell = roster[0]
    other = "night" if cell["shift_id"] == "day" else "day"
    answer = asked(data, roster, employee_id=cell["employee_id"], date=cell["date"], shift_id=other)
    assert answer.verdict == "possible", answer.summary
    priced_and_kept(data, roster, answer)
    assert answer.roster is not None
    assert any(
        a.employee_id == cell["employee_id"]
        and a.date.isoformat() == cell["date"]
        and a.shift_id == other
        for a in answer.roster
    )


@pytest.mark.slow
def test_a_fixed_assignment_forbids_the_day_off_and_is_named() -> None:
    data = four()
    data["employees"][1]["fixed_assignments"] = [{"date": START_DATE, "shift_id": "day"}]
    roster = roster_of(data)
    answer = asked(data, roster, employee_id="e2", date=START_DATE)
    assert answer.verdict == "impossible", answer.summary
    assert answer.roster is None
    fields = {c.field for c in answer.causes}
    assert "request.employees[1].fixed_assignments[0]" in fields, fields
    assert "absences[0].dates[0]" not in fields  # the question itself is no cause


@pytest.mark.slow
def test_a_shift_the_employee_may_not_work_is_impossible() -> None:
    data = four()
    data["employees"][2]["assignable_shift_ids"] = ["day"]
    roster = roster_of(data)
    answer = asked(data, roster, employee_id="e3", date=START_DATE, shift_id="night")
    assert answer.verdict == "impossible", answer.summary
    fields = {c.field for c in answer.causes}
    assert "request.employees[2].assignable_shift_ids" in fields, answer.causes


def test_what_the_roster_already_has_is_said_so() -> None:
    data = four()
    roster = [{"employee_id": "e1", "date": START_DATE, "shift_id": "day"}]
    assert asked(data, roster, employee_id="e2", date=START_DATE).verdict == "already"
    answer = asked(data, roster, employee_id="e1", date=START_DATE, shift_id="day")
    assert answer.verdict == "already"


def test_faults_name_their_paths() -> None:
    body = {
        "request": four(),
        "roster": [],
        "employee_id": "nobody",
        "date": "2031-01-01",
        "shift_id": "dusk",
    }
    with pytest.raises(InvalidRequest) as caught:
        parse_why(body)
    assert {(tuple(f.path), f.code) for f in caught.value.errors} == {
        (("employee_id",), "unknown_employee_id"),
        (("date",), "date_outside_period"),
        (("shift_id",), "unknown_shift_id"),
    }
