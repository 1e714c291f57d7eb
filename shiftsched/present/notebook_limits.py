"""How the notebooks solve: quickly for a person at the screen, or the same every run.

A person exploring gets up to two CP-SAT workers (the portfolio of
:mod:`shiftsched.solving.search`), which find good rosters sooner, but equally good rosters come
back in a different order from run to run. A notebook started with ``--work-limit W`` instead solves
on one worker with a fixed seed and stops after ``W`` deterministic seconds of CP-SAT work (or on
its proof, if sooner): its wall-clock limit is then only a backstop, of at least
:data:`BACKSTOP_SECONDS`, and its rosters are the same on any machine under any load.
Exports that must not change and the tests use that.

A limit never ends a notebook's solve that has no roster yet (:func:`until_first_roster`):
on a busy machine a few seconds can pass before the search starts, and a page that says
"no roster" for a request that has one teaches nothing. A solve the limit ended without a
roster is solved again with :data:`LONGER` times the limit (time and work), until a roster
exists or the limit reaches :data:`FIRST_ROSTER_CAP_SECONDS`. A solve cannot be given more
time once it runs, so each attempt starts over; growing the limit fourfold keeps what the
earlier attempts spent under a third of the whole wait. With a work limit every attempt is
deterministic, so the roster is still the same on any machine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from shiftsched.contract.v1 import SolveResponse
from shiftsched.solving.cores import available_cores
from shiftsched.solving.problem import Problem
from shiftsched.solving.solve import SolveLimits, SolveOutcome, solve_problem

INTERACTIVE_WORKERS = 2
SEED = 0
BACKSTOP_SECONDS = 60.0  # with a work limit: a wall clock only a broken solve reaches
LONGER = 4.0  # each attempt after one that ended without a roster: this many times the limit
FIRST_ROSTER_CAP_SECONDS = 300.0  # no attempt's limit (time or work) grows past this
WORK = "max_deterministic_time"

# An engine outcome, or a response shaped like the service's (a re-plan's, a plan's).
Result = TypeVar("Result", bound=SolveOutcome | SolveResponse)


def notebook_limits(
    seconds: float, work_limit: float = 0.0, base: SolveLimits | None = None
) -> SolveLimits:
    """Limits of a notebook's solve of at most ``seconds``; ``work_limit`` > 0: one worker,
    :data:`SEED` and that much deterministic work. ``base`` gives the other fields."""
    limits = base or SolveLimits()
    if work_limit <= 0:
        return replace(limits, time_limit_seconds=seconds, num_workers=notebook_workers())
    return replace(
        limits,
        time_limit_seconds=max(seconds, BACKSTOP_SECONDS),
        num_workers=1,
        random_seed=SEED,
        parameters={**limits.parameters, WORK: work_limit},
    )


def notebook_workers(work_limit: float = 0.0) -> int:
    """Workers of a notebook's solve or diagnosis: one when ``work_limit`` > 0."""
    return 1 if work_limit > 0 else min(INTERACTIVE_WORKERS, available_cores())


def ended_without_roster(result: SolveOutcome | SolveResponse) -> bool:
    """Whether the limit ended this solve before it found any roster (not a proof that
    there is none, nor a stop the caller asked for)."""
    if isinstance(result, SolveOutcome):
        return result.status == "timeout"
    return result.error is not None and result.error.code == "solver_timeout"


def longer(limits: SolveLimits) -> SolveLimits | None:
    """The limits of the next attempt: :data:`LONGER` times the time and the work, each up
    to :data:`FIRST_ROSTER_CAP_SECONDS`; None when neither can grow."""
    seconds = limits.time_limit_seconds
    work = limits.parameters.get(WORK)
    grown = replace(limits)
    if seconds is not None and seconds < FIRST_ROSTER_CAP_SECONDS:
        grown = replace(grown, time_limit_seconds=min(FIRST_ROSTER_CAP_SECONDS, LONGER * seconds))
    if isinstance(work, int | float) and work < FIRST_ROSTER_CAP_SECONDS:
        more = min(FIRST_ROSTER_CAP_SECONDS, LONGER * float(work))
        grown = replace(grown, parameters={**limits.parameters, WORK: more})
    return None if grown == limits else grown


def until_first_roster(attempt: Callable[[SolveLimits], Result], limits: SolveLimits) -> Result:
    """``attempt(limits)``, solved again on :func:`longer` limits while the limit ends it
    without a roster (the last attempt's answer, with or without one)."""
    result = attempt(limits)
    while ended_without_roster(result):
        grown = longer(limits)
        if grown is None:
            return result
        limits = grown
        result = attempt(limits)
    return result


def notebook_solve(
    problem: Problem,
    seconds: float,
    work_limit: float = 0.0,
    base: SolveLimits | None = None,
    started: float | None = None,
) -> SolveOutcome:
    """A notebook's solve of ``problem`` (:func:`notebook_limits`), solved again until a
    first roster exists; ``started``: when it was asked for (``time.perf_counter()``), so
    the times shown count every attempt."""
    return until_first_roster(
        lambda limits: solve_problem(problem, limits, started),
        notebook_limits(seconds, work_limit, base),
    )


def tried_seconds(outcome: SolveOutcome, asked: float) -> float:
    """The time limit that words about a solve name: the last attempt's, once
    :func:`until_first_roster` extended the one ``asked`` for."""
    return max(asked, outcome.solver.time_limit_seconds or 0.0)
