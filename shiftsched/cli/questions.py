"""The subcommands that answer questions about a request or a roster: ``validate``,
``audit``, ``compare``, ``explain``, ``why`` and ``recommend``.

Why apart from the solves: each prints its answer's JSON and a line in words on stderr;
none prints a roster of its own.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from shiftsched.cli.files import (
    absences,
    assignments,
    history,
    limits,
    question_body,
    read_json,
    roster,
)
from shiftsched.cli.output import EXIT_FAILED, EXIT_OK, print_json
from shiftsched.cli.remote import remote, run
from shiftsched.errors import InvalidRequest

if TYPE_CHECKING:
    from shiftsched.checking.audit import ReadResponse
    from shiftsched.contract.planning import RecommendResponse
    from shiftsched.questions.inquiry import (
        AuditRequest,
        AuditResponse,
        CompareResponse,
        ExplainResponse,
        WhyResponse,
    )


def validate(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """The request checked without solving: its verdict on stdout, faults included."""
    from shiftsched.questions.validation import validate as validated

    data = read_json(args.request, stdin)
    try:
        response = run(args, "validate", data) if remote(args) else validated(data)
    except InvalidRequest as exc:  # the verdict is validate's result: stdout too
        print_json({"errors": [e.as_dict() for e in exc.errors]}, out)
        raise
    print_json(response.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        err.write(f"valid: {response.employee_count} employees, {response.schedule_days} days\n")
    return EXIT_OK


def audit(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """The independent audit of a roster, and what its reported figures get wrong (in
    this process: with ``--remote`` the service's audit, its figures not compared)."""
    from shiftsched.contract.parse import parse_request
    from shiftsched.questions.inquiry import AuditRequest

    request = parse_request(read_json(args.request, stdin))
    response = assignments(args.response, stdin, request)
    before = None if args.history is None else history(request, args.history, stdin)
    ask = AuditRequest(
        request=request,
        roster=list(response.assignments),
        history=before,
        absences=absences(request, args.absent),
    )
    answer, mismatches = (
        (run(args, "audit", ask), None) if remote(args) else _audited(ask, response)
    )
    payload = answer.model_dump(mode="json", exclude_none=True)
    if mismatches is not None and (response.metrics is not None or response.shortages is not None):
        payload["metrics_mismatches"] = mismatches
    if response.notes:
        payload["notes"] = response.notes
    if args.format == "table":
        from shiftsched.present.answer_text import terminal_width
        from shiftsched.present.question_text import audit_text

        out.write(audit_text(request, answer, mismatches or [], terminal_width()))
    else:
        print_json(payload, out)
    clean = answer.feasible and not mismatches
    if not args.quiet:
        verdict = "clean" if clean else "not clean"
        err.write(
            f"audit {verdict}: {answer.totals.hard_violations} hard violations, "
            f"{len(mismatches or [])} metrics that disagree, objective "
            f"{answer.objective_value:g}\n"
        )
    return EXIT_OK if clean else EXIT_FAILED


def _audited(ask: AuditRequest, response: ReadResponse) -> tuple[AuditResponse, list[str]]:
    """The audit in this process, and where the figures ``response`` reports disagree."""
    from shiftsched.checking.audit import audit as audited
    from shiftsched.checking.audit import compare_shortages, compare_with_metrics
    from shiftsched.questions.review import explained

    report = audited(ask.request, ask.roster, history=ask.history, absences=ask.absences)
    mismatches: list[str] = []
    if response.metrics is not None:
        mismatches += compare_with_metrics(report, response.metrics)
    if response.shortages is not None:
        mismatches += compare_shortages(report, response.shortages)
    return explained(ask.request, ask.roster, report), mismatches


def compare(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """What differs from roster A to roster B of one request."""
    from shiftsched.contract.parse import parse_request
    from shiftsched.questions.inquiry import CompareRequest

    request = parse_request(read_json(args.request, stdin))
    before = assignments(args.before, stdin, request).assignments
    after = assignments(args.after, stdin, request).assignments
    past = None if args.history is None else history(request, args.history, stdin)
    absent = absences(request, args.absent)
    ask = CompareRequest(request=request, before=before, after=after, history=past, absences=absent)
    answer: CompareResponse = run(args, "compare", ask)
    if args.format == "table":
        from shiftsched.present.answer_text import terminal_width
        from shiftsched.present.question_text import compare_text

        out.write(compare_text(request, answer, terminal_width()))
    else:
        print_json(answer.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        from shiftsched.present.words import many

        totals = answer.totals  # the lists hold at most listed_limit items each
        err.write(
            f"{many(totals.changes, 'cell')} {'differs' if totals.changes == 1 else 'differ'} for "
            f"{many(len(answer.employees), 'employee')}; "
            f"objective {answer.objective_before:g} -> {answer.objective_after:g} "
            f"({answer.objective_delta:+g}); hard violations "
            f"+{totals.hard_violations_added} -{totals.hard_violations_removed}\n"
        )
    return EXIT_OK


def explain(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """A verdict for each shortage of a roster."""
    from shiftsched.questions.inquiry import parse_explain

    body = question_body(args, stdin)
    if args.date:
        body["dates"] = args.date
    ask = parse_explain(body)
    answer: ExplainResponse = run(args, "explain", ask, limits(args))
    if args.format == "table":
        from shiftsched.present.answer_text import terminal_width
        from shiftsched.present.question_text import explain_text

        out.write(explain_text(ask.request, answer, terminal_width()))
    else:
        print_json(answer.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        verdicts = [e.verdict for e in answer.explanations]
        counts = ", ".join(
            f"{verdicts.count(v)} {v}" for v in ("avoidable", "unavoidable", "undecided")
        )
        err.write(f"{len(verdicts)} shortages explained: {counts}\n")
    return EXIT_OK


def why(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """Why an employee is not off, or not on a shift, on a date."""
    from shiftsched.questions.inquiry import parse_why

    body = question_body(args, stdin)
    body |= {"employee_id": args.employee, "date": args.date}
    if args.shift is not None:
        shift_id, _, duty_id = args.shift.partition(":")
        body["shift_id"] = shift_id
        if duty_id:
            body["duty_id"] = duty_id
    ask = parse_why(body)
    answer: WhyResponse = run(args, "why", ask, limits(args))
    if args.format == "table":
        from shiftsched.present.answer_text import terminal_width
        from shiftsched.present.question_text import why_text

        out.write(why_text(ask.request, answer, terminal_width()))
    else:
        print_json(answer.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:  # the summary may begin with the verdict: said once
        summary = answer.summary.removeprefix(f"{answer.verdict}:").strip()
        err.write(f"{answer.question} {answer.verdict}: {summary}\n")
    return EXIT_OK if answer.verdict in ("already", "possible", "impossible") else EXIT_FAILED


def recommend(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """Who could fill a slot, best first, without re-solving."""
    from shiftsched.contract.planning import parse_recommend
    from shiftsched.present.answer_text import recommend_text, terminal_width

    request, published = roster(args, stdin)
    data = {"request": request, "roster": published, "slot": args.slot, "absences": args.absent}
    if args.history is not None:
        data["history"] = read_json(args.history, stdin)
    if args.top is not None:
        data["top"] = args.top
    ask = parse_recommend(data)
    answer: RecommendResponse = run(args, "recommend", ask)
    listed = answer.model_dump(mode="json", exclude_none=True)["recommendations"]
    if args.format == "table":
        out.write(recommend_text(ask, answer, terminal_width()))
    else:
        print_json({"recommendations": listed}, out)
    if not args.quiet:
        feasible = sum(1 for r in answer.recommendations if r.feasible)
        err.write(
            f"{answer.candidates} candidates; the top {len(listed)} listed, "
            f"{feasible} of them without a broken hard rule\n"
        )
    return EXIT_OK
