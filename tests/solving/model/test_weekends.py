"""Maximum worked weekends (hard; shiftsched.solving.model.weekends)."""

from __future__ import annotations

from tests.formats.tiny import Staff, daily, solve_text, status_of, text

SATURDAYS, SAT_AND_SUN = {5: 1, 12: 1}, {5: 1, 6: 1}


def test_one_weekend_allowed_leaves_the_second_uncovered() -> None:
    solved = solve_text(text(14, [Staff(max_weekends=1)], cover=daily(14, SATURDAYS)))
    assert solved.objective == 10 and solved.roster["A"].count("D") == 1


def test_a_sunday_alone_counts_as_a_weekend() -> None:
    need = {6: 1, 12: 1}
    solved = solve_text(text(14, [Staff(max_weekends=1)], cover=daily(14, need)))
    assert solved.objective == 10


def test_both_days_of_one_weekend_are_one_weekend() -> None:
    solved = solve_text(text(14, [Staff(max_weekends=1)], cover=daily(14, SAT_AND_SUN)))
    assert solved.objective == 0 and solved.roster["A"][5:7] == ["D", "D"]


def test_zero_weekends_and_minutes_that_need_one_are_infeasible() -> None:
    staff = Staff(max_weekends=0, min_minutes=6 * 480)
    assert status_of(text(7, [staff], cover=daily(7, {}))) == "infeasible"
