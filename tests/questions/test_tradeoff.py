"""The fairness trade-off's words come from its figures, and say which solves finished."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.questions.fair_share import GroupBurden, Share
from shiftsched.questions.tradeoff import (
    FINISHED,
    UNFINISHED,
    SweepPoint,
    contradicts_a_finished_sweep,
    scenarios_note,
    shared_most_burdened,
    starting_burden,
    sweep_caption,
    trend,
)
from shiftsched.solving.greedy import greedy_roster, roster_assignments
from shiftsched.solving.problem import from_request

ROOT = Path(__file__).parent.parent.parent


def point(weight: int, other: float, excess: int, state: str = FINISHED, gap: float | None = 0.0):
    return SweepPoint(weight, other, excess, 0.1, state, gap)


@pytest.mark.parametrize(
    ("values", "plural", "words"),
    [
        ([1350, 520, 380], True, "fall from 1,350 to 380"),
        ([60, 60, 140], False, "rises from 60 to 140"),
        ([60, 60], True, "stay at 60"),
        ([12, 9, 11], False, "goes 12 → 9 → 11"),
        ([0.5, 1.25], False, "rises from 0.50 to 1.25"),
    ],
)
def test_a_trend_is_told_as_the_figures_go(values: list[float], plural: bool, words: str) -> None:
    assert trend(values, plural=plural) == words


def test_a_finished_sweep_says_what_fairness_costs() -> None:
    points = [point(100, 140, 1), point(1, 60, 17), point(10, 110, 6)]  # any order
    assert sweep_caption(points) == (
        "As the penalty weight rises from 1 to 100, the excess over fair shares falls from "
        "17 to 1 and the other terms (preferences, workload, coverage, other groups) rise "
        "from 60 to 140. Every point is proven optimal, so this is what fairness costs here."
    )


def test_an_unfinished_sweep_that_runs_the_wrong_way_says_so() -> None:
    # The figures the issue reported at 3 s on ward_24_7: other terms falling.
    points = [
        point(1, 1350, 12, UNFINISHED, 57.1),
        point(10, 520, 9, UNFINISHED, 89.2),
        point(100, 380, 2, UNFINISHED, 58.3),
    ]
    caption = sweep_caption(points)
    assert "other groups) fall from 1,350 to 380" in caption
    assert "None of these 3 solves finished (gaps 57.1% to 89.2%; hollow marks)" in caption
    assert "Proven-optimal rosters never do that" in caption
    assert contradicts_a_finished_sweep(points)


def test_a_partly_finished_sweep_names_its_unfinished_weights() -> None:
    points = [point(1, 60, 17), point(10, 150, 2, UNFINISHED, 6.7), point(100, 240, 1, UNFINISHED)]
    caption = sweep_caption(points)
    assert "rise from 60 to 240" in caption
    assert "The points at weight 10, 100 are unfinished (gaps 0% to 6.7%; hollow marks)" in caption
    assert "never do that" not in caption
    assert not contradicts_a_finished_sweep(points)


def test_one_weight_and_none_are_told_too() -> None:
    assert sweep_caption([]) == "No weight swept."
    assert sweep_caption([point(10, 110, 6, UNFINISHED, None)]).startswith(
        "At weight 10 the excess over fair shares is 6 and the other terms"
    )
    assert "no bound proven" in sweep_caption([point(10, 110, 6, UNFINISHED, None)])


def burden(counts: dict[str, int]) -> GroupBurden:
    shares = tuple(Share(e, c, 1.0, 1.0, 1.0, max(0, c - 1)) for e, c in counts.items())
    return GroupBurden(0, "equal", ("night",), shares, sum(counts.values()), 0, 0.0)


def test_scenarios_that_do_not_differ_are_explained_by_the_unfinished_search() -> None:
    burdens = {
        "without the group": burden({"ramp-13": 17, "ops-03": 6}),
        "equal": burden({"ramp-13": 17, "ops-03": 5}),
    }
    shared = shared_most_burdened(burdens)
    assert shared == ("ramp-13", 17)
    states = {"without the group": (UNFINISHED, 100.0), "equal": (UNFINISHED, None)}
    note = scenarios_note(states, shared, 17)
    assert note.startswith("Unfinished rosters (gap: without the group 100%, equal no bound)")
    assert "ramp-13 works 17 of the group's shifts in every roster" in note
    assert "the roster the search starts from (a greedy pass) gives ramp-13 17 too" in note
    assert "starts from" not in scenarios_note(states, shared, 9)
    finished = {"equal": (FINISHED, 0.0)}
    assert scenarios_note(finished, shared, 17).startswith("Every roster is proven optimal")


def test_rosters_that_differ_at_the_top_share_no_most_burdened() -> None:
    assert (
        shared_most_burdened({"a": burden({"x": 3, "y": 1}), "b": burden({"x": 2, "y": 3})}) is None
    )
    assert shared_most_burdened({"a": burden({"x": 3}), "b": burden({"x": 2})}) is None


def test_the_starting_burden_is_the_greedy_rosters() -> None:
    request = parse_request(json.loads((ROOT / "datasets" / "ward_24_7.json").read_bytes()))
    problem = from_request(request)
    start = starting_burden(request, 0)
    nights = sum(
        1 for a in roster_assignments(problem, greedy_roster(problem)) if a.shift_id == "night"
    )
    assert start.total == nights > 0
