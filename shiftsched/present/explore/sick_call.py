"""A sick call: the published roster re-planned around an absence, and who could fill in.

Both objectives of the re-plan line are the audit's, at the request's own weights, and
each fill is priced against the published roster (shiftsched.questions.sick_call), so
every figure reads against what everyone was given.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import polars as pl

from shiftsched.checking.audit import AuditReport, audit
from shiftsched.contract.planning import Absence, RecommendResponse, ReplanRequest, ReplanResponse
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.periods.replan import replan
from shiftsched.present.charts import replan_heatmap
from shiftsched.present.explore.hand_edit import NOBODY
from shiftsched.present.frames import assignments_frame, changes_frame, recommendations_frame
from shiftsched.present.notebook_limits import notebook_limits, until_first_roster
from shiftsched.present.words import many
from shiftsched.questions.sick_call import fills_of, left_cells

SICK_INTRO = (
    "## A sick call\n"
    "Mark someone sick (here, or click their cell on the roster and *Mark "
    "sick*): the roster above, as published, is re-planned around the absence, "
    "moving as few people as it can (500 per changed assignment on top of the "
    "objective), and the employees who could take the slot they leave are "
    "ranked by the audit. Every figure is at the request's own weights."
)
NOBODY_SICK = "Pick a sick employee to re-plan the roster and see who could fill in."


def marked_absence(
    request: SolveRequest, roster: Sequence[Assignment], employee: str, first: str, days: int
) -> tuple[Absence | None, list[dt.date], list[Assignment]]:
    """The absence the controls mark (None for nobody), its dates inside the period, and
    the cells of the roster it leaves (none when the person is off on every one)."""
    if employee == NOBODY:
        return None, [], []
    start = dt.date.fromisoformat(first)
    dates = [
        start + dt.timedelta(days=i)
        for i in range(days)
        if start + dt.timedelta(days=i) <= request.schedule_period.end_date
    ]
    absence = Absence(employee_id=employee, dates=dates)
    return absence, dates, left_cells(roster, absence)


def nothing_left_words(absence: Absence, dates: Sequence[dt.date]) -> str:
    """What a sick mark on days the person does not work says."""
    span = " .. ".join(sorted({dates[0].isoformat(), dates[-1].isoformat()})) if dates else ""
    return f"**{absence.employee_id} does not work on {span} in this roster: nothing to re-plan.**"


def replan_sick(
    request: SolveRequest,
    roster: Sequence[Assignment],
    absence: Absence,
    dates: Sequence[dt.date],
    keep_past: bool,
    time_limit: float,
    work_limit: float,
) -> ReplanResponse:
    """The published roster re-planned around ``absence``; ``keep_past`` keeps the days
    before it as published."""
    ask = ReplanRequest(
        request=request,
        roster=list(roster),
        absences=[absence],
        pin_before=dates[0] if keep_past else None,
    )
    return until_first_roster(
        lambda limits: replan(ask, limits), notebook_limits(time_limit, work_limit)
    )


def no_replan_words(replanned: ReplanResponse, absence: Absence) -> str:
    """Why no re-plan keeps every hard rule: the diagnosis' first cause, then the others."""
    error = replanned.error
    causes = error.diagnosis.causes if error and error.diagnosis else []
    why = (
        f" The first cause: **{causes[0].message}** (`{causes[0].field}`)."
        + "".join(f"\n- {c.message} (`{c.field}`)" for c in causes[1:])
        if causes
        else f" {error.message if error else ''}"
    )
    return (
        f"**No re-planned roster** keeps every hard rule with "
        f"{absence.employee_id} off ({error.code if error else 'unknown'})." + why
    )


@dataclass(frozen=True)
class ReplanView:
    """The re-plan as shown: both audits, the changed cells and the heatmap."""

    published_report: AuditReport
    replan_report: AuditReport
    changes_table: pl.DataFrame
    chart: alt.LayerChart
    words: str


def replan_shown(
    request: SolveRequest,
    roster: Sequence[Assignment],
    replanned: ReplanResponse,
    new: Sequence[Assignment],
    absences: Sequence[Absence] = (),
) -> ReplanView:
    """The re-plan ``new`` (``replanned``'s roster) against the published ``roster``,
    both priced with the re-plan's ``absences`` (they lower the day minimums)."""
    published = audit(request, roster, absences=absences)
    after = audit(request, new, absences=absences)
    changes = changes_frame(replanned.changes)
    status = replanned.solution.metrics.status if replanned.solution else "unknown"
    words = (
        f"**{many(len(replanned.changes), 'changed assignment')}**; objective of the "
        f"published roster → the re-planned one: "
        f"{published.objective_value:,.0f} → "
        f"**{after.objective_value:,.0f}** "
        f"({status}), audit: "
        f"{'no hard rule broken' if after.feasible else 'hard rules broken'}. "
        "Changed cells are outlined."
    )
    chart = replan_heatmap(assignments_frame(request, new), changes)
    return ReplanView(published, after, changes, chart, words)


@dataclass(frozen=True)
class Fills:
    """Who could take the first slot a sick call leaves, ranked, and what to say of it."""

    left_slot: Assignment
    recommendations: RecommendResponse
    table: pl.DataFrame
    words: str
    warning: str | None


def fills(
    request: SolveRequest,
    roster: Sequence[Assignment],
    absence: Absence,
    replan_failed: bool,
) -> Fills:
    """The top 5 fills, priced against the published roster; ``replan_failed``: no
    re-plan kept every hard rule, so the warning says none of them can."""
    slot, ranked = fills_of(request, roster, absence, top=5)
    table = recommendations_frame(ranked.recommendations, request)
    duty = f" ({slot.duty_id})" if slot.duty_id else ""
    all_break = all(not r.feasible for r in ranked.recommendations)
    warning = None
    if replan_failed:
        warning = (
            f"No roster keeps every hard rule with {absence.employee_id} off (above), "
            "so none of these fills can stand without breaking one: each row says "
            "which (*hard_rules_broken*)."
        )
    elif all_break:
        warning = "Every fill breaks a hard rule: each row says which (*hard_rules_broken*)."
    words = (
        f"### Who could take {slot.shift_id}{duty} on "
        f"{slot.date.isoformat()}\n"
        f"The top {table.height} of {ranked.candidates} "
        f"candidates, without re-solving. Each *objective_delta* is the audit of the "
        f"published roster with {absence.employee_id} out of the slot and the "
        "candidate in it, minus the audit of the published roster; *hard_rules_broken* "
        "lists what that roster breaks and the published one does not."
    )
    return Fills(slot, ranked, table, words, warning)
