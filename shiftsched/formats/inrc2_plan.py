"""Plan an INRC-II instance week by week, as the competition's simulator runs a solver.

For each week in turn, only that week's data and the history the previous weeks left
are known: :func:`plan_weeks` builds the week's problem (shiftsched.formats.inrc2_problem),
solves it with the engine (``shiftsched.solving.solve.solve_problem``), writes the roster as the
week's solution and hands ``inrc2_eval.next_history`` of it to the next week. The
joined weeks are priced at the end by the competition's cost function
(``inrc2_eval.evaluate``), which is the figure a plan is judged by.

An instance is named as in the literature, ``<dataset>_<history>_<week files>``:
``n030w4_1_6-2-9-1`` is dataset n030w4, initial history ``H0-n030w4-1.txt`` and the week
files 6, 2, 9 and 1 in that order (:func:`load_instance`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from shiftsched.contract.v1 import Assignment as EngineAssignment
from shiftsched.formats.inrc2 import (
    DATASET_DIR,
    History,
    Scenario,
    Solution,
    WeekData,
    load_history,
    load_scenario,
    load_week,
)
from shiftsched.formats.inrc2_eval import (
    DAYS_PER_WEEK,
    SOFT,
    Evaluation,
    evaluate,
    next_history,
    week_roster,
)
from shiftsched.formats.inrc2_problem import roster_of, to_solution, week_problem, week_start
from shiftsched.formats.inrc2_sampling import Sampling, Stage, chosen
from shiftsched.solving.greedy_views import Roster
from shiftsched.solving.problem import Problem
from shiftsched.solving.solve import SolveLimits, SolveOutcome, solve_problem

# The competition's cost type (inrc2_eval.SOFT) of each soft term the week's model has.
COST_OF_TERM = {
    "cover_under": "optimal_coverage",  # S1
    "shift_runs": "consecutive",  # S2
    "work_runs": "consecutive",  # S2
    "off_runs": "days_off",  # S3
    "preference": "preferences",  # S4
    "complete_weekends": "complete_weekends",  # S5
    "total_days": "total_assignments",  # S6, the week's share
    "weekend_cap": "working_weekends",  # S7, the week's share
}
SHORTAGE_TERM = "duty_shortage"  # H2: heads short of a minimum
_NAME = re.compile(r"^(n\d{3}w\d)_(\d+)_(\d+(?:-\d+)*)$")

Limits = SolveLimits | Callable[[int, Problem], SolveLimits]  # by stage and problem


def week_limits(
    seconds: float | None, workers: int = 1, seed: int = 0, work: float | None = None
) -> SolveLimits:
    """The engine's limits for one week: ``seconds`` of wall clock (None: none), or
    ``work`` seconds of CP-SAT's deterministic time (the same roster on any machine).

    On one worker the search uses CP-SAT's full linear relaxation
    (``linearization_level`` 2): a week is small (a few thousand decisions), and on
    n021w4's first week it found a roster of 490 in 10 s where the default found 1205.
    """
    parameters: dict[str, object] = {}
    if workers == 1:
        parameters["linearization_level"] = 2
    if work is not None:
        parameters["max_deterministic_time"] = work
    return SolveLimits(
        time_limit_seconds=seconds,
        num_workers=workers,
        random_seed=seed,
        parameters=parameters,
        diagnosis_budget_seconds=0,
    )


class PlanningError(RuntimeError):
    """A week the engine found no roster for (only a far too short time limit does it)."""


@dataclass(frozen=True)
class Instance:
    name: str
    scenario: Scenario
    history: History
    weeks: tuple[WeekData, ...]


def load_instance(name: str, root: Path = DATASET_DIR) -> Instance:
    """``n030w4_1_6-2-9-1``: the dataset's scenario, initial history 1 and week files."""
    match = _NAME.match(name)
    if match is None:
        raise ValueError(f"{name!r} is not <dataset>_<history>_<w1-w2-...>, e.g. n030w4_1_6-2-9-1")
    dataset, history, files = match.groups()
    folder = root / dataset
    scenario = load_scenario(folder / f"Sc-{dataset}.txt")
    weeks = tuple(load_week(folder / f"WD-{dataset}-{w}.txt") for w in files.split("-"))
    if len(weeks) != scenario.weeks:
        raise ValueError(f"{name}: {len(weeks)} week files for a {scenario.weeks}-week scenario")
    return Instance(name, scenario, load_history(folder / f"H0-{dataset}-{history}.txt"), weeks)


