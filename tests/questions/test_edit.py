"""Hand edits of a solved roster, judged by the audit without re-solving.

The roster under edit is always one the engine returned, checked by the auditor first.
Instance: three dates (Mon..Wed); the day shift D needs exactly 2 heads, the night shift
N nobody (max 0); A may only work D, B and C may work both. Every optimal roster puts
two people on D each date and costs nothing, so any change an edit makes is visible.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.questions.edit import EditVerdict, TermChange, judge_edit, reassign
from shiftsched.solving.solve import solve
from shiftsched.solving.weights import DEMAND_EXCESS, PREFERENCE, SHORTAGE
from tests.audited import EXACT
from tests.solving.model.conftest import NIGHT_HOURS, date, employee, request, shift

D, N = "D", "N"
A, B, C = "A", "B", "C"
DAYS = 3
DATES = [dt.date.fromisoformat(date(d)) for d in range(DAYS)]


def _request(**a_fields: Any) -> SolveRequest:
    return parse_request(
        request(
            DAYS,
            [shift(D, DAYS, 2, 2), shift(N, DAYS, 0, 0, hours=NIGHT_HOURS)],
            [employee(A, [D], **a_fields), employee(B, [D, N]), employee(C, [D, N])],
        )
    )


def _solve(req: SolveRequest) -> list[Assignment]:
    response = solve(req, EXACT)
    assert response.status == "completed", response.error
    assert response.solution is not None
    report = audit(req, response.solution.assignments)
    assert report.hard_violations == []
    metrics = response.solution.metrics
    assert compare_with_metrics(report, metrics, response.solution.shortages) == []
    return list(response.solution.assignments)


@pytest.fixture(scope="module")
def req() -> SolveRequest:
    return _request()


@pytest.fixture(scope="module")
def roster(req: SolveRequest) -> list[Assignment]:
    assignments = _solve(req)
    assert audit(req, assignments).objective_value == 0
    return assignments


def _on(roster: list[Assignment], day: dt.date) -> dict[str, Assignment]:
    return {a.employee_id: a for a in roster if a.date == day}


def _someone_on_d(roster: list[Assignment], day: dt.date, among: tuple[str, ...]) -> str:
    return next(e for e, a in sorted(_on(roster, day).items()) if e in among and a.shift_id == D)


def _key(a: Assignment) -> tuple[dt.date, str, str]:
    return (a.date, a.shift_id, a.employee_id)


# ---------------------------------------------------------------------------- reassign


@pytest.mark.parametrize("day", DATES)
def test_reassign_replaces_the_assignment_and_keeps_the_list_sorted(
    roster: list[Assignment], day: dt.date
) -> None:
    before = list(roster)
    worker = _someone_on_d(roster, day, (B, C))
    edited = reassign(roster, worker, day, N)
    assert roster == before  # the input list is not changed
    assert edited == sorted(edited, key=_key)
    assert len(edited) == len(roster)
    mine = [a for a in edited if a.employee_id == worker and a.date == day]
    assert mine == [Assignment(employee_id=worker, date=day, shift_id=N)]
    untouched = [a for a in roster if not (a.employee_id == worker and a.date == day)]
    assert [a for a in edited if a not in mine] == untouched


def test_reassign_to_off_removes_and_to_a_free_date_adds(roster: list[Assignment]) -> None:
    day = DATES[0]
    worker = _someone_on_d(roster, day, (A, B, C))
    off = reassign(roster, worker, day, None)
    assert len(off) == len(roster) - 1
    assert worker not in _on(off, day)
    back = reassign(off, worker, day, D)
    assert back == roster
    assert back == sorted(back, key=_key)


def test_reassign_keeps_a_duty() -> None:
    roster = [Assignment(employee_id=B, date=DATES[1], shift_id=D)]
    edited = reassign(roster, A, DATES[0], D, "lead")
    assert edited[0] == Assignment(employee_id=A, date=DATES[0], shift_id=D, duty_id="lead")
    assert edited[1] == roster[0]


# -------------------------------------------------------------------------- judge_edit


def test_a_no_op_edit_changes_nothing(req: SolveRequest, roster: list[Assignment]) -> None:
    day = DATES[1]
    worker = _someone_on_d(roster, day, (A, B, C))
    same = reassign(roster, worker, day, D)
    assert same == roster
    verdict = judge_edit(req, roster, same)
    assert verdict.feasible
    assert verdict.objective_delta == 0
    assert verdict.changed_terms == []
    assert verdict.new_hard_violations == []


def test_a_shift_outside_the_assignable_ones_is_a_new_hard_violation(
    req: SolveRequest, roster: list[Assignment]
) -> None:
    day = DATES[0]
    edited = reassign(roster, A, day, N)
    verdict = judge_edit(req, roster, edited)
    assert not verdict.feasible
    assert verdict.before.feasible
    codes = [(v.code, v.employee_id, v.date, v.shift_id) for v in verdict.new_hard_violations]
    assert ("assignable_shift", A, day, N) in codes
    assert all(v.employee_id == A for v in verdict.new_hard_violations)
    assert any(A in v.message for v in verdict.new_hard_violations)


def test_only_violations_the_edit_introduced_are_new(req: SolveRequest) -> None:
    broken = [
        Assignment(employee_id=A, date=DATES[0], shift_id=N),
        Assignment(employee_id=B, date=DATES[0], shift_id=D),
    ]
    worse = reassign(broken, A, DATES[1], N)
    verdict = judge_edit(req, broken, worse)
    assert not verdict.before.feasible and not verdict.feasible
    assert [(v.code, v.date) for v in verdict.new_hard_violations] == [
        ("assignable_shift", DATES[1])
    ]


def test_a_roster_fault_the_edit_only_renumbers_is_not_new(req: SolveRequest) -> None:
    # B twice on the last date is roster[2] before the edit; adding C on the first date
    # sorts C's assignment ahead of it, so it is roster[3] after: the same fault.
    twice = [
        Assignment(employee_id=A, date=DATES[0], shift_id=D),
        Assignment(employee_id=B, date=DATES[2], shift_id=D),
        Assignment(employee_id=B, date=DATES[2], shift_id=N),
    ]
    verdict = judge_edit(req, twice, reassign(twice, C, DATES[0], D))
    assert [v.field for v in verdict.before.hard_violations] == ["roster[2]"]
    assert [v.field for v in verdict.after.hard_violations] == ["roster[3]"]
    assert verdict.new_hard_violations == []


@pytest.mark.parametrize("day", DATES)
def test_a_missing_head_costs_exactly_a_shortage(
    req: SolveRequest, roster: list[Assignment], day: dt.date
) -> None:
    worker = _someone_on_d(roster, day, (A, B, C))
    verdict = judge_edit(req, roster, reassign(roster, worker, day, None))
    assert verdict.feasible
    assert verdict.new_hard_violations == []
    assert verdict.objective_delta == SHORTAGE == 10000
    assert verdict.changed_terms == [TermChange("staffing_shortage", 0.0, 10000.0)]
    assert verdict.changed_terms[0].delta == 10000
    shortages = [(m.kind, m.date, m.shift_id, m.missing) for m in verdict.after.shortages]
    assert shortages == [("staffing", day, D, 1)]


def test_two_missing_heads_cost_two_shortages(req: SolveRequest, roster: list[Assignment]) -> None:
    day = DATES[2]
    edited = roster
    for worker in _on(roster, day):
        edited = reassign(edited, worker, day, None)
    verdict = judge_edit(req, roster, edited)
    assert verdict.objective_delta == 2 * SHORTAGE
    assert verdict.changed_terms == [TermChange("staffing_shortage", 0.0, 2 * SHORTAGE)]


def test_changed_terms_come_largest_first(req: SolveRequest, roster: list[Assignment]) -> None:
    # Moving B or C from D to the unneeded night: one head short on D, one too many on N.
    day = DATES[0]
    worker = _someone_on_d(roster, day, (B, C))
    verdict: EditVerdict = judge_edit(req, roster, reassign(roster, worker, day, N))
    assert verdict.feasible
    assert verdict.objective_delta == SHORTAGE + DEMAND_EXCESS
    assert verdict.changed_terms == [
        TermChange("staffing_shortage", 0.0, float(SHORTAGE)),
        TermChange(f"staffing_excess:{N}:{day.isoformat()}", 0.0, float(DEMAND_EXCESS)),
    ]


def test_an_edit_that_meets_a_wish_lowers_the_objective() -> None:
    # A wants the first date off; an engine roster may have A on it. Swapping A for the
    # colleague who is off that date keeps the staffing and removes the unmet wish.
    req = _request(preferences=[{"type": "day_off", "date": date(0)}])
    roster = _solve(req)
    day = DATES[0]
    on_duty = _on(roster, day)
    if A not in on_duty:  # the engine already met the wish: put A on to have one to undo
        worker = _someone_on_d(roster, day, (B, C))
        unmet = reassign(reassign(roster, worker, day, None), A, day, D)
        free = worker
    else:
        unmet = roster
        free = next(e for e in (B, C) if e not in on_duty)
    met = reassign(reassign(unmet, A, day, None), free, day, D)
    for weight in (PREFERENCE, 7):
        verdict = judge_edit(req, unmet, met, preference_weight=weight)
        assert verdict.feasible
        assert verdict.objective_delta == -weight
        assert verdict.changed_terms == [
            TermChange(f"preference:day_off:{A}:{day.isoformat()}", float(weight), 0.0)
        ]
