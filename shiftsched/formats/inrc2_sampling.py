"""Plan an INRC-II week against sampled futures: a few candidate rosters, each priced by
what it leaves for a sampled next week, and the cheapest on average kept.

A week planned alone sees only its share of S6 and S7 (shiftsched.formats.inrc2_shares),
and nothing of the runs, weekends and totals its last days leave to the week after. Here
the week is first planned once per rule of :attr:`Sampling.rules`: a way of drawing the
share, or :data:`AHEAD`, the week modelled with a guessed week after it. Each distinct
roster is then carried into ``samples`` guesses of the next week, each planned alone
from the history the candidate leaves, and the candidate whose two weeks cost least on
average is kept (:func:`two_week_cost`). A guess is a week already seen (this one
included) drawn at random, each day's minimum and optimum moved by one at random,
without shift-off requests (:func:`guess`): the demand of the weeks to come is unknown,
but it resembles what came before. This is the scheme of the second-placed finalist of
the competition (Legrain, Omer and Rosat), cut down to a week's candidates and one week
of look-ahead. It is off by default, since it has not paid at the competition's time
(benchmarks/docs/inrc-ii.md, "Choices by measurement").

The week's budget is shared: :attr:`Sampling.candidates_part` of it among the
candidates (the first rule's :attr:`Sampling.lead` of that, the others starting from its
roster), the rest among the evaluations. The last week has no future and is planned as
:func:`shiftsched.formats.inrc2_plan.plan_week` plans it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from shiftsched.formats.inrc2 import History, Requirement, Scenario, WeekData
from shiftsched.formats.inrc2_eval import (
    DAYS_PER_WEEK,
    SOFT,
    WEIGHT_TOTAL_ASSIGNMENTS,
    WEIGHT_WORKING_WEEKENDS,
    Roster,
    evaluate_roster,
    next_history,
    week_roster,
)
from shiftsched.formats.inrc2_problem import roster_of, to_solution, week_problem
from shiftsched.formats.inrc2_shares import share
from shiftsched.solving.greedy_views import Roster as GreedyRoster
from shiftsched.solving.problem import Problem
from shiftsched.solving.solve import SolveLimits, SolveOutcome

# S1 ... S5: the costs a week's roster settles itself (S6 and S7 wait for the horizon).
WEEK_LOCAL = SOFT[:5]
AHEAD = "ahead"  # a candidate rule: the week modelled with a guess of the next
SHIFT_BY = (-1, 0, 0, 1)  # how far a guess moves a day's minimum and optimum
# How a problem is solved: the planner's own solve, passed in so that this module need
# not import the planner that imports it.
SolveFn = Callable[[Problem, SolveLimits, GreedyRoster | None], SolveOutcome]


@dataclass(frozen=True)
class Sampling:
    """How a week is planned against sampled futures."""

    samples: int = 2  # guesses of the next week each candidate is priced on
    rules: tuple[str, ...] = ("prorate", "weekend_half_down", "boost")  # one candidate each
    candidates_part: float = 0.6  # of the week's budget, shared by the candidates
    # None: the candidates share their part equally, each from the greedy start; a
    # fraction: the first rule's candidate gets it, the others share the rest and start
    # from the first's roster (they differ from it only in what the shares cost).
    lead: float | None = 0.5
    seed: int = 0


def guess(seen: Sequence[WeekData], rng: random.Random) -> WeekData:
    """A possible next week: one of ``seen`` at random, each day's minimum and optimum
    moved by the same step of :data:`SHIFT_BY` (never below zero, the optimum never below
    the minimum), with no shift-off request."""
    base = seen[rng.randrange(len(seen))]
    requirements = []
    for r in base.requirements:
        minimum, optimal = [], []
        for low, best in zip(r.minimum, r.optimal, strict=True):
            step = rng.choice(SHIFT_BY)
            minimum.append(max(0, low + step))
            optimal.append(max(minimum[-1], best + step))
        requirements.append(Requirement(r.shift, r.skill, tuple(minimum), tuple(optimal)))
    return WeekData(base.scenario, tuple(requirements), ())


def week_cost(scenario: Scenario, history: History, week: WeekData, roster: Roster) -> int:
    """S1 to S5 of one week's roster from ``history``: what the competition charges that
    week whatever follows (docs/inrc2.md, the border rule)."""
    costs = evaluate_roster(scenario, history, [week], roster).costs
    return sum(costs[kind] for kind in WEEK_LOCAL)


def shares_cost(scenario: Scenario, before: History, after: History) -> int:
    """S6 and S7 of the weeks from ``before`` to ``after`` against their prorated share of
    the horizon's bounds (the horizon's own bounds when ``after`` ends it)."""
    remaining = scenario.weeks - before.week
    span = after.week - before.week
    cost = 0
    for start in before.nurses:
        end, contract = after.of(start.nurse), scenario.contract_of(start.nurse)
        low = share(start.assignments, contract.min_total, remaining, span)
        high = share(start.assignments, contract.max_total, remaining, span)
        cap = share(start.weekends, contract.max_weekends, remaining, span)
        days = end.assignments
        cost += WEIGHT_TOTAL_ASSIGNMENTS * (max(0, low - days) + max(0, days - high))
        cost += WEIGHT_WORKING_WEEKENDS * max(0, end.weekends - cap)
    return cost


def two_week_cost(
    scenario: Scenario,
    history: History,
    week: WeekData,
    first: Roster,
    guessed: WeekData,
    second: Roster,
) -> int:
    """What the week's roster ``first`` and the guessed next week's ``second`` cost
    together: their S1 to S5, and S6 and S7 against the two weeks' share."""
    middle = next_history(history, first)
    end = next_history(middle, second)
    return (
        week_cost(scenario, history, week, first)
        + week_cost(scenario, middle, guessed, second)
        + shares_cost(scenario, history, end)
    )


