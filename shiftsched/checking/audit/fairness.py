"""Fairness (docs/semantics.md, "Fairness"): each group's excess over the fair shares of
its target shifts. The one family never narrowed to a scope: it compares everyone."""

from __future__ import annotations

from shiftsched.checking.audit.context import _ceil_div, _Context, _weekday_name
from shiftsched.checking.audit.findings import _Findings
from shiftsched.checking.audit.terms import FAIRNESS_DEFAULT
from shiftsched.contract.v1 import Employee


def _proportional_weight(ctx: _Context, employee: Employee, targets: set[str]) -> int:
    """min + max of working_days_per_month, else 2 x the dates e may work a target shift."""
    if employee.working_days_per_month is not None:
        return employee.working_days_per_month.min + employee.working_days_per_month.max
    fixed_elsewhere = {f.date for f in employee.fixed_assignments if f.shift_id not in targets}
    available = employee.available_weekdays
    open_dates = 0
    for day in ctx.dates:
        if day in ctx.holidays:
            continue
        if available is not None and _weekday_name(day) not in available:
            continue
        if day in fixed_elsewhere:
            continue
        open_dates += 1
    return 2 * open_dates


def _fairness(ctx: _Context, out: _Findings) -> None:
    """excess = ceil(sum_e max(0, count_e x W - total x w_e) / W) per group."""
    for index, group in enumerate(ctx.request.constraints.fairness_groups):
        targets = set(group.target_shift_ids)
        eligible = [e for e in ctx.request.employees if targets & set(e.assignable_shift_ids)]
        if not eligible:
            continue
        counts = {
            e.id: sum(1 for a in ctx.of(e.id) if a.shift_id in targets) + ctx.past(e.id, targets)
            for e in eligible
        }
        total = sum(counts.values())
        if group.policy == "equal":
            weights = {e.id: 1 for e in eligible}
        else:
            weights = {e.id: _proportional_weight(ctx, e, targets) for e in eligible}
        if sum(weights.values()) == 0:
            weights = {e.id: 1 for e in eligible}
        weight_sum = sum(weights.values())
        over = sum(max(0, counts[e.id] * weight_sum - total * weights[e.id]) for e in eligible)
        penalty_weight = group.penalty_weight or FAIRNESS_DEFAULT
        out.soft(f"fairness:{index}", penalty_weight, _ceil_div(over, weight_sum))
