"""Weeks planned against sampled futures (shiftsched.formats.inrc2_sampling): the guesses
of a next week, the two-week price a candidate is judged by, and the planner with
sampling on the shipped n005w4 sequence.

The prices are checked against the competition's evaluator on the shipped rosters, so
no solver is involved there; the planner's solves use one worker, a fixed seed and
deterministic work limits.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from shiftsched.formats.inrc2 import DATASET_DIR, History, SolvedSequence, load_sequence
from shiftsched.formats.inrc2_eval import (
    SOFT,
    evaluate,
    evaluate_roster,
    horizon_roster,
    next_history,
    week_roster,
)
from shiftsched.formats.inrc2_plan import load_instance, plan_weeks, week_limits
from shiftsched.formats.inrc2_problem import week_start
from shiftsched.formats.inrc2_sampling import (
    AHEAD,
    SHIFT_BY,
    Sampling,
    guess,
    part_of,
    shares_cost,
    two_week_cost,
    week_cost,
)
from shiftsched.formats.inrc2_shares import share
from shiftsched.solving.solve import SolveLimits
from tests.audited import BACKSTOP_SECONDS


def _shipped() -> SolvedSequence:
    return load_sequence(DATASET_DIR / "n005w4" / "Solution_H_0-WD_1-2-3-3")


def _histories(run: SolvedSequence) -> list[History]:
    """The history before each week of the shipped plan, and the one after its last."""
    found = [run.history]
    for solution in run.solutions:
        roster, _ = week_roster(run.scenario, solution)
        found.append(next_history(found[-1], roster))
    return found


@pytest.mark.parametrize("seed", range(5))
def test_a_guess_is_a_seen_week_moved_by_one_a_day_without_requests(seed: int) -> None:
    run = _shipped()
    seen = run.weeks[:2]
    guessed = guess(seen, random.Random(seed))
    assert guessed.requests == ()
    base = next(
        w
        for w in seen
        if all(
            all(abs(g - b) <= 1 for g, b in zip(gr.minimum, br.minimum, strict=True))
            for gr, br in zip(guessed.requirements, w.requirements, strict=True)
        )
    )
    assert [(r.shift, r.skill) for r in guessed.requirements] == [
        (r.shift, r.skill) for r in base.requirements
    ]
    for moved, original in zip(guessed.requirements, base.requirements, strict=True):
        for day in range(7):
            low, best = moved.minimum[day], moved.optimal[day]
            assert 0 <= low <= best
            step = low - original.minimum[day]
            if original.minimum[day] > 0:  # not clipped at zero
                assert step in SHIFT_BY
    assert guess(seen, random.Random(seed)) == guessed  # the seed fixes the guess


def test_guesses_move_some_days_and_leave_others() -> None:
    run = _shipped()
    rng = random.Random(0)
    moved = same = 0
    for _ in range(20):
        guessed = guess(run.weeks[:1], rng)
        for new, old in zip(guessed.requirements, run.weeks[0].requirements, strict=True):
            for day in range(7):
                if new.optimal[day] == old.optimal[day]:
                    same += 1
                else:
                    moved += 1
    assert moved > 0 and same > 0


def test_shares_over_the_whole_horizon_are_the_evaluators_s6_and_s7() -> None:
    run = _shipped()
    histories = _histories(run)
    result = evaluate(run.scenario, run.history, run.weeks, run.solutions)
    expected = result.costs["total_assignments"] + result.costs["working_weekends"]
    assert shares_cost(run.scenario, histories[0], histories[-1]) == expected
    assert expected > 0  # the shipped plan pays some: the check is not of zeros


def test_a_week_costs_its_s1_to_s5_as_the_evaluator_prices_it() -> None:
    run = _shipped()
    histories = _histories(run)
    total = 0
    for stage, solution in enumerate(run.solutions):
        roster, _ = week_roster(run.scenario, solution)
        total += week_cost(run.scenario, histories[stage], run.weeks[stage], roster)
    result = evaluate(run.scenario, run.history, run.weeks, run.solutions)
    assert total == sum(result.costs[kind] for kind in SOFT[:5])


def test_the_last_two_weeks_cost_what_the_evaluator_charges_them() -> None:
    run = _shipped()
    histories = _histories(run)
    third, _ = week_roster(run.scenario, run.solutions[2])
    fourth, _ = week_roster(run.scenario, run.solutions[3])
    priced = two_week_cost(run.scenario, histories[2], run.weeks[2], third, run.weeks[3], fourth)
    joined, _ = horizon_roster(run.scenario, run.solutions[2:])
    result = evaluate_roster(run.scenario, histories[2], run.weeks[2:], joined)
    assert priced == result.total


def test_a_share_that_is_kept_costs_nothing_and_each_unit_off_it_its_weight() -> None:
    run = _shipped()
    before = run.history
    first = before.nurses[0]
    contract = run.scenario.contract_of(first.nurse)
    low = share(first.assignments, contract.min_total, 4, 2)  # two weeks of four
    high = share(first.assignments, contract.max_total, 4, 2)
    cap = share(first.weekends, contract.max_weekends, 4, 2)
    assert low < high

    def cost(days: int, weekends: int) -> int:
        """The first nurse's S6 and S7 after two weeks, every other nurse on her share."""
        nurses = [replace(first, assignments=days, weekends=weekends)]
        for past in before.nurses[1:]:
            c = run.scenario.contract_of(past.nurse)
            nurses.append(replace(past, assignments=share(past.assignments, c.min_total, 4, 2)))
        return shares_cost(run.scenario, before, replace(before, week=2, nurses=tuple(nurses)))

    assert cost(low, cap) == cost(high, cap) == 0
    assert cost(low - 1, cap) == cost(high + 1, cap) == 20
    assert cost(high + 3, cap + 2) == 3 * 20 + 2 * 30


def test_a_part_of_the_limits_shares_the_work_and_keeps_a_clock_backstop() -> None:
    limits = week_limits(100.0, work=40.0)
    part = part_of(limits, 0.25)
    assert part.parameters["max_deterministic_time"] == 10.0
    assert part.time_limit_seconds == 30.0  # 25 s would be a budget, not a backstop
    assert part_of(week_limits(400.0, work=40.0), 0.25).time_limit_seconds == 100.0
    wall = part_of(SolveLimits(time_limit_seconds=40.0), 0.25)
    assert wall.time_limit_seconds == 10.0  # no work limit: the clock is the budget


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules", [("prorate", "weekend_half_down", "boost"), ("prorate", AHEAD)], ids=str
)
def test_the_sampled_planner_on_n005w4_is_feasible_and_deterministic(
    rules: tuple[str, ...],
) -> None:
    instance = load_instance("n005w4_0_1-2-3-3")
    limits = week_limits(BACKSTOP_SECONDS, work=2.0)
    sampling = Sampling(samples=2, rules=rules)
    plan = plan_weeks(instance, limits, sampling=sampling)
    result = evaluate(instance.scenario, instance.history, instance.weeks, plan.solutions)
    assert result == plan.evaluation
    assert result.feasible
    if AHEAD not in rules:  # with a guessed week the model counts its shortage too
        assert all(w.shortage == 0 for w in plan.weeks)
    assert result.total <= 1695  # the shipped roster of this sequence (validator.txt)
    for week in plan.weeks:  # a week keeps its own days, never a guessed week's
        monday = week_start(week.stage)
        assert all(0 <= (a.date - monday).days < 7 for a in week.assignments)
    again = plan_weeks(instance, limits, sampling=sampling)
    assert again.solutions == plan.solutions
