"""Command line: ``python -m shiftsched validate|solve|audit|compare|explain|why|export|...``.

    python -m shiftsched validate REQUEST.json     ValidateResponse, or the errors
    python -m shiftsched solve REQUEST.json [--time-limit S] [--workers N] [--seed N]
                       [--progress | --quiet] [--format json|table]
                       [--absent EMPLOYEE_ID:DATE[,DATE...]] [--history PREV.json]
                                               SolveResponse JSON, or the roster as a table;
                                               with --absent, no absent employee works
                                               an absent date; with --history, the
                                               period follows PREV (a SolveResponse of
                                               the period before, or a history), and
                                               the answer adds the ledger (shiftsched.periods.plan)
    python -m shiftsched audit REQUEST.json RESPONSE.json [--history PREV.json]
                                               the audit (across the seam with PREV):
                                               findings with their input items, each
                                               employee's figures, the plan's KPIs
    python -m shiftsched compare REQUEST.json A.json B.json [--history PREV.json]
                                               what differs from roster A to B: cells,
                                               per-employee figures, terms, objective
    python -m shiftsched explain REQUEST.json RESPONSE.json [--date DATE ...]
                       [--absent ...] [--history PREV.json] [--time-limit S]
                                               per shortage: avoidable (the fill found)
                                               or unavoidable (what forbids it)
    python -m shiftsched why REQUEST.json RESPONSE.json --employee ID --date DATE
                       [--shift SHIFT_ID[:DUTY_ID]] [--absent ...] [--time-limit S]
                                               why ID is not off (or not on the shift)
                                               that date: the re-plan that makes it so,
                                               or the rules that forbid it
    python -m shiftsched export REQUEST.json RESPONSE.json --format csv|ics|xlsx
                       [-o FILE] [--employee ID]
                                               the roster as a file: csv a header row,
                                               then one row per assignment; ics one
                                               VEVENT per assignment; xlsx employees x dates
    python -m shiftsched replan REQUEST.json RESPONSE.json --absent EMPLOYEE_ID:DATE[,DATE...]
                       [--pin-before DATE] [--time-limit S] [--change-weight W]
                       [--format json|table]
                                               SolveResponse JSON with "changes": the
                                               roster re-planned around the absences,
                                               moving as few people as it can
    python -m shiftsched recommend REQUEST.json RESPONSE.json --slot DATE:SHIFT_ID[:DUTY_ID]
                       [--top N] [--absent EMPLOYEE_ID:DATE[,DATE...]] [--format json|table]
                                               {"recommendations": [...]}: who should
                                               fill the slot, best first (no re-solve)

``--format table`` prints for a person instead of JSON, as wide as the terminal
(``COLUMNS``, or 80 when stdout is not a terminal): the roster in blocks of whole weeks
with a legend of its codes, a re-plan's changes, a ranked table of the candidates; every
figure is the audit's (shiftsched.present.answer_text).

stdout carries only the result. People get the rest on stderr: live progress while a
solve runs (on a terminal, or with ``--progress``), a one-line summary at the end, and
each fault of a bad input as ``employees[2].favourite_colour: message (code)``
(``validate`` also prints its JSON verdict on stdout). ``--quiet`` leaves stderr to
faults alone.

Exit codes: 0 done (completed solve, clean audit, valid request); 1 no roster, or an
audit that found violations or metrics that disagree with it; 2 bad input (with every
fault and its JSON path; never a traceback); 3 an internal error.

The audit and the export need only ``solution.assignments`` (or ``{"assignments": [...]}``,
or a bare list) from RESPONSE: the audit compares reported metrics and shortages when
they can be read, and ``notes`` says what was left out of the comparison and why.

``-`` reads a file from standard input, so ``solve X | audit X -`` checks a roster.
Invalid input always exits 2 with every fault and its JSON path; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from shiftsched.contract.parse import load_json
from shiftsched.errors import FieldError, InvalidRequest
from shiftsched.solving.diagnose import DEFAULT_BUDGET_SECONDS

EXIT_OK, EXIT_FAILED, EXIT_INVALID, EXIT_INTERNAL = 0, 1, 2, 3

if TYPE_CHECKING:  # generic in the stubs only
    from shiftsched.checking.audit import ReadResponse
    from shiftsched.contract.history import History
    from shiftsched.contract.v1 import SolveRequest
    from shiftsched.solving.solve import SolveLimits

    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]


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


def _validate(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    from shiftsched.questions.validation import validate

    try:
        response = validate(_read_json(args.request, stdin))
    except InvalidRequest as exc:  # the verdict is validate's result: stdout too
        _print({"errors": [e.as_dict() for e in exc.errors]}, out)
        raise
    _print(response.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        err.write(f"valid: {response.employee_count} employees, {response.schedule_days} days\n")
    return EXIT_OK


def _solve(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    from shiftsched.contract.parse import parse_request
    from shiftsched.contract.planning import parse_plan
    from shiftsched.contract.v1 import SolveResponse
    from shiftsched.periods.plan import plan
    from shiftsched.present.answer_text import solve_text, terminal_width
    from shiftsched.present.console import LiveProgress, summary
    from shiftsched.solving.solve import SolveLimits, solve

    data = _read_json(args.request, stdin)
    if args.absent or args.history:  # a plan: absences, a history (shiftsched.periods.plan)
        body = {"request": data, "absences": args.absent}
        if args.history:
            body["history"] = _read_json(args.history, stdin)
        ask = parse_plan(body)
        request, history = ask.request, ask.history

        def planned(limits: SolveLimits) -> SolveResponse:
            return plan(ask, limits)
    else:
        request, history = parse_request(data), None

        def planned(limits: SolveLimits) -> SolveResponse:
            return solve(request, limits)

    show = not args.quiet and (args.progress or err.isatty()) and not args.log
    time_limit = args.time_limit or float(request.options.solver_timeout_seconds)
    live = LiveProgress(err, time_limit) if show else None
    limits = SolveLimits(
        time_limit_seconds=args.time_limit,
        num_workers=args.workers,
        random_seed=args.seed,
        log_search=args.log,
        diagnosis_budget_seconds=args.diagnosis_budget,
        on_progress=None if live is None else live.update,
    )
    if live is None:
        response = planned(limits)
    else:
        with live.shown():
            response = planned(limits)
    if args.format == "table":
        out.write(solve_text(request, response, terminal_width(), history))
    else:
        _print(response.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        err.write(summary(request, response, time_limit) + "\n")
    return EXIT_OK if response.status == "completed" else EXIT_FAILED


def _assignments(path: str, stdin: TextIO, request: SolveRequest) -> ReadResponse:
    """The roster in ``path`` (a SolveResponse, {assignments} or a list), which must fit
    ``request``: every fault with its path in that file (``solution.assignments[3]``)."""
    from shiftsched.checking.audit import read_response
    from shiftsched.present.export import assignments_path
    from shiftsched.questions.inquiry import fit_faults

    raw = _read_json(path, stdin)
    read = read_response(raw)
    faults = fit_faults(request, read.assignments, assignments_path(raw))
    if faults:
        raise InvalidRequest(faults)
    return read


def _audit(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    from shiftsched.checking.audit import audit, compare_shortages, compare_with_metrics
    from shiftsched.contract.parse import parse_request
    from shiftsched.questions.review import explained

    request = parse_request(_read_json(args.request, stdin))
    response = _assignments(args.response, stdin, request)
    history = None if args.history is None else _history(request, args.history, stdin)
    report = audit(request, response.assignments, history=history)
    payload = explained(request, response.assignments, report).model_dump(
        mode="json", exclude_none=True
    )
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
    clean = report.feasible and not mismatches
    if not args.quiet:
        verdict = "clean" if clean else "not clean"
        err.write(
            f"audit {verdict}: {len(report.hard_violations)} hard violations, "
            f"{len(mismatches)} metrics that disagree, objective {report.objective_value:g}\n"
        )
    return EXIT_OK if clean else EXIT_FAILED


def _compare(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    from shiftsched.contract.parse import parse_request
    from shiftsched.questions.review import compare

    request = parse_request(_read_json(args.request, stdin))
    before = _assignments(args.before, stdin, request).assignments
    after = _assignments(args.after, stdin, request).assignments
    history = None if args.history is None else _history(request, args.history, stdin)
    answer = compare(request, before, after, history=history)
    _print(answer.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        totals = answer.totals  # the lists hold at most listed_limit items each
        err.write(
            f"{totals.changes} cells differ for {len(answer.employees)} employees; "
            f"objective {answer.objective_before:g} -> {answer.objective_after:g} "
            f"({answer.objective_delta:+g}); hard violations "
            f"+{totals.hard_violations_added} -{totals.hard_violations_removed}\n"
        )
    return EXIT_OK


def _question_body(args: argparse.Namespace, stdin: TextIO) -> dict[str, Any]:
    """The body every question on one roster shares: request, roster, absences, history."""
    request, roster = _roster(args, stdin)
    body: dict[str, Any] = {"request": request, "roster": roster, "absences": args.absent}
    if args.history is not None:
        body["history"] = _read_json(args.history, stdin)
    return body


def _limits(args: argparse.Namespace) -> SolveLimits:
    from shiftsched.solving.solve import SolveLimits

    return SolveLimits(
        time_limit_seconds=args.time_limit, num_workers=args.workers, random_seed=args.seed
    )


def _explain(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    from shiftsched.questions.explain import explain_shortages
    from shiftsched.questions.inquiry import parse_explain

    body = _question_body(args, stdin)
    if args.date:
        body["dates"] = args.date
    answer = explain_shortages(parse_explain(body), _limits(args))
    _print(answer.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        verdicts = [e.verdict for e in answer.explanations]
        counts = ", ".join(
            f"{verdicts.count(v)} {v}" for v in ("avoidable", "unavoidable", "undecided")
        )
        err.write(f"{len(verdicts)} shortages explained: {counts}\n")
    return EXIT_OK


def _why(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    from shiftsched.questions.inquiry import parse_why
    from shiftsched.questions.why import why_not

    body = _question_body(args, stdin)
    body |= {"employee_id": args.employee, "date": args.date}
    if args.shift is not None:
        shift_id, _, duty_id = args.shift.partition(":")
        body["shift_id"] = shift_id
        if duty_id:
            body["duty_id"] = duty_id
    answer = why_not(parse_why(body), _limits(args))
    _print(answer.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        err.write(f"{answer.question} {answer.verdict}: {answer.summary}\n")
    return EXIT_OK if answer.verdict in ("already", "possible", "impossible") else EXIT_FAILED


def _export(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    from shiftsched.checking.audit import read_response
    from shiftsched.contract.parse import parse_request
    from shiftsched.present.export import assignments_path, export

    request = parse_request(_read_json(args.request, stdin))
    raw = _read_json(args.response, stdin)
    assignments = read_response(raw).assignments
    data = export(
        request, assignments, args.format, employee_id=args.employee, at=assignments_path(raw)
    )
    if args.output is not None:
        try:
            Path(args.output).write_bytes(data)
        except OSError as exc:
            raise InvalidRequest(
                [FieldError((), f"cannot write {args.output}: {exc.strerror}", "unwritable_file")]
            ) from None
    elif args.format != "xlsx":
        out.write(data.decode("utf-8"))
    else:
        binary = getattr(out, "buffer", None)
        if binary is None or out.isatty():
            err.write("xlsx is binary and stdout is a terminal: name a file with -o FILE\n")
            return EXIT_INVALID
        out.flush()
        binary.write(data)
        binary.flush()
    if not args.quiet:
        where = args.output or "stdout"
        err.write(f"wrote the roster as {args.format} ({len(data):,} bytes) to {where}\n")
    return EXIT_OK


def _absence(text: str) -> dict[str, Any]:
    """``EMPLOYEE_ID:DATE[,DATE...]`` as an absence (dates are checked by the engine)."""
    employee_id, sep, dates = text.rpartition(":")
    if not sep or not employee_id or not dates:
        raise argparse.ArgumentTypeError(f"expected EMPLOYEE_ID:DATE[,DATE...], got {text!r}")
    return {"employee_id": employee_id, "dates": [d for d in dates.split(",") if d]}


def _slot(text: str) -> dict[str, Any]:
    """``DATE:SHIFT_ID[:DUTY_ID]`` as a slot."""
    day, sep, rest = text.partition(":")
    shift_id, _, duty_id = rest.partition(":")
    if not sep or not day or not shift_id:
        raise argparse.ArgumentTypeError(f"expected DATE:SHIFT_ID[:DUTY_ID], got {text!r}")
    slot = {"date": day, "shift_id": shift_id}
    return slot | ({"duty_id": duty_id} if duty_id else {})


def _roster(args: argparse.Namespace, stdin: TextIO) -> tuple[Any, list[dict[str, Any]]]:
    """The request as JSON and the published roster of RESPONSE as assignment dicts."""
    from shiftsched.checking.audit import read_response

    request = _read_json(args.request, stdin)
    assignments = read_response(_read_json(args.response, stdin)).assignments
    return request, [a.model_dump(mode="json", exclude_none=True) for a in assignments]


def _history(request: SolveRequest, path: str, stdin: TextIO) -> History:
    """The history in ``path`` (a SolveResponse or a history document), checked
    against ``request``: every fault under ``history``."""
    from shiftsched.contract.history import History, history_faults
    from shiftsched.contract.parse import parse_model

    history = parse_model(History, _read_json(path, stdin), at=("history",))
    faults = history_faults(request, history, ("history",))
    if faults:
        raise InvalidRequest(faults)
    return history


def _replan(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    from shiftsched.contract.planning import parse_replan
    from shiftsched.periods.replan import replan
    from shiftsched.present.answer_text import replan_text, terminal_width
    from shiftsched.solving.solve import SolveLimits

    request, roster = _roster(args, stdin)
    data: dict[str, Any] = {"request": request, "roster": roster, "absences": args.absent}
    if args.history is not None:
        data["history"] = _read_json(args.history, stdin)
    if args.pin_before is not None:
        data["pin_before"] = args.pin_before
    if args.change_weight is not None:
        data["change_weight"] = args.change_weight
    ask = parse_replan(data)
    limits = SolveLimits(
        time_limit_seconds=args.time_limit, num_workers=args.workers, random_seed=args.seed
    )
    response = replan(ask, limits)
    if args.format == "table":
        out.write(replan_text(ask, response, terminal_width()))
    else:
        _print(response.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        if response.solution is not None:
            err.write(
                f"re-planned: {len(response.changes)} changed assignments, objective "
                f"{response.solution.metrics.objective_value:g} "
                f"({response.solution.metrics.status})\n"
            )
        elif response.error is not None:
            err.write(f"no roster: {response.error.code}: {response.error.message}\n")
    return EXIT_OK if response.status == "completed" else EXIT_FAILED


def _recommend(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    from shiftsched.contract.planning import parse_recommend
    from shiftsched.present.answer_text import recommend_text, terminal_width
    from shiftsched.questions.recommend import recommend

    request, roster = _roster(args, stdin)
    data = {"request": request, "roster": roster, "slot": args.slot, "absences": args.absent}
    if args.history is not None:
        data["history"] = _read_json(args.history, stdin)
    if args.top is not None:
        data["top"] = args.top
    ask = parse_recommend(data)
    answer = recommend(ask)
    listed = answer.model_dump(mode="json", exclude_none=True)["recommendations"]
    if args.format == "table":
        out.write(recommend_text(ask, answer, terminal_width()))
    else:
        _print({"recommendations": listed}, out)
    if not args.quiet:
        feasible = sum(1 for r in answer.recommendations if r.feasible)
        err.write(
            f"{answer.candidates} candidates; the top {len(listed)} listed, "
            f"{feasible} of them without a broken hard rule\n"
        )
    return EXIT_OK


REQUEST_HELP = "SolveRequest JSON file, or - for stdin"
RESPONSE_HELP = "SolveResponse (or {assignments: [...]}) JSON file, or -"
ABSENT_HELP = "EMPLOYEE_ID:DATE[,DATE...]: absent on these dates (hard; repeatable)"
HISTORY_HELP = (
    "what came before the period: the SolveResponse of the period before (its ledger "
    "too, if it has one), or a history document {start_date?, assignments, ledger?}"
)


def _parser() -> argparse.ArgumentParser:
    """The command line: one builder per subcommand, in the order ``--help`` lists them."""
    parser = argparse.ArgumentParser(
        prog="python -m shiftsched",
        description="Validate, solve and audit shift-scheduling requests (the v1 contract).",
        epilog="Exit codes: 0 done, 1 no roster or an audit that is not clean, "
        "2 bad input, 3 internal error.",
    )
    quiet = argparse.ArgumentParser(add_help=False)
    quiet.add_argument(
        "-q", "--quiet", action="store_true", help="nothing on stderr but the faults"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (
        _add_validate,
        _add_solve,
        _add_audit,
        _add_compare,
        _add_explain,
        _add_why,
        _add_export,
        _add_replan,
        _add_recommend,
    ):
        add(sub, quiet)
    return parser


def _add_validate(sub: Subcommands, quiet: argparse.ArgumentParser) -> None:
    v = sub.add_parser(
        "validate", parents=[quiet], help="check a request without solving (free, fast)"
    )
    v.add_argument("request", help=REQUEST_HELP)
    v.set_defaults(run=_validate)


def _add_solve(sub: Subcommands, quiet: argparse.ArgumentParser) -> None:
    s = sub.add_parser(
        "solve",
        parents=[quiet],
        help="solve a request and print the SolveResponse",
        description="Solve a request. stdout: the SolveResponse JSON (or the roster with "
        "--format table); stderr: live progress and a one-line summary.",
    )
    s.add_argument("request", help=REQUEST_HELP)
    s.add_argument(
        "--time-limit", type=float, default=None, help="seconds (default: the request's)"
    )
    s.add_argument("--workers", type=int, default=None, help="CP-SAT workers (default: all cores)")
    s.add_argument(
        "--seed", type=int, default=0, help="random seed (reproducible with --workers 1)"
    )
    s.add_argument(
        "--progress",
        action="store_true",
        help="progress on stderr once a second, even when stderr is not a terminal",
    )
    _add_format(
        s, "json: the SolveResponse (default); table: the roster in weeks that fit the terminal"
    )
    s.add_argument("--log", action="store_true", help="print the CP-SAT search log on stderr")
    s.add_argument(
        "--diagnosis-budget",
        type=float,
        default=DEFAULT_BUDGET_SECONDS,
        help="seconds to explain an infeasible request (0: skip the diagnosis)",
    )
    s.add_argument(
        "--absent",
        action="append",
        type=_absence,
        default=[],
        metavar="EMPLOYEE_ID:DATE[,DATE...]",
        help="this employee cannot work these dates (hard; repeat for more): the request is "
        "planned with its absences",
    )
    s.add_argument("--history", default=None, metavar="PREV.json", help=HISTORY_HELP)
    s.set_defaults(run=_solve)


def _add_format(command: argparse.ArgumentParser, help_text: str) -> None:
    command.add_argument(
        "--format",
        choices=("json", "table"),
        default="json",
        help=help_text + " (as wide as COLUMNS, or the terminal; 80 when not a terminal)",
    )


def _add_audit(sub: Subcommands, quiet: argparse.ArgumentParser) -> None:
    a = sub.add_parser("audit", parents=[quiet], help="check a roster independently of the solver")
    a.add_argument("request", help=REQUEST_HELP)
    a.add_argument("response", help=RESPONSE_HELP)
    a.add_argument("--history", default=None, metavar="PREV.json", help=HISTORY_HELP)
    a.set_defaults(run=_audit)


def _add_compare(sub: Subcommands, quiet: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "compare",
        parents=[quiet],
        help="what differs between two rosters of one request",
        description="Compare roster B with roster A (each a SolveResponse, {assignments} "
        "or a list): the changed cells, each employee's change in shifts, hours, nights, "
        "weekends and preferences, each soft term's change in cost, the objective's, and "
        "the KPIs of both. Every delta is B - A.",
    )
    c.add_argument("request", help=REQUEST_HELP)
    c.add_argument("before", help="roster A: " + RESPONSE_HELP)
    c.add_argument("after", help="roster B: " + RESPONSE_HELP)
    c.add_argument("--history", default=None, metavar="PREV.json", help=HISTORY_HELP)
    c.set_defaults(run=_compare)


def _add_question(
    sub: Subcommands, quiet: argparse.ArgumentParser, name: str, summary: str, description: str
) -> argparse.ArgumentParser:
    """A question on one roster: the request, the roster, absences, history, limits."""
    q = sub.add_parser(name, parents=[quiet], help=summary, description=description)
    q.add_argument("request", help=REQUEST_HELP)
    q.add_argument("response", help=RESPONSE_HELP)
    q.add_argument(
        "--absent",
        type=_absence,
        action="append",
        default=[],
        help="holds for every roster tried: " + ABSENT_HELP,
    )
    q.add_argument("--history", default=None, metavar="PREV.json", help=HISTORY_HELP)
    q.add_argument(
        "--time-limit", type=float, default=None, help="seconds in all (default: the request's)"
    )
    q.add_argument("--workers", type=int, default=None, help="CP-SAT workers (default: all)")
    q.add_argument("--seed", type=int, default=0, help="random seed")
    return q


def _add_explain(sub: Subcommands, quiet: argparse.ArgumentParser) -> None:
    e = _add_question(
        sub,
        quiet,
        "explain",
        "say for each shortage whether any roster could fill it, and how or why not",
        "For each shortage of the roster in RESPONSE: avoidable (the cheapest fill found: "
        "who covers it, the cells that move, the objective's change and the roster), "
        "unavoidable (the hard rules and input items that forbid it) or undecided (out of "
        "time). The time limit is shared among the shortages.",
    )
    e.add_argument(
        "--date", action="append", default=[], metavar="DATE", help="only this date (repeatable)"
    )
    e.set_defaults(run=_explain)


def _add_why(sub: Subcommands, quiet: argparse.ArgumentParser) -> None:
    w = _add_question(
        sub,
        quiet,
        "why",
        "why an employee is not off, or not on a shift, on a date",
        "Why is EMPLOYEE not off on DATE (without --shift), or not on SHIFT: the roster "
        "is re-planned with that cell made so. Possible: the cells that move and the "
        "objective's change; impossible: the hard rules that forbid it.",
    )
    w.add_argument("--employee", required=True, metavar="ID")
    w.add_argument("--date", required=True, metavar="DATE")
    w.add_argument(
        "--shift",
        default=None,
        metavar="SHIFT_ID[:DUTY_ID]",
        help="the shift wanted (default: off)",
    )
    w.set_defaults(run=_why)


def _add_export(sub: Subcommands, quiet: argparse.ArgumentParser) -> None:
    x = sub.add_parser(
        "export",
        parents=[quiet],
        help="write a roster as CSV, iCalendar or XLSX",
        description="Write the roster of RESPONSE as a file: csv (a header row, then one "
        "row per assignment), ics (one VEVENT per assignment, in the request's time zone) "
        "or xlsx (employees x dates).",
    )
    x.add_argument("request", help=REQUEST_HELP)
    x.add_argument("response", help=RESPONSE_HELP)
    x.add_argument("--format", choices=("csv", "ics", "xlsx"), required=True)
    x.add_argument(
        "-o", "--output", default=None, help="file to write (default stdout; xlsx: not a terminal)"
    )
    x.add_argument("--employee", default=None, metavar="ID", help="only this employee's roster")
    x.set_defaults(run=_export)


def _add_replan(sub: Subcommands, quiet: argparse.ArgumentParser) -> None:
    r = sub.add_parser(
        "replan",
        parents=[quiet],
        help="re-plan a published roster around absences, moving as few people as it can",
        description="Re-plan the roster of RESPONSE: the absent employees work none of "
        "their dates, cells before --pin-before stay as published, and every other "
        "changed assignment costs the change weight. stdout: a SolveResponse JSON with "
        '"changes" (a list, by employee and date).',
    )
    r.add_argument("request", help="SolveRequest JSON file (may be edited), or - for stdin")
    r.add_argument("response", help="the published SolveResponse (or {assignments: [...]}), or -")
    r.add_argument("--absent", type=_absence, action="append", required=True, help=ABSENT_HELP)
    r.add_argument("--pin-before", default=None, metavar="DATE", help="keep every cell before")
    r.add_argument(
        "--time-limit", type=float, default=None, help="seconds (default: the request's)"
    )
    r.add_argument(
        "--change-weight", type=int, default=None, help="price of one changed cell (default 500)"
    )
    r.add_argument("--workers", type=int, default=None, help="CP-SAT workers (default: all)")
    r.add_argument("--seed", type=int, default=0, help="random seed")
    r.add_argument("--history", default=None, metavar="PREV.json", help=HISTORY_HELP)
    _add_format(
        r,
        "json: the SolveResponse with its changes (default); table: the roster "
        "with the changed cells marked, the changes and the audited objective",
    )
    r.set_defaults(run=_replan)


def _add_recommend(sub: Subcommands, quiet: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "recommend",
        parents=[quiet],
        help="rank the employees who could fill a slot (no re-solve)",
        description="Rank every employee for a slot of the roster in RESPONSE by the audit "
        "of the roster with them in it: hard rules broken, objective delta, soft terms "
        "moved. An employee who works that date is moved from their shift.",
    )
    c.add_argument("request", help=REQUEST_HELP)
    c.add_argument("response", help=RESPONSE_HELP)
    c.add_argument(
        "--slot", type=_slot, required=True, metavar="DATE:SHIFT_ID[:DUTY_ID]", help="to fill"
    )
    c.add_argument("--top", type=int, default=None, help="how many to list (default 10)")
    c.add_argument(
        "--absent",
        type=_absence,
        action="append",
        default=[],
        help="not candidates: " + ABSENT_HELP,
    )
    c.add_argument("--history", default=None, metavar="PREV.json", help=HISTORY_HELP)
    _add_format(
        c,
        "json: the recommendations (default); table: the candidates ranked, "
        "with the rules and soft terms each move touches in words",
    )
    c.set_defaults(run=_recommend)


def main(
    argv: Sequence[str] | None = None,
    out: TextIO = sys.stdout,
    stdin: TextIO = sys.stdin,
    err: TextIO = sys.stderr,
) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args, out, stdin, err))
    except InvalidRequest as exc:
        from shiftsched.present.console import fault_lines

        count = len(exc.errors)
        err.write(f"bad input: {count} fault{'' if count == 1 else 's'}\n")
        for line in fault_lines(exc.errors):
            err.write(f"  {line}\n")
        return EXIT_INVALID
    except KeyboardInterrupt:
        err.write("interrupted\n")
        return 130
    except Exception as exc:  # the last resort: a short message, never a traceback
        err.write(
            f"internal error: {type(exc).__name__}: {exc}\n"
            "This is a bug in the engine, not in your input; please report it with the "
            "request that caused it.\n"
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
