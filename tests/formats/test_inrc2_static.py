"""INRC-II beyond one week: the whole horizon as one problem (the static mode) and the
ways a week planned alone draws its share of S6 and S7 (shiftsched.formats.inrc2_shares).

The evaluator is the oracle, as in test_inrc2_plan.py; the one solve is limited by
deterministic work on one worker.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from shiftsched.formats.inrc2 import NurseHistory, WeekData
from shiftsched.formats.inrc2_plan import (
    Instance,
    load_instance,
    plan_static,
    plan_weeks,
    roster_of,
    week_limits,
)
from shiftsched.formats.inrc2_problem import week_problem
from shiftsched.formats.inrc2_shares import ANTICIPATIONS, _part, anticipated
from shiftsched.solving.hint import add_roster_hint, complete_hint
from shiftsched.solving.model.build import build
from tests.audited import BACKSTOP_SECONDS

N005 = "n005w4_0_1-2-3-3"


def test_the_static_problem_models_every_week_with_its_requests_and_exact_totals() -> None:
    instance = load_instance(N005)
    scenario, history = instance.scenario, instance.history
    first, *rest = instance.weeks
    problem = week_problem(scenario, history, first, rest)
    assert problem.num_days == 28
    for nurse in problem.employees:
        asked = [
            7 * w + q.day
            for w, week in enumerate(instance.weeks)
            for q in week.requests
            if q.nurse == nurse.id
        ]
        assert sorted(p.day for p in nurse.preferences) == sorted(asked)
        contract = scenario.contract_of(nurse.id)
        assert nurse.total_days is not None and nurse.weekend_cap is not None
        assert (nurse.total_days.low, nurse.total_days.high) == (
            contract.min_total,
            contract.max_total,
        )
        assert nurse.weekend_cap.high == contract.max_weekends
    assert any(p.day >= 7 for n in problem.employees for p in n.preferences)


@pytest.mark.slow
def test_the_static_plan_is_priced_by_its_model_as_by_the_evaluator() -> None:
    instance = load_instance(N005)
    plan = plan_static(instance, week_limits(BACKSTOP_SECONDS, work=2.0))
    assert [s.week for s in plan.solutions] == [0, 1, 2, 3]
    assert plan.evaluation.feasible
    assert plan.objective == plan.evaluation.total  # one model, the horizon priced exactly


def _nurse(assignments: int, weekends: int) -> NurseHistory:
    return NurseHistory("HN_0", assignments, weekends, None, 0, 0, 2)


@pytest.mark.parametrize("how", sorted(ANTICIPATIONS))
def test_every_anticipation_gives_the_horizons_bounds_once_it_is_reached(how: str) -> None:
    instance = load_instance(N005)
    scenario, history = instance.scenario, instance.history
    for remaining, span in ((1, 1), (3, 3), (4, 4)):
        ranges = anticipated(scenario, history, instance.weeks[0], remaining, span, how)
        for nurse in scenario.nurses:
            contract = scenario.contract_of(nurse.name)
            days, weekends = ranges[nurse.name]
            assert (days.low, days.high, days.weight) == (
                contract.min_total,
                contract.max_total,
                20,
            )
            assert (weekends.high, weekends.weight) == (contract.max_weekends, 30)


def test_the_anticipations_differ_as_their_docstrings_say() -> None:
    instance = load_instance("n030w4_1_6-2-9-1")
    scenario, history, week = instance.scenario, instance.history, instance.weeks[0]
    drawn = {how: anticipated(scenario, history, week, 4, 1, how) for how in ANTICIPATIONS}
    full_time = "HN_0"  # FullTime (15,22), two weekends; one worked weekend in history
    assert history.of(full_time).weekends == 0
    assert drawn["prorate"][full_time][1].high == 1  # 2 x 1/4 = 0.5 rounds up
    assert drawn["weekend_half_down"][full_time][1].high == 0  # and down here
    assert drawn["discount"][full_time][0].weight == 13  # 20 x (1 + 1/4) / 2 = 12.5
    assert drawn["discount"][full_time][1].weight == 19  # 30 x 5/8 = 18.75
    # n030's first week asks for more nurse-shifts than a quarter of the nurses' room:
    # the demand-weighted shares are at least the prorated ones.
    for nurse in scenario.nurses:
        prorated, weighted = drawn["prorate"][nurse.name][0], drawn["demand"][nurse.name][0]
        assert weighted.high >= prorated.high and weighted.low >= prorated.low
    assert _part(0, 3, Fraction(1, 2)) == 2 and _part(0, 3, Fraction(1, 2), down=True) == 1
    with pytest.raises(ValueError, match="unknown anticipation"):
        anticipated(scenario, history, week, 4, 1, "guess")


def test_the_static_plan_started_from_the_weeks_plan_is_never_dearer_than_it() -> None:
    instance = load_instance(N005)
    weeks = plan_weeks(instance, week_limits(BACKSTOP_SECONDS, work=0.2))
    started = plan_static(instance, week_limits(BACKSTOP_SECONDS, work=0.2), start=weeks)
    assert started.evaluation.feasible
    # The joined weeks keep every hard rule of the horizon, so the search begins at
    # their cost; whatever it finds after is priced by the evaluator like they are.
    assert started.evaluation.total <= weeks.evaluation.total
    assert started.objective == started.evaluation.total
    problem = week_problem(instance.scenario, instance.history, *_split(instance))
    joined = [a for w in weeks.weeks for a in w.assignments]
    roster = roster_of(problem, joined)
    assert len(roster) == len(joined) == sum(len(s.assignments) for s in weeks.solutions)
    compiled = build(problem)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    add_roster_hint(compiled, roster)
    assert complete_hint(compiled, BACKSTOP_SECONDS) is not None  # a roster of the horizon


def _split(instance: Instance) -> tuple[WeekData, list[WeekData]]:
    first, *rest = instance.weeks
    return first, rest
