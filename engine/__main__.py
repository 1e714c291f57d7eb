"""Command line: ``python -m engine validate|solve|audit``.

    python -m engine validate REQUEST.json     ValidateResponse, or the errors (exit 2)
    python -m engine solve REQUEST.json [--time-limit S] [--workers N] [--seed N]
                                               SolveResponse JSON (exit 0 completed, 1 failed)
    python -m engine audit REQUEST.json RESPONSE.json
                                               the audit (exit 0 clean, 1 violations or
                                               metrics that disagree with the audit)

The audit needs only ``solution.assignments`` (or ``{"assignments": [...]}``, or a bare
list) from RESPONSE: reported metrics and shortages are compared when they can be read,
and ``notes`` says what was left out of the comparison and why.

``-`` reads a file from standard input, so ``solve X | audit X -`` checks a roster.
Invalid input always exits 2 with every fault and its JSON path; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from engine.diagnose import DEFAULT_BUDGET_SECONDS
from engine.errors import FieldError, InvalidRequest
from engine.rules import load_json

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


def _read_json(path: str, stdin: TextIO) -> Any:
    try:
        text = stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidRequest(
            [FieldError((), f"cannot read {path}: {exc.strerror}", "unreadable_file")]
        ) from None
    return load_json(text, path)


def _print(payload: Any, out: TextIO) -> None:
    out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def _validate(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from engine.validation import validate

    response = validate(_read_json(args.request, stdin))
    _print(response.model_dump(mode="json", exclude_none=True), out)
    return EXIT_OK


def _solve(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from engine.rules import parse_request
    from engine.solve import SolveLimits, solve

    request = parse_request(_read_json(args.request, stdin))
    limits = SolveLimits(
        time_limit_seconds=args.time_limit,
        num_workers=args.workers,
        random_seed=args.seed,
        log_search=args.log,
        diagnosis_budget_seconds=args.diagnosis_budget,
    )
    response = solve(request, limits)
    _print(response.model_dump(mode="json", exclude_none=True), out)
    return EXIT_OK if response.status == "completed" else EXIT_FAILED


def _audit(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from engine.audit import audit, compare_shortages, compare_with_metrics, read_response
    from engine.rules import parse_request

    request = parse_request(_read_json(args.request, stdin))
    response = read_response(_read_json(args.response, stdin))
    report = audit(request, response.assignments)
    payload = report.model_dump(mode="json", exclude_none=True)
    mismatches: list[str] = []
    if response.metrics is not None:
        mismatches += compare_with_metrics(report, response.metrics)
    if response.shortages is not None:
        mismatches += compare_shortages(report, response.shortages)
    if response.metrics is not None or response.shortages is not None:
        payload["metrics_mismatches"] = mismatches
    if response.notes:
        payload["notes"] = response.notes
    _print(payload, out)
    return EXIT_OK if report.feasible and not mismatches else EXIT_FAILED


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check a request without solving")
    v.add_argument("request", help="SolveRequest JSON file, or - for stdin")
    v.set_defaults(run=_validate)
    s = sub.add_parser("solve", help="solve a request and print the SolveResponse")
    s.add_argument("request", help="SolveRequest JSON file, or - for stdin")
    s.add_argument(
        "--time-limit", type=float, default=None, help="seconds (default: the request's)"
    )
    s.add_argument("--workers", type=int, default=None, help="CP-SAT workers (default: all cores)")
    s.add_argument(
        "--seed", type=int, default=0, help="random seed (reproducible with --workers 1)"
    )
    s.add_argument("--log", action="store_true", help="print the CP-SAT search log on stderr")
    s.add_argument(
        "--diagnosis-budget",
        type=float,
        default=DEFAULT_BUDGET_SECONDS,
        help="seconds to explain an infeasible request (0: skip the diagnosis)",
    )
    s.set_defaults(run=_solve)
    a = sub.add_parser("audit", help="check a roster independently of the solver")
    a.add_argument("request", help="SolveRequest JSON file, or - for stdin")
    a.add_argument("response", help="SolveResponse (or {assignments: [...]}) JSON file, or -")
    a.set_defaults(run=_audit)
    return parser


def main(
    argv: Sequence[str] | None = None, out: TextIO = sys.stdout, stdin: TextIO = sys.stdin
) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args, out, stdin))
    except InvalidRequest as exc:
        _print({"errors": [e.as_dict() for e in exc.errors]}, out)
        return EXIT_INVALID


if __name__ == "__main__":
    sys.exit(main())
