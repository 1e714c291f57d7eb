"""The command line's ``--format table``: a solve, a re-plan or a recommendation as text
that fits the terminal.

Every figure printed is the audit's (:func:`shiftsched.checking.audit.audit`), not the solver's: a
solve's roster is shown with the audit's shortages and objective, and any figure the
solver reported that the audit does not confirm is printed beside it. A re-plan shows
the new roster with its changed cells marked, the list of changes, and the audited
objective of the published roster and of the new one. A recommendation ranks the
candidates with the audit's objective delta, the hard rules each move breaks and the
soft terms it moves most, in words (:func:`shiftsched.checking.items.term_words`).
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Sequence

from rich.cells import cell_len

from shiftsched.checking.audit import AuditReport, audit, compare_with_metrics
from shiftsched.checking.items import term_words
from shiftsched.contract.history import History
from shiftsched.contract.planning import (
    Change,
    Recommendation,
    RecommendRequest,
    RecommendResponse,
    ReplanRequest,
    ReplanResponse,
)
from shiftsched.contract.v1 import ErrorInfo, SolveRequest, SolveResponse
from shiftsched.present.console import number
from shiftsched.present.roster_text import fit, roster_lines, wrap
from shiftsched.present.words import many

DEFAULT_WIDTH = 80  # when stdout is not a terminal and COLUMNS is not set
MIN_WIDTH = 40
TERMS_SHOWN = 3  # the soft terms a recommendation lists, largest change first


def terminal_width() -> int:
    """``COLUMNS`` when set, else the terminal's width, else 80; never under 40."""
    return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def _text(lines: Sequence[str]) -> str:
    return "\n".join(lines) + "\n"


def _day(day: dt.date) -> str:
    return f"{day:%a %Y-%m-%d}"


def _no_roster(error: ErrorInfo | None, width: int) -> list[str]:
    text = "no roster"
    if error is not None:
        text += f" ({error.code})" + (f": {error.message}" if error.message else "")
        if error.diagnosis and error.diagnosis.causes:
            cause = error.diagnosis.causes[0]
            text += f"; first cause: {cause.message} (at {cause.field})"
    return wrap(text, width)


def audit_lines(report: AuditReport, width: int, label: str = "audited") -> list[str]:
    """The audit's objective, hard rules broken and heads short, in one sentence."""
    heads = sum(s.missing for s in report.shortages)
    dates = len({s.date for s in report.shortages})
    short = f"{many(heads, 'head')} short on {many(dates, 'date')}" if heads else "no shortage"
    text = (
        f"{label}: objective {number(report.objective_value)}, "
        f"{many(len(report.hard_violations), 'hard rule')} broken, {short}"
    )
    lines = wrap(text, width)
    for violation in report.hard_violations:
        lines += wrap(f"  broken: {violation.message}", width, indent="    ")
    return lines


def solve_text(
    request: SolveRequest, response: SolveResponse, width: int, history: History | None = None
) -> str:
    """A solve's roster in weeks that fit ``width``, with the audit's figures."""
    solution = response.solution
    if solution is None:
        return _text(_no_roster(response.error, width))
    report = audit(request, solution.assignments, history=history)
    lines = roster_lines(request, solution.assignments, report.shortages, width)
    lines += ["", *audit_lines(report, width)]
    for mismatch in compare_with_metrics(report, solution.metrics, solution.shortages):
        lines += wrap(f"the solver's figure disagrees with the audit: {mismatch}", width)
    return _text(lines)


# --------------------------------------------------------------------------- re-plan


def held(request: SolveRequest, shift_id: str | None, duty_id: str | None) -> str:
    """``Early`` or ``Early (Phones)`` by name; ``off`` for no shift."""
    if shift_id is None:
        return "off"
    shift = next((s.name for s in request.shifts if s.id == shift_id), shift_id)
    if duty_id is None:
        return shift
    return f"{shift} ({next((k.name for k in request.duties if k.id == duty_id), duty_id)})"


def change_line(request: SolveRequest, change: Change, width: int) -> list[str]:
    """``store-02  Mon 2026-04-27  Day -> Opening``."""
    before = held(request, change.from_shift_id, change.from_duty_id)
    after = held(request, change.to_shift_id, change.to_duty_id)
    return wrap(f"  {change.employee_id}  {_day(change.date)}  {before} -> {after}", width, "    ")


