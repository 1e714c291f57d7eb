"""Demand and shortages (docs/semantics.md, "Demand and shortages"): staffing, manager,
duty and cross-shift demand, with their shortage markers and excess terms."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from shiftsched.checking.audit.context import _Context, _unique
from shiftsched.checking.audit.findings import _Findings
from shiftsched.checking.audit.terms import DEMAND_EXCESS, SHORTAGE
from shiftsched.contract.v1 import Range, Shortage


def _range_on(ranges: Sequence[Range] | None, index: int) -> Range | None:
    if ranges is None or index >= len(ranges):
        return None
    return ranges[index]


def _demand(ctx: _Context, out: _Findings) -> None:
    """Staffing, manager and duty demand per (shift, date); holidays demand nothing."""
    staffing_missing = manager_missing = duty_missing = 0
    for day in ctx.scoped_dates:
        if day in ctx.holidays:
            continue
        index = ctx.day_index(day)
        for shift in ctx.request.shifts:
            on_shift = ctx.on(shift.id, day)

            demand = _range_on(shift.staffing_demand, index)
            heads = len(on_shift)
            if demand is not None:
                staffing_missing += _missing(out, "staffing", day, demand, heads, shift.id)
                out.soft(
                    f"staffing_excess:{shift.id}:{day.isoformat()}",
                    DEMAND_EXCESS,
                    heads - demand.max,
                )

            demand = _range_on(shift.manager_demand, index)
            managers = sum(1 for a in on_shift if ctx.employees[a.employee_id].is_manager)
            if demand is not None:
                manager_missing += _missing(out, "manager", day, demand, managers, shift.id)
                out.soft(
                    f"manager_excess:{shift.id}:{day.isoformat()}",
                    DEMAND_EXCESS,
                    managers - demand.max,
                )

        for duty in ctx.request.duties:
            for shift_id, ranges in duty.staffing_demand_by_shift.items():
                demand = _range_on(ranges, index)
                if demand is None:
                    continue
                holders = sum(1 for a in ctx.on(shift_id, day) if a.duty_id == duty.id)
                duty_missing += _missing(out, "duty", day, demand, holders, shift_id, duty.id)
                out.soft(
                    f"duty_excess:{duty.id}:{shift_id}:{day.isoformat()}",
                    DEMAND_EXCESS,
                    holders - demand.max,
                )

    out.soft("staffing_shortage", SHORTAGE, staffing_missing)
    out.soft("manager_shortage", SHORTAGE, manager_missing)
    out.soft("duty_shortage", SHORTAGE, duty_missing)


def _missing(
    out: _Findings,
    kind: Literal["staffing", "manager", "duty"],
    day: dt.date,
    demand: Range,
    assigned: int,
    shift_id: str,
    duty_id: str | None = None,
) -> int:
    """Records a shortage marker when ``assigned < min``; returns the missing heads."""
    missing = max(0, demand.min - assigned)
    if missing:
        out.shortage(
            Shortage(
                kind=kind,
                date=day,
                shift_id=shift_id,
                duty_id=duty_id,
                required=demand.min,
                assigned=assigned,
                missing=missing,
            )
        )
    return missing


def _cross_shift_demand(ctx: _Context, out: _Findings) -> None:
    """Heads on one date over several shifts, optionally only duty holders or managers."""
    total_missing = 0
    counted: dict[tuple[str, dt.date, str | None, bool], int] = {}  # demands may repeat a cell
    for index, demand in enumerate(ctx.request.constraints.cross_shift_demands):
        if demand.date not in ctx.dates or demand.date in ctx.holidays:
            continue
        if not ctx.in_date_scope(demand.date):
            continue
        heads = 0
        for shift_id in _unique(demand.shift_ids):
            key = (shift_id, demand.date, demand.duty_id, demand.managers_only)
            if key not in counted:
                counted[key] = sum(
                    1
                    for a in ctx.on(shift_id, demand.date)
                    if (demand.duty_id is None or a.duty_id == demand.duty_id)
                    and (not demand.managers_only or ctx.employees[a.employee_id].is_manager)
                )
            heads += counted[key]
        if demand.min is not None and heads < demand.min:
            missing = demand.min - heads
            total_missing += missing
            out.shortage(
                Shortage(
                    kind="cross_shift",
                    date=demand.date,
                    shift_ids=list(demand.shift_ids),
                    duty_id=demand.duty_id,
                    required=demand.min,
                    assigned=heads,
                    missing=missing,
                ),
                cross_index=index,
            )
        if demand.max is not None:
            out.soft(f"cross_shift_excess:{index}", DEMAND_EXCESS, heads - demand.max)
    out.soft("cross_shift_shortage", SHORTAGE, total_missing)
