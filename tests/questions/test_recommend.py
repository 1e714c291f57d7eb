"""Recommendations and the audit's one-cell edits: every figure equals a full audit."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from shiftsched.checking.audit import ChangeEvaluator, audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import parse_recommend
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.errors import InvalidRequest
from shiftsched.questions.recommend import recommend
from tests.audited import solved_and_audited
from tests.factories import full_request_dict, minimal_request_dict

FULL = full_request_dict()


def edited(
    roster: list[Assignment], employee_id: str, day: dt.date, new: Assignment | None
) -> list[Assignment]:
    kept = [a for a in roster if not (a.employee_id == employee_id and a.date == day)]
    return kept + ([] if new is None else [new])


def every_cell_option(request: SolveRequest) -> list[tuple[str, dt.date, Assignment | None]]:
    """Each employee on each date: off, or any shift with no duty or any duty."""
    period = request.schedule_period
    days = [
        period.start_date + dt.timedelta(days=i)
        for i in range((period.end_date - period.start_date).days + 1)
    ]
    options: list[tuple[str, dt.date, Assignment | None]] = []
    for employee in request.employees:
        for day in days:
            options.append((employee.id, day, None))
            for shift in request.shifts:
                for duty in [None, *(k.id for k in request.duties)]:
                    new = Assignment(
                        employee_id=employee.id, date=day, shift_id=shift.id, duty_id=duty
                    )
                    options.append((employee.id, day, new))
    return options


def test_every_one_cell_edit_is_priced_as_a_full_audit() -> None:
    """Exhaustive on the request with every rule: 3 employees x 7 dates x 7 options."""
    request = parse_request(FULL)
    roster = solved_and_audited(request).assignments
    before = audit(request, roster)
    evaluator = ChangeEvaluator(request, roster)
    for employee_id, day, new in every_cell_option(request):
        after = audit(request, edited(roster, employee_id, day, new))
        effect = evaluator.effect(employee_id, day, new)
        assert effect.objective_delta == after.objective_value - before.objective_value
        penalties = {v.name: v.penalty for v in after.soft_constraint_violations}
        for term in effect.changed_terms:
            old = next(
                (v.penalty for v in before.soft_constraint_violations if v.name == term.name), 0.0
            )
            assert penalties.get(term.name, 0.0) == old + term.penalty_delta
        new_hard = Counter((v.code, v.message) for v in after.hard_violations) - Counter(
            (v.code, v.message) for v in before.hard_violations
        )
        assert Counter((v.code, v.message) for v in effect.hard_violations) == new_hard


def test_an_edit_must_stay_in_its_cell() -> None:
    request = parse_request(FULL)
    evaluator = ChangeEvaluator(request, [])
    day = request.schedule_period.start_date
    other = Assignment(employee_id="e2", date=day, shift_id="day")
    with pytest.raises(ValueError, match="same employee"):
        evaluator.effect("e1", day, other)
    with pytest.raises(ValueError, match="unknown shift"):
        evaluator.effect("e1", day, Assignment(employee_id="e1", date=day, shift_id="zz"))


def slot_request() -> tuple[dict[str, object], list[dict[str, object]], str]:
    data = minimal_request_dict()
    solution = solved_and_audited(parse_request(data))
    roster = [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]
    day = "2026-03-04"
    gone = next(a for a in roster if a["date"] == day and a["shift_id"] == "day")
    return data, [a for a in roster if a is not gone], str(gone["employee_id"])


def test_recommendations_are_ranked_and_equal_the_audit() -> None:
    data, roster, sick = slot_request()
    ask = parse_recommend(
        {
            "request": data,
            "roster": roster,
            "slot": {"date": "2026-03-04", "shift_id": "day"},
            "absences": [{"employee_id": sick, "dates": ["2026-03-04"]}],
        }
    )
    answer = recommend(ask)
    listed = [r.employee_id for r in answer.recommendations]
    assert sick not in listed
    assert answer.candidates == len(listed) == 2
    keys = [(not r.feasible, r.objective_delta) for r in answer.recommendations]
    assert keys == sorted(keys)
    before = audit(ask.request, ask.roster)
    for r in answer.recommendations:
        move = Assignment(employee_id=r.employee_id, date=ask.slot.date, shift_id="day")
        after = audit(ask.request, edited(list(ask.roster), r.employee_id, ask.slot.date, move))
        assert r.objective_delta == after.objective_value - before.objective_value
        assert r.feasible == (after.hard_violations == [])
        assert r.moved_from_shift_id in (None, "night")
    # Filling the gap removes a missing head unless the mover leaves one elsewhere.
    assert any(t.name == "staffing_shortage" for t in answer.recommendations[0].changed_terms)


def test_the_top_cut_and_who_already_fills_the_slot() -> None:
    data, roster, _ = slot_request()
    there = next(a for a in roster if a["date"] == "2026-03-05" and a["shift_id"] == "day")
    answer = recommend(
        parse_recommend(
            {
                "request": data,
                "roster": roster,
                "slot": {"date": "2026-03-05", "shift_id": "day"},
                "top": 1,
            }
        )
    )
    assert answer.candidates == 2
    assert len(answer.recommendations) == 1
    assert answer.recommendations[0].employee_id != there["employee_id"]


def test_recommend_faults_name_their_paths() -> None:
    data, roster, _ = slot_request()
    with pytest.raises(InvalidRequest) as caught:
        parse_recommend(
            {
                "request": data,
                "roster": [*roster, {"employee_id": "zz", "date": "2026-03-02", "shift_id": "day"}],
                "slot": {"date": "2026-03-04", "shift_id": "night", "duty_id": "lead"},
            }
        )
    assert {(e.path, e.code) for e in caught.value.errors} == {
        (("roster", len(roster), "employee_id"), "unknown_employee_id"),
        (("slot", "duty_id"), "duty_not_on_shift"),
    }
