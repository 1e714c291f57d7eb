"""Total worked minutes per employee over the period (hard; solving.model.total_minutes)."""

from __future__ import annotations

from tests.formats.tiny import Staff, daily, solve_text, status_of, text

EVERY_DAY = {0: 1, 1: 1, 2: 1}


def test_within_bounds_costs_nothing() -> None:
    solved = solve_text(text(3, [Staff(max_minutes=1440)], cover=daily(3, EVERY_DAY)))
    assert solved.objective == 0 and solved.roster == {"A": ["D", "D", "D"]}


def test_maximum_leaves_a_head_missing() -> None:
    solved = solve_text(text(3, [Staff(max_minutes=960)], cover=daily(3, EVERY_DAY)))
    assert solved.objective == 10 and solved.roster["A"].count("D") == 2


def test_minimum_forces_work_nobody_needs() -> None:
    solved = solve_text(text(3, [Staff(min_minutes=960)], cover=daily(3, {})))
    assert solved.objective == 2 and solved.roster["A"].count("D") == 2


def test_unreachable_minimum_is_infeasible() -> None:
    assert status_of(text(3, [Staff(min_minutes=1920)], cover=daily(3, {}))) == "infeasible"
