"""One request cut into consecutive periods, and their rosters joined again.

Why: a ward plans month after month, and the rules that matter most to staff (the run of
working days, a night followed by an early, a week the boundary cuts in two) span the seam
between two periods. To measure what planning period by period costs, and whether a
plan respects the seam, the same request is cut at a date, each part planned alone, and
the rosters joined and checked against the whole request (``benchmarks/seam.py``).

A part is the request restricted to its dates: every per-day list (staffing, manager and
duty demand) is sliced, and every dated item (holidays, preferences, fixed assignments,
cross-shift demands) goes to the part its date falls in. What is counted over the whole
period has no share that is right for a part, so a request with shift-count limits is
refused (ValueError). Monthly and weekly ranges hold per calendar month and ISO week, so
a part applies them to its share of a month or week as the engine treats any partial one:
a minimum prorated, a maximum whole (docs/semantics.md, "Calendar"). That is exactly what
breaks at the seam without a history: each part may use the whole maximum of a week the
cut splits.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from engine.contract import Assignment, Employee, Shift, SolveRequest
from engine.rules import parse_request


def split(request: SolveRequest, first_days: int) -> tuple[SolveRequest, SolveRequest]:
    """``request`` as two consecutive periods, the first of ``first_days`` days."""
    period = request.schedule_period
    days = (period.end_date - period.start_date).days + 1
    if not 0 < first_days < days:
        raise ValueError(f"a cut after {first_days} day(s) leaves a period empty ({days} days)")
    if any(e.shift_count_limits for e in request.employees):
        raise ValueError("shift-count limits hold over the whole period: no part can keep them")
    cut = period.start_date + dt.timedelta(days=first_days)
    before = _part(request, period.start_date, cut - dt.timedelta(days=1), 0, first_days)
    after = _part(request, cut, period.end_date, first_days, days)
    return _checked(before), _checked(after)


def join(*rosters: Sequence[Assignment]) -> list[Assignment]:
    """The assignments of consecutive periods as one roster, in date order."""
    return sorted((a for roster in rosters for a in roster), key=lambda a: (a.date, a.employee_id))


def _checked(part: SolveRequest) -> SolveRequest:
    """A part, checked as any request is: it is a request a client could have sent."""
    return parse_request(part.model_dump(mode="json", exclude_none=True))


def _part(
    request: SolveRequest, start: dt.date, end: dt.date, first: int, stop: int
) -> SolveRequest:
    """The request on ``start..end``, whose days are ``first..stop-1`` of the whole."""

    def inside(day: dt.date) -> bool:
        return start <= day <= end

    period = request.schedule_period.model_copy(
        update={
            "start_date": start,
            "end_date": end,
            "holidays": [d for d in request.schedule_period.holidays if inside(d)],
        }
    )
    shifts = [_shift_part(s, first, stop) for s in request.shifts]
    duties = [
        k.model_copy(
            update={
                "staffing_demand_by_shift": {
                    sid: ranges[first:stop] for sid, ranges in k.staffing_demand_by_shift.items()
                }
            }
        )
        for k in request.duties
    ]
    employees = [_employee_part(e, inside) for e in request.employees]
    constraints = request.constraints.model_copy(
        update={
            "cross_shift_demands": [
                x for x in request.constraints.cross_shift_demands if inside(x.date)
            ]
        }
    )
    return request.model_copy(
        update={
            "schedule_period": period,
            "shifts": shifts,
            "duties": duties,
            "employees": employees,
            "constraints": constraints,
        }
    )


def _shift_part(shift: Shift, first: int, stop: int) -> Shift:
    managers = shift.manager_demand
    return shift.model_copy(
        update={
            "staffing_demand": shift.staffing_demand[first:stop],
            "manager_demand": None if managers is None else managers[first:stop],
        }
    )


def _employee_part(employee: Employee, inside: Callable[[dt.date], bool]) -> Employee:
    return employee.model_copy(
        update={
            "preferences": [p for p in employee.preferences if inside(p.date)],
            "fixed_assignments": [f for f in employee.fixed_assignments if inside(f.date)],
        }
    )
