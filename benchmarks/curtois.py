"""The Curtois & Qu benchmark: solve one instance, or report on several.

``python -m benchmarks curtois N [--time-limit S] [--workers W] [--out FILE]`` writes
``{"instance", "objective", "roster"}`` as JSON (stdout without ``--out``).
``python -m benchmarks curtois-report [--instances 1-12] ...`` solves each instance,
checks each roster with the independent checker, writes a CSV (one row per instance)
and prints it as a markdown table. A bound is a proof, so the report exits 1 when any
instance's bound exceeds its best-known value (``bound_valid`` false): that is a bug.
Best-known values are those of the benchmark's published comparison
(datasets/curtois-qu/README.md). ``--param KEY=VALUE`` (repeatable, both commands)
sets a CP-SAT parameter for the runs (``SolveLimits.parameters``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from shiftsched.formats.curtois import Instance, load, to_problem, to_roster
from shiftsched.formats.curtois_check import CheckReport, check
from shiftsched.solving.solve import (
    ORTOOLS_VERSION,
    ProgressPoint,
    SolveLimits,
    SolveOutcome,
    solve_problem,
)

# The benchmark's published best-known objectives (datasets/curtois-qu/README.md, sources).
BEST_KNOWN = {
    1: 607, 2: 828, 3: 1001, 4: 1716, 5: 1143, 6: 1950,
    7: 1056, 8: 1300, 9: 439, 10: 4631, 11: 3443, 12: 4040,
    13: 1348, 14: 1278, 15: 3828, 16: 3225, 17: 5746, 18: 4459,
    19: 3149, 20: 4769, 21: 21133, 22: 30241, 23: 17285, 24: 40439,
}  # fmt: skip
RESULTS_DIR = Path(__file__).resolve().parent / "results"
WITHIN = 0.01  # "reached" means within 1 % of the best-known objective


@dataclass(frozen=True)
class Solved:
    number: int
    instance: Instance
    outcome: SolveOutcome
    roster: dict[str, list[str]]
    report: CheckReport
    workers: int


def solve_instance(
    number: int, time_limit: float, workers: int, parameters: Mapping[str, object] | None = None
) -> Solved:
    """Solve instance ``number`` through the engine's solve path and check the roster.

    ``parameters``: further CP-SAT parameters by name (``SolveLimits.parameters``).
    """
    instance = load(number)
    problem = to_problem(instance)
    limits = SolveLimits(
        time_limit_seconds=time_limit, num_workers=workers, parameters=dict(parameters or {})
    )
    outcome = solve_problem(problem, limits)
    roster = to_roster(problem, outcome.assignments) if outcome.has_solution else {}
    return Solved(number, instance, outcome, roster, check(instance, roster), workers)


def first_time(progress: list[ProgressPoint], at_most: float | None = None) -> float | None:
    """Seconds to the first roster (with objective ``<= at_most`` when given)."""
    for point in progress:
        if point.objective is not None and (at_most is None or point.objective <= at_most):
            return round(point.seconds, 3)
    return None


def parse_instances(spec: str) -> list[int]:
    """``"1-12"`` or ``"1,3,5-7"`` as a sorted list of instance numbers."""
    numbers: set[int] = set()
    for part in spec.split(","):
        low, _, high = part.strip().partition("-")
        numbers.update(range(int(low), int(high or low) + 1))
    return sorted(numbers)


def git_revision() -> str:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent,
        )
    except (OSError, subprocess.CalledProcessError):
        return ""
    return result.stdout.strip()


def row(solved: Solved, revision: str) -> dict[str, object]:
    outcome, instance = solved.outcome, solved.instance
    best = BEST_KNOWN.get(solved.number)
    objective = outcome.objective_value
    gap = None
    if best is not None and objective is not None:
        gap = round(100.0 * (objective - best) / best, 2)
    return {
        "instance": solved.number,
        "days": instance.horizon,
        "staff": len(instance.staff),
        "shift_types": len(instance.shifts),
        "objective": objective,
        "best_known": best,
        "gap_pct": gap,
        "first_solution_s": first_time(outcome.progress),
        "within_1pct_s": (
            first_time(outcome.progress, best * (1 + WITHIN)) if best is not None else None
        ),
        "bound": outcome.best_bound,
        "bound_pct": (
            round(100.0 * outcome.best_bound / best, 1)
            if best and outcome.best_bound is not None
            else None
        ),
        "bound_source": outcome.solver.bound_source,
        "bound_valid": bound_valid(outcome.best_bound, best),
        "status": outcome.status,
        "runtime_s": round(outcome.runtime_seconds, 2),
        "hard_violations": len(solved.report.violations) if outcome.has_solution else None,
        "objective_agrees": (
            solved.report.objective == objective if outcome.has_solution else None
        ),
        "ortools": ORTOOLS_VERSION,
        "workers": solved.workers,
        "git": revision,
    }


def bound_valid(bound: float | None, best: int | None) -> bool | None:
    """Whether a proven bound stays at or below the best-known objective (None: unknown)."""
    if bound is None or best is None:
        return None
    return bound <= best + 1e-6


def markdown(frame: pl.DataFrame) -> str:
    columns = frame.columns
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for values in frame.iter_rows():
        lines.append("| " + " | ".join("" if v is None else str(v) for v in values) + " |")
    return "\n".join(lines)


def _solve_command(args: argparse.Namespace) -> int:
    solved = solve_instance(args.instance, args.time_limit, args.workers, _params(args.param))
    if not solved.outcome.has_solution:
        print(f"instance {args.instance}: {solved.outcome.status}", file=sys.stderr)
        return 1
    document = {
        "instance": args.instance,
        "objective": round(solved.outcome.objective_value or 0),  # integral weights
        "roster": solved.roster,
    }
    text = json.dumps(document)
    if args.out is None:
        print(text)
    else:
        Path(args.out).write_text(text + "\n")
    return 0


def _report_command(args: argparse.Namespace) -> int:
    numbers = parse_instances(args.instances)
    revision = git_revision()
    rows = []
    for number in numbers:
        solved = solve_instance(number, args.time_limit, args.workers, _params(args.param))
        rows.append(row(solved, revision))
        print(f"instance {number}: {rows[-1]['objective']} ({rows[-1]['status']})", file=sys.stderr)
    frame = pl.DataFrame(rows)
    out = Path(args.out) if args.out else RESULTS_DIR / f"curtois-{args.instances}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.write_csv(out)
    print(markdown(frame))
    print(f"\nwritten to {out}", file=sys.stderr)
    broken = [r["instance"] for r in rows if r["bound_valid"] is False]
    if broken:
        print(f"a bound exceeds the best-known value on instance(s) {broken}", file=sys.stderr)
        return 1
    return 0


def _params(items: list[str]) -> dict[str, object]:
    """``--param key=value`` options as CP-SAT parameters (values converted by the engine)."""
    parameters: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"--param expects key=value, got {item!r}")
        parameters[key.strip()] = value.strip()
    return parameters


def _parser() -> argparse.ArgumentParser:
    shared = argparse.ArgumentParser(add_help=False)  # the options both commands take
    shared.add_argument("--time-limit", type=float, default=60.0, help="seconds per instance")
    shared.add_argument("--workers", type=int, default=2, help="CP-SAT workers")
    shared.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a CP-SAT parameter (repeatable)",
    )
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser(
        "curtois", parents=[shared], help="solve one instance, print its roster as JSON"
    )
    one.add_argument("instance", type=int, help="instance number, 1-24")
    one.add_argument("--out", default=None, help="write the roster JSON here (default: stdout)")
    one.set_defaults(run=_solve_command)
    many = commands.add_parser(
        "curtois-report", parents=[shared], help="solve and check several instances"
    )
    many.add_argument(
        "--instances", default="1-12", help="numbers and ranges, e.g. 1-12 or 13,15,21-24"
    )
    many.add_argument("--out", default=None, help="write the CSV here (default: stdout only)")
    many.set_defaults(run=_report_command)
    return parser


def main(argv: list[str]) -> int:
    """Entry point: ``argv`` starts with the subcommand (``curtois`` or ``curtois-report``)."""
    args = _parser().parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
