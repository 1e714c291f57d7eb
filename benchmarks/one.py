"""One (instance, method) run, measured inside its own process.

The runner starts ``python -m benchmarks _one`` once per run, so the peak memory
(``ru_maxrss`` of this process) belongs to that run alone and one run's garbage or
crash cannot touch the next. The child writes one JSON file: the run's record (a row of
the results frame) and its progress trace.

Clocks. Every time is wall-clock seconds from the moment the method is called with a
parsed request:

- ``setup_seconds``: until CP-SAT starts searching (model build, hard groups, the greedy
  hint). Measured by wrapping :func:`shiftsched.solving.solve._solve_with_watchdog`, the one place
  both the engine and the plain baseline enter the search; 0 for greedy.
- ``first_feasible_seconds`` / ``best_seconds``: the time of the first and of the last
  roster in the progress trace (``shiftsched.solving.solve.ProgressPoint``, whose clock runs from
  the start of the call, model build and greedy pass included); for greedy, the time its
  roster was built.
- ``build_seconds``: a separate, untimed-by-the-solve build of the same formulation
  (``benchmarks.baselines.model_stats``), which also counts variables and constraints.

Progress objectives are CP-SAT's own values, slack included; the final ``objective`` is
the roster priced with every slack tight, so the last trace point can sit above it.

Method ``timefold`` is measured by :mod:`benchmarks.timefold_model.measure` on its own
model, with its own clocks (the JVM started first, and not counted).
"""

from __future__ import annotations

import argparse
import importlib
import json
import resource
import time
import traceback
from pathlib import Path
from typing import Any

from benchmarks.suite import Instance
from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.size import request_size, schedule_days
from shiftsched.contract.v1 import SolveRequest
from shiftsched.solving.cores import available_cores
from shiftsched.solving.solve import SolveLimits, SolveOutcome, to_response

VERDICT_RANK = {"clean": 0, "no_roster": 1, "metrics_mismatch": 2, "hard_violations": 3}


class _SearchClock:
    """Notes when the search starts, by wrapping the engine's solve entry point."""

    def __init__(self) -> None:
        self.called = time.perf_counter()
        self.search_started: float | None = None

    def install(self) -> None:
        # The module itself: as an attribute of the package, shiftsched.solving.solve is the
        # function.
        solve_module: Any = importlib.import_module("shiftsched.solving.solve")
        original = getattr(solve_module, "_solve_with_watchdog", None)
        if original is None:  # the engine changed: setup stays unknown
            return

        def timed(*args: Any, **kwargs: Any) -> Any:
            if self.search_started is None:
                self.search_started = time.perf_counter()
            return original(*args, **kwargs)

        solve_module._solve_with_watchdog = timed

    def setup(self) -> float:
        if self.search_started is None:
            return 0.0
        return self.search_started - self.called


def _stats(request: SolveRequest, method: str) -> tuple[dict[str, int], float]:
    """Variables and constraints of the method's formulation, and how long it took to build."""
    from benchmarks.baselines import model_stats

    started = time.perf_counter()
    stats = model_stats(request, prune=method != "plain")
    return stats, time.perf_counter() - started


def _solve(request: SolveRequest, method: str, limits: SolveLimits) -> SolveOutcome:
    from shiftsched.solving.problem import from_request
    from shiftsched.solving.solve import solve_problem

    if method == "engine":
        return solve_problem(from_request(request), limits)
    from benchmarks import baselines

    if method == "plain":
        return baselines.solve_plain(request, limits)
    if method == "greedy":
        return baselines.greedy_outcome(request)
    raise ValueError(f"unknown method {method!r}")


def _verdict(request: SolveRequest, outcome: SolveOutcome) -> dict[str, Any]:
    """The independent audit of the roster, and whether it agrees with what was reported."""
    if not outcome.assignments and not outcome.has_solution:
        return {"audit": "no_roster", "hard_violations": None, "audit_differences": None}
    report = audit(request, outcome.assignments)
    response = to_response(outcome, "benchmark")
    differences = (
        compare_with_metrics(report, response.solution.metrics, outcome.shortages)
        if response.solution is not None
        else []
    )
    if outcome.objective_value is not None and abs(
        report.objective_value - outcome.objective_value
    ) > 1e-6 * max(1.0, abs(report.objective_value)):
        differences = [*differences, "objective"]
    hard = len(report.hard_violations)
    verdict = "hard_violations" if hard else ("metrics_mismatch" if differences else "clean")
    return {"audit": verdict, "hard_violations": hard, "audit_differences": len(differences)}