@dataclass(frozen=True)
class PlannedWeek:
    """One week as the engine planned it, with its model's own prices."""

    stage: int
    status: str  # the engine's outcome (optimal, feasible)
    objective: float  # the week's model objective
    best_bound: float | None
    runtime_seconds: float
    costs: dict[str, int]  # the model's terms by competition cost type (inrc2_eval.SOFT)
    shortage: int  # heads short of a minimum (H2), by the model
    solution: Solution
    assignments: tuple[EngineAssignment, ...] = ()  # the week's roster as the engine's


@dataclass(frozen=True)
class WeekByWeek:
    """A whole plan: each week's record and the competition's price of the joined weeks."""

    instance: Instance
    weeks: tuple[PlannedWeek, ...]
    evaluation: Evaluation

    @property
    def solutions(self) -> tuple[Solution, ...]:
        return tuple(w.solution for w in self.weeks)


def model_costs(outcome: SolveOutcome) -> tuple[dict[str, int], int]:
    """The week's soft terms summed by competition cost type, and its missing heads."""
    costs = dict.fromkeys(SOFT, 0)
    shortage = 0
    for violation in outcome.violations:
        family = violation.name.split(":", 1)[0]
        if family == SHORTAGE_TERM:
            shortage += round(violation.violated_by or 0)
        elif family in COST_OF_TERM:
            costs[COST_OF_TERM[family]] += round(violation.penalty)
        else:
            raise ValueError(f"a term no INRC-II rule explains: {violation.name}")
    return costs, shortage


def forecast(
    scenario: Scenario, history: History, week: WeekData, lookahead: int
) -> tuple[WeekData, ...]:
    """The weeks modelled after ``week``: ``lookahead`` of them at most, none past the
    horizon, each a copy of this week's coverage (the only demand known) without its
    shift-off requests (a request is known only in its own week)."""
    count = min(lookahead, scenario.weeks - history.week - 1)
    return (replace(week, requests=()),) * max(0, count)


def plan_week(
    scenario: Scenario,
    history: History,
    week: WeekData,
    limits: Limits,
    lookahead: int = 0,
    anticipation: str = "prorate",
    sampling: Sampling | None = None,
    seen: Sequence[WeekData] = (),
) -> PlannedWeek:
    """Plan the week starting where ``history`` ends (its stage is ``history.week``).

    ``lookahead``: weeks modelled after it (:func:`forecast`), so that the runs, the
    weekends and the totals it leaves are priced against a guess of what follows; its
    roster alone is kept. With look-ahead, the week's model terms (``costs``) include
    the forecast weeks'. ``anticipation``: how the week's share of S6 and S7 is drawn
    (shiftsched.formats.inrc2_shares). ``sampling``: plan the week against sampled
    futures instead (shiftsched.formats.inrc2_sampling), guessed from the weeks
    ``seen`` so far (this one included); the last week is planned alone.
    """
    ahead = forecast(scenario, history, week, lookahead)
    problem = week_problem(scenario, history, week, ahead, anticipation)
    stage = history.week
    if sampling is not None and stage < scenario.weeks - 1:
        chosen_limits = limits(stage, problem) if callable(limits) else limits
        started = time.perf_counter()
        outcome = chosen(
            Stage(scenario, history, week, seen or (week,)),
            chosen_limits,
            sampling,
            lambda p, each, hint: _solved(p, each, stage, hint),
        ).outcome
        # the week's time is every candidate's and every guess's, not the kept solve's
        outcome = replace(outcome, runtime_seconds=time.perf_counter() - started)
    else:
        outcome = _solved(problem, limits, stage)
    costs, shortage = model_costs(outcome)
    return PlannedWeek(
        stage=stage,
        status=outcome.status,
        objective=outcome.objective_value or 0.0,
        best_bound=outcome.best_bound,
        runtime_seconds=outcome.runtime_seconds,
        costs=costs,
        shortage=shortage,
        solution=to_solution(scenario, stage, outcome.assignments),
        assignments=tuple(outcome.assignments),
    )


