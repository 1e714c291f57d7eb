"""A finished job's roster as a sheet to print: one row per employee, one column per date,
a short code in each cell worked and nothing on a day off, with the codes' legend (the
request's shift and duty names) and the shortages listed under it.

Why short codes and weeks: a month with duties written out ("e04/check_in") does not
fit 31 columns of A4 landscape, nor a screen. So each shift keeps an id of at most four
characters as its code (a longer one is cut, numbered when two would clash), each duty
the number of its place in the request ("e04/3"), and the month is cut into weeks, Monday
to Sunday, one table each: one or two weeks a page. Holidays are marked in the dates.

Why the audit: the sheet is rebuilt from the job's stored request and answer each time
it is asked for, and the objective and shortages it prints are the independent audit's
(``shiftsched.checking.audit``) of that roster. When the stored answer reported other figures, the
sheet says so rather than print one set silently.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from shiftsched.checking.audit import AuditReport, audit, compare_with_metrics, read_response
from shiftsched.contract.v1 import Assignment, Shift, Shortage, SolveRequest
from shiftsched.errors import InvalidRequest
from shiftsched.service.solving.job_records import job_input, solved_request
from shiftsched.service.store import Job

SHIFT_CODE_LENGTH: Final = 4  # "pk17": a cell with a duty stays within 7 characters
SMALL_STAFF: Final = 16  # rows that leave room for two weeks on one A4 landscape page


@dataclass(frozen=True)
class SheetRow:
    employee_id: str
    name: str
    cells: list[str]  # one per date: a shift code, "code/duty number", "" on a day off


@dataclass(frozen=True)
class LegendEntry:
    shift_id: str
    name: str
    hours: str  # "07:00-15:00", or "" for a shift without working hours
    code: str = ""  # what the cells show for it


@dataclass(frozen=True)
class Week:
    """A run of the period's dates, Monday to Sunday (or cut by the period's ends)."""

    start: int  # index of its first date in the sheet's dates
    dates: list[dt.date]
    new_page: bool  # printed from the top of a page

    @property
    def label(self) -> str:
        first, last = self.dates[0], self.dates[-1]
        return f"{first:%a %d %b} to {last:%a %d %b %Y}"


@dataclass(frozen=True)
class RosterSheet:
    title: str
    timezone: str
    dates: list[dt.date]
    rows: list[SheetRow]
    legend: list[LegendEntry]
    duties: list[tuple[str, str]]  # (code, name) of the duties the roster holds
    holidays: frozenset[dt.date]
    weeks: list[Week]
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
    codes = shift_codes([shift.id for shift in request.shifts])
    numbers = {duty.id: str(place) for place, duty in enumerate(request.duties, start=1)}
    worked: dict[tuple[str, dt.date], list[str]] = defaultdict(list)
    for item in assignments:
        code = codes.get(item.shift_id, item.shift_id)
        duty = item.duty_id
        text = code if duty is None else f"{code}/{numbers.get(duty, duty)}"
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
        legend=[_legend_entry(shift, codes[shift.id]) for shift in request.shifts],
        duties=[(numbers[duty.id], duty.name) for duty in request.duties if duty.id in held],
        holidays=frozenset(period.holidays),
        weeks=weeks_of(dates, per_page=2 if len(rows) <= SMALL_STAFF else 1),
        objective=report.objective_value,
        shortages=[shortage_words(request, marker) for marker in report.shortages],
        hard_violations=len(report.hard_violations),
        differences=differences,
    )


def shift_codes(ids: Sequence[str]) -> dict[str, str]:
    """Each shift id's code: itself when short, else its first characters, numbered
    ("ear1", "ear2") when two long ids would share them."""
    cut = SHIFT_CODE_LENGTH - 1
    prefixes = [
        shift_id if len(shift_id) <= SHIFT_CODE_LENGTH else shift_id[:cut] for shift_id in ids
    ]
    taken = set(ids) | set(prefixes)
    codes: dict[str, str] = {}
    for shift_id, prefix in zip(ids, prefixes, strict=True):
        if prefix == shift_id or (prefixes.count(prefix) == 1 and prefix not in ids):
            codes[shift_id] = prefix
            continue
        number = 1
        while f"{prefix}{number}" in taken:
            number += 1
        codes[shift_id] = f"{prefix}{number}"
        taken.add(codes[shift_id])
    return codes


def weeks_of(dates: Sequence[dt.date], per_page: int) -> list[Week]:
    """The dates cut at each Monday; every ``per_page``-th week starts a printed page."""
    weeks: list[Week] = []
    for index, day in enumerate(dates):
        if not weeks or day.weekday() == 0:
            weeks.append(Week(index, [], new_page=len(weeks) % per_page == 0 and bool(weeks)))
        weeks[-1].dates.append(day)
    return weeks


def _legend_entry(shift: Shift, code: str) -> LegendEntry:
    hours = shift.working_hours
    span = "" if hours is None else f"{hours.start_time}-{hours.end_time}"
    return LegendEntry(shift.id, shift.name, span, code)


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
