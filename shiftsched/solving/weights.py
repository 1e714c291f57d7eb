"""Penalty weights: one table of named constants (docs/semantics.md, Soft terms).

Magnitudes are in natural units (heads, days, hours, occurrences); a weight says what
one unit costs. Shortages dwarf everything so that a roster never trades a missing head
for comfort; preferences come next ("strongly rewarded" in the contract).
"""

from typing import Final

SHORTAGE: Final = 10_000  # per missing head, all four demand kinds
PREFERENCE: Final = 100  # per unmet preference
SKILL_SUPPORT: Final = 50  # per (date, shift[, duty]) with a beginner and no senior
SHIFT_TRANSITION: Final = 40  # per soft transition occurrence
PAIRING_REQUIRE: Final = 40  # per missing partner
DAYS_PER_MONTH_MIN: Final = 30  # per day below the prorated monthly minimum
CONSECUTIVE_DAYS: Final = 20  # per window of N consecutive worked dates (soft cap N-1)
DAYS_PER_WEEK: Final = 15  # per day outside the weekly range
DEMAND_EXCESS: Final = 10  # per head above a demand maximum
WEEKLY_HOURS: Final = 10  # per hour over a soft weekly limit (rounded up)
FAIRNESS_DEFAULT: Final = 10  # per unit of excess over fair shares, unless penalty_weight
