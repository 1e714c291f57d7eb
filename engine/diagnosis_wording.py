"""The diagnosis in people's words: what a hard-rule item says, and how to relax it.

:mod:`engine.diagnose` finds which items conflict; this module only words them, so a
family's wording can change without touching the search for conflicts.
"""

from __future__ import annotations

import re

from engine.contract import SolveRequest
from engine.model.terms import HardGroup

ADVICE = {
    "fixed_assignment": "Remove this fixed assignment or move it to another date or shift.",
    "shift_count_limit": "Lower the minimum or raise the maximum of this shift count limit.",
    "pairing_exclude": "Remove one of these employees from the exclude pairing.",
    "shift_transition": "Make this transition rule soft or remove it.",
    "max_consecutive_days": "Raise max_consecutive_working_days.",
    "days_per_month_max": "Raise the maximum of working_days_per_month.",
    "weekly_hours": "Raise the weekly hours limit or make it soft.",
    "skill_support": "Make skill support soft, or add a senior who can work alongside.",
    "available_weekday": "Add the needed weekday to available_weekdays.",
    "assignable_shift": "Add the needed shift to assignable_shift_ids.",
    "skill_level": "Raise the skill level above 0 for this duty.",
    "holiday": "Remove the date from holidays if the business is open.",
}

_INDEX = re.compile(r"\[(\d+)\]")


def _indices(field: str) -> list[int]:
    return [int(i) for i in _INDEX.findall(field)]


def describe(request: SolveRequest, group: HardGroup) -> str:
    """Plain words for one hard-rule item: who, what, when."""
    family, field, who = group.family, group.field, group.employee
    idx = _indices(field)
    if family == "fixed_assignment":
        employee = request.employees[idx[0]]
        fixed = employee.fixed_assignments[idx[1]]
        duty = f" (duty {fixed.duty_id})" if fixed.duty_id else ""
        return f"{employee.id} is fixed to shift {fixed.shift_id}{duty} on {fixed.date.isoformat()}"
    if family == "shift_count_limit":
        employee = request.employees[idx[0]]
        limit = employee.shift_count_limits[idx[1]]
        if limit.min is not None and limit.max is not None:
            bounds = f"between {limit.min} and {limit.max} times"
        elif limit.min is not None:
            bounds = f"at least {limit.min} times"
        else:
            bounds = f"at most {limit.max} times"
        return f"{employee.id} must work shift {limit.shift_id} {bounds} in the period"
    if family == "pairing_exclude":
        pairing = request.constraints.employee_pairings[idx[0]]
        return f"{', '.join(pairing.employee_ids)} may never work the same shift on a date"
    if family == "shift_transition":
        t = request.constraints.shift_transitions[idx[0]]
        rule = "may not be followed by" if t.rule == "forbid" else "must be followed by"
        return f"for {who}, shift {t.from_shift_id} {rule} shift {t.to_shift_id} the next day"
    if family == "max_consecutive_days":
        cap = request.constraints.max_consecutive_working_days or 6
        return f"{who} may work at most {cap} consecutive days"
    if family == "days_per_month_max":
        employee = request.employees[idx[0]]
        assert employee.working_days_per_month is not None
        return f"{employee.id} may work at most {employee.working_days_per_month.max} days a month"
    if family == "weekly_hours":
        employee = request.employees[idx[0]]
        assert employee.weekly_working_hours_limit is not None
        return (
            f"{employee.id} may work at most {employee.weekly_working_hours_limit.hours} h a week"
        )
    if family == "skill_support":
        return "every beginner on a shift needs a senior beside them (hard skill support)"
    if family == "available_weekday":
        employee = request.employees[idx[0]]
        days = ", ".join(employee.available_weekdays or [])
        return f"{employee.id} works only on {days}"
    if family == "assignable_shift":
        employee = request.employees[idx[0]]
        return f"{employee.id} may only work shifts {', '.join(employee.assignable_shift_ids)}"
    if family == "skill_level":
        employee = request.employees[idx[0]]
        duty = field.rsplit(".", 1)[-1]
        return f"{employee.id} has skill level 0 for duty {duty}"
    if family == "holiday":
        day = request.schedule_period.holidays[idx[0]]
        return f"{day.isoformat()} is a holiday (nobody works)"
    return f"{family} at {field}"
