"""``python -m benchmarks timefold REQUEST.json``: Timefold Solver on one v1 request.

Solves the request with the Timefold model (benchmarks/docs/timefold.md, "Side by side
with Timefold Solver") and prints a v1 SolveResponse on stdout: the roster's assignments,
and metrics that are the audit's (``shiftsched.checking.audit``), with the time to the first roster
in ``metrics.solver.time_to_first_solution_seconds``. stderr gets Timefold's score set
beside the audit's, constraint by constraint.

Exit codes: 0 for a roster that keeps every hard rule and whose score agrees with the
audit; 1 for a roster that breaks a hard rule, or whose score disagrees; 2 for input the
model cannot take: an invalid request (every fault with its JSON path), a request with a
family the model lacks (each named), or no Timefold installed or no JVM to run it on
(``make bench-timefold`` installs it).

``--time-limit`` counts the whole call, the model's setup included, as the engine's time
limit does (the request's ``options.solver_timeout_seconds`` when left out); the JVM's
start is not counted. ``--calculations N`` stops after N score calculations instead:
the same roster on any machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TextIO

from benchmarks.command_help import docstring_help
from benchmarks.timefold_model.outcome import Limit
from benchmarks.timefold_model.pricing import Priced, price
from benchmarks.timefold_model.support import UnsupportedFamily
from benchmarks.timefold_model.translate import translate
from shiftsched.contract.parse import load_json, parse_request
from shiftsched.contract.v1 import SolveRequest
from shiftsched.errors import InvalidRequest

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
INSTALL_HINT = (
    "Timefold Solver is not installed: `make bench-timefold` installs it "
    "(or pip install -r requirements-timefold.lock; it needs a Java 17 runtime)"
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks timefold", **docstring_help(__doc__)
    )
    parser.add_argument("request", help="a v1 request (JSON file, or - for stdin)")
    stop = parser.add_mutually_exclusive_group()
    stop.add_argument("--time-limit", type=float, metavar="S", help="seconds for the whole call")
    stop.add_argument(
        "--calculations", type=int, metavar="N", help="stop after N score calculations"
    )
    parser.add_argument("--quiet", action="store_true", help="no summary on stderr")
    return parser


def _request(path: str) -> SolveRequest:
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    return parse_request(load_json(text, path))


def _limit(args: argparse.Namespace, request: SolveRequest) -> Limit:
    if args.calculations is not None:
        return Limit(calculations=args.calculations)
    seconds = args.time_limit or float(request.options.solver_timeout_seconds)
    return Limit(seconds=seconds)


def summary(priced: Priced, score: str, jvm_seconds: float) -> str:
    """Timefold's score beside the audit: the verdict and each soft constraint."""
    report, agreement = priced.report, priced.agreement
    lines = [
        f"Timefold score {score}; audit: {len(report.hard_violations)} hard violations, "
        f"objective {report.objective_value:g} (JVM start {jvm_seconds:.1f} s, not counted)",
    ]
    for term in agreement.terms:
        if term.timefold or term.audit:
            mark = "" if term.agrees or not agreement.soft_compared else "  <- differs"
            lines.append(
                f"  {term.name:<28} timefold {term.timefold:>10}  audit {term.audit:>10g}{mark}"
            )
    for violation in report.hard_violations[:10]:
        lines.append(f"  hard: {violation.code}: {violation.message}")
    if not agreement.soft_compared:
        lines.append("  (soft terms not compared: the roster has someone twice on a date)")
    verdict = "agrees with" if agreement.agrees else "differs from"
    lines.append(f"Timefold's score {verdict} the audit")
    return "\n".join(lines)


def _refused(err: TextIO, message: str, lines: list[str]) -> int:
    err.write(message + "\n")
    for line in lines:
        err.write(f"  {line}\n")
    return EXIT_INVALID


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        request = _request(args.request)
        model = translate(request)
    except InvalidRequest as exc:
        return _refused(err, "bad input:", [str(e) for e in exc.errors])
    except UnsupportedFamily as exc:
        listed = [f"{u.family} (at {u.field})" for u in exc.found]
        return _refused(err, "the Timefold model lacks these families of the request:", listed)
    started = time.perf_counter()
    try:
        from benchmarks.timefold_model.run import solve
    except ImportError:
        return _refused(err, INSTALL_HINT, [])
    except Exception as exc:  # JPype found no Java runtime, or the JVM would not start
        return _refused(err, f"Timefold's JVM did not start: {exc}", [INSTALL_HINT])
    jvm_seconds = time.perf_counter() - started
    limit = _limit(args, request)
    timefold_run = solve(model, limit)
    priced = price(request, timefold_run, limit)
    out.write(
        json.dumps(priced.response.model_dump(mode="json", exclude_none=True), indent=2) + "\n"
    )
    if not args.quiet:
        err.write(summary(priced, timefold_run.score, jvm_seconds) + "\n")
    clean = priced.report.feasible and priced.agreement.agrees
    return EXIT_OK if clean else EXIT_FAILED


def main(argv: list[str]) -> int:
    return run(_parser().parse_args(argv), sys.stdout, sys.stderr)
