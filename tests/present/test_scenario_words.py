"""The fairness page says when its scenarios came back as the same roster
(shiftsched.present.scenario_words): equal columns are then the search's, not the policies'."""

from __future__ import annotations

import datetime as dt

from shiftsched.contract.v1 import Assignment
from shiftsched.present.scenario_words import same_rosters, same_rosters_words

DAY = dt.date(2026, 1, 5)


def cells(*employees: str) -> list[Assignment]:
    return [
        Assignment(employee_id=e, date=DAY + dt.timedelta(days=n), shift_id="N")
        for n, e in enumerate(employees)
    ]


def test_rosters_with_the_same_cells_in_any_order_are_the_same() -> None:
    rosters = {
        "without the group": cells("A", "B"),
        "equal": list(reversed(cells("A", "B"))),
        "proportional": cells("B", "A"),
    }
    assert same_rosters(rosters) == [["without the group", "equal"]]
    assert same_rosters({"a": cells("A"), "b": cells("B")}) == []


def test_unfinished_same_rosters_are_said_to_teach_nothing_and_what_to_do() -> None:
    words = same_rosters_words([["equal", "proportional"]], 3, [], 3)
    assert "“equal” and “proportional” came back as the same roster" in words
    assert "unfinished" in words and "Raise the time limit per solve (now 3 s)" in words
    every = same_rosters_words([["without the group", "equal", "proportional"]], 3, [], 10)
    assert every.startswith("**All 3 scenarios came back as the same roster**")


def test_proven_optimal_same_rosters_mean_the_policy_changes_nothing() -> None:
    words = same_rosters_words([["equal", "proportional"]], 3, ["equal", "proportional"], 3)
    assert "proven optimal: here the policy changes nothing" in words
    assert "Raise" not in words
    assert same_rosters_words([], 3, [], 3) == ""
