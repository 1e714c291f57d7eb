"""Weighted cover targets (soft; shiftsched.solving.model.cover)."""

from __future__ import annotations

from tests.formats.tiny import Staff, solve_text, text

TWO = [Staff("A"), Staff("B")]


def test_met_target_costs_nothing() -> None:
    solved = solve_text(text(1, TWO, cover=[(0, "D", 2, 7, 3)]))
    assert solved.objective == 0 and solved.roster == {"A": ["D"], "B": ["D"]}


def test_under_is_priced_by_the_instance_weight() -> None:
    solved = solve_text(text(1, TWO, cover=[(0, "D", 3, 7, 3)]))
    assert solved.objective == 7
    assert [s.missing for s in solved.outcome.shortages] == [1]
    assert {v.name: v.penalty for v in solved.outcome.violations} == {"cover_under:D:2024-01-01": 7}


def test_over_is_priced_per_head_above_the_target() -> None:
    # Both want the shift (weight 5 each); one head above a target of 1 costs only 3.
    cover = [(0, "D", 1, 7, 3)]
    solved = solve_text(text(1, TWO, cover=cover, on=["A,0,D,5", "B,0,D,5"]))
    assert solved.objective == 3 and solved.roster == {"A": ["D"], "B": ["D"]}
    # At weight 6 over, leaving one request unmet (5) is cheaper.
    solved = solve_text(text(1, TWO, cover=[(0, "D", 1, 7, 6)], on=["A,0,D,5", "B,0,D,5"]))
    assert solved.objective == 5


def test_zero_weights_leave_the_count_free() -> None:
    solved = solve_text(text(1, TWO, cover=[(0, "D", 1, 0, 0)], off=["A,0,D,2", "B,0,D,2"]))
    assert solved.objective == 0 and solved.roster == {"A": [""], "B": [""]}
