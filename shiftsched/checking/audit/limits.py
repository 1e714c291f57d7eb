"""Counts and limits (docs/semantics.md, "Workload"): shift count limits over the period,
working days per month and per week, weekly hours; weeks and months read across the seam
when there is a history."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from shiftsched.checking.audit.context import (
    _ceil_div,
    _Context,
    _days_in_month,
    _group_dates,
    _month_key,
    _prorate,
    _week_key,
)
from shiftsched.checking.audit.findings import _Findings
from shiftsched.checking.audit.terms import DAYS_PER_MONTH_MIN, DAYS_PER_WEEK, WEEKLY_HOURS


def _check_shift_count_limits(ctx: _Context, out: _Findings) -> None:
    """Per employee and shift, the count over the whole period lies in [min, max]."""
    for employee in ctx.scoped_employees:
        counts = Counter(a.shift_id for a in ctx.of(employee.id))
        for j, limit in enumerate(employee.shift_count_limits):
            at = ctx.employee_field(employee.id, f".shift_count_limits[{j}]")
            count = counts.get(limit.shift_id, 0)
            if limit.min is not None and count < limit.min:
                out.broken(
                    "shift_count_limit",
                    f"{employee.id} works shift {limit.shift_id} {count} times, "
                    f"below the minimum {limit.min}",
                    employee.id,
                    shift_id=limit.shift_id,
                    at=at,
                )
            if limit.max is not None and count > limit.max:
                out.broken(
                    "shift_count_limit",
                    f"{employee.id} works shift {limit.shift_id} {count} times, "
                    f"above the maximum {limit.max}",
                    employee.id,
                    shift_id=limit.shift_id,
                    at=at,
                )


def _seam_groups(ctx: _Context, key: Any) -> dict[str, list[dt.date]]:
    """Weeks or months of the history and the period that reach a date of the period,
    each with its dates in both."""
    inside = {key(day) for day in ctx.dates}
    return {k: days for k, days in _group_dates(ctx.joined, key).items() if k in inside}


def _days_per_month(ctx: _Context, out: _Findings) -> None:
    """Max hard per month (not prorated); min soft, prorated for partial months and for
    the employee's absent dates, in one rounding down. A month the history already
    filled past the max may get no more days from the period."""
    months = _seam_groups(ctx, _month_key)
    start = ctx.request.schedule_period.start_date
    for employee in ctx.scoped_employees:
        bounds = employee.working_days_per_month
        if bounds is None:
            continue
        for key, days in months.items():
            earlier = sum(1 for d in days if d < start and ctx.worked_shifts(employee.id, d))
            worked = sum(1 for day in days if ctx.worked_shifts(employee.id, day))
            if worked > max(bounds.max, earlier):
                out.broken(
                    "days_per_month_max",
                    f"{employee.id} works {worked} dates in {key}, more than {bounds.max}",
                    employee.id,
                    max(days[0], start),
                    at=ctx.employee_field(employee.id, ".working_days_per_month"),
                )
            owed_on = ctx.available(employee.id, days)
            minimum = _prorate(bounds.min, owed_on, _days_in_month(days[0]))
            out.soft(
                f"days_per_month_min:{employee.id}:{key}",
                DAYS_PER_MONTH_MIN,
                max(0, minimum - worked),
            )


def _days_per_week(ctx: _Context, out: _Findings) -> None:
    """Both soft: days below the minimum (prorated for a partial week and for absent
    dates) plus days above the maximum (as stated)."""
    weeks = _seam_groups(ctx, _week_key)
    for employee in ctx.scoped_employees:
        bounds = employee.working_days_per_week
        if bounds is None:
            continue
        for key, days in weeks.items():
            worked = sum(1 for day in days if ctx.worked_shifts(employee.id, day))
            minimum = _prorate(bounds.min, ctx.available(employee.id, days), 7)
            magnitude = max(0, minimum - worked) + max(0, worked - bounds.max)
            out.soft(f"days_per_week:{employee.id}:{key}", DAYS_PER_WEEK, magnitude)


def _weekly_hours(ctx: _Context, out: _Findings) -> None:
    """Minutes per ISO week (of each shift's start date) against 60 x hours. A week the
    history already took past a hard limit may get no more minutes from the period."""
    weeks = _seam_groups(ctx, _week_key)
    start = ctx.request.schedule_period.start_date
    for employee in ctx.scoped_employees:
        limit = employee.weekly_working_hours_limit
        if limit is None:
            continue
        for key, days in weeks.items():
            minutes = sum(ctx.minutes_on(employee.id, day) for day in days)
            earlier = sum(ctx.minutes_on(employee.id, day) for day in days if day < start)
            over = minutes - 60 * limit.hours
            if over <= 0:
                continue
            if limit.enforcement == "soft":
                out.soft(f"weekly_hours:{employee.id}:{key}", WEEKLY_HOURS, _ceil_div(over, 60))
            elif minutes > earlier:
                out.broken(
                    "weekly_hours",
                    f"{employee.id} works {minutes} minutes in {key}, more than "
                    f"{limit.hours} h ({60 * limit.hours} minutes)",
                    employee.id,
                    max(days[0], start),
                    at=ctx.employee_field(employee.id, ".weekly_working_hours_limit"),
                )
