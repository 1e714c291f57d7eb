"""The Curtois & Qu importer, its mapping onto the engine, the checker and the CLI."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from engine.greedy import greedy_roster
from engine.io.curtois import Cover, Request, Shift, load, parse, to_problem, to_roster
from engine.io.curtois_check import check
from engine.model.build import build
from engine.solve import SolveLimits, add_roster_hint, complete_hint, solve_problem
from tests.audited import BACKSTOP_SECONDS
from tests.io.tiny import Staff, daily, solve_text, text


def test_instance_1_parses_to_exact_counts_and_values() -> None:
    instance = load(1)
    assert instance.horizon == 14
    assert instance.shifts == (Shift("D", 480, ()),)
    assert [s.id for s in instance.staff] == list("ABCDEFGH")
    a = instance.staff[0]
    assert (a.max_shifts, a.max_total_minutes, a.min_total_minutes) == ((("D", 14),), 4320, 3360)
    assert (a.max_consecutive_shifts, a.min_consecutive_shifts) == (5, 2)
    assert (a.min_consecutive_days_off, a.max_weekends) == (2, 1)
    assert instance.days_off_of("A") == {0} and instance.days_off_of("H") == {7}
    assert len(instance.shift_on) == 21 and len(instance.shift_off) == 5
    assert instance.shift_on[2] == Request("B", 0, "D", 3)
    assert instance.shift_off[2] == Request("F", 8, "D", 3)
    assert len(instance.cover) == 14
    assert instance.cover[1] == Cover(1, "D", 7, 100, 1)


def test_successors_and_per_type_maxima_parse() -> None:
    instance = load(12)
    assert len(instance.shifts) == 10
    night = next(s for s in instance.shifts if s.id == "n1")
    assert night.cannot_follow == ("a1", "a2", "a3", "d1", "d2", "d3", "p1", "p2", "p3")
    assert dict(instance.staff[0].max_shifts)["d3"] == 0


def test_mapping_keeps_only_benchmark_rules() -> None:
    instance = load(1)
    problem = to_problem(instance)
    assert problem.horizon.start.weekday() == 0 and problem.num_days == 14
    assert problem.horizon.start == dt.date(2024, 1, 1)
    assert problem.max_consecutive_days is None
    a = problem.employees[0]
    assert a.day_options[0] == () and a.day_options[1] == (0,)  # day 0 is A's day off
    assert a.total_minutes == (3360, 4320)
    assert a.consecutive_shifts == (2, 5)
    assert (a.min_days_off_run, a.max_weekends) == (2, 1)
    weights = {p.name: (p.kind, p.weight) for e in problem.employees for p in e.preferences}
    assert weights["preference:preferred_shift:B:2024-01-01:D"] == ("preferred_shift", 3)
    assert weights["preference:avoided_shift:F:2024-01-09:D"] == ("avoided_shift", 3)
    assert len(problem.cover) == 14 and problem.cover[1].target == 7
    assert all(s.staffing.mins == (0,) * 14 for s in problem.shifts)


def test_a_zero_maximum_removes_the_shift_and_successions_become_hard_transitions() -> None:
    problem = to_problem(load(12))
    d3 = [s.id for s in problem.shifts].index("d3")
    assert d3 not in problem.employees[0].assignable
    assert all(t.forbid and t.hard for t in problem.transitions)
    assert len(problem.transitions) == 3 * 3 + 3 * 6 + 9


def test_checker_reports_each_broken_rule() -> None:
    staff = Staff(max_shifts="D=2", max_minutes=1440, min_minutes=960, max_run=2, max_weekends=0)
    source = text(7, [staff], cover=daily(7, {0: 1}), days_off=["A,1"])

    report = check(parse(source), {"A": ["D", "D", "D", "", "", "D", ""]})
    rules = sorted(v.rule for v in report.violations)
    assert rules == [
        "day_off",
        "max_consecutive_shifts",
        "max_shifts",
        "max_total_minutes",
        "max_weekends",
    ]
    assert report.objective == 3  # three heads over a requirement of 0, weight 1 each


def test_weighted_requests_are_the_instances_weights() -> None:
    # Shift-off request (weight 4) on a day that needs the only employee (under 10): work.
    solved = solve_text(text(1, cover=daily(1, {0: 1}), off=["A,0,D,4"]))
    assert solved.roster == {"A": ["D"]} and solved.objective == 4
    # Shift-on request (weight 6) on a day that needs nobody (over 1): work.
    solved = solve_text(text(1, cover=daily(1, {}), on=["A,0,D,6"]))
    assert solved.roster == {"A": ["D"]} and solved.objective == 1


def test_hard_day_off_and_forbidden_succession() -> None:
    solved = solve_text(text(2, cover=daily(2, {0: 1, 1: 1}), days_off=["A,0"]))
    assert solved.roster == {"A": ["", "D"]} and solved.objective == 10
    two = ["E,480,", "L,480,E"]
    cover = [(0, "L", 1, 10, 1), (1, "E", 1, 7, 1), (0, "E", 0, 1, 1), (1, "L", 0, 1, 1)]
    solved = solve_text(text(2, [Staff(max_shifts="E=9|L=9")], cover=cover, shifts=two))
    assert solved.roster == {"A": ["L", ""]} and solved.objective == 7


def test_max_shifts_per_type_is_a_count_limit() -> None:
    solved = solve_text(text(3, [Staff(max_shifts="D=1")], cover=daily(3, {0: 1, 2: 1})))
    assert solved.objective == 10 and solved.roster["A"].count("D") == 1


def test_instance_1_solves_to_its_best_known_607() -> None:
    instance = load(1)
    problem = to_problem(instance)
    outcome = solve_problem(
        problem, SolveLimits(time_limit_seconds=BACKSTOP_SECONDS, num_workers=2)
    )
    assert outcome.status == "optimal" and outcome.objective_value == 607
    report = check(instance, to_roster(problem, outcome.assignments))
    assert report.violations == [] and report.objective == 607
    assert outcome.progress and outcome.progress[-1].bound == 607


def test_cli_writes_a_roster_the_checker_accepts(tmp_path: Path) -> None:
    from benchmarks.curtois import main

    out = tmp_path / "roster.json"
    assert (
        main(
            [
                "curtois",
                "1",
                "--time-limit",
                str(BACKSTOP_SECONDS),
                "--workers",
                "2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    assert data["instance"] == 1 and data["objective"] == 607
    report = check(load(1), data["roster"])
    assert report.violations == [] and report.objective == 607


@pytest.mark.parametrize("number", range(1, 13))
def test_greedy_roster_breaks_no_hard_rule_of_instances_1_to_12(number: int) -> None:
    # Short runs of worked days and unmet total-minutes minimums are invisible to a
    # backward-looking pass; the greedy repairs them, so the hint completes at once.
    instance = load(number)
    problem = to_problem(instance)
    roster = {e.id: [""] * problem.num_days for e in problem.employees}
    for e, d, s in greedy_roster(problem):
        roster[problem.employees[e].id][d] = problem.shifts[s].id
    assert check(instance, roster).violations == []


def test_greedy_hint_of_instance_9_completes_into_a_first_solution() -> None:
    problem = to_problem(load(9))
    compiled = build(problem)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    add_roster_hint(compiled, greedy_roster(problem))
    assert complete_hint(compiled, BACKSTOP_SECONDS)
