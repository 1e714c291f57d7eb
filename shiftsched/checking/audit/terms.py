"""The codes and weights of docs/semantics.md, as the audit reads them.

Duplicated on purpose from the page's tables: the model keeps its own
(``shiftsched.solving.weights``), and tests/solving/model/test_solve.py checks that the two
agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, get_args

SHORTAGE: Final = 10_000  # per missing head, all four demand kinds
PREFERENCE: Final = 100  # per unmet preference
SKILL_SUPPORT: Final = 50  # per unsupported (date, shift[, duty]) group
SHIFT_TRANSITION: Final = 40  # per soft transition occurrence
PAIRING_REQUIRE: Final = 40  # per missing partner
DAYS_PER_MONTH_MIN: Final = 30  # per day below the prorated monthly minimum
CONSECUTIVE_DAYS: Final = 20  # per window of N consecutive worked dates
DAYS_PER_WEEK: Final = 15  # per day below the prorated weekly min or above the max
DEMAND_EXCESS: Final = 10  # per head above a demand maximum
WEEKLY_HOURS: Final = 10  # per hour over a soft weekly limit, rounded up
FAIRNESS_DEFAULT: Final = 10  # per unit of fairness excess, unless penalty_weight

DEFAULT_MAX_CONSECUTIVE_DAYS: Final = 6

#: Weight of each soft-term family, keyed by the name (or name prefix) of the table.
WEIGHTS: Final[Mapping[str, int]] = {
    "staffing_shortage": SHORTAGE,
    "manager_shortage": SHORTAGE,
    "duty_shortage": SHORTAGE,
    "cross_shift_shortage": SHORTAGE,
    "preference:day_off": PREFERENCE,
    "preference:preferred_shift": PREFERENCE,
    "preference:avoided_shift": PREFERENCE,
    "skill_support": SKILL_SUPPORT,
    "shift_transition": SHIFT_TRANSITION,
    "pairing_require": PAIRING_REQUIRE,
    "days_per_month_min": DAYS_PER_MONTH_MIN,
    "consecutive_days": CONSECUTIVE_DAYS,
    "days_per_week": DAYS_PER_WEEK,
    "staffing_excess": DEMAND_EXCESS,
    "manager_excess": DEMAND_EXCESS,
    "duty_excess": DEMAND_EXCESS,
    "cross_shift_excess": DEMAND_EXCESS,
    "weekly_hours": WEEKLY_HOURS,
    "fairness": FAIRNESS_DEFAULT,
}

HardCode = Literal[
    "unknown_reference",
    "one_shift_per_date",
    "assignable_shift",
    "holiday",
    "available_weekday",
    "duty_not_on_shift",
    "skill_level",
    "fixed_assignment",
    "shift_count_limit",
    "max_consecutive_days",
    "days_per_month_max",
    "weekly_hours",
    "shift_transition",
    "pairing_exclude",
    "skill_support",
]
HARD_CODES: Final[tuple[str, ...]] = get_args(HardCode)

WEEKDAY_NAMES: Final = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SHORTAGE_KINDS: Final = ("staffing", "manager", "duty", "cross_shift")
MINUTES_PER_DAY: Final = 24 * 60
#: The distinct shifts a one_shift_per_date message names; any more are only counted.
LISTED_SHIFTS: Final = 10
