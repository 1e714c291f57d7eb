"""Workload per employee: days per month and week, weekly hours, shift counts.

- ``working_days_per_month``: for each calendar month overlapping the period, worked
  dates ``<= max`` (hard, group ``employees[i].working_days_per_month``) and
  ``>= min`` prorated to the days inside the period (soft, DAYS_PER_MONTH_MIN per day
  short, ``days_per_month_min:<employee>:<YYYY-MM>``).
- ``working_days_per_week``: per ISO week, soft on both sides (DAYS_PER_WEEK per day
  outside; min prorated), ``days_per_week:<employee>:<YYYY-Www>``.
- ``weekly_working_hours_limit``: worked minutes per ISO week ``<= 60 x hours``; hard
  (group ``employees[i].weekly_working_hours_limit``) or soft, WEEKLY_HOURS per hour over,
  rounded up, ``weekly_hours:<employee>:<YYYY-Www>``.
- ``shift_count_limits``: per employee and shift over the period, hard min and max (one
  group per item).
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from engine import weights
from engine.model.context import ModelContext, Var


def _worked(ctx: ModelContext, e: int, days: tuple[int, ...]) -> tuple[cp_model.LinearExpr, int]:
    """Worked-days expression over some days, and how many of them are workable."""
    literals = [w for d in days if (w := ctx.works(e, d)) is not None]
    return cp_model.LinearExpr.sum(literals), len(literals)


def _shortfall(
    ctx: ModelContext, worked: cp_model.LinearExpr, workable: int, target: int
) -> Var | None:
    """Days below a (prorated) minimum, as a slack variable; None when the minimum is 0."""
    if target <= 0:
        return None
    return ctx.at_least(target - worked, max(0, target - workable), target)


def add_days_per_month(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    for e, employee in enumerate(problem.employees):
        if employee.days_per_month is None:
            continue
        minimum, maximum = employee.days_per_month
        for month in problem.horizon.months:
            worked, workable = _worked(ctx, e, month.days)
            if workable > maximum:
                literal = ctx.hard_group(
                    "days_per_month_max", f"{employee.field}.working_days_per_month"
                )
                model.add(worked <= maximum).only_enforce_if(literal)
            short = _shortfall(ctx, worked, workable, month.prorate_min(minimum))
            if short is not None:
                ctx.penalize(
                    f"days_per_month_min:{employee.id}:{month.key}",
                    "days_per_month_min",
                    weights.DAYS_PER_MONTH_MIN,
                    short,
                    "day",
                )


def add_days_per_week(ctx: ModelContext) -> None:
    problem = ctx.problem
    for e, employee in enumerate(problem.employees):
        if employee.days_per_week is None:
            continue
        minimum, maximum = employee.days_per_week
        for week in problem.horizon.weeks:
            worked, workable = _worked(ctx, e, week.days)
            short = _shortfall(ctx, worked, workable, week.prorate_min(minimum))
            parts: list[Var] = [] if short is None else [short]
            if workable > maximum:
                parts.append(ctx.at_least(worked - maximum, 0, workable - maximum))
            if parts:
                ctx.penalize(
                    f"days_per_week:{employee.id}:{week.key}",
                    "days_per_week",
                    weights.DAYS_PER_WEEK,
                    cp_model.LinearExpr.sum(parts),
                    "day",
                )


def add_weekly_hours(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    for e, employee in enumerate(problem.employees):
        if employee.weekly_hours is None:
            continue
        hours, hard = employee.weekly_hours
        cap = 60 * hours
        for week in problem.horizon.weeks:
            xs, lengths = [], []
            for d in week.days:
                for s in ctx.shift_options(e, d):
                    # Rule 8 guarantees working hours for every assignable shift.
                    xs.append(ctx.x[e, d, s])
                    lengths.append(problem.shifts[s].minutes or 0)
            if sum(sorted(lengths, reverse=True)[: len(week.days)]) <= cap:
                continue  # cannot exceed the limit this week
            minutes = cp_model.LinearExpr.weighted_sum(xs, lengths)
            if hard:
                literal = ctx.hard_group(
                    "weekly_hours", f"{employee.field}.weekly_working_hours_limit"
                )
                model.add(minutes <= cap).only_enforce_if(literal)
                continue
            over = ctx.at_least(minutes - cap, 0, (sum(lengths) - cap + 59) // 60, divisor=60)
            ctx.penalize(
                f"weekly_hours:{employee.id}:{week.key}",
                "weekly_hours",
                weights.WEEKLY_HOURS,
                over,
                "hour",
            )


def add_shift_count_limits(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    x_of, days = ctx.x, range(problem.num_days)
    for e, employee in enumerate(problem.employees):
        for limit in employee.count_limits:
            literal = ctx.hard_group("shift_count_limit", limit.field)
            xs = [x for d in days if (x := x_of.get((e, d, limit.shift))) is not None]
            count = cp_model.LinearExpr.sum(xs)
            if limit.min is not None and limit.min > 0:
                model.add(count >= limit.min).only_enforce_if(literal)
            if limit.max is not None and limit.max < len(xs):
                model.add(count <= limit.max).only_enforce_if(literal)
