"""Minimum runs of days off (hard; shiftsched.solving.model.days_off_runs)."""

from __future__ import annotations

from tests.formats.tiny import Staff, daily, solve_text, status_of, text

ALL_BUT_2 = {0: 1, 1: 1, 3: 1, 4: 1}


def test_a_single_day_off_between_work_is_worked_instead() -> None:
    solved = solve_text(text(5, [Staff(min_off=2)], cover=daily(5, ALL_BUT_2)))
    assert solved.objective == 1 and solved.roster == {"A": ["D"] * 5}


def test_with_a_run_cap_the_gap_grows_to_two_days() -> None:
    solved = solve_text(text(5, [Staff(min_off=2, max_run=4)], cover=daily(5, ALL_BUT_2)))
    assert solved.objective == 10 and solved.roster["A"].count("") == 2


def test_one_day_off_is_fine_without_the_rule() -> None:
    solved = solve_text(text(5, [Staff(min_off=1, max_run=4)], cover=daily(5, ALL_BUT_2)))
    assert solved.objective == 0 and solved.roster == {"A": ["D", "D", "", "D", "D"]}


def test_days_off_touching_the_horizon_are_exempt() -> None:
    solved = solve_text(text(4, [Staff(min_off=3)], cover=daily(4, {1: 1, 2: 1, 3: 1})))
    assert solved.objective == 0 and solved.roster == {"A": ["", "D", "D", "D"]}


def test_a_hard_day_off_counts_inside_a_run() -> None:
    # Day 1 is a hard day off and the minutes force two worked days. Days 0 and 2 would
    # leave a run of 1 < 2 off; days 0 and 3 cost the same (one head over) and are allowed.
    staff = Staff(min_off=2, min_minutes=960)
    solved = solve_text(text(4, [staff], cover=daily(4, {0: 1}), days_off=["A,1"]))
    assert solved.roster == {"A": ["D", "", "", "D"]} and solved.objective == 1
    staff = Staff(min_off=2, min_minutes=3 * 480)
    assert status_of(text(4, [staff], cover=daily(4, {}), days_off=["A,1"])) == "infeasible"
