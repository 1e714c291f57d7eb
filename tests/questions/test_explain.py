"""Explaining shortages: planted unavoidable ones name the planted rule, a hole cut into a
good roster is avoidable, and every fill keeps the hard rules at the price it states.

Every roster explained is the engine's proven optimum of a small request
(tests.audited.EXACT), and every fill is a re-plan that ends on its own proof, so no
verdict depends on the machine's speed. Only what holds for any optimal roster is
asserted: the verdicts, the planted item among the causes, and that a fill costs at
least what the optimum costs.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from benchmarks.inquiry import PLANTED, names_planted, planted_ask
from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import roster_changes
from shiftsched.contract.v1 import Assignment
from shiftsched.errors import InvalidRequest
from shiftsched.questions.explain import explain_shortages
from shiftsched.questions.inquiry import ExplainResponse, parse_explain
from tests.audited import solved_and_audited, work_limited
from tests.factories import END_DATE, START_DATE, employee_dict, minimal_request_dict

Json = dict[str, Any]
MONDAY, TUESDAY = START_DATE, "2026-03-03"


def roster_of(data: Json) -> list[Json]:
    solution = solved_and_audited(parse_request(data))
    return [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]


def explained(data: Json, roster: list[Json], **extra: Any) -> ExplainResponse:
    ask = parse_explain({"request": data, "roster": roster, **extra})
    return explain_shortages(ask, work_limited(30.0))


# ------------------------------------------------------------------ unavoidable


@pytest.mark.slow
@pytest.mark.parametrize("name", PLANTED)
def test_a_planted_shortage_is_unavoidable_and_names_the_planted_rule(name: str) -> None:
    """The ten plantings the benchmark counts (benchmarks/inquiry.py), each a tiny
    request whose optimal roster leaves one demand no roster can meet."""
    ask, (planted, date, shift_id) = planted_ask(name)
    answer = explain_shortages(ask, work_limited(30.0))
    [explanation] = [
        e
        for e in answer.explanations
        if (e.shortage.date.isoformat(), e.shortage.shift_id) == (date, shift_id)
    ]
    assert explanation.verdict == "unavoidable", explanation.summary
    assert explanation.roster is None and explanation.objective_delta is None
    assert "cannot be filled" in explanation.summary
    assert any(names_planted(planted, c.field) for c in explanation.causes), explanation.causes


# -------------------------------------------------------------------- avoidable


def holed() -> tuple[Json, list[Json], Json]:
    """A request with a spare employee, its optimum, and that roster less one cell."""
    data = minimal_request_dict()
    data["employees"].append(employee_dict("e4"))
    roster = roster_of(data)
    removed = next(a for a in roster if a["date"] == TUESDAY and a["shift_id"] == "night")
    return data, [a for a in roster if a is not removed], removed


@pytest.mark.slow
def test_a_removed_assignment_is_an_avoidable_shortage_with_an_exact_fill() -> None:
    data, roster, removed = holed()
    request = parse_request(data)
    before = audit(request, [Assignment.model_validate(a) for a in roster])
    answer = explained(data, roster)
    assert answer.objective_value == before.objective_value
    [explanation] = answer.explanations
    assert (explanation.shortage.date.isoformat(), explanation.shortage.shift_id) == (
        removed["date"],
        removed["shift_id"],
    )
    assert explanation.shortage.field == "request.shifts[1].staffing_demand[1]"
    assert explanation.verdict == "avoidable"
    assert explanation.roster is not None and explanation.objective_delta is not None
    after = audit(request, explanation.roster)
    assert after.hard_violations == []
    assert after.objective_value == before.objective_value + explanation.objective_delta
    assert explanation.objective_delta < 0  # a head costs more than anything a fill moves
    assert not [m for m in after.shortages if m.date.isoformat() == TUESDAY]
    [newcomer] = explanation.filled_by
    assert any(
        a.employee_id == newcomer and a.date.isoformat() == TUESDAY and a.shift_id == "night"
        for a in explanation.roster
    )
    original = [Assignment.model_validate(a) for a in roster]
    assert explanation.changes == roster_changes(original, explanation.roster)


@pytest.mark.slow
def test_an_optimal_roster_costs_no_less_after_any_fill() -> None:
    """Demand above the staff: some shortage stays in any roster; filling one elsewhere
    is possible only by opening another, so no fill is cheaper than the optimum."""
    data = minimal_request_dict()
    for shift in data["shifts"]:
        shift["staffing_demand"] = [{"min": 2, "max": 2}] * 7
    roster = roster_of(data)
    answer = explained(data, roster)
    assert answer.explanations
    for explanation in answer.explanations:
        assert explanation.verdict in ("avoidable", "unavoidable")
        if explanation.verdict == "avoidable":
            assert explanation.objective_delta is not None
            assert explanation.objective_delta >= 0
            assert explanation.roster is not None
            assert audit(parse_request(data), explanation.roster).hard_violations == []


def test_dates_narrow_the_explanations_to_those_days() -> None:
    data, roster, _ = holed()
    assert explained(data, roster, dates=[MONDAY]).explanations == []


def test_a_roster_without_shortages_has_nothing_to_explain() -> None:
    data = minimal_request_dict()
    data["employees"].append(employee_dict("e4"))
    assert explained(data, roster_of(data)).explanations == []


# ------------------------------------------------------------------------ faults


def faults(body: Json) -> set[tuple[str, str]]:
    with pytest.raises(InvalidRequest) as caught:
        parse_explain(body)
    return {(".".join(map(str, f.path)), f.code) for f in caught.value.errors}


def test_a_roster_of_another_request_is_one_fault() -> None:
    data = minimal_request_dict()
    other = [{"employee_id": "z9", "date": START_DATE, "shift_id": "day"}] * 3
    assert faults({"request": data, "roster": other}) == {("roster", "roster_of_another_request")}


def test_unknown_ids_and_dates_outside_the_period_are_named_by_path() -> None:
    data = minimal_request_dict()
    roster = [
        {"employee_id": "e1", "date": START_DATE, "shift_id": "day"},
        {"employee_id": "e2", "date": "2030-01-01", "shift_id": "day"},
        {"employee_id": "e3", "date": END_DATE, "shift_id": "dusk"},
    ]
    body = {"request": data, "roster": roster, "dates": ["2030-01-02"]}
    assert faults(body) == {
        ("roster.1.date", "date_outside_period"),
        ("roster.2.shift_id", "unknown_shift_id"),
        ("dates.0", "date_outside_period"),
    }


def test_a_broken_request_is_reported_under_request() -> None:
    data = copy.deepcopy(minimal_request_dict())
    data["employees"][0]["assignable_shift_ids"] = ["dusk"]
    assert ("request.employees.0.assignable_shift_ids.0", "unknown_shift_id") in faults(
        {"request": data, "roster": []}
    )


@pytest.mark.slow
def test_a_run_carried_in_from_the_history_makes_the_first_day_unavoidable() -> None:
    """Six days worked before the period leave the one employee no seventh: the cap is
    the cause, and the history, a fact, is not one."""
    data = minimal_request_dict()
    data["employees"] = [employee_dict("e1")]
    data["shifts"][1]["staffing_demand"] = [{"min": 0, "max": 1}] * 7
    data["constraints"] = {"max_consecutive_working_days": 6}
    before = [f"2026-02-{day}" for day in range(24, 29)] + ["2026-03-01"]
    history = {"assignments": [{"employee_id": "e1", "date": d, "shift_id": "day"} for d in before]}
    roster = [
        {"employee_id": "e1", "date": f"2026-03-0{day}", "shift_id": "day"} for day in range(3, 9)
    ]
    answer = explained(data, roster, history=history)
    [explanation] = answer.explanations
    assert (explanation.shortage.date.isoformat(), explanation.verdict) == (MONDAY, "unavoidable")
    fields = {c.field for c in explanation.causes}
    assert "request.constraints.max_consecutive_working_days" in fields, fields
    assert not any(f.startswith("history") for f in fields)
