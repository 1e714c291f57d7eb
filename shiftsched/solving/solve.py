"""Solve a problem with CP-SAT and read the roster and its explanation back.

The pipeline is ``from_request -> build -> enforce hard groups -> search -> extract``; the
search is CP-SAT alone with one worker, and from two workers on the portfolio of
:mod:`shiftsched.solving.search` (CP-SAT on the full model beside a neighbourhood search). The best
bound is always CP-SAT's proof on the full model, never an estimate.
Every CP-SAT status maps to an outcome (an unknown one fails loudly); MODEL_INVALID
carries ``Validate()``'s text in the outcome and the log, never in the v1 response: that
text names model internals (variables, "possible integer overflow"), which mean nothing
to a caller, so the response says only that the model could not be built. The worker
count is always set explicitly, and the OR-Tools version, parameters and seed are
recorded with each result.

A time-limited (FEASIBLE) answer may carry slack variables that are not yet tight,
which would overstate a penalty or report a shortage that does not exist. Every roster,
optimal or not, is therefore priced from its decisions alone (shiftsched.solving.model.tight): each
penalty, shortage marker and the objective are exact, with no further solve that could
run out of time.

A caller may stop a solve early from another thread (``SolveLimits.stop``, e.g. a queued
job whose client asked to stop it): the answer is then the best roster found so far, a
normal ``feasible`` (or ``optimal``) result priced like any time-limited one, or, when
there is none, the outcome ``cancelled`` (error code ``cancelled``). A stop that arrives
before the search starts (during the build or the hint's completion) always gives
``cancelled``, even when the completed hint is a roster: a client sees a roster only once
the search has recorded it, so a stop before that point never yields (or bills) one. The
build itself is not interruptible; the stop is seen as soon as it ends. A proven
infeasibility is not diagnosed once a stop was asked for (the diagnosis is a search of
its own, which the caller no longer waits for).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from importlib.metadata import version as package_version

from ortools.sat.python import cp_model

from shiftsched.contract.v1 import (
    ErrorInfo,
    Metrics,
    Solution,
    SolveRequest,
    SolveResponse,
    SolverInfo,
)
from shiftsched.solving import suite_guard
from shiftsched.solving.cores import available_cores
from shiftsched.solving.diagnose import DEFAULT_BUDGET_SECONDS, DiagnosisLimits, diagnose
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.greedy_views import Roster
from shiftsched.solving.hint import Completion, add_roster_hint, complete_hint
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.outcome import SolveOutcome, cancelled, solved
from shiftsched.solving.problem import Problem, from_request
from shiftsched.solving.search.deterministic import deterministic_search
from shiftsched.solving.search.plan import Plan, plan_for
from shiftsched.solving.search.portfolio import search
from shiftsched.solving.search.progress import Progress, ProgressPoint
from shiftsched.solving.search.stopping import requested, stopping

__all__ = ["ProgressPoint", "SolveLimits", "SolveOutcome", "run", "solve", "solve_problem"]


# The time limit is a wall-clock budget for the whole call: build, search and
# extraction. The search gets what the build left, minus a reserve for the rest.
HINT_COMPLETION_LIMIT_SECONDS = 60.0  # without a time limit
HINT_COMPLETION_SHARE = 0.25  # of what the budget has left
EXTRACTION_RESERVE_SECONDS = 1.5
# Pricing a roster reads every variable: 4.0 us each on Curtois & Qu 24 (4.5 s for 1.1
# million variables, 0.44 s for 113,000); the reserve allows 6 us.
EXTRACTION_SECONDS_PER_VARIABLE = 6e-6
EXTRACTION_RESERVE_SHARE = 0.1
MIN_SEARCH_SECONDS = 0.2
DETERMINISTIC_DEFAULT_SECONDS = 30.0  # the work budget of a deterministic solve without a limit
WATCHDOG_GRACE_SECONDS = 5.0  # CP-SAT can overrun its limit (e.g. in presolve)
ORTOOLS_VERSION = package_version("ortools")
MODEL_INVALID_MESSAGE = "the solver refused the model built from this request (a bug)"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SolveLimits:
    """How to run the solver. ``time_limit_seconds`` None: the request's own timeout.

    Results are reproducible with ``num_workers=1`` and a fixed ``random_seed`` when the
    solve ends before its time limit (a wall-clock limit makes any run timing-dependent).

    ``parameters`` sets further CP-SAT parameters by name (``SatParameters`` fields, e.g.
    ``{"num_violation_ls": 1}``), applied after the ones above; a string value is read as
    the field's type (``"true"``, ``"2"``), a list extends a repeated field. Empty (the
    default) leaves CP-SAT's defaults, so v1 solves are unchanged.

    With two or more workers the search is a portfolio (:mod:`shiftsched.solving.search`): CP-SAT on
    the full model beside a rostering-aware neighbourhood search, which makes results
    timing-dependent; ``neighbourhood_search=False`` gives every worker to CP-SAT.
    """

    time_limit_seconds: float | None = None  # wall clock for the whole call
    num_workers: int | None = None  # None: every available core
    random_seed: int = 0
    log_search: bool = False
    warm_start: bool = True  # hint a greedy roster (shiftsched.solving.greedy)
    diagnosis_budget_seconds: float = DEFAULT_BUDGET_SECONDS  # 0: do not diagnose
    parameters: Mapping[str, object] = field(default_factory=dict)  # extra CP-SAT ones
    neighbourhood_search: bool = (
        True  # from 2 workers on: the portfolio (shiftsched.solving.search)
    )
    # Limited by work, not by the clock: the same roster on any machine
    # (shiftsched.solving.search.deterministic); one core, whatever num_workers says.
    deterministic: bool = False
    # Sees each point of the search's trace as it happens (shiftsched.solving.search.progress).
    on_progress: Callable[[ProgressPoint], None] | None = None
    # Set from another thread to end the solve early (module docstring: the best roster
    # so far, else ``cancelled``).
    stop: threading.Event | None = field(default=None, compare=False)


def solve(
    request: SolveRequest, limits: SolveLimits | None = None, job_id: str | None = None
) -> SolveResponse:
    """Solve a validated v1 request and shape the result as a v1 SolveResponse."""
    started = time.perf_counter()  # the call's clock: the problem's conversion counts too
    limits = limits or SolveLimits()
    if limits.time_limit_seconds is None:
        limits = replace(limits, time_limit_seconds=float(request.options.solver_timeout_seconds))
    outcome = solve_problem(from_request(request), limits, started)
    response = to_response(outcome, job_id or uuid.uuid4().hex)
    diagnosing = limits.diagnosis_budget_seconds > 0 and not requested(limits.stop)
    if outcome.status == "infeasible" and diagnosing and response.error:
        diagnosis = diagnose(
            request,
            DiagnosisLimits(
                limits.diagnosis_budget_seconds, limits.num_workers or available_cores()
            ),
        )
        response = response.model_copy(
            update={"error": response.error.model_copy(update={"diagnosis": diagnosis})}
        )
    return response


def to_response(outcome: SolveOutcome, job_id: str) -> SolveResponse:
    if outcome.has_solution:
        metrics = Metrics(
            solver_runtime_seconds=outcome.runtime_seconds,
            objective_value=outcome.objective_value,
            soft_constraint_violations=outcome.violations,
            status=outcome.status,
            best_bound=outcome.best_bound,
            gap=outcome.gap,
            solver=outcome.solver,
        )
        solution = Solution(
            assignments=outcome.assignments, metrics=metrics, shortages=outcome.shortages
        )
        return SolveResponse(job_id=job_id, status="completed", solution=solution)
    code = {"infeasible": "no_solution", "timeout": "solver_timeout"}.get(
        outcome.status, outcome.status
    )
    message = outcome.message
    if outcome.status == "model_invalid":
        log.error("CP-SAT refused the model: %s", message)
        message = MODEL_INVALID_MESSAGE
    error = ErrorInfo(code=code, message=message, solver_status=outcome.cp_sat_status)
    return SolveResponse(job_id=job_id, status="failed", solution=None, error=error)


def solve_problem(
    problem: Problem,
    limits: SolveLimits,
    started: float | None = None,
    hint: Roster | None = None,
) -> SolveOutcome:
    """Build, solve and extract; the engine-level entry point for any problem source.

    Every time it reports (the first roster, the trace, the runtime) counts from
    ``started`` (a ``time.perf_counter()`` reading; by default this call's start), so a
    caller that did work of its own before, such as reading the request, counts that too:
    the figures are what the person who asked waited, the model build included.
    ``hint``: the roster to start from instead of the greedy one (a caller that already
    has a good roster, such as a horizon planned period by period, solved whole after).
    """
    started = time.perf_counter() if started is None else started
    compiled = build(problem)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    start = None
    if limits.warm_start and not requested(limits.stop):
        add_roster_hint(compiled, greedy_roster(problem) if hint is None else hint)
        start = complete_hint(compiled, completion_seconds(limits, started), limits.stop)
    return run(compiled, limits, started, start=start)


def _search_seconds(limits: SolveLimits, started: float, variables: int) -> float | None:
    """The search's share of the wall-clock budget: what build left, minus the reserve
    for pricing the roster (which grows with the model's ``variables``)."""
    if limits.time_limit_seconds is None:
        return None
    budget = limits.time_limit_seconds
    pricing = max(EXTRACTION_RESERVE_SECONDS, EXTRACTION_SECONDS_PER_VARIABLE * variables)
    reserve = min(pricing, EXTRACTION_RESERVE_SHARE * budget)
    left = budget - (time.perf_counter() - started) - reserve
    return max(MIN_SEARCH_SECONDS, left)


def _parameters(
    solver: cp_model.CpSolver,
    limits: SolveLimits,
    workers: int,
    search_seconds: float | None,
    planned: Mapping[str, object] | None = None,
) -> None:
    """Set the solver's parameters; the caller's own (``limits.parameters``) come last."""
    p = solver.parameters
    p.num_workers = workers
    p.random_seed = limits.random_seed
    # Rosters are full of interchangeable employees, and CP-SAT's symmetry detection spent
    # seconds in presolve before the first roster (a 40,000-size request: 4.2 s to the
    # first roster with it, 0.6 s without); no instance measured lost its proof of
    # optimality without it (benchmarks/README.md).
    p.symmetry_level = 0
    if search_seconds is not None:
        p.max_time_in_seconds = search_seconds
    for name, value in {**(planned or {}), **limits.parameters}.items():
        set_parameter(solver, name, value)
    if limits.log_search:  # the log goes to stderr: stdout carries the JSON result
        p.log_search_progress = True
        p.log_to_stdout = False
        solver.log_callback = lambda line: print(line, file=sys.stderr)


def set_parameter(solver: cp_model.CpSolver, name: str, value: object) -> None:
    """Set one CP-SAT parameter by name; a string is converted to the field's type."""
    p = solver.parameters
    if not hasattr(p, name):
        raise ValueError(f"unknown CP-SAT parameter {name!r}")
    current = getattr(p, name)
    if isinstance(value, str) and not isinstance(current, str):
        if isinstance(current, bool):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"CP-SAT parameter {name!r} is a bool, not {value!r}")
            value = value.lower() in ("true", "1")
        elif isinstance(current, int):
            value = int(value)
        elif isinstance(current, float):
            value = float(value)
        elif hasattr(type(current), "__members__"):  # an enum, by member name
            value = type(current).__members__[value]
        else:  # a repeated field: comma-separated items
            value = [item for item in value.split(",") if item]
    if isinstance(value, list | tuple):
        getattr(p, name).extend(value)
    else:
        setattr(p, name, value)


def run(
    compiled: CompiledModel,
    limits: SolveLimits,
    started: float | None = None,
    *,
    start: Completion | None = None,
) -> SolveOutcome:
    """Solve a compiled model and extract the roster (hard groups as the caller left them).

    ``start``: the model carries this complete, feasible hint (see :func:`complete_hint`).
    It decides how the portfolio splits its workers (``shiftsched.solving.search.plan_for``), and
    the neighbourhood search starts from it at once: on a large model CP-SAT takes far longer
    to load and restate it (Curtois & Qu 24: 61 s) than the search needs to improve it.
    """
    started = time.perf_counter() if started is None else started
    workers = 1 if limits.deterministic else limits.num_workers or available_cores()
    asked = 1 if limits.deterministic else limits.num_workers
    suite_guard.check_workers(asked, workers)  # inert outside the test suite
    variables = len(compiled.model.proto.variables)
    plan = _plan(limits, workers, variables, hinted=start is not None)
    solver = cp_model.CpSolver()
    search_seconds = _search_seconds(limits, started, variables)
    _parameters(solver, limits, plan.full_workers, search_seconds, plan.full_parameters)
    progress = Progress(limits.on_progress, started)
    solver.best_bound_callback = progress.on_bound
    info = partial(_solver_info, limits, workers, progress)
    invalid = compiled.model.validate()
    if invalid:
        return SolveOutcome(
            "model_invalid",
            "MODEL_INVALID",
            time.perf_counter() - started,
            info("MODEL_INVALID"),
            message=invalid,
        )
    if requested(limits.stop):
        return cancelled(time.perf_counter() - started, info("UNKNOWN"))
    first = None if start is None else (start.values, start.objective)
    if limits.deterministic:
        budget = limits.time_limit_seconds or DETERMINISTIC_DEFAULT_SECONDS
        result = deterministic_search(
            compiled,
            solver,
            progress,
            budget,
            limits.random_seed,
            lambda: _solve_with_watchdog(solver, compiled.model, progress, None, stop=limits.stop),
            first,
        )
    else:
        result = search(
            compiled,
            solver,
            plan,
            progress,
            search_seconds,
            limits.random_seed,
            lambda: _solve_with_watchdog(
                solver, compiled.model, progress, search_seconds, stop=limits.stop
            ),
            start=first,
        )
    if progress.error is not None:
        raise progress.error
    elapsed = time.perf_counter() - started
    if result.solution is not None:
        return solved(compiled, result, progress, info, started)
    return _unsolved(
        compiled, limits, result.status, solver.status_name(result.status), elapsed, info
    )


def _plan(limits: SolveLimits, workers: int, variables: int, *, hinted: bool) -> Plan:
    """The portfolio's split of the workers, or all of them on CP-SAT when the caller
    turned the neighbourhood search off."""
    if limits.deterministic:
        return Plan(full_workers=1, neighbourhood_threads=0)
    if not limits.neighbourhood_search:
        return Plan(full_workers=workers, neighbourhood_threads=0)
    return plan_for(workers, variables, hinted)


def _solver_info(
    limits: SolveLimits, workers: int, progress: Progress, status_name: str
) -> SolverInfo:
    """What the response records about the solver; read from ``progress`` when called,
    so it holds the search's figures as they stand at the end."""
    return SolverInfo(
        ortools_version=ORTOOLS_VERSION,
        num_workers=workers,
        random_seed=limits.random_seed,
        time_limit_seconds=limits.time_limit_seconds or 0.0,
        warm_start=limits.warm_start,
        cp_sat_status=status_name,
        time_to_first_solution_seconds=progress.first_solution_seconds,
        stopped_on_request=True if requested(limits.stop) else None,
        solutions_found=progress.solutions,
        bound_source=progress.bound_source,
        deterministic=True if limits.deterministic else None,
    )


def _unsolved(
    compiled: CompiledModel,
    limits: SolveLimits,
    status: cp_model.CpSolverStatus,
    name: str,
    elapsed: float,
    info: Callable[[str], SolverInfo],
) -> SolveOutcome:
    """The outcome of a search that recorded no roster, by CP-SAT's status (an unknown
    status fails loudly rather than pass for one of these)."""
    if status == cp_model.UNKNOWN and requested(limits.stop):
        return cancelled(elapsed, info(name))
    if status == cp_model.INFEASIBLE:
        return SolveOutcome(
            "infeasible",
            name,
            elapsed,
            info(name),
            message="the hard rules admit no roster",
        )
    if status == cp_model.MODEL_INVALID:
        return SolveOutcome(
            "model_invalid",
            name,
            elapsed,
            info(name),
            message=compiled.model.validate() or "CP-SAT reported MODEL_INVALID",
        )
    if status == cp_model.UNKNOWN:
        return SolveOutcome(
            "timeout",
            name,
            elapsed,
            info(name),
            message=f"no roster found within {limits.time_limit_seconds} s",
        )
    raise RuntimeError(f"unexpected CP-SAT status {status} ({name})")


def _solve_with_watchdog(
    solver: cp_model.CpSolver,
    model: cp_model.CpModel,
    progress: Progress,
    time_limit: float | None,
    *,
    stop: threading.Event | None = None,
) -> cp_model.CpSolverStatus:
    """Solve, and stop the search from outside if CP-SAT overruns its own time limit or
    the caller sets ``stop``."""
    progress.start()
    with stopping(stop, solver.stop_search):
        if time_limit is None:
            return solver.solve(model, progress)
        watchdog = threading.Timer(time_limit + WATCHDOG_GRACE_SECONDS, solver.stop_search)
        watchdog.daemon = True
        watchdog.start()
        try:
            return solver.solve(model, progress)
        finally:
            watchdog.cancel()


def completion_seconds(limits: SolveLimits, started: float) -> float:
    """At most a quarter of what the budget has left.

    The completion is a trivial solve, but loading a large model is not: Curtois & Qu
    24 (1.1 million variables) takes about 15 s. A completion cut off leaves CP-SAT to
    find a first roster from scratch, which there took longer than 120 s; the earlier
    cap of a tenth and at most 10 s did exactly that.
    """
    if limits.time_limit_seconds is None:
        return HINT_COMPLETION_LIMIT_SECONDS
    left = limits.time_limit_seconds - (time.perf_counter() - started)
    return max(MIN_SEARCH_SECONDS, HINT_COMPLETION_SHARE * left)