def run_one(instance: Instance, method: str, time_limit: float, workers: int) -> dict[str, Any]:
    """Solve one instance with one method; returns ``{"run": record, "progress": points}``."""
    request = instance.request()
    record: dict[str, Any] = {
        "instance": instance.name,
        "method": method,
        "mix": instance.mix,
        "source": instance.source_text,
        "size": request_size(request),
        "employees": len(request.employees),
        "shifts": len(request.shifts),
        "duties": len(request.duties),
        "days": schedule_days(request.schedule_period),
        "time_limit": time_limit,
        "workers": 1 if method == "greedy" else workers,
        "cores": available_cores(),
    }
    if method == "timefold":  # its own model, priced the same way (benchmarks/timefold_model)
        from benchmarks.timefold_model.measure import measured
        from benchmarks.timefold_model.outcome import Limit

        fields, progress = measured(request, Limit(seconds=time_limit))
        return {"run": {**record, **fields}, "progress": progress}
    if method != "greedy":  # greedy builds no model
        stats, build_seconds = _stats(request, method)
        record.update(
            variables=stats["variables"],
            constraints=stats["constraints"],
            build_seconds=build_seconds,
        )
    limits = SolveLimits(
        time_limit_seconds=time_limit, num_workers=workers, diagnosis_budget_seconds=0
    )
    clock = _SearchClock()
    clock.install()
    clock.called = time.perf_counter()
    outcome = _solve(request, method, limits)
    wall = time.perf_counter() - clock.called
    setup = clock.setup()
    found = [p for p in outcome.progress if p.objective is not None]
    record.update(
        setup_seconds=setup,
        first_feasible_seconds=found[0].seconds if found else None,
        best_seconds=found[-1].seconds if found else None,
        wall_seconds=wall,
        objective=outcome.objective_value,
        bound=outcome.best_bound,
        gap=outcome.gap,
        status=outcome.status,
        cp_sat_status=outcome.cp_sat_status,
        solutions=outcome.solver.solutions_found,
        shortage_heads=sum(s.missing for s in outcome.shortages),
        **_verdict(request, outcome),
    )
    progress = []
    for point in outcome.progress:
        if point.objective is not None:
            progress.append(
                {"seconds": point.seconds, "series": "objective", "value": point.objective}
            )
        if method != "greedy":
            progress.append({"seconds": point.seconds, "series": "bound", "value": point.bound})
    return {"run": record, "progress": progress}


def failed_run(
    instance: Instance, method: str, time_limit: float, workers: int, error: str
) -> dict[str, Any]:
    """The record of a run whose process crashed or overran: status ``error``."""
    return {
        "run": {
            "instance": instance.name,
            "method": method,
            "mix": instance.mix,
            "source": instance.source_text,
            "time_limit": time_limit,
            "workers": workers,
            "cores": available_cores(),
            "status": "error",
            "audit": "no_roster",
            "error": error[-500:],
        },
        "progress": [],
    }


def main(argv: list[str]) -> int:
    """``_one --instance JSON --method M --time-limit S --workers W --out FILE``."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks _one")
    parser.add_argument("--instance", required=True, help="the suite entry as JSON")
    parser.add_argument("--method", required=True)
    parser.add_argument("--time-limit", type=float, required=True)
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    instance = Instance.from_json(json.loads(args.instance))
    try:
        result = run_one(instance, args.method, args.time_limit, args.workers)
    except Exception:  # a crash is a result too: record it, do not lose the suite
        result = failed_run(
            instance, args.method, args.time_limit, args.workers, traceback.format_exc()
        )
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    result["run"]["peak_memory_mb"] = peak_kb / 1024
    args.out.write_text(json.dumps(result), encoding="utf-8")
    return 0