def _solved(
    problem: Problem, limits: Limits, stage: int, hint: Roster | None = None
) -> SolveOutcome:
    chosen = limits(stage, problem) if callable(limits) else limits
    outcome = solve_problem(problem, chosen, hint=hint)
    if not outcome.has_solution or outcome.objective_value is None:
        raise PlanningError(f"week {stage}: no roster ({outcome.status}: {outcome.message})")
    return outcome


def plan_weeks(
    instance: Instance,
    limits: Limits,
    on_week: Callable[[PlannedWeek], None] | None = None,
    lookahead: int = 0,
    anticipation: str = "prorate",
    sampling: Sampling | None = None,
) -> WeekByWeek:
    """Plan every week in order from the instance's initial history, then price the
    joined weeks with the competition's cost function. ``limits`` may depend on the
    stage and the week's problem; ``on_week`` sees each week once it is planned;
    ``lookahead``, ``anticipation`` and ``sampling`` are :func:`plan_week`'s."""
    scenario, history = instance.scenario, instance.history
    planned: list[PlannedWeek] = []
    for index, week in enumerate(instance.weeks):
        seen = instance.weeks[: index + 1]
        done = plan_week(scenario, history, week, limits, lookahead, anticipation, sampling, seen)
        planned.append(done)
        if on_week is not None:
            on_week(done)
        roster, _ = week_roster(scenario, done.solution)
        history = next_history(history, roster)
    solutions: Sequence[Solution] = [w.solution for w in planned]
    evaluation = evaluate(scenario, instance.history, instance.weeks, solutions)
    return WeekByWeek(instance, tuple(planned), evaluation)


@dataclass(frozen=True)
class Static:
    """The whole horizon planned at once, every week's data known: the engine's outcome
    of the one problem and the competition's price of its roster."""

    instance: Instance
    status: str
    objective: float  # the model's objective, which prices the horizon exactly
    best_bound: float | None
    runtime_seconds: float
    solutions: tuple[Solution, ...]
    evaluation: Evaluation


def plan_static(instance: Instance, limits: SolveLimits, start: WeekByWeek | None = None) -> Static:
    """Plan the horizon as one problem: the first week with every later week (their
    coverage and requests) modelled after it, so S6 and S7 are the horizon's own
    bounds; the roster is cut into the weekly solutions and priced by the evaluator.
    This is the problem the published static optima solve, which no week-by-week plan
    can beat.

    ``start``: a week-by-week plan of the same instance to start from instead of the
    greedy roster. Its joined weeks keep every hard rule of the whole horizon (each week
    was planned from the history the one before left), so the search begins at that
    plan's cost and can only improve on it: the greedy start of a whole horizon is
    several times dearer, and a solve of a few minutes does not make up the difference.
    """
    scenario, history = instance.scenario, instance.history
    first, *rest = instance.weeks
    problem = week_problem(scenario, history, first, rest)
    hint = (
        None
        if start is None
        else roster_of(problem, [a for w in start.weeks for a in w.assignments])
    )
    outcome = _solved(problem, limits, history.week, hint)
    by_week: dict[int, list[EngineAssignment]] = {}
    monday = week_start(history.week)
    for a in outcome.assignments:
        by_week.setdefault((a.date - monday).days // DAYS_PER_WEEK, []).append(a)
    solutions = tuple(
        to_solution(scenario, history.week + w, by_week.get(w, ()))
        for w in range(len(instance.weeks))
    )
    evaluation = evaluate(scenario, history, instance.weeks, solutions)
    return Static(
        instance,
        outcome.status,
        outcome.objective_value or 0.0,
        outcome.best_bound,
        outcome.runtime_seconds,
        solutions,
        evaluation,
    )
