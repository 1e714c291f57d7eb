"""``--format table`` of the questions on a roster: an audit, a comparison, the
explanations of its shortages and a why-not, each as a short answer that fits the
terminal.

Why: the JSON of these answers embeds rosters and long lists, thousands of lines that
bury the answer. The table gives the verdict first, then one line per finding (a
shortage, a changed cell, a broken rule), in the words the answer already holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from shiftsched.checking.figures import CHANGE_FIELDS
from shiftsched.checking.items import term_words
from shiftsched.contract.planning import Change
from shiftsched.contract.v1 import Cause, Shortage, SolveRequest
from shiftsched.present.answer_text import change_line, held, signed
from shiftsched.present.console import number
from shiftsched.present.roster_text import wrap
from shiftsched.present.words import many, many_or_none
from shiftsched.questions.inquiry import (
    AuditResponse,
    CompareResponse,
    ExplainResponse,
    WhyResponse,
)

TERMS_SHOWN = 10  # the costliest soft terms an audit lists


def _text(lines: Sequence[str]) -> str:
    return "\n".join(lines) + "\n"


def shortage_words(request: SolveRequest, marker: Shortage) -> str:
    """``Tue 2027-02-02 Early (staffing): 1 of 5 heads missing``."""
    shifts = [marker.shift_id] if marker.shift_id else list(marker.shift_ids or ())
    where = " + ".join(held(request, s, marker.duty_id) for s in shifts) or "?"
    return (
        f"{marker.date:%a %Y-%m-%d} {where} ({marker.kind}): "
        f"{marker.missing} of {many(marker.required, 'head')} missing"
    )


def _cause_lines(causes: Iterable[Cause], width: int) -> list[str]:
    return [
        line
        for cause in causes
        for line in wrap(f"  because: {cause.message} (at {cause.field})", width, "    ")
    ]


def _changes(request: SolveRequest, changes: Sequence[Change], width: int) -> list[str]:
    lines = [f"{many(len(changes), 'changed cell')}:" if changes else "no cell changes"]
    for change in changes:
        lines += change_line(request, change, width)
    return lines


def why_text(request: SolveRequest, answer: WhyResponse, width: int) -> str:
    """The question and its verdict, why, and the cells that change (no roster)."""
    summary = answer.summary.removeprefix(f"{answer.verdict}:").strip()
    lines = wrap(f"{answer.question} {answer.verdict}", width)
    lines += wrap(f"  {summary}", width, "    ")
    lines += _cause_lines(answer.causes, width)
    if answer.verdict == "possible":
        lines += ["", *_changes(request, answer.changes, width)]
        if answer.objective_delta is not None:
            lines += wrap(f"objective {signed(answer.objective_delta)}", width)
    return _text(lines)


def explain_text(request: SolveRequest, answer: ExplainResponse, width: int) -> str:
    """One entry per shortage: where, how many heads, the verdict and its summary."""
    count = len(answer.explanations)
    lines = wrap(
        f"{many_or_none(count, 'shortage')} explained; the roster's objective "
        f"{number(answer.objective_value)}",
        width,
    )
    for entry in answer.explanations:
        words = f"{shortage_words(request, entry.shortage)}: {entry.verdict}: {entry.summary}"
        lines += wrap(words, width, "    ")
    return _text(lines)


def _employee_line(change: Any) -> str:
    moved = [
        f"{name.replace('_', ' ')} {signed(getattr(change, name))}"
        for name in CHANGE_FIELDS
        if name != "changed_cells" and getattr(change, name)
    ]
    return f"  {change.employee_id}: " + (", ".join(moved) or "the same figures")


def compare_text(request: SolveRequest, answer: CompareResponse, width: int) -> str:
    """The objective from A to B, the changed cells, each employee's figures and each
    soft term's cost, and the hard rules broken or mended."""
    totals = answer.totals
    lines = wrap(
        f"{many(totals.changes, 'cell')} {'differs' if totals.changes == 1 else 'differ'} "
        f"for {many(len(answer.employees), 'employee')}; "
        f"objective {number(answer.objective_before)} -> {number(answer.objective_after)} "
        f"({signed(answer.objective_delta)})",
        width,
    )
    lines += ["", *_changes(request, answer.changes, width)]
    if answer.employees:
        lines += ["", "per employee (B - A):"]
        lines += [line for e in answer.employees for line in wrap(_employee_line(e), width, "    ")]
    if answer.terms:
        lines += ["", "soft terms (cost B - A):"]
        for term in answer.terms:
            words = term_words(request, term.name)
            lines += wrap(f"  {signed(term.delta)} {words}", width, "    ")
    for label, broken in (
        ("newly broken", answer.hard_violations_added),
        ("no longer broken", answer.hard_violations_removed),
    ):
        lines += [line for v in broken for line in wrap(f"{label}: {v.message}", width, "    ")]
    if answer.truncated:
        lines += wrap(f"(each list holds its first {answer.listed_limit} items)", width)
    return _text(lines)


def audit_text(
    request: SolveRequest, answer: AuditResponse, mismatches: Sequence[str], width: int
) -> str:
    """The verdict and objective, each hard rule broken, each shortage, the costliest
    soft terms in words, and any reported figure the audit does not confirm."""
    totals = answer.totals
    verdict = "no hard rule broken" if answer.feasible else "hard rules broken"
    lines = wrap(
        f"audit: {verdict}; objective {number(answer.objective_value)}; "
        f"{many_or_none(totals.shortages, 'shortage')}, "
        f"{many_or_none(totals.soft_constraint_violations, 'soft term')} priced",
        width,
    )
    for violation in answer.hard_violations:
        lines += wrap(f"  broken: {violation.message}", width, "    ")
    for marker in answer.shortages:
        lines += wrap(f"  short: {shortage_words(request, marker)}", width, "    ")
    terms = sorted(answer.soft_constraint_violations, key=lambda t: (-t.penalty, t.name))
    for term in terms[:TERMS_SHOWN]:
        lines += wrap(f"  {number(term.penalty):>8} {term.words}", width, "    ")
    if len(terms) > TERMS_SHOWN:
        lines.append(f"  and {many(len(terms) - TERMS_SHOWN, 'more soft term')}")
    for mismatch in mismatches:
        lines += wrap(f"the reported figure disagrees with the audit: {mismatch}", width)
    return _text(lines)
