"""Horizon targets (docs/semantics.md, "Horizon targets"): each employee's worked days,
working weekends, worked hours and shifts of each kind a target counts, the counts before
the period included, against the period's share of the horizon's limits."""

from __future__ import annotations

from shiftsched.checking.audit.context import _Context, shift_minutes
from shiftsched.checking.audit.findings import _Findings
from shiftsched.contract.horizon_targets import PlanHorizon, Share, shares

_SATURDAY = 5  # date.weekday(); the audit keeps its own calendar, apart from the model's


def _horizon(ctx: _Context, horizon: PlanHorizon, out: _Findings) -> None:
    """``total_days:<e>`` per day outside [min share, max share]; ``weekend_cap:<e>``
    per weekend above the weekend share. A weekend is counted once per ISO week of the
    period in which the employee works its Saturday or Sunday. ``total_hours:<e>`` per
    hour started outside [min share, max share] of worked minutes; ``total_shifts:<e>:<s>``
    per shift ``s`` worked outside [min share, max share] of its count."""
    first, last = ctx.dates[0], ctx.dates[-1]
    lengths = {shift.id: shift_minutes(shift) for shift in ctx.request.shifts}
    for s in shares(ctx.request, horizon, ctx.history, lengths):
        if s.employee_id not in ctx.employees:
            continue
        mine = [a for a in ctx.of(s.employee_id) if first <= a.date <= last]
        worked = {a.date for a in mine}
        _hours(s, s.minutes_before + sum(lengths.get(a.shift_id, 0) for a in mine), horizon, out)
        days = s.days_before + len(worked)
        weekend_weeks = {d.isocalendar()[:2] for d in worked if d.weekday() >= _SATURDAY}
        weekend_count = s.weekends_before + len(weekend_weeks)
        name = f"total_days:{s.employee_id}"
        if s.min_days is not None:
            out.soft(name, horizon.day_weight, s.min_days - days)
        if s.max_days is not None:
            out.soft(name, horizon.day_weight, days - s.max_days)
        if s.max_weekends is not None:
            over = weekend_count - s.max_weekends
            out.soft(f"weekend_cap:{s.employee_id}", horizon.weekend_weight, over)
        _shift_counts(s, [a.shift_id for a in mine], horizon, out)


def _shift_counts(s: Share, worked: list[str], horizon: PlanHorizon, out: _Findings) -> None:
    """Each shift count's term: each shift of the kind below the least or above the most."""
    for c in s.shifts:
        count = c.before + worked.count(c.shift_id)
        name = f"total_shifts:{s.employee_id}:{c.shift_id}"
        if c.low is not None:
            out.soft(name, horizon.shift_weight, c.low - count)
        if c.high is not None:
            out.soft(name, horizon.shift_weight, count - c.high)


def _hours(s: Share, minutes: int, horizon: PlanHorizon, out: _Findings) -> None:
    """The hour limits' term: each hour begun below the least or above the most."""
    name = f"total_hours:{s.employee_id}"
    if s.min_minutes is not None:
        out.soft(name, horizon.hour_weight, -(-(s.min_minutes - minutes) // 60))
    if s.max_minutes is not None:
        out.soft(name, horizon.hour_weight, -(-(minutes - s.max_minutes) // 60))
