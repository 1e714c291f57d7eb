"""Horizon targets (docs/semantics.md, "Horizon targets"): each employee's worked days
and working weekends, the counts before the period included, against the period's share
of the horizon's limits."""

from __future__ import annotations

from shiftsched.checking.audit.context import _Context
from shiftsched.checking.audit.findings import _Findings
from shiftsched.contract.horizon_targets import PlanHorizon, shares

_SATURDAY = 5  # date.weekday(); the audit keeps its own calendar, apart from the model's


def _horizon(ctx: _Context, horizon: PlanHorizon, out: _Findings) -> None:
    """``total_days:<e>`` per day outside [min share, max share]; ``weekend_cap:<e>``
    per weekend above the weekend share. A weekend is counted once per ISO week of the
    period in which the employee works its Saturday or Sunday."""
    first, last = ctx.dates[0], ctx.dates[-1]
    for s in shares(ctx.request, horizon, ctx.history):
        if s.employee_id not in ctx.employees:
            continue
        worked = {a.date for a in ctx.of(s.employee_id) if first <= a.date <= last}
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
