"""INRC-II weeks planned by the engine: the mapping of a week and its history onto the
engine's problem, the week's model priced as the competition's evaluator prices it, and
the week-by-week planner on the shipped n005w4 sequence.

The evaluator (shiftsched.formats.inrc2_eval) is the oracle: it reproduces the competition
validator's report, and the engine's model shares no code with it. Solves use one
worker, a fixed seed and deterministic work limits (or are proven optimal), so no
result depends on the machine's speed or load.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from shiftsched.formats.inrc2 import (
    DATASET_DIR,
    Scenario,
    WeekData,
    load_sequence,
    parse_history,
    parse_scenario,
    parse_week,
)
from shiftsched.formats.inrc2_eval import SOFT, Day, evaluate, evaluate_roster, week_roster
from shiftsched.formats.inrc2_plan import (
    Instance,
    forecast,
    load_instance,
    model_costs,
    plan_week,
    plan_weeks,
    week_limits,
)
from shiftsched.formats.inrc2_problem import to_solution, week_problem
from shiftsched.formats.inrc2_shares import share
from shiftsched.solving.problem import Problem
from shiftsched.solving.solve import solve_problem
from tests.audited import BACKSTOP_SECONDS
from tests.formats.test_inrc2 import _scenario as scenario_text
from tests.formats.test_inrc2 import _week as week_text

SHIFTS = ("Early", "Late", "Night")
EXACT = week_limits(BACKSTOP_SECONDS)  # tiny weeks: proven optimal long before


def _scenario(contract: str = "(0,28) (2,4) (2,3) 1 1", weeks: int = 4) -> Scenario:
    shifts = "Early (2,3)\nLate (1,3)\nNight (3,4)"
    return parse_scenario(scenario_text(shifts, contract, weeks))


def _week(requirements: str = "", requests: str = "") -> WeekData:
    return parse_week(week_text(requirements, requests))


def _history(ann: str, week: int = 0) -> str:
    return f"HISTORY\n{week} tiny\nNURSE_HISTORY\nAnn {ann}\n"


def _solve(problem: Problem) -> tuple[dict[str, int], int, dict[str, list[Day]]]:
    outcome = solve_problem(problem, EXACT)
    assert outcome.status == "optimal"
    costs, shortage = model_costs(outcome)
    scenario = _scenario()
    roster, _ = week_roster(scenario, to_solution(scenario, 0, outcome.assignments))
    return costs, shortage, roster


def test_the_historys_last_shift_forbids_its_successors_on_monday() -> None:
    # Ann ended the week before on a Late; Late may not be followed by Early. Monday asks
    # for one Early nurse at the least: she is the only nurse, so the head is missing.
    scenario = _scenario()
    history = parse_history(_history("3 0 Late 1 1 0"))
    week = _week("Early Nurse (1,1) (0,0) (0,0) (0,0) (0,0) (0,0) (0,0)")
    problem = week_problem(scenario, history, week)
    assert problem.employees[0].seam.last_shift == SHIFTS.index("Late")
    _, shortage, roster = _solve(problem)
    assert roster["Ann"][0] is None or roster["Ann"][0][0] != "Early"
    assert shortage == 1
    result = evaluate_roster(scenario, history, [week], roster)
    assert result.hard["min_coverage"] == 1 and result.hard["succession"] == 0


def test_a_history_run_of_working_days_continues_into_the_week() -> None:
    # Four days worked (the last two on Nights) and a maximum of 4 in a row: Monday's
    # Night, which the minimum coverage forces, is a fifth day (30) and a third Night,
    # within Night's bounds.
    scenario = _scenario()
    history = parse_history(_history("4 1 Night 2 4 0"))
    week = _week("Night Nurse (1,1) (0,0) (0,0) (0,0) (0,0) (0,0) (0,0)")
    problem = week_problem(scenario, history, week)
    seam = problem.employees[0].seam
    assert (seam.worked_run, seam.shift_run, seam.off_run) == (4, 2, 0)
    assert (seam.days_worked, seam.weekends_worked) == (4, 1)
    costs, shortage, roster = _solve(problem)
    assert shortage == 0 and roster["Ann"][0] == ("Night", "Nurse")
    result = evaluate_roster(scenario, history, [week], roster)
    # Night (3,4): a run of 3 that Tuesday ends is long enough; the work run is 5.
    assert result.costs["consecutive"] == costs["consecutive"] == 30


def test_shift_off_requests_become_wishes_of_weight_10() -> None:
    scenario = _scenario()
    history = parse_history(_history("0 0 None 0 0 2"))
    week = _week(requests="Ann Any Mon\nAnn Late Tue")
    preferences = week_problem(scenario, history, week).employees[0].preferences
    assert [(p.kind, p.day, p.shift, p.weight) for p in preferences] == [
        ("day_off", 0, None, 10),
        ("avoided_shift", 1, SHIFTS.index("Late"), 10),
    ]


def test_a_week_gets_its_share_of_the_horizons_totals() -> None:
    assert share(0, 15, 4) == 4  # 3.75 rounded
    assert share(0, 2, 4) == 1  # 0.5 rounded up
    assert share(1, 2, 3) == 1  # 0.33: nothing more this week
    assert share(10, 15, 1) == 15  # the last week: the horizon's own bound
    assert share(20, 15, 2) == 20  # already over: no further assignment is free
    assert share(0, 15, 4, span=2) == 8  # two weeks of four: 7.5 rounded up
    assert share(3, 15, 3, span=3) == 15  # up to the horizon's end: its own bound
    scenario = _scenario("(8,12) (2,4) (2,3) 1 1")
    history = parse_history(_history("6 1 None 0 0 2", week=2))
    nurse = week_problem(scenario, history, _week()).employees[0]
    assert nurse.total_days is not None and nurse.weekend_cap is not None
    assert (nurse.total_days.low, nurse.total_days.high) == (7, 9)  # 6 + 1, 6 + 3
    assert nurse.weekend_cap.high == 1  # one of one left over two weeks: 0.5 rounds up


def test_a_look_ahead_models_forecast_weeks_and_keeps_the_first() -> None:
    # Two weeks left: one forecast week, a copy of this week's coverage without its
    # requests. The problem spans both, its S6 range is the horizon's own, and only the
    # first week's assignments become the solution.
    scenario = _scenario("(8,12) (2,4) (2,3) 1 1")
    history = parse_history(_history("6 0 None 0 0 2", week=2))
    week = _week("Night Nurse (0,1) (0,1) (0,1) (0,1) (0,1) (0,1) (0,1)", "Ann Any Mon")
    ahead = forecast(scenario, history, week, lookahead=3)
    assert ahead == (replace(week, requests=()),)
    problem = week_problem(scenario, history, week, ahead)
    assert problem.num_days == 14 and len(problem.cover) == 14
    nurse = problem.employees[0]
    assert nurse.total_days is not None and (nurse.total_days.low, nurse.total_days.high) == (8, 12)
    assert [p.day for p in nurse.preferences] == [0]
    outcome = solve_problem(problem, EXACT)
    assert {a.date for a in outcome.assignments} - set(problem.horizon.dates[:7])
    solution = to_solution(scenario, 2, outcome.assignments)
    assert solution.week == 2 and all(a.day < 7 for a in solution.assignments)
    assert forecast(scenario, parse_history(_history("6 0 None 0 0 2", week=3)), week, 3) == ()


def _forced(problem: Problem, pattern: list[int | None]) -> Problem:
    """Ann's week fixed to ``pattern`` (a shift index per day, None off)."""
    ann = problem.employees[0]
    options = tuple(() if s is None else (s,) for s in pattern)
    return replace(problem, employees=(replace(ann, day_options=options),))


