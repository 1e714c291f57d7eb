"""The Curtois & Qu importer, its mapping onto the engine, the checker and the CLI."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path

import pytest

from shiftsched.formats.curtois import (
    Cover,
    Instance,
    Request,
    Shift,
    load,
    parse,
    to_problem,
    to_roster,
)
from shiftsched.formats.curtois_check import OFF, check
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.hint import add_roster_hint, complete_hint
from shiftsched.solving.model.build import build
from shiftsched.solving.model.sequences import forbidden_rows
from shiftsched.solving.model.tight import evaluate, tight_values
from shiftsched.solving.problem import Problem
from shiftsched.solving.solve import SolveLimits, solve_problem
from tests.audited import BACKSTOP_SECONDS
from tests.formats.tiny import Staff, daily, solve_text, text

# Days, staff and shift types of each instance, as the benchmark publishes them
# (datasets/curtois-qu/README.md).
SIZES = {
    1: (14, 8, 1), 2: (14, 14, 2), 3: (14, 20, 3), 4: (28, 10, 2), 5: (28, 16, 2),
    6: (28, 18, 3), 7: (28, 20, 3), 8: (28, 30, 4), 9: (28, 36, 4), 10: (28, 40, 5),
    11: (28, 50, 6), 12: (28, 60, 10), 13: (28, 120, 18), 14: (42, 32, 4),
    15: (42, 45, 6), 16: (56, 20, 3), 17: (56, 32, 4), 18: (84, 22, 3), 19: (84, 40, 5),
    20: (182, 50, 6), 21: (182, 100, 8), 22: (364, 50, 10), 23: (364, 100, 16),
    24: (364, 150, 32),
}  # fmt: skip


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


@pytest.mark.parametrize("number", range(1, 25))
def test_every_instance_parses_to_its_published_size(number: int) -> None:
    instance = load(number)
    days, staff, shifts = SIZES[number]
    assert (instance.horizon, len(instance.staff), len(instance.shifts)) == SIZES[number]
    shift_ids = [s.id for s in instance.shifts]
    staff_ids = [s.id for s in instance.staff]
    assert len(set(shift_ids)) == shifts and len(set(staff_ids)) == staff
    # Every reference resolves and every day lies in the horizon.
    assert all(set(s.cannot_follow) <= set(shift_ids) for s in instance.shifts)
    assert all({k for k, _ in s.max_shifts} <= set(shift_ids) for s in instance.staff)
    for sid, off in instance.days_off:
        assert sid in staff_ids and all(0 <= d < days for d in off)
    for r in (*instance.shift_on, *instance.shift_off):
        assert r.staff in staff_ids and r.shift in shift_ids and 0 <= r.day < days
    # One cover line per day and shift.
    assert sorted((c.day, c.shift) for c in instance.cover) == sorted(
        (d, sid) for d in range(days) for sid in shift_ids
    )


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
    assert {t.index for t in problem.transitions} == {0}  # one rule: the whole table


@pytest.mark.slow
def test_successions_are_one_group_and_a_few_rows_per_employee_and_day() -> None:
    # Instance 13: 136 forbidden pairs among 18 shifts, 120 staff over 28 days. Pair by
    # pair that was ~198,000 clauses and one hard group per pair and employee; as blocks
    # it is at most one row per block, employee and pair of days, one group per employee.
    problem = to_problem(load(13))
    blocks = forbidden_rows(problem.transitions)
    assert len(problem.transitions) == 136 and len(blocks) == 6
    compiled = build(problem)
    without = build(problem, skip=["shift_transitions"])
    rows = len(compiled.model.proto.constraints) - len(without.model.proto.constraints)
    assert 0 < rows <= len(problem.employees) * (problem.num_days - 1) * len(blocks)
    groups = [g for g in compiled.hard_groups if g.family == "shift_transition"]
    assert len(groups) == len(problem.employees)


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


# Four shift types whose succession table has overlapping predecessor sets and a
# self-loop: E may not follow L or N, D not N, N not D or N (blocks ({L, N}, {E}),
# ({N}, {D}), ({D, N}, {N})).
SUCCESSIONS = ("E,480,", "D,480,N", "L,480,E", "N,600,E|D|N")
ALL_TYPES = "E=9|D=9|L=9|N=9"


def _exhaustive_optimum(instance: Instance) -> int:
    """The cheapest roster the checker accepts, over every roster of the instance."""
    days, ids = instance.horizon, [s.id for s in instance.staff]
    options = [OFF, *(s.id for s in instance.shifts)]
    best = None
    for cells in itertools.product(options, repeat=days * len(ids)):
        roster = {sid: list(cells[i * days : (i + 1) * days]) for i, sid in enumerate(ids)}
        report = check(instance, roster)
        if not report.violations and (best is None or report.objective < best):
            best = report.objective
    assert best is not None
    return best


@pytest.mark.slow
def test_grouped_successions_reach_the_exhaustive_optimum() -> None:
    cover = [
        (0, "N", 2, 10, 1), (0, "L", 1, 3, 1), (0, "E", 0, 1, 1), (0, "D", 0, 1, 1),
        (1, "E", 1, 8, 1), (1, "D", 1, 6, 1), (1, "N", 1, 4, 1), (1, "L", 0, 1, 1),
        (2, "N", 1, 5, 1), (2, "E", 1, 4, 1), (2, "D", 0, 1, 1), (2, "L", 0, 1, 1),
    ]  # fmt: skip
    source = text(
        3,
        [Staff("A", max_shifts=ALL_TYPES), Staff("B", max_shifts=ALL_TYPES)],
        cover=cover,
        shifts=SUCCESSIONS,
        on=["B,1,D,2"],
    )
    solved = solve_text(source)  # optimal, and the checker agrees with the roster
    assert solved.objective == _exhaustive_optimum(solved.instance)


def test_max_shifts_per_type_is_a_count_limit() -> None:
    solved = solve_text(text(3, [Staff(max_shifts="D=1")], cover=daily(3, {0: 1, 2: 1})))
    assert solved.objective == 10 and solved.roster["A"].count("D") == 1


@pytest.mark.slow
def test_instance_1_solves_to_its_best_known_607() -> None:
    instance = load(1)
    problem = to_problem(instance)
    # One worker and a fixed seed prove it in well under a second.
    outcome = solve_problem(
        problem, SolveLimits(time_limit_seconds=BACKSTOP_SECONDS, num_workers=1, random_seed=0)
    )
    assert outcome.status == "optimal" and outcome.objective_value == 607
    report = check(instance, to_roster(problem, outcome.assignments))
    assert report.violations == [] and report.objective == 607
    assert outcome.progress and outcome.progress[-1].bound == 607


@pytest.mark.slow
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
                "1",
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


# From instance 8 on, the greedy pass takes a second or more.
@pytest.mark.parametrize(
    "number", [n if n < 8 else pytest.param(n, marks=pytest.mark.slow) for n in range(1, 20)]
)
def test_greedy_roster_breaks_no_hard_rule_of_instances_1_to_19(number: int) -> None:
    # Short runs of worked days and unmet total-minutes minimums are invisible to a
    # backward-looking pass; the greedy repairs them, so the hint completes at once.
    instance = load(number)
    problem = to_problem(instance)
    roster = {e.id: [""] * problem.num_days for e in problem.employees}
    for e, d, s in greedy_roster(problem):
        roster[problem.employees[e].id][d] = problem.shifts[s].id
    assert check(instance, roster).violations == []


@pytest.mark.slow
def test_greedy_hint_of_instance_9_completes_into_a_first_solution() -> None:
    problem = to_problem(load(9))
    compiled = build(problem)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    add_roster_hint(compiled, greedy_roster(problem))
    assert complete_hint(compiled, BACKSTOP_SECONDS)


def _engine_price(problem: Problem, roster: dict[str, list[str]]) -> int:
    """The model's objective for a roster's decisions, every slack at its tight value."""
    compiled = build(problem)
    shift_of = {s.id: k for k, s in enumerate(problem.shifts)}
    values = [0] * len(compiled.model.proto.variables)
    for e, employee in enumerate(problem.employees):
        for d, sid in enumerate(roster[employee.id]):
            if sid != OFF:
                values[compiled.x[e, d, shift_of[sid]].index] = 1
    tight = tight_values(compiled, values)
    return sum(t.weight * evaluate(t.magnitude, tight) for t in compiled.terms)


@pytest.mark.slow
def test_checker_on_a_year_long_instance() -> None:
    # Instance 22: 364 days, 52 weekends. Everybody works a week of five days from their
    # own weekday onwards, on a shift they may work, except on their days off; staff A
    # works shift d2 on every Saturday and Sunday instead.
    instance = load(22)
    problem = to_problem(instance)
    roster: dict[str, list[str]] = {}
    for p, employee in enumerate(problem.employees):
        days = [OFF] * instance.horizon
        for d, options in enumerate(employee.day_options):
            if options and (d + p) % 7 < 5:
                days[d] = problem.shifts[options[p % len(options)]].id
        roster[employee.id] = days
    roster["A"] = [
        "d2" if d % 7 >= 5 and d not in instance.days_off_of("A") else OFF for d in range(364)
    ]
    report = check(instance, roster)
    a = sorted((v.rule, v.day, v.detail) for v in report.violations if v.staff == "A")
    # 104 weekend days less A's nine weekend days off: four whole weekends (89-90,
    # 110-111, 271-272, 341-342) and Saturday 278, which leaves Sunday 279 an inner run
    # of one day. 95 days of 480 minutes.
    assert a == [
        ("max_weekends", None, "48 > 26"),
        ("min_consecutive_shifts", 279, "1 < 2"),
        ("min_total_minutes", None, "45600 < 111360"),
    ]
    # The checker's objective is the model's price of the same decisions, to the unit.
    assert report.objective == _engine_price(problem, roster)
    # The 52nd weekend (days 362-363) counts like any other: A's first 26 free weekends
    # and the last Sunday alone make 27. A run touching the last day is exempt from the
    # minimum run, so that Sunday breaks nothing else.
    off = instance.days_off_of("A")
    free = [w for w in range(51) if not {7 * w + 5, 7 * w + 6} & off][:26]
    a_days = [OFF] * 364
    for w in free:
        a_days[7 * w + 5] = a_days[7 * w + 6] = "d2"
    a_days[363] = "d2"
    report = check(instance, {**roster, "A": a_days})
    a = sorted((v.rule, v.detail) for v in report.violations if v.staff == "A")
    assert a == [("max_weekends", "27 > 26"), ("min_total_minutes", "25440 < 111360")]


def test_the_report_flags_a_bound_above_the_best_known_value() -> None:
    from benchmarks.curtois import bound_valid

    assert bound_valid(1300.0, 1300) is True  # meeting it proves the best known optimal
    assert bound_valid(1299.0, 1300) is True
    assert bound_valid(1301.0, 1300) is False  # a "proof" above a known roster: a bug
    assert bound_valid(None, 1300) is None and bound_valid(1.0, None) is None
