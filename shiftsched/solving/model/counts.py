"""Soft ranges on counts that span several periods: the seam's count plus the period's.

Set by importers (INRC-II, docs/inrc2.md) and by a plan's horizon targets
(``shiftsched.periods.horizon``, docs/semantics.md "Horizon targets"), each read from the
seam:

- ``total_days`` (``EmployeeSpec.total_days = (low, high, weight)``): the worked days
  before the period (``seam.days_worked``) plus the period's cost ``weight`` per day
  below ``low`` or above ``high`` (``total_days:<employee>``, in days);
- ``weekend_cap`` (``EmployeeSpec.weekend_cap``): likewise for worked weekends,
  ``seam.weekends_worked`` plus the period's weekends with a worked Saturday or Sunday
  (``weekend_cap:<employee>``, in weekends). A weekend is the Saturday and Sunday of one
  ISO week, or the part of it inside the period;
- ``total_hours`` (``EmployeeSpec.total_hours``, in minutes): ``seam.minutes_worked``
  plus the minutes of the period's worked shifts, ``weight`` per hour started below
  ``low`` or above ``high`` (``total_hours:<employee>``, in hours);
- ``total_shifts`` (``EmployeeSpec.shift_totals``, one per shift): the shift's count
  before the period (``ShiftTotal.before``) plus the period's, ``weight`` per shift below
  ``low`` or above ``high`` (``total_shifts:<employee>:<shift>``, in shifts).

The caller chooses the range, so a period can be given its share of a range that
holds over a longer horizon (docs/inrc2.md says how INRC-II prorates it).
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from shiftsched.contract.horizon import SATURDAY
from shiftsched.solving.model.context import ModelContext, Var
from shiftsched.solving.model.family import RuleFamily
from shiftsched.solving.model.terms import Expr
from shiftsched.solving.specs import SoftRange


def _outside(ctx: ModelContext, count: Expr, most: int, bounds: SoftRange, name: str) -> Expr:
    """Units of ``count`` (which can reach ``most``) outside ``bounds``, declared."""
    parts: list[Expr] = []
    if bounds.low > 0:
        under = ctx.at_least(bounds.low - count, 0, max(0, bounds.low), f"under[{name}]")
        parts.append(under)
    if most > bounds.high:
        over = ctx.at_least(count - bounds.high, 0, most - bounds.high, f"over[{name}]")
        parts.append(over)
    return cp_model.LinearExpr.sum(parts) if parts else 0


def add_total_days(ctx: ModelContext) -> None:
    problem = ctx.problem
    for e, employee in enumerate(problem.employees):
        bounds = employee.total_days
        if bounds is None:
            continue
        works = [w for d in range(problem.num_days) if (w := ctx.works(e, d)) is not None]
        before = employee.seam.days_worked
        count = cp_model.LinearExpr.sum(works) + before
        name = f"total_days:{employee.id}"
        magnitude = _outside(ctx, count, before + len(works), bounds, name)
        ctx.penalize(name, "total_days", bounds.weight, magnitude, "day")


def add_weekend_cap(ctx: ModelContext) -> None:
    problem, model = ctx.problem, ctx.model
    weekends = [
        [d for d in week.days if problem.horizon.weekdays[d] >= SATURDAY]
        for week in problem.horizon.weeks
    ]
    for e, employee in enumerate(problem.employees):
        bounds = employee.weekend_cap
        if bounds is None:
            continue
        worked: list[Var] = []
        for days in weekends:
            works = [w for d in days if (w := ctx.works(e, d)) is not None]
            if len(works) == 1:
                worked.append(works[0])
            elif works:
                weekend = model.new_bool_var(f"weekend[{employee.id}]")
                for w in works:
                    model.add_implication(w, weekend)
                worked.append(ctx.define(weekend, *works))
        before = employee.seam.weekends_worked
        count = cp_model.LinearExpr.sum(worked) + before
        name = f"weekend_cap:{employee.id}"
        magnitude = _outside(ctx, count, before + len(worked), bounds, name)
        ctx.penalize(name, "weekend_cap", bounds.weight, magnitude, "weekend")


def add_total_hours(ctx: ModelContext) -> None:
    problem = ctx.problem
    lengths = [shift.minutes or 0 for shift in problem.shifts]
    for e, employee in enumerate(problem.employees):
        bounds = employee.total_hours
        if bounds is None:
            continue
        xs, weights = [], []
        for d in range(problem.num_days):
            for s in ctx.shift_options(e, d):
                x = ctx.x.get((e, d, s))
                if x is not None and lengths[s]:
                    xs.append(x)
                    weights.append(lengths[s])
        before = employee.seam.minutes_worked
        count = cp_model.LinearExpr.weighted_sum(xs, weights) + before
        most = before + sum(weights)
        name = f"total_hours:{employee.id}"
        parts: list[Expr] = []
        if bounds.low > 0:  # hours started below: 60 x under >= low - count
            hours = -(-bounds.low // 60)
            parts.append(ctx.at_least(bounds.low - count, 0, hours, f"under[{name}]", 60))
        if most > bounds.high:
            hours = -(-(most - bounds.high) // 60)
            parts.append(ctx.at_least(count - bounds.high, 0, hours, f"over[{name}]", 60))
        if parts:
            ctx.penalize(name, "total_hours", bounds.weight, cp_model.LinearExpr.sum(parts), "hour")


def add_total_shifts(ctx: ModelContext) -> None:
    problem = ctx.problem
    for e, employee in enumerate(problem.employees):
        for total in employee.shift_totals:
            xs = [
                x
                for d in range(problem.num_days)
                if (x := ctx.x.get((e, d, total.shift))) is not None
            ]
            count = cp_model.LinearExpr.sum(xs) + total.before
            name = f"total_shifts:{employee.id}:{problem.shifts[total.shift].id}"
            magnitude = _outside(ctx, count, total.before + len(xs), total.bounds, name)
            ctx.penalize(name, "total_shifts", total.bounds.weight, magnitude, "shift")


TOTAL_DAYS = RuleFamily(
    "total_days",
    "a soft range on worked days, the days before the period included (benchmarks, horizons)",
    add_total_days,
    hard=False,
    soft_terms=("total_days:",),
)
WEEKEND_CAP = RuleFamily(
    "weekend_cap",
    "a soft range on worked weekends, those before the period included (benchmarks, horizons)",
    add_weekend_cap,
    hard=False,
    soft_terms=("weekend_cap:",),
)
TOTAL_HOURS = RuleFamily(
    "total_hours",
    "a soft range on worked minutes, those before the period included (horizons)",
    add_total_hours,
    hard=False,
    soft_terms=("total_hours:",),
)
TOTAL_SHIFTS = RuleFamily(
    "total_shifts",
    "a soft range on one shift's count, those before the period included (horizons)",
    add_total_shifts,
    hard=False,
    soft_terms=("total_shifts:",),
)
