"""Move one person by hand: the controls a picked cell fills in, and the audit's verdict.

The audit prices the move without solving again. A "move" to what the cell already
holds moves nobody, so nothing is judged until a cell really changes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from shiftsched.checking.items import term_words
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.present.words import many
from shiftsched.questions.edit import EditVerdict, judge_edit, reassign

NOBODY = "(nobody)"  # the employee control's first choice: nobody is moved
OFF = "off"  # the shift control's choice for no shift
NO_DUTY = "none"  # the duty control's choice for no duty

TERM_SCHEMA = {
    "what": pl.String,
    "before": pl.Float64,
    "after": pl.Float64,
    "delta": pl.Float64,
    "name": pl.String,
}


def period_dates(request: SolveRequest) -> list[str]:
    """Every date of the request's period, ISO-written, first to last."""
    period = request.schedule_period
    return [
        (period.start_date + dt.timedelta(days=d)).isoformat()
        for d in range((period.end_date - period.start_date).days + 1)
    ]


def picked_in(request: SolveRequest, pick: tuple[str, str] | None) -> tuple[str | None, str | None]:
    """The (employee_id, date) of a picked cell when both are the request's, else
    (None, None)."""
    ids = [e.id for e in request.employees]
    if pick and pick[0] in ids and pick[1] in period_dates(request):
        return pick
    return None, None


@dataclass(frozen=True)
class EditChoices:
    """What the hand edit's controls offer, and what a picked cell fills them in with."""

    employees: list[str]
    dates: list[str]
    shifts: list[str]
    duties: list[str]
    employee: str
    date: str
    shift: str
    duty: str


def edit_choices(
    request: SolveRequest, roster: Sequence[Assignment], pick: tuple[str, str] | None
) -> EditChoices:
    """The controls' options; a picked cell gives that person, that date and the shift
    and duty they work there now, to be changed."""
    dates = period_dates(request)
    who, when = picked_in(request, pick)
    now = next((a for a in roster if (a.employee_id, a.date.isoformat()) == pick), None)
    return EditChoices(
        employees=[NOBODY, *(e.id for e in request.employees)],
        dates=dates,
        shifts=[OFF] + [s.id for s in request.shifts],
        duties=[NO_DUTY] + [k.id for k in request.duties],
        employee=who or NOBODY,
        date=when or dates[0],
        shift=now.shift_id if now else OFF,
        duty=now.duty_id if now and now.duty_id else NO_DUTY,
    )


def edit_intro(roster: Sequence[Assignment]) -> str:
    """The section's heading and what it does."""
    return (
        "## Move one person by hand\n"
        f"Change one of the roster's {len(roster)} assignments (or click a cell of "
        "the roster and *Edit this cell*) and the audit prices the result, without "
        "solving again."
    )


def moved(
    roster: Sequence[Assignment], employee: str, date: str, shift: str, duty: str
) -> list[Assignment] | None:
    """The roster with one cell changed as the controls say; None when nobody is picked
    or the cell already holds that."""
    if employee == NOBODY:
        return None
    edited = reassign(
        roster,
        employee,
        dt.date.fromisoformat(date),
        None if shift == OFF else shift,
        None if duty == NO_DUTY else duty,
    )
    return None if sorted(edited, key=str) == sorted(roster, key=str) else edited


def nothing_moved_words(employee: str, date: str) -> str:
    """What the section says while no cell changes."""
    if employee == NOBODY:
        return "Pick an employee, a date and a shift to see what the audit says of the move."
    return (
        f"Nothing moves yet: that is what {employee} works on "
        f"{date} in the roster above. Pick another shift, or off."
    )


def judged(
    request: SolveRequest,
    roster: Sequence[Assignment],
    edited: Sequence[Assignment],
    preference_weight: int,
) -> tuple[EditVerdict, pl.DataFrame]:
    """The audit's verdict on the move, and the soft terms it moves, in words."""
    verdict = judge_edit(request, roster, edited, preference_weight=preference_weight)
    changed = pl.DataFrame(
        [
            {
                "what": term_words(request, c.name),
                "before": c.before,
                "after": c.after,
                "delta": c.delta,
                "name": c.name,
            }
            for c in verdict.changed_terms
        ],
        schema=TERM_SCHEMA,
    )
    return verdict, changed


def verdict_words(verdict: EditVerdict) -> str:
    """The hard rules the move breaks, in words with their input items, and the change
    in objective."""
    broken = verdict.new_hard_violations
    headline = (
        f"**Breaks {many(len(broken), 'hard rule')}:** "
        + "; ".join(f"{v.message} (`{v.field}`)" if v.field else v.message for v in broken[:5])
        if broken
        else "**Still feasible.**"
    )
    return f"{headline} Objective change: **{verdict.objective_delta:+,.0f}**."
