"""Timefold Solver on one request, with its default solver: construction heuristic, then
local search, until a time limit or a count of score calculations.

The solver is configured as Timefold's documentation starts every user: the solution
and entity classes, the constraint provider, a termination, and nothing else (the
default construction heuristic and local search, the default environment mode with
its fixed random seed). Nothing is tuned to these requests.

Clocks run from :func:`solve`'s call, after the JVM has started (a service starts it
once): ``setup_seconds`` until the solver starts (building the domain and compiling the
constraints), ``first_roster_seconds`` until the first best roster the solver reports
(the end of the construction heuristic). A time limit is the whole call's, setup
included, as the engine's is.
"""

from __future__ import annotations

import functools
import time
from importlib.metadata import version
from typing import Any

from timefold.solver import SolutionManager, SolverFactory
from timefold.solver.config import (
    Duration,
    ScoreDirectorFactoryConfig,
    SolverConfig,
    SolverConfigOverride,
    TerminationConfig,
)

from benchmarks.timefold_model.constraints import roster_constraints
from benchmarks.timefold_model.domain import Roster, Slot, to_roster
from benchmarks.timefold_model.outcome import Improvement, Limit, TimefoldRun
from benchmarks.timefold_model.terms import HARD
from benchmarks.timefold_model.translate import ModelInput
from shiftsched.contract.v1 import Assignment

#: The least a solve is given, however long the setup took.
MIN_SOLVE_SECONDS = 1.0


def _termination(limit: Limit, setup: float) -> TerminationConfig:
    if limit.calculations is not None:
        return TerminationConfig(score_calculation_count_limit=limit.calculations)
    assert limit.seconds is not None  # a Limit has one of the two
    remaining = max(MIN_SOLVE_SECONDS, limit.seconds - setup)
    return TerminationConfig(spent_limit=Duration(milliseconds=round(1000 * remaining)))


def _config() -> SolverConfig:
    return SolverConfig(
        solution_class=Roster,
        entity_class_list=[Slot],
        score_director_factory_config=ScoreDirectorFactoryConfig(
            constraint_provider_function=roster_constraints
        ),
    )


def assignments(model: ModelInput, roster: Roster) -> list[Assignment]:
    """The roster's filled slots as v1 assignments."""
    return [
        Assignment(employee_id=slot.person.id, date=model.dates[slot.day], shift_id=slot.shift_id)
        for slot in roster.slots
        if slot.person is not None
    ]


def _by_constraint(factory: Any, roster: Roster) -> dict[str, int]:
    """Minus each constraint's share of the roster's score, by constraint name."""
    analysis = SolutionManager.create(factory).analyze(roster)
    totals = {}
    for constraint in analysis.constraint_analyses:
        score = constraint.score
        totals[constraint.constraint_name] = -(score.hard_score + score.soft_score)
    return totals


@functools.cache
def _scoring_factory() -> Any:
    return SolverFactory.create(_config())


def scored(model: ModelInput, roster: Roster) -> TimefoldRun:
    """Timefold's score of a roster as it stands, no solve: how the pricing is tested."""
    constraints = _by_constraint(_scoring_factory(), roster)
    hard = sum(v for k, v in constraints.items() if k in HARD)
    soft = sum(v for k, v in constraints.items() if k not in HARD)
    return TimefoldRun(
        assignments=assignments(model, roster),
        score=f"{-hard}hard/{-soft}soft",
        hard=hard,
        soft=soft,
        constraints=constraints,
        setup_seconds=0.0,
        wall_seconds=0.0,
        version=version("timefold"),
    )


def _listen(solver: Any, called: float, improvements: list[Improvement]) -> None:
    """Notes each new best score and when it came, reading the score alone.

    Timefold's Python listener hands over the whole solution, copied into Python objects,
    at every new best: hundreds of milliseconds a time, which would slow the search it
    measures. This one is registered on the Java solver and copies nothing.
    """
    from ai.timefold.solver.core.api.solver.event import SolverEventListener
    from jpype import JImplements, JOverride

    @JImplements(SolverEventListener)
    class Clock:
        @JOverride  # type: ignore[untyped-decorator]
        def bestSolutionChanged(self, event: Any) -> None:  # the Java method's name
            score = event.getNewBestScore()
            seconds = time.perf_counter() - called
            improvements.append(
                Improvement(seconds, -int(score.hardScore()), -int(score.softScore()))
            )

    solver._delegate.addEventListener(Clock())


def solve(model: ModelInput, limit: Limit) -> TimefoldRun:
    """Solves the model; the best roster found, its score and each constraint's share."""
    called = time.perf_counter()
    problem = to_roster(model)
    factory = SolverFactory.create(_config())
    setup = time.perf_counter() - called
    solver = factory.build_solver(
        SolverConfigOverride(termination_config=_termination(limit, setup))
    )
    improvements: list[Improvement] = []
    _listen(solver, called, improvements)
    setup = time.perf_counter() - called
    best = solver.solve(problem)
    wall = time.perf_counter() - called
    score = best.score
    return TimefoldRun(
        assignments=assignments(model, best),
        score=str(score),
        hard=-score.hard_score,
        soft=-score.soft_score,
        constraints=_by_constraint(factory, best),
        setup_seconds=setup,
        wall_seconds=wall,
        improvements=improvements,
        version=version("timefold"),
    )