def replan_text(ask: ReplanRequest, response: ReplanResponse, width: int) -> str:
    """The re-planned roster with its changed cells marked, the changes, and the audited
    objective of the published roster and of the new one."""
    request = ask.request
    lines: list[str] = []
    for absence in ask.absences:
        days = ", ".join(_day(d) for d in absence.dates)
        lines += wrap(f"absent: {absence.employee_id} on {days}", width)
    solution = response.solution
    if solution is None:
        return _text([*lines, *_no_roster(response.error, width)])
    before = audit(request, ask.roster, history=ask.history, absences=ask.absences)
    after = audit(request, solution.assignments, history=ask.history, absences=ask.absences)
    changed = {(c.employee_id, c.date) for c in response.changes}
    lines += ["", *roster_lines(request, solution.assignments, after.shortages, width, changed)]
    count = len(response.changes)
    lines += ["", f"{many(count, 'changed cell')}:" if count else "no changes"]
    for change in response.changes:
        lines += change_line(request, change, width)
    delta = after.objective_value - before.objective_value
    text = (
        f"objective (audited): {number(before.objective_value)} published -> "
        f"{number(after.objective_value)} re-planned ({signed(delta)})"
    )
    lines += ["", *wrap(text, width), *audit_lines(after, width, "re-planned roster")]
    return _text(lines)


def signed(value: float) -> str:
    return "+0" if value == 0 else ("+" if value > 0 else "-") + number(abs(value))


# ------------------------------------------------------------------------ recommend


def _candidate_lines(
    request: SolveRequest, rank: int, item: Recommendation, widths: tuple[int, int], width: int
) -> list[str]:
    """One row (rank, employee, feasible, objective delta, shift left), then the hard
    rules the move breaks and the soft terms it moves most, in words."""
    name_width, delta_width = widths
    moved = held(request, item.moved_from_shift_id, None) if item.moved_from_shift_id else ""
    row = (
        f"{rank:>2}  {fit(item.employee_id, name_width)}  "
        f"{'yes' if item.feasible else 'no ':<8}  {signed(item.objective_delta):>{delta_width}}"
        f"  {moved}"
    )
    lines = [fit(row.rstrip(), width).rstrip()]
    for broken in item.hard_violations:
        lines += wrap(f"      breaks: {broken.message}", width, "        ")
    terms = sorted(item.changed_terms, key=lambda t: (-abs(t.penalty_delta), t.name))
    for term in terms[:TERMS_SHOWN]:
        amount = abs(term.violated_by_delta) or None
        words = term_words(request, term.name, amount)
        effect = "adds" if term.penalty_delta > 0 else "removes"
        lines += wrap(f"      {signed(term.penalty_delta)} {effect}: {words}", width, "        ")
    if len(terms) > TERMS_SHOWN:
        lines.append(f"      and {many(len(terms) - TERMS_SHOWN, 'more soft term')}")
    return lines


def recommend_text(ask: RecommendRequest, answer: RecommendResponse, width: int) -> str:
    """The candidates for the slot, best first, each figure from the audit."""
    request, slot = ask.request, ask.slot
    shown = len(answer.recommendations)
    title = (
        f"who could fill {held(request, slot.shift_id, slot.duty_id)} on {_day(slot.date)}: "
        f"{answer.candidates} candidates, the best {shown} listed"
    )
    ids = [r.employee_id for r in answer.recommendations]
    name_width = max(8, min(max((cell_len(i) for i in ids), default=0), width // 3))
    deltas = [signed(r.objective_delta) for r in answer.recommendations]
    delta_width = max(11, *(len(d) for d in deltas)) if deltas else 11
    header = (
        f" #  {fit('employee', name_width)}  feasible  {'objective Δ':>{delta_width}}  moved from"
    )
    lines = [*wrap(title, width), "", fit(header, width).rstrip()]
    for rank, item in enumerate(answer.recommendations, start=1):
        lines += _candidate_lines(request, rank, item, (name_width, delta_width), width)
    note = (
        "objective Δ: the audit of the roster with the candidate in the slot minus the "
        "audit of the published roster; under it, what the move adds to the soft costs "
        "or removes from them"
    )
    return _text([*lines, "", *wrap(note, width)])
