"""Solve every dataset once and print a table of solver figures.

The figures (time to first solution, objective, bound, gap, shortages) show whether each
dataset is still a realistic benchmark after a generator or engine change: every dataset
must yield a feasible roster, the largest one within 30 s on 2 cores.

Usage: ``python datasets/measure.py [--time-limit 30] [--workers 2] [--no-warm-start] [file ...]``
(default: every ``datasets/*.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, schedule_days
from shiftsched.solving.solve import SolveLimits, solve

HERE = Path(__file__).resolve().parent
COLUMNS = (
    "dataset",
    "E x S x D x days",
    "size",
    "first (s)",
    "objective",
    "bound",
    "gap",
    "runtime (s)",
    "status",
    "shortages",
)


def _number(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def measure(path: Path, limits: SolveLimits) -> list[str]:
    """One table row: shape, size and the solve figures of the dataset at ``path``."""
    request = parse_request(json.loads(path.read_text(encoding="utf-8")))
    shape = (
        f"{len(request.employees)} x {len(request.shifts)} x {len(request.duties)}"
        f" x {schedule_days(request.schedule_period)}"
    )
    started = time.perf_counter()
    response = solve(request, limits)
    wall = time.perf_counter() - started
    row = [path.name, shape, f"{request_size(request):,}"]
    if response.solution is None:
        status = response.error.code if response.error else response.status
        return [*row, "-", "-", "-", "-", f"{wall:.1f}", status, "-"]
    metrics = response.solution.metrics
    solver = metrics.solver
    missing = sum(s.missing for s in response.solution.shortages)
    return [
        *row,
        _number(solver.time_to_first_solution_seconds if solver else None, 2),
        _number(metrics.objective_value),
        _number(metrics.best_bound),
        "-" if metrics.gap is None else f"{100 * metrics.gap:.1f} %",
        f"{metrics.solver_runtime_seconds:.1f}",
        metrics.status or "-",
        f"{missing} in {len(response.solution.shortages)} markers",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-warm-start", action="store_true", help="do not hint the greedy starting roster"
    )
    args = parser.parse_args(argv)
    files = args.files or sorted(HERE.glob("*.json"))
    limits = SolveLimits(
        time_limit_seconds=args.time_limit,
        num_workers=args.workers,
        random_seed=args.seed,
        warm_start=not args.no_warm_start,
    )
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for path in files:
        print("| " + " | ".join(measure(path, limits)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
