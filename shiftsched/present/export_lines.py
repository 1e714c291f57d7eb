"""A roster's assignments resolved against its request, the lines every export writes.

Each assignment gets its employee, shift and duty as the request defines them and its
local start and end (a night shift ends on the next date); an assignment the request does
not know is an :class:`~shiftsched.errors.InvalidRequest` with JSON paths, never a
half-written file.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from shiftsched.contract.parse import ErrorCode
from shiftsched.contract.v1 import Assignment, Duty, Employee, Shift, SolveRequest
from shiftsched.errors import FieldError, InvalidRequest
from shiftsched.questions.inquiry import fit_faults

JsonPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class RosterLine:
    """One assignment with what the request says about it; ``start``/``end`` are aware
    local datetimes, or None for a shift without working hours."""

    date: dt.date
    employee: Employee
    shift: Shift
    duty: Duty | None
    start: dt.datetime | None
    end: dt.datetime | None


def shift_times(
    shift: Shift, date: dt.date, zone: ZoneInfo
) -> tuple[dt.datetime, dt.datetime] | None:
    """Local start and end of ``shift`` on ``date``; the end is on the next date when
    ``end_time <= start_time``. None without working hours. A time the clock skips
    (02:30 when it jumps from 02:00 to 03:00) is read with the offset before the jump,
    as RFC 5545 reads it, and shown as the time it is (03:30)."""
    hours = shift.working_hours
    if hours is None:
        return None
    start_time = dt.time.fromisoformat(hours.start_time)
    end_time = dt.time.fromisoformat(hours.end_time)
    end_date = date + dt.timedelta(days=1) if end_time <= start_time else date
    return (
        _on_the_clock(dt.datetime.combine(date, start_time, tzinfo=zone), zone),
        _on_the_clock(dt.datetime.combine(end_date, end_time, tzinfo=zone), zone),
    )


def _on_the_clock(moment: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    return moment.astimezone(dt.UTC).astimezone(zone)


def roster_lines(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    *,
    employee_id: str | None = None,
    at: JsonPath = ("assignments",),
) -> list[RosterLine]:
    """The assignments resolved against ``request``, by date, then shift and employee in
    request order; only ``employee_id``'s when given. Every unknown employee, shift or
    duty and every date outside the period is one fault, at ``at`` + index + field, and
    a roster of another request one fault at ``at`` (shiftsched.questions.inquiry.fit_faults)."""
    employees = {e.id: e for e in request.employees}
    shifts = {s.id: s for s in request.shifts}
    duties = {d.id: d for d in request.duties}
    if employee_id is not None and employee_id not in employees:
        raise InvalidRequest(
            [
                FieldError(
                    ("employee_id",),
                    f"no employee with id {employee_id!r} in the request",
                    ErrorCode.UNKNOWN_EMPLOYEE_ID.value,
                )
            ]
        )
    faults = fit_faults(request, assignments, at)
    if faults:
        raise InvalidRequest(faults)
    zone = ZoneInfo(request.schedule_period.timezone)
    lines: list[RosterLine] = []
    # Every employee on a shift that date has the same times: worked out once each.
    known: dict[tuple[str, dt.date], tuple[dt.datetime, dt.datetime] | None] = {}
    for a in assignments:
        if employee_id is not None and a.employee_id != employee_id:
            continue
        shift = shifts[a.shift_id]
        key = (a.shift_id, a.date)
        if key not in known:
            known[key] = shift_times(shift, a.date, zone)
        times = known[key]
        lines.append(
            RosterLine(
                date=a.date,
                employee=employees[a.employee_id],
                shift=shift,
                duty=None if a.duty_id is None else duties[a.duty_id],
                start=None if times is None else times[0],
                end=None if times is None else times[1],
            )
        )
    shift_order = {s.id: i for i, s in enumerate(request.shifts)}
    employee_order = {e.id: i for i, e in enumerate(request.employees)}
    lines.sort(key=lambda x: (x.date, shift_order[x.shift.id], employee_order[x.employee.id]))
    return lines


def employee_name(employee: Employee) -> str:
    return employee.name or employee.id
