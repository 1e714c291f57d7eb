"""A sick call's candidates are priced against the published roster: every figure is
the audit of the published roster with the candidate in the slot minus the audit of
the published roster."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import Absence
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.present import frames
from shiftsched.questions.edit import reassign
from shiftsched.questions.sick_call import fills_of, left_cells
from tests.audited import solved_and_audited
from tests.factories import full_request_dict

REQUEST = parse_request(full_request_dict())


@pytest.fixture(scope="module")
def published() -> list[Assignment]:
    return solved_and_audited(REQUEST).assignments


def filled(roster: list[Assignment], cell: Assignment, employee_id: str) -> list[Assignment]:
    """The published roster, the sick person out of ``cell`` and ``employee_id`` in it."""
    hole = reassign(roster, cell.employee_id, cell.date, None)
    return reassign(hole, employee_id, cell.date, cell.shift_id, cell.duty_id)


def broken(request: SolveRequest, roster: list[Assignment]) -> Counter[tuple[str, str]]:
    return Counter((v.code, v.message) for v in audit(request, roster).hard_violations)


def test_every_fill_is_priced_against_the_published_roster(published: list[Assignment]) -> None:
    """Exhaustive: each cell of the roster left by its employee, each candidate shown."""
    before = audit(REQUEST, published)
    for cell in published:
        absence = Absence(employee_id=cell.employee_id, dates=[cell.date])
        left, answer = fills_of(REQUEST, published, absence, top=50)
        assert left == cell
        assert answer.recommendations and answer.candidates == len(answer.recommendations)
        for fill in answer.recommendations:
            assert fill.employee_id != cell.employee_id
            roster = filled(published, cell, fill.employee_id)
            after = audit(REQUEST, roster)
            assert fill.objective_delta == after.objective_value - before.objective_value
            new = broken(REQUEST, roster) - broken(REQUEST, published)
            assert Counter((v.code, v.message) for v in fill.hard_violations) == new
            assert fill.feasible == (not new)
            assert sum(t.penalty_delta for t in fill.changed_terms) == pytest.approx(
                fill.objective_delta
            )
        ranks = [(not f.feasible, f.objective_delta) for f in answer.recommendations]
        assert ranks == sorted(ranks)


def test_a_sick_mark_on_a_fixed_assignment_breaks_it_in_every_fill(
    published: list[Assignment],
) -> None:
    """e1 is fixed to the day shift on the first date: whoever takes it, the roster
    breaks that fixed assignment, and each fill says so with its JSON path."""
    first = REQUEST.schedule_period.start_date
    absence = Absence(employee_id="e1", dates=[first])
    cell, answer = fills_of(REQUEST, published, absence)
    assert (cell.employee_id, cell.date, cell.shift_id) == ("e1", first, "day")
    assert answer.recommendations
    for fill in answer.recommendations:
        assert not fill.feasible
        fields = {v.field for v in fill.hard_violations}
        assert "request.employees[0].fixed_assignments[0]" in fields
    # The table a person reads says it in words, with the input item behind it.
    table = frames.recommendations_frame(answer.recommendations, REQUEST)
    for broken_rules in table["hard_rules_broken"]:
        assert "e1 is fixed to shift day with duty lead on 2026-03-02" in broken_rules
        assert "(request.employees[0].fixed_assignments[0])" in broken_rules
    for fill, moved in zip(answer.recommendations, table["terms_moved"], strict=True):
        assert all(term.name not in moved for term in fill.changed_terms)


def test_someone_off_on_every_date_leaves_nothing_to_fill(published: list[Assignment]) -> None:
    worked = {(a.employee_id, a.date) for a in published}
    period = REQUEST.schedule_period
    days = [
        period.start_date + dt.timedelta(days=i)
        for i in range((period.end_date - period.start_date).days + 1)
    ]
    off = next((e.id, d) for e in REQUEST.employees for d in days if (e.id, d) not in worked)
    absence = Absence(employee_id=off[0], dates=[off[1]])
    assert left_cells(published, absence) == []
    with pytest.raises(ValueError, match="works none of the dates"):
        fills_of(REQUEST, published, absence)
