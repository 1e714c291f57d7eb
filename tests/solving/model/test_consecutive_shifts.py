"""Per-employee bounds on runs of worked days (hard; solving.model.consecutive_shifts)."""

from __future__ import annotations

from tests.formats.tiny import Staff, daily, solve_text, status_of, text


def test_maximum_run_breaks_a_full_week() -> None:
    need = dict.fromkeys(range(4), 1)
    assert solve_text(text(4, [Staff(max_run=4)], cover=daily(4, need))).objective == 0
    solved = solve_text(text(4, [Staff(max_run=2)], cover=daily(4, need)))
    assert solved.objective == 10 and solved.roster["A"].count("") == 1


def test_a_short_inner_run_is_stretched_to_the_minimum() -> None:
    # Day 2 needs a head (under 10); a lone day 2 is a run of 1 < 3 between two days off,
    # so the cheapest roster works three days around it (two heads over, weight 1).
    solved = solve_text(text(5, [Staff(min_run=3)], cover=daily(5, {2: 1})))
    assert solved.objective == 2 and solved.roster["A"].count("D") == 3
    assert solved.roster["A"][2] == "D"


def test_runs_touching_the_horizon_are_exempt() -> None:
    solved = solve_text(text(3, [Staff(min_run=3)], cover=daily(3, {0: 1})))
    assert solved.objective == 0 and solved.roster == {"A": ["D", "", ""]}
    solved = solve_text(text(3, [Staff(min_run=3)], cover=daily(3, {2: 1})))
    assert solved.objective == 0 and solved.roster == {"A": ["", "", "D"]}


def test_minimum_and_maximum_that_leave_no_roster_are_infeasible() -> None:
    # The minutes need all four days worked, but runs are at most 2 long.
    staff = Staff(min_minutes=4 * 480, max_run=2)
    assert status_of(text(4, [staff], cover=daily(4, {}))) == "infeasible"
