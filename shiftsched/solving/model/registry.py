"""Every constraint family, listed once: the tuple build, diagnose, relax and variants read.

:data:`FAMILIES` is in posting order, which matters: the implied rows of a soft
self-transition read the enforcement literal of the consecutive-days cap, so the cap is
posted first. :data:`DIAGNOSIS_ORDER` ranks the hard rules of the v1 contract for a tie in
a diagnosis, most specific and most easily changed first (an item of one employee before
a rule of everyone; eligibility last). Both are plain tuples built at import time; a
test checks that they list the same rules.
"""

from __future__ import annotations

from shiftsched.solving.model import (
    consecutive_shifts,
    counts,
    cover,
    coverage,
    days_off_runs,
    eligibility,
    fairness,
    preferences,
    runs,
    sequences,
    teams,
    total_minutes,
    weekends,
    workload,
)
from shiftsched.solving.model.family import HardRule, RuleFamily

FAMILIES: tuple[RuleFamily, ...] = (
    eligibility.FIXED_ASSIGNMENTS,
    eligibility.DUTY_REQUIRED,
    workload.SHIFT_COUNT_LIMITS,
    teams.EMPLOYEE_PAIRINGS,
    total_minutes.TOTAL_MINUTES,
    consecutive_shifts.CONSECUTIVE_SHIFTS,
    days_off_runs.MIN_DAYS_OFF_RUN,
    weekends.MAX_WEEKENDS,
    weekends.COMPLETE_WEEKENDS,
    runs.WORK_RUNS,
    runs.OFF_RUNS,
    runs.SHIFT_RUNS,
    counts.TOTAL_DAYS,
    counts.WEEKEND_CAP,
    counts.TOTAL_HOURS,
    counts.TOTAL_SHIFTS,
    sequences.MAX_CONSECUTIVE_WORKING_DAYS,
    sequences.SHIFT_TRANSITIONS,
    workload.WORKING_DAYS_PER_MONTH,
    workload.WEEKLY_WORKING_HOURS_LIMIT,
    teams.SKILL_SUPPORT,
    coverage.STAFFING_DEMAND,
    coverage.MANAGER_DEMAND,
    coverage.DUTY_DEMAND,
    coverage.CROSS_SHIFT_DEMANDS,
    cover.COVER,
    workload.WORKING_DAYS_PER_WEEK,
    fairness.FAIRNESS_GROUPS,
    preferences.PREFERENCES,
    # Held by the absence of variables (shiftsched.solving.model.build), nothing to post.
    eligibility.AVAILABLE_WEEKDAYS,
    eligibility.ASSIGNABLE_SHIFT_IDS,
    eligibility.SKILL_LEVELS,
    eligibility.HOLIDAYS,
)

DIAGNOSIS_ORDER: tuple[HardRule, ...] = (
    eligibility.FIXED_ASSIGNMENT,
    workload.SHIFT_COUNT_LIMIT,
    teams.PAIRING_EXCLUDE,
    sequences.SHIFT_TRANSITION,
    sequences.MAX_CONSECUTIVE_DAYS,
    workload.DAYS_PER_MONTH_MAX,
    workload.WEEKLY_HOURS,
    teams.SKILL_SUPPORT_RULE,
    *eligibility.AVAILABLE_WEEKDAYS.hard_rules,
    *eligibility.ASSIGNABLE_SHIFT_IDS.hard_rules,
    *eligibility.SKILL_LEVELS.hard_rules,
    *eligibility.HOLIDAYS.hard_rules,
)

BY_NAME: dict[str, RuleFamily] = {family.name: family for family in FAMILIES}
HARD_RULES: dict[str, HardRule] = {
    rule.code: rule for family in FAMILIES for rule in family.hard_rules
}
SWITCHABLE: tuple[RuleFamily, ...] = tuple(f for f in FAMILIES if f.switch_off is not None)


def family_named(name: str) -> RuleFamily:
    """The family called ``name``; ValueError naming the known ones otherwise."""
    family = BY_NAME.get(name)
    if family is None:
        raise ValueError(f"no constraint family named {name!r}; known: {', '.join(BY_NAME)}")
    return family


def hard_rule(code: str) -> HardRule | None:
    """The hard rule a diagnosis cause or hard group names, or None for an unknown code."""
    return HARD_RULES.get(code)