@pytest.mark.parametrize("seed", range(30))
def test_the_weeks_model_prices_runs_and_weekends_as_the_evaluator(seed: int) -> None:
    """Random weeks from random histories: the model's S2, S3 and S5 are the evaluator's
    for that week (which, summed over the weeks, are the horizon's)."""
    rng = random.Random(seed)
    scenario = _scenario()
    last = rng.choice([None, *SHIFTS])
    if last is None:
        ann = f"0 0 None 0 0 {rng.randint(1, 5)}"
    else:
        work = rng.randint(1, 6)
        ann = f"0 0 {last} {rng.randint(1, work)} {work} 0"
    history = parse_history(_history(ann))
    pattern = [rng.choice([None, None, 0, 1, 2]) for _ in range(7)]
    problem = _forced(week_problem(scenario, history, _week()), pattern)
    costs, _, roster = _solve(problem)
    result = evaluate_roster(scenario, history, [_week()], roster)
    for kind in ("consecutive", "days_off", "complete_weekends"):
        assert costs[kind] == result.costs[kind], (kind, ann, pattern)


def _shipped() -> Instance:
    run = load_sequence(DATASET_DIR / "n005w4" / "Solution_H_0-WD_1-2-3-3")
    instance = load_instance("n005w4_0_1-2-3-3")
    assert instance.weeks == run.weeks and instance.history == run.history
    return instance


@pytest.mark.slow
def test_the_planner_on_n005w4_is_feasible_exact_and_deterministic() -> None:
    instance = _shipped()
    limits = week_limits(BACKSTOP_SECONDS, work=5.0)
    plan = plan_weeks(instance, limits)
    result = evaluate(instance.scenario, instance.history, instance.weeks, plan.solutions)
    assert result == plan.evaluation
    assert result.feasible
    assert all(w.shortage == 0 for w in plan.weeks)
    # Week by week the model prices S1-S5 as the evaluator; S6 and S7 are judged on the
    # horizon, which only the last week's model sees whole.
    for kind in SOFT[:5]:
        assert sum(w.costs[kind] for w in plan.weeks) == result.costs[kind], kind
    for kind in SOFT[5:]:
        assert plan.weeks[-1].costs[kind] == result.costs[kind], kind
    assert result.total <= 1695  # the shipped roster of this sequence (validator.txt)
    again = plan_weeks(instance, limits)
    assert again.solutions == plan.solutions


def test_a_week_is_planned_from_the_history_it_is_given() -> None:
    instance = _shipped()
    week = plan_week(instance.scenario, instance.history, instance.weeks[0], EXACT)
    assert week.stage == 0 and week.status == "optimal"
    assert week.solution.week == 0 and week.solution.scenario == "n005w4"
    roster, repeated = week_roster(instance.scenario, week.solution)
    assert repeated == 0
    result = evaluate_roster(instance.scenario, instance.history, instance.weeks[:1], roster)
    assert result.feasible
    for kind in SOFT[:5]:
        assert week.costs[kind] == result.costs[kind], kind


def test_an_instance_name_says_dataset_history_and_week_files() -> None:
    instance = load_instance("n030w4_1_6-2-9-1")
    assert instance.scenario.name == "n030w4" and len(instance.scenario.nurses) == 30
    assert instance.history.week == 0
    with pytest.raises(ValueError, match="week files"):
        load_instance("n030w4_1_6-2-9")
    with pytest.raises(ValueError, match="is not <dataset>"):
        load_instance("n030w4-1")
