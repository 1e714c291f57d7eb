"""Baselines the benchmark report measures the engine against, as ratios in one run.

Two baselines, both priced by the same rules and objective as the engine, so their
objectives compare one to one and their rosters pass the same audit:

- :func:`solve_plain`: CP-SAT on the formulation a newcomer would write,
  ``build(problem, prune=False)``. What it keeps and drops of the engine's tricks:

  - *Pruning by absence* (dropped): the engine creates ``x[e, d, s]`` only for the
    shifts an employee may work on a day and ``y[e, d, s, k]`` only for the duties they
    may hold there. The plain model has the full tensor, every employee x day x shift and
    every duty on every shift, and posts each forbidden option as ``var == 0``
    (assignability, weekdays, holidays, the shift of a fixed day, skill level 0, duties
    absent from a shift, and any rule an importer folds into the options).
  - *Rows that cannot bind are skipped* (dropped in effect): families leave out windows
    with an unworkable date, weeks whose hours cannot exceed the limit, excess and cap
    rows a pool too small cannot break, transition pairs that cannot occur. These tests
    count variables, so over the full tensor almost none of them fire any more.
  - *Greedy warm-start hint* (dropped): the plain solve starts from nothing.
  - *Redundant rows* (dropped): the engine posts rows that only tighten the LP
    relaxation (``ImpliedRow``: every run of a shift that should come in blocks ends
    within the cap on consecutive days); the plain model is built with
    ``implied_rows=False``. The channel ``works == sum of shift literals`` and the
    aggregated fairness total are part of the formulation itself and are kept. The
    engine posts no symmetry breaking.
  - *Hard-group literals* (kept): hard rules sit under enforcement literals fixed to
    true, exactly as in the engine; presolve removes them at once.
  - *Wall-clock budget, watchdog and exact pricing* (kept): both go through
    :func:`shiftsched.solving.solve.run`, so the time limit covers build, search and extraction
    alike, and every roster is priced from its decisions (shiftsched.solving.model.tight).
    These are part of how a result is measured and reported, not of the search.
  - *Neighbourhood search* (dropped): from two workers on, the engine runs a portfolio
    (``shiftsched.solving.search``: CP-SAT on the full model beside a large neighbourhood search,
    with CP-SAT's stronger LP on a lone full-model worker). The plain solve gives every
    worker to CP-SAT on the full model.
  - Solver parameters: otherwise both set workers, seed, time limit and the symmetry
    level (``shiftsched.solving.solve``), nothing else.

- :func:`greedy_outcome`: the greedy constructor alone (the engine's hint), priced by
  the independent auditor: how much the search adds over its own starting point.

:func:`model_stats` counts variables and constraints of each formulation before presolve.
"""

from __future__ import annotations

import time
from dataclasses import replace

from shiftsched.checking.audit import audit
from shiftsched.contract.v1 import SolveRequest, SolverInfo
from shiftsched.solving.greedy import greedy_roster, roster_assignments
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import ORTOOLS_VERSION, ProgressPoint, SolveLimits, SolveOutcome, run

GREEDY_STATUS = "GREEDY"  # cp_sat_status of a greedy outcome: CP-SAT never ran


def compile_request(request: SolveRequest, *, prune: bool) -> CompiledModel:
    """The model CP-SAT receives (hard groups enforced, as shiftsched.solving.solve does), unhinted.

    ``prune=False`` is the plain formulation, without the engine's redundant rows too.
    """
    compiled = build(from_request(request), prune=prune, implied_rows=prune)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    return compiled


def solve_plain(request: SolveRequest, limits: SolveLimits) -> SolveOutcome:
    """Solve the plain full-tensor formulation: no pruning, no hint, CP-SAT alone.

    ``limits`` mean what they mean for the engine: the time limit is a wall-clock budget
    for the whole call (None: the request's own timeout, as shiftsched.solving.solve.solve reads
    it). ``warm_start`` is ignored and recorded as False; ``neighbourhood_search`` is ignored
    too: every worker is a CP-SAT worker on the full model.
    """
    started = time.perf_counter()
    if limits.time_limit_seconds is None:
        limits = replace(limits, time_limit_seconds=float(request.options.solver_timeout_seconds))
    limits = replace(limits, warm_start=False, neighbourhood_search=False)
    return run(compile_request(request, prune=False), limits, started)


def greedy_outcome(request: SolveRequest) -> SolveOutcome:
    """The greedy roster alone, priced by the auditor.

    Status ``feasible`` when the audit finds no broken hard rule; otherwise
    ``infeasible``, with the number of broken rules in the message (the greedy keeps only
    the rules it can check looking backwards). The objective, violations and shortages
    are the audit's either way. The single progress point is taken when the roster is
    built; ``runtime_seconds`` includes pricing it. The bound is the trivial 0 (no
    penalty is negative) in the progress point and unknown (None) in the outcome.
    """
    started = time.perf_counter()
    problem = from_request(request)
    assignments = roster_assignments(problem, greedy_roster(problem))
    built = time.perf_counter() - started
    report = audit(request, assignments)
    runtime = time.perf_counter() - started
    broken = len(report.hard_violations)
    return SolveOutcome(
        status="feasible" if broken == 0 else "infeasible",
        cp_sat_status=GREEDY_STATUS,
        runtime_seconds=runtime,
        solver=SolverInfo(
            ortools_version=ORTOOLS_VERSION,
            num_workers=1,
            random_seed=0,
            time_limit_seconds=0.0,
            warm_start=False,
            cp_sat_status=GREEDY_STATUS,
            time_to_first_solution_seconds=built,
            solutions_found=1,
        ),
        assignments=assignments,
        shortages=report.shortages,
        violations=report.soft_constraint_violations,
        objective_value=report.objective_value,
        best_bound=None,
        message=None if broken == 0 else f"the greedy roster breaks {broken} hard rule(s)",
        progress=[ProgressPoint(built, report.objective_value, 0.0)],
    )


def model_stats(request: SolveRequest, *, prune: bool) -> dict[str, int]:
    """Size of the model handed to CP-SAT, before presolve (hints are not counted)."""
    compiled = compile_request(request, prune=prune)
    proto = compiled.model.proto
    return {
        "variables": len(proto.variables),
        "constraints": len(proto.constraints),
        "decisions": len(compiled.x) + len(compiled.y),
    }
