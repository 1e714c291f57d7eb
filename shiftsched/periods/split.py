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
refused (ValueError): :func:`limits_as_horizon` first lifts them out into a horizon,
whose targets each part then plans its share of (docs/semantics.md, "Horizon targets").
Monthly and weekly ranges hold per calendar month and ISO week, so a part applies them
to its share of a month or week as the engine treats any partial one: a minimum
prorated, a maximum whole (docs/semantics.md, "Calendar"). That is exactly what breaks
at the seam without a history: each part may use the whole maximum of a week the cut
splits.

The *next* period is the request carried forward (:func:`next_period`): the same staff
and rules on the dates after it, each day's demand that of the latest day of the same
weekday, and what was wished or fixed for a date of the old period left behind. It is the
request a plan after a history (shiftsched.contract.history) starts from; :func:`following`
is the one of the next calendar period (the next month after a month).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence

from shiftsched.contract.horizon_targets import (
    DEFAULT_SHIFT_WEIGHT,
    HorizonShiftCount,
    HorizonTarget,
    PlanHorizon,
)
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import (
    MAX_COUNT,
    Assignment,
    Duty,
    Employee,
    Shift,
    ShiftCountLimit,
    SolveRequest,
)


def split(request: SolveRequest, first_days: int) -> tuple[SolveRequest, SolveRequest]:
    """``request`` as two consecutive periods, the first of ``first_days`` days."""
    period = request.schedule_period
    days = (period.end_date - period.start_date).days + 1
    if not 0 < first_days < days:
        raise ValueError(f"a cut after {first_days} day(s) leaves a period empty ({days} days)")
    if any(e.shift_count_limits for e in request.employees):
        raise ValueError(
            "shift-count limits hold over the whole period: no part can keep them "
            "(limits_as_horizon lifts them into a horizon the parts share)"
        )
    cut = period.start_date + dt.timedelta(days=first_days)
    before = _part(request, period.start_date, cut - dt.timedelta(days=1), 0, first_days)
    after = _part(request, cut, period.end_date, first_days, days)
    return _checked(before), _checked(after)


def limits_as_horizon(
    request: SolveRequest, weight: int = DEFAULT_SHIFT_WEIGHT
) -> tuple[SolveRequest, PlanHorizon | None]:
    """``request`` without its shift-count limits, and a horizon over its period that
    holds them as shift-count targets (None when it has none), each shift outside its
    share costing ``weight``. The v1 limits are hard; as targets they are soft, so a
    part may miss its share, and the last part is priced against the limits
    themselves."""
    targets = [
        HorizonTarget(
            employee_id=e.id,
            shift_counts=[
                HorizonShiftCount(shift_id=c.shift_id, min=c.min, max=c.max)
                for c in e.shift_count_limits
            ],
        )
        for e in request.employees
        if e.shift_count_limits
    ]
    if not targets:
        return request, None
    period = request.schedule_period
    horizon = PlanHorizon(
        start=period.start_date, end=period.end_date, targets=targets, shift_weight=weight
    )
    employees = [e.model_copy(update={"shift_count_limits": []}) for e in request.employees]
    return _checked(request.model_copy(update={"employees": employees})), horizon


def join(*rosters: Sequence[Assignment]) -> list[Assignment]:
    """The assignments of consecutive periods as one roster, in date order."""
    return sorted((a for roster in rosters for a in roster), key=lambda a: (a.date, a.employee_id))


