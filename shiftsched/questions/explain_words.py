"""An explanation's sentences: where a head is missing, how its heads count, and what a
fill changes and leaves short.

Why apart: the engine of an explanation (shiftsched.questions.explain) decides; these
say it, every count agreeing with its noun (shiftsched.words), so the command line, the
notebook and the service print one and the same summary.
"""

from __future__ import annotations

from collections.abc import Sequence

from shiftsched.checking.audit import AuditReport
from shiftsched.contract.planning import Change
from shiftsched.contract.v1 import Shortage, SolveRequest
from shiftsched.questions.inquiry import HeadCounts
from shiftsched.words import many

#: The most changed cells a summary names one by one; the rest are counted.
CHANGES_NAMED = 6


def where(request: SolveRequest, marker: Shortage) -> str:
    """``a head missing on Early, 2027-02-10``."""
    names = {s.id: s.name for s in request.shifts}
    if marker.shift_id is not None:
        shift = names.get(marker.shift_id, marker.shift_id)
    else:
        shift = " or ".join(names.get(s, s) for s in marker.shift_ids or ())
    what = {"staffing": "a head", "manager": "a manager", "cross_shift": "a head"}.get(
        marker.kind, f"a {marker.duty_id} holder"
    )
    return f"{what} missing on {shift}, {marker.date.isoformat()}"


def shortage_key(m: Shortage) -> tuple[object, ...]:
    return (m.kind, m.date, m.shift_id, tuple(m.shift_ids or ()), m.duty_id)


def heads_words(heads: HeadCounts) -> str:
    """``2 heads missing: 1 fillable, 1 only movable``."""
    parts = [
        f"{count} {word}"
        for count, word in (
            (heads.fillable, "fillable"),
            (heads.movable, "only movable"),
            (heads.unavoidable, "unavoidable"),
            (heads.undecided, "undecided"),
        )
        if count
    ]
    return f"{many(heads.missing, 'head')} missing: {', '.join(parts)}"


def who_takes(newcomers: Sequence[str]) -> str:
    """``e4 takes it``, ``nurse-02 and nurse-06 take it``, ``a, b and c take it``."""
    if not newcomers:
        return "those already there cover it"
    if len(newcomers) == 1:
        return f"{newcomers[0]} takes it"
    return f"{', '.join(newcomers[:-1])} and {newcomers[-1]} take it"


def _held(request: SolveRequest, shift_id: str | None, duty_id: str | None) -> str:
    if shift_id is None:
        return "off"
    name = next((s.name for s in request.shifts if s.id == shift_id), shift_id)
    return f"{name} ({duty_id})" if duty_id else name


def change_words(request: SolveRequest, change: Change) -> str:
    """``e4 works Early on 2026-03-03 (was off)``, ``e2 is off on ... (was Late)``."""
    day = change.date.isoformat()
    was = _held(request, change.from_shift_id, change.from_duty_id)
    if change.to_shift_id is None:
        return f"{change.employee_id} is off on {day} (was {was})"
    now = _held(request, change.to_shift_id, change.to_duty_id)
    return f"{change.employee_id} works {now} on {day} (was {was})"


def _changes_words(request: SolveRequest, changes: Sequence[Change]) -> str:
    if not changes:
        return "no cell changes"
    named = "; ".join(change_words(request, c) for c in changes[:CHANGES_NAMED])
    more = len(changes) - CHANGES_NAMED
    rest = f"; and {many(more, 'more cell')}" if more > 0 else ""
    verb = "changes" if len(changes) == 1 else "change"
    return f"{many(len(changes), 'cell')} {verb}: {named}{rest}"


def left_short(
    request: SolveRequest, marker: Shortage, before: AuditReport, after: AuditReport
) -> str:
    """What the fill leaves short and what else it fills: the heads still missing on
    ``marker``'s demand, any other demand shorter than before, and the heads of other
    shortages it meets too (a re-plan prices the whole roster, so it fills what else
    it can: its objective change is not this shortage's alone)."""
    this = shortage_key(marker)
    now = {shortage_key(m): m.missing for m in after.shortages}
    was = {shortage_key(m): m.missing for m in before.shortages}
    still = now.get(this, 0)
    words = (
        f"{many(still, 'head')} {'stays' if still == 1 else 'stay'} missing there"
        if still
        else "no head stays missing there"
    )
    opened = [
        where(request, m)
        for m in after.shortages
        if shortage_key(m) != this and m.missing > was.get(shortage_key(m), 0)
    ]
    if opened:
        words += f"; it leaves {'; '.join(opened)}"
    met = [
        (m, m.missing - now.get(shortage_key(m), 0))
        for m in before.shortages
        if shortage_key(m) != this and m.missing > now.get(shortage_key(m), 0)
    ]
    if met:
        heads = sum(count for _, count in met)
        places = "; ".join(f"{_short_where(request, m)}" for m, _ in met[:4])
        more = f" and {many(len(met) - 4, 'more')}" if len(met) > 4 else ""
        words += f"; it also fills {many(heads, 'head')} of other shortages ({places}{more})"
    return words


def _short_where(request: SolveRequest, marker: Shortage) -> str:
    """``Late 2027-02-15``, ``manager on Early 2027-02-10``."""
    names = {s.id: s.name for s in request.shifts}
    shifts = [marker.shift_id] if marker.shift_id is not None else list(marker.shift_ids or ())
    shift = " or ".join(names.get(s, s) for s in shifts)
    what = {"staffing": "", "manager": "manager on ", "cross_shift": ""}.get(
        marker.kind, f"{marker.duty_id} on "
    )
    return f"{what}{shift} {marker.date.isoformat()}"


def fill_words(
    request: SolveRequest,
    marker: Shortage,
    before: AuditReport,
    after: AuditReport,
    changes: Sequence[Change],
    newcomers: Sequence[str],
) -> str:
    """The fill in sentences: who takes the head, every cell that changes (the first
    few by name), what stays short, and the missing heads and objective before and
    after."""
    missing_before = sum(m.missing for m in before.shortages)
    missing_after = sum(m.missing for m in after.shortages)
    delta = after.objective_value - before.objective_value
    return (
        f"{where(request, marker)} can be filled: {who_takes(newcomers)}; "
        f"{_changes_words(request, changes)}; {left_short(request, marker, before, after)}; "
        f"the roster's missing heads fall from {missing_before} to {missing_after} and "
        f"its objective changes by {delta:+,g}"
    )