def part_of(limits: SolveLimits, fraction: float) -> SolveLimits:
    """``limits`` with ``fraction`` of its work and of its wall clock (the clock never
    under 30 s: it is a backstop against a loaded machine, not the budget)."""
    parameters = dict(limits.parameters)
    work = parameters.get("max_deterministic_time")
    if isinstance(work, int | float):
        parameters["max_deterministic_time"] = work * fraction
    clock = limits.time_limit_seconds
    if clock is not None:
        clock = clock * fraction if work is None else max(30.0, clock * fraction)
    return replace(limits, time_limit_seconds=clock, parameters=parameters)


@dataclass(frozen=True)
class Stage:
    """The week to plan: where the history leaves it, and the weeks seen so far (this
    one included), which the guesses are drawn from."""

    scenario: Scenario
    history: History
    week: WeekData
    seen: Sequence[WeekData]


def _parts(sampling: Sampling) -> list[float]:
    """Each candidate's part of the week's budget (:attr:`Sampling.lead`)."""
    part, count = sampling.candidates_part, len(sampling.rules)
    if sampling.lead is None or count == 1:
        return [part / count] * count
    rest = part * (1 - sampling.lead) / (count - 1)
    return [part * sampling.lead] + [rest] * (count - 1)


@dataclass(frozen=True)
class Candidate:
    rule: str
    outcome: SolveOutcome
    roster: Roster
    score: float = 0.0


def candidates(
    stage: Stage, limits: SolveLimits, sampling: Sampling, solve: SolveFn
) -> list[Candidate]:
    """The week planned once per rule, identical rosters kept once (the first rule's)."""
    scenario, history, week, seen = stage.scenario, stage.history, stage.week, stage.seen
    rng = random.Random(sampling.seed * 7919 + history.week + 1)
    found: list[Candidate] = []
    for rule, fraction in zip(sampling.rules, _parts(sampling), strict=True):
        if rule == AHEAD:  # the week and a guess of the next one, in one model
            problem = week_problem(scenario, history, week, (guess(seen, rng),))
        else:
            problem = week_problem(scenario, history, week, (), rule)
        hint = None
        if found and sampling.lead is not None:
            hint = roster_of(problem, found[0].outcome.assignments)
        outcome = solve(problem, part_of(limits, fraction), hint)
        if rule == AHEAD:
            first_week = set(problem.horizon.dates[:DAYS_PER_WEEK])
            kept = [a for a in outcome.assignments if a.date in first_week]
            outcome = replace(outcome, assignments=kept)
        roster, _ = week_roster(scenario, to_solution(scenario, history.week, outcome.assignments))
        if all(roster != c.roster for c in found):
            found.append(Candidate(rule, outcome, roster))
    return found


def chosen(stage: Stage, limits: SolveLimits, sampling: Sampling, solve: SolveFn) -> Candidate:
    """The candidate whose two weeks cost least on average over the guesses (ties: the
    earlier rule). A single candidate is kept without pricing it."""
    scenario, history, week, seen = stage.scenario, stage.history, stage.week, stage.seen
    found = candidates(stage, limits, sampling, solve)
    if len(found) == 1:
        return found[0]
    rng = random.Random(sampling.seed * 7919 + history.week)
    guesses = [guess(seen, rng) for _ in range(sampling.samples)]
    each = part_of(limits, (1 - sampling.candidates_part) / (len(found) * len(guesses)))
    priced = []
    for c in found:
        middle = next_history(history, c.roster)
        total = 0
        for guessed in guesses:
            outcome = solve(week_problem(scenario, middle, guessed), each, None)
            second, _ = week_roster(
                scenario, to_solution(scenario, middle.week, outcome.assignments)
            )
            total += two_week_cost(scenario, history, week, c.roster, guessed, second)
        priced.append(replace(c, score=total / len(guesses)))
    return min(priced, key=lambda c: c.score)
