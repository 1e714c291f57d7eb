"""Eligibility: who may work which shift and duty on which day.

Assignability, available weekdays, holidays, skill level 0 and duties absent from a shift
are enforced by *absence*: the builder creates no variable for them (shiftsched.solving.problem
computes each employee's options), which is both exact and the cheapest encoding.

Fixed assignments are posted here, one hard group per item (field
``employees[i].fixed_assignments[j]``): the shift (and the duty, when named) must be
worked. A fixed assignment that eligibility rules out cannot hold, so its group literal
is forced false, which makes the conflict visible to diagnosis instead of silent.
"""

from __future__ import annotations

import re

from ortools.sat.python import cp_model

from shiftsched.contract.v1 import SolveRequest
from shiftsched.solving.model.context import ModelContext
from shiftsched.solving.model.family import (
    EMPLOYEE_PATH,
    REMOVED,
    HardRule,
    Json,
    NotHard,
    RuleFamily,
    benchmark_rule,
    drop_employee_field,
    employee_at,
    remove_item,
)
from shiftsched.solving.model.terms import HardGroup


def add_fixed_assignments(ctx: ModelContext) -> None:
    model = ctx.model
    for e, employee in enumerate(ctx.problem.employees):
        for fixed in employee.fixed:
            literal = ctx.hard_group(FIXED_ASSIGNMENT.code, fixed.field)
            x = ctx.x.get((e, fixed.day, fixed.shift))
            y = (
                ctx.y.get((e, fixed.day, fixed.shift, fixed.duty))
                if fixed.duty is not None
                else None
            )
            if x is None or (fixed.duty is not None and y is None):
                model.add_bool_or([~literal])
                continue
            model.add_implication(literal, x)
            if y is not None:
                model.add_implication(literal, y)


def add_duty_required(ctx: ModelContext) -> None:
    """Benchmarks (``Problem.duty_required``): an assignment holds exactly one of the
    duties the employee may hold on that shift, one group per employee (field
    ``<employee>.duty_required``). A shift without such duties cannot be worked."""
    if not ctx.problem.duty_required:
        return
    duties: dict[tuple[int, int, int], list[cp_model.IntVar]] = {}
    for (e, d, s, _), y in ctx.y.items():
        duties.setdefault((e, d, s), []).append(y)
    for (e, d, s), x in ctx.x.items():
        employee = ctx.problem.employees[e]
        literal = ctx.hard_group(DUTY_REQUIRED_RULE.code, f"{employee.field}.duty_required")
        ctx.model.add(cp_model.LinearExpr.sum(duties.get((e, d, s), [])) >= x).only_enforce_if(
            literal
        )


# ------------------------------------------------------------------------ descriptors
# The gate codes (assignable_shift, available_weekday, skill_level, holiday) are the
# ones shiftsched.solving.problem gives the options it closes in a diagnostic problem.


