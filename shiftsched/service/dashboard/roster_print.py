"""A finished job's roster as a sheet to print: one row per employee, one column per date,
the shift id in each cell worked and nothing on a day off, with the request's shift
names as a legend and the shortages listed under it.

Why the audit: the sheet is rebuilt from the job's stored request and answer each time
it is asked for, and the objective and shortages it prints are the independent audit's
(``shiftsched.checking.audit``) of that roster. When the stored answer reported other figures, the
sheet says so rather than print one set silently.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from shiftsched.checking.audit import AuditReport, audit, compare_with_metrics, read_response
from shiftsched.contract.v1 import Assignment, Shift, Shortage, SolveRequest
from shiftsched.errors import InvalidRequest
from shiftsched.service.solving.job_records import job_input, solved_request
from shiftsched.service.store import Job


@dataclass(frozen=True)
class SheetRow:
    employee_id: str
    name: str
    cells: list[str]  # one per date: "shift" or "shift/duty", "" on a day off


@dataclass(frozen=True)
class LegendEntry:
    shift_id: str
    name: str
    hours: str  # "07:00-15:00", or "" for a shift without working hours


@dataclass(frozen=True)
class RosterSheet:
    title: str
    timezone: str
    dates: list[dt.date]
    rows: list[SheetRow]
    legend: list[LegendEntry]
    duties: list[tuple[str, str]]  # (id, name) of the duties the roster holds
    objective: float
    shortages: list[str]  # in words, in the audit's order
    hard_violations: int
    differences: list[str]  # the stored answer against the audit; empty: they agree

    @property
    def objective_text(self) -> str:
        value = self.objective
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def roster_sheet(job: Job) -> RosterSheet | None:
    """The sheet of a completed job, or None when it has no roster this page can read."""
    if job.status != "completed":
        return None
    try:
        ask = job_input(job)
        request = solved_request(ask)
        read = read_response(job.response_json)
    except (InvalidRequest, ValueError, TypeError):
        return None
    report = audit(request, read.assignments, history=getattr(ask, "history", None))
    differences = (
        compare_with_metrics(report, read.metrics, read.shortages)
        if read.metrics is not None
        else ["the stored answer has no metrics to compare"]
    )
    return _sheet(request, read.assignments, report, differences)


def _sheet(
    request: SolveRequest,
    assignments: list[Assignment],
    report: AuditReport,
    differences: list[str],
) -> RosterSheet:
    period = request.schedule_period
    dates = [
        period.start_date + dt.timedelta(days=offset)
        for offset in range((period.end_date - period.start_date).days + 1)
    ]
    worked: dict[tuple[str, dt.date], list[str]] = defaultdict(list)
    for item in assignments:
        text = item.shift_id if item.duty_id is None else f"{item.shift_id}/{item.duty_id}"
        worked[(item.employee_id, item.date)].append(text)
    rows = [
        SheetRow(e.id, e.name or e.id, [", ".join(worked.get((e.id, d), [])) for d in dates])
        for e in request.employees
    ]
    held = {item.duty_id for item in assignments if item.duty_id is not None}
    return RosterSheet(
        title=f"Roster {period.start_date.isoformat()} to {period.end_date.isoformat()}",
        timezone=period.timezone,
        dates=dates,
        rows=rows,
        legend=[_legend_entry(shift) for shift in request.shifts],
        duties=[(duty.id, duty.name) for duty in request.duties if duty.id in held],
        objective=report.objective_value,
        shortages=[shortage_words(request, marker) for marker in report.shortages],
        hard_violations=len(report.hard_violations),
        differences=differences,
    )


def _legend_entry(shift: Shift) -> LegendEntry:
    hours = shift.working_hours
    span = "" if hours is None else f"{hours.start_time}-{hours.end_time}"
    return LegendEntry(shift.id, shift.name, span)


def shortage_words(request: SolveRequest, marker: Shortage) -> str:
    """``2026-03-02, Day: 1 of 2 heads (1 missing)``, by the request's names."""
    shifts = {shift.id: shift.name for shift in request.shifts}
    duties = {duty.id: duty.name for duty in request.duties}
    if marker.kind == "cross_shift":
        where = " + ".join(shifts.get(s, s) for s in marker.shift_ids or [])
    else:
        where = shifts.get(marker.shift_id or "", marker.shift_id or "")
    one = marker.required == 1
    what = {"manager": "manager" if one else "managers"}.get(
        marker.kind, "head" if one else "heads"
    )
    if marker.kind == "duty":
        duty = duties.get(marker.duty_id or "", marker.duty_id)
        what = f"{'holder' if one else 'holders'} of {duty}"
    return (
        f"{marker.date.isoformat()}, {where}: {marker.assigned} of {marker.required} "
        f"{what} ({marker.missing} missing)"
    )
