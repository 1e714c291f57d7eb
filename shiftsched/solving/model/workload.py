"""Workload per employee: days per month and week, weekly hours, shift counts.

- ``working_days_per_month``: for each calendar month overlapping the period, worked
  dates ``<= max`` (hard, group ``employees[i].working_days_per_month``) and
  ``>= min`` prorated to the days inside the period (soft, DAYS_PER_MONTH_MIN per day
  short, ``days_per_month_min:<employee>:<YYYY-MM>``).
- ``working_days_per_week``: per ISO week, soft on both sides (DAYS_PER_WEEK per day
  outside; min prorated), ``days_per_week:<employee>:<YYYY-Www>``.
- Both minimums leave out the employee's absent dates too (``EmployeeSpec.owed``): a
  sick week is not owed. The maxima stay as stated.
- ``weekly_working_hours_limit``: worked minutes per ISO week ``<= 60 x hours``; hard
  (group ``employees[i].weekly_working_hours_limit``) or soft, WEEKLY_HOURS per hour over,
  rounded up, ``weekly_hours:<employee>:<YYYY-Www>``.
- ``shift_count_limits``: per employee and shift over the period, hard min and max (one
  group per item).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

from ortools.sat.python import cp_model

from shiftsched.contract.v1 import SolveRequest
from shiftsched.solving import weights
from shiftsched.solving.model.context import ModelContext, Var
from shiftsched.solving.model.family import (
    EMPLOYEE_PATH,
    HardRule,
    Json,
    NotHard,
    RuleFamily,
    drop_employee_field,
    employee_at,
    make_soft,
    period_days,
    remove_item,
)
from shiftsched.solving.model.terms import HardGroup


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
        for i, month in enumerate(problem.horizon.months):
            worked, workable = _worked(ctx, e, month.days)
            before = employee.seam.month_days if i == 0 else 0  # the month began earlier
            # The period may not add to a month its history already filled.
            room = max(0, maximum - before)
            if workable > room:
                literal = ctx.hard_group(
                    DAYS_PER_MONTH_MAX.code, f"{employee.field}.working_days_per_month"
                )
                model.add(worked <= room).only_enforce_if(literal)
            target = employee.owed(month, minimum)
            short = _shortfall(ctx, worked + before, workable + before, target)
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
        for i, week in enumerate(problem.horizon.weeks):
            worked, workable = _worked(ctx, e, week.days)
            if i == 0 and employee.seam.week_days:  # the week began before the start
                worked += employee.seam.week_days
                workable += employee.seam.week_days
            short = _shortfall(ctx, worked, workable, employee.owed(week, minimum))
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
        for i, week in enumerate(problem.horizon.weeks):
            # Minutes worked in the week before the start leave less of the limit; a
            # hard limit the history already broke lets the period add none.
            cap = 60 * hours - (employee.seam.week_minutes if i == 0 else 0)
            if hard:
                cap = max(0, cap)
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
                    WEEKLY_HOURS.code, f"{employee.field}.weekly_working_hours_limit"
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
            literal = ctx.hard_group(SHIFT_COUNT_LIMIT.code, limit.field)
            xs = [x for d in days if (x := x_of.get((e, d, limit.shift))) is not None]
            count = cp_model.LinearExpr.sum(xs)
            if limit.min is not None and limit.min > 0:
                model.add(count >= limit.min).only_enforce_if(literal)
            if limit.max is not None and limit.max < len(xs):
                model.add(count <= limit.max).only_enforce_if(literal)


# ------------------------------------------------------------------------ descriptors


def _describe_count_limit(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    employee = request.employees[int(match["e"])]
    limit = employee.shift_count_limits[int(match["i"])]
    if limit.min is not None and limit.max is not None:
        bounds = f"between {limit.min} and {limit.max} times"
    elif limit.min is not None:
        bounds = f"at least {limit.min} times"
    else:
        bounds = f"at most {limit.max} times"
    return f"{employee.id} must work shift {limit.shift_id} {bounds} in the period"


def _relax_count_limit(data: Json, match: re.Match[str]) -> None:
    """Remove the limit; one with both bounds goes whole (the diagnosis relaxed both
    together and did not find which one binds)."""
    remove_item(employee_at(data, match)["shift_count_limits"], int(match["i"]))


def _describe_days_per_month(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    employee = request.employees[int(match["e"])]
    assert employee.working_days_per_month is not None
    return f"{employee.id} may work at most {employee.working_days_per_month.max} days a month"


def _relax_days_per_month(data: Json, match: re.Match[str]) -> None:
    """Raise the maximum to the most days any month has inside the period, so it cannot
    bind; the soft minimum is kept."""
    limit = employee_at(data, match)["working_days_per_month"]
    if limit is None:
        raise NotHard("the employee has no working_days_per_month")
    start = dt.date.fromisoformat(data["schedule_period"]["start_date"])
    dates = (start + dt.timedelta(days=d) for d in range(period_days(data)))
    longest = max(Counter((day.year, day.month) for day in dates).values())
    if limit["max"] >= longest:
        raise NotHard(f"a maximum of {limit['max']} cannot bind in this period")
    limit["max"] = longest


def _describe_weekly_hours(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    employee = request.employees[int(match["e"])]
    assert employee.weekly_working_hours_limit is not None
    return f"{employee.id} may work at most {employee.weekly_working_hours_limit.hours} h a week"


def _relax_weekly_hours(data: Json, match: re.Match[str]) -> None:
    """Make the limit soft: it still costs its penalty, so the roster keeps to it where
    it can."""
    make_soft(employee_at(data, match)["weekly_working_hours_limit"], "weekly hours limit")


SHIFT_COUNT_LIMIT = HardRule(
    "shift_count_limit",
    EMPLOYEE_PATH + r"\.shift_count_limits\[(?P<i>\d+)\]",
    _describe_count_limit,
    "Lower the minimum or raise the maximum of this shift count limit.",
    _relax_count_limit,
)
DAYS_PER_MONTH_MAX = HardRule(
    "days_per_month_max",
    EMPLOYEE_PATH + r"\.working_days_per_month",
    _describe_days_per_month,
    "Raise the maximum of working_days_per_month.",
    _relax_days_per_month,
)
WEEKLY_HOURS = HardRule(
    "weekly_hours",
    EMPLOYEE_PATH + r"\.weekly_working_hours_limit",
    _describe_weekly_hours,
    "Raise the weekly hours limit or make it soft.",
    _relax_weekly_hours,
)

SHIFT_COUNT_LIMITS = RuleFamily(
    "shift_count_limits",
    "per-employee shift count limits",
    add_shift_count_limits,
    hard=True,
    hard_rules=(SHIFT_COUNT_LIMIT,),
    switch_off=drop_employee_field("shift_count_limits"),
)
WORKING_DAYS_PER_MONTH = RuleFamily(
    "working_days_per_month",
    "monthly working-day ranges",
    add_days_per_month,
    hard=True,
    hard_rules=(DAYS_PER_MONTH_MAX,),
    soft_terms=("days_per_month_min:",),
    switch_off=drop_employee_field("working_days_per_month"),
)
WEEKLY_WORKING_HOURS_LIMIT = RuleFamily(
    "weekly_working_hours_limit",
    "weekly hour limits",
    add_weekly_hours,
    hard=True,
    hard_rules=(WEEKLY_HOURS,),
    soft_terms=("weekly_hours:",),
    switch_off=drop_employee_field("weekly_working_hours_limit"),
)
WORKING_DAYS_PER_WEEK = RuleFamily(
    "working_days_per_week",
    "weekly working-day ranges",
    add_days_per_week,
    hard=False,
    soft_terms=("days_per_week:",),
    switch_off=drop_employee_field("working_days_per_week"),
)