def _describe_fixed(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    employee = request.employees[int(match["e"])]
    fixed = employee.fixed_assignments[int(match["i"])]
    duty = f" (duty {fixed.duty_id})" if fixed.duty_id else ""
    return f"{employee.id} is fixed to shift {fixed.shift_id}{duty} on {fixed.date.isoformat()}"


def _relax_fixed(data: Json, match: re.Match[str]) -> None:
    remove_item(employee_at(data, match)["fixed_assignments"], int(match["i"]))


def _describe_weekdays(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    employee = request.employees[int(match["e"])]
    return f"{employee.id} works only on {', '.join(employee.available_weekdays or [])}"


def _relax_weekdays(data: Json, match: re.Match[str]) -> None:
    """Drop ``available_weekdays``: every weekday."""
    employee = employee_at(data, match)
    if employee["available_weekdays"] is None:
        raise NotHard("the employee is available on every weekday already")
    employee["available_weekdays"] = None


def _describe_assignable(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    employee = request.employees[int(match["e"])]
    return f"{employee.id} may only work shifts {', '.join(employee.assignable_shift_ids)}"


def _relax_assignable(data: Json, match: re.Match[str]) -> None:
    """Allow every shift of the request; under a weekly hours limit, every shift with
    working hours (a shift without them cannot be counted)."""
    employee = employee_at(data, match)
    assignable: list[str] = employee["assignable_shift_ids"]
    counted = employee.get("weekly_working_hours_limit") is not None
    missing = [
        s["id"]
        for s in data["shifts"]
        if s["id"] not in assignable and (s.get("working_hours") or not counted)
    ]
    if not missing:
        raise NotHard("the employee may work every shift already")
    employee["assignable_shift_ids"] = [*assignable, *missing]


def _describe_skill_level(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    employee = request.employees[int(match["e"])]
    return f"{employee.id} has skill level 0 for duty {match['duty']}"


def _relax_skill_level(data: Json, match: re.Match[str]) -> None:
    """Remove the duty's level-0 entry (no level: allowed). Raising it to 1 would make
    the employee a beginner, whom hard skill support could then forbid on that shift."""
    levels = employee_at(data, match)["skill_levels"]
    if levels[match["duty"]] != 0:
        raise NotHard(f"the skill level is {levels[match['duty']]}, not 0")
    del levels[match["duty"]]


def _describe_holiday(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    day = request.schedule_period.holidays[int(match["i"])]
    return f"{day.isoformat()} is a holiday (nobody works)"


def _relax_holiday(data: Json, match: re.Match[str]) -> None:
    """Remove that date from ``holidays``, every occurrence of it."""
    holidays = data["schedule_period"]["holidays"]
    day = holidays[int(match["i"])]
    if day is REMOVED:
        return
    for i, other in enumerate(holidays):
        if other == day:
            remove_item(holidays, i)


FIXED_ASSIGNMENT = HardRule(
    "fixed_assignment",
    EMPLOYEE_PATH + r"\.fixed_assignments\[(?P<i>\d+)\]",
    _describe_fixed,
    "Remove this fixed assignment or move it to another date or shift.",
    _relax_fixed,
)

FIXED_ASSIGNMENTS = RuleFamily(
    "fixed_assignments",
    "pre-set assignments",
    add_fixed_assignments,
    hard=True,
    hard_rules=(FIXED_ASSIGNMENT,),
    switch_off=drop_employee_field("fixed_assignments"),
)
DUTY_REQUIRED_RULE = benchmark_rule("duty_required", "every assignment holds a duty")
DUTY_REQUIRED = RuleFamily(
    "duty_required",
    "every assignment holds a duty (imported benchmarks)",
    add_duty_required,
    hard=True,
    hard_rules=(DUTY_REQUIRED_RULE,),
)
AVAILABLE_WEEKDAYS = RuleFamily(
    "available_weekdays",
    "weekday availability",
    None,
    hard=True,
    hard_rules=(
        HardRule(
            "available_weekday",
            EMPLOYEE_PATH + r"\.available_weekdays",
            _describe_weekdays,
            "Add the needed weekday to available_weekdays.",
            _relax_weekdays,
        ),
    ),
    switch_off=drop_employee_field("available_weekdays"),
)
ASSIGNABLE_SHIFT_IDS = RuleFamily(
    "assignable_shift_ids",
    "the shifts each employee may work",
    None,
    hard=True,
    hard_rules=(
        HardRule(
            "assignable_shift",
            EMPLOYEE_PATH + r"\.assignable_shift_ids",
            _describe_assignable,
            "Add the needed shift to assignable_shift_ids.",
            _relax_assignable,
        ),
    ),
)
SKILL_LEVELS = RuleFamily(
    "skill_levels",
    "duties an employee cannot hold (level 0)",
    None,
    hard=True,
    hard_rules=(
        HardRule(
            "skill_level",
            EMPLOYEE_PATH + r"\.skill_levels\.(?P<duty>.+)",
            _describe_skill_level,
            "Raise the skill level above 0 for this duty.",
            _relax_skill_level,
        ),
    ),
)
HOLIDAYS = RuleFamily(
    "holidays",
    "dates the business is closed",
    None,
    hard=True,
    hard_rules=(
        HardRule(
            "holiday",
            r"schedule_period\.holidays\[(?P<i>\d+)\]",
            _describe_holiday,
            "Remove the date from holidays if the business is open.",
            _relax_holiday,
        ),
    ),
)