def next_period(request: SolveRequest, days: int, start: dt.date | None = None) -> SolveRequest:
    """``request`` carried forward to the ``days`` days from ``start`` (by default the day
    after its period).

    - Demand (staffing, manager, duty, cross-shift) is repeated per weekday: a day takes
      the demand of the latest day of the period on the same weekday (a period shorter
      than a week is repeated as it is).
    - Holidays, preferences and fixed assignments are for dates of the old period: they
      are dropped, to be added for the new dates.
    - Shift-count limits hold per period: kept as they are for a period as long, and
      never stricter per day for another length (a minimum scaled down to a shorter
      period, a maximum up to a longer one, rounded outwards).
    - Everything else (staff, shifts, rules, options) is kept.
    """
    period = request.schedule_period
    start = period.end_date + dt.timedelta(days=1) if start is None else start
    if days < 1:
        raise ValueError(f"a next period of {days} day(s) is empty")
    if start <= period.end_date:
        raise ValueError(
            f"the next period must start after {period.end_date.isoformat()}, "
            f"not on {start.isoformat()}"
        )
    dates = [start + dt.timedelta(days=i) for i in range(days)]
    sources = [_same_weekday(period.start_date, period.end_date, day) for day in dates]
    old_days = (period.end_date - period.start_date).days + 1
    cross = [
        x.model_copy(update={"date": day})
        for day, source in zip(dates, sources, strict=True)
        for x in request.constraints.cross_shift_demands
        if x.date == period.start_date + dt.timedelta(days=source)
    ]
    return _checked(
        request.model_copy(
            update={
                "schedule_period": period.model_copy(
                    update={"start_date": start, "end_date": dates[-1], "holidays": []}
                ),
                "shifts": [_shift_repeated(s, sources) for s in request.shifts],
                "duties": [_duty_repeated(k, sources) for k in request.duties],
                "employees": [_employee_carried(e, old_days, days) for e in request.employees],
                "constraints": request.constraints.model_copy(
                    update={"cross_shift_demands": cross}
                ),
            }
        )
    )


def following_days(start: dt.date, end: dt.date) -> int:
    """How long the period after ``start..end`` is: as many whole calendar months when
    the period is whole months (February is followed by all of March), else as many days."""
    after = end + dt.timedelta(days=1)
    if start.day != 1 or after.day != 1:
        return (end - start).days + 1
    months = (after.year - start.year) * 12 + after.month - start.month
    index = after.month - 1 + months
    last = dt.date(after.year + index // 12, index % 12 + 1, 1) - dt.timedelta(days=1)
    return (last - end).days


def following(request: SolveRequest) -> SolveRequest:
    """The request of the next calendar period (:func:`following_days`), carried
    forward by :func:`next_period`."""
    period = request.schedule_period
    return next_period(request, following_days(period.start_date, period.end_date))


def _same_weekday(first: dt.date, last: dt.date, day: dt.date) -> int:
    """The index in ``first..last`` of its latest day on ``day``'s weekday; for a period
    shorter than a week without that weekday, ``day``'s place in the period repeated."""
    length = (last - first).days + 1
    back = (last.weekday() - day.weekday()) % 7
    if back < length:
        return length - 1 - back
    return (day - first).days % length


def _shift_repeated(shift: Shift, sources: Sequence[int]) -> Shift:
    managers = shift.manager_demand
    return shift.model_copy(
        update={
            "staffing_demand": [shift.staffing_demand[i] for i in sources],
            "manager_demand": None if managers is None else [managers[i] for i in sources],
        }
    )


def _duty_repeated(duty: Duty, sources: Sequence[int]) -> Duty:
    demand = duty.staffing_demand_by_shift
    return duty.model_copy(
        update={
            "staffing_demand_by_shift": {
                sid: [ranges[i] for i in sources] for sid, ranges in demand.items()
            }
        }
    )


def _employee_carried(employee: Employee, old_days: int, new_days: int) -> Employee:
    """``employee`` for the next period: no dated wish or fixed shift, limits rescaled."""
    return employee.model_copy(
        update={
            "preferences": [],
            "fixed_assignments": [],
            "shift_count_limits": [
                _limit_for(limit, old_days, new_days) for limit in employee.shift_count_limits
            ],
        }
    )


def _limit_for(limit: ShiftCountLimit, old_days: int, new_days: int) -> ShiftCountLimit:
    """A per-period count limit for a period of ``new_days`` instead of ``old_days``."""
    low, high = limit.min, limit.max
    if low is not None and new_days < old_days:
        low = math.floor(low * new_days / old_days)
    if high is not None and new_days > old_days:
        high = min(MAX_COUNT, math.ceil(high * new_days / old_days))
    return limit.model_copy(update={"min": low, "max": high})


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
