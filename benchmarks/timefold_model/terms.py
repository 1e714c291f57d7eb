"""The constraints of the Timefold model by name, and what each stands for in the audit.

Every soft constraint is named by the audit's soft term (docs/semantics.md, "Soft terms,
weights and names") whose instances it sums: ``consecutive_days`` is the sum of every
``consecutive_days:<employee>`` term, at the same weight. Every hard constraint names
the audit's hard rule code it counts. Plain data: the pricing reads it without the JVM.
"""

from __future__ import annotations

from typing import Final

from shiftsched.solving import weights

#: Soft constraint -> (the prefix of the audit's term names it sums, the weight of one unit).
SOFT: Final[dict[str, tuple[str, int]]] = {
    "staffing_shortage": ("staffing_shortage", weights.SHORTAGE),
    "staffing_excess": ("staffing_excess:", weights.DEMAND_EXCESS),
    "consecutive_days": ("consecutive_days:", weights.CONSECUTIVE_DAYS),
    "shift_transition:forbid": ("shift_transition:forbid:", weights.SHIFT_TRANSITION),
    "shift_transition:require": ("shift_transition:require:", weights.SHIFT_TRANSITION),
    "days_per_week": ("days_per_week:", weights.DAYS_PER_WEEK),
    "days_per_month_min": ("days_per_month_min:", weights.DAYS_PER_MONTH_MIN),
    "preference:day_off": ("preference:day_off:", weights.PREFERENCE),
    "preference:preferred_shift": ("preference:preferred_shift:", weights.PREFERENCE),
    "preference:avoided_shift": ("preference:avoided_shift:", weights.PREFERENCE),
}

#: Hard constraint -> the audit's hard rule code. Their magnitudes differ from the audit's
#: count (a run two days over the cap costs 2 here, one violation there), so only the
#: verdict, broken or not, is compared.
HARD: Final[dict[str, str]] = {
    "one_shift_per_date": "one_shift_per_date",
    "assignable_shift": "assignable_shift",
    "available_weekday": "available_weekday",
    "holiday": "holiday",
    "max_consecutive_days": "max_consecutive_days",
    "days_per_month_max": "days_per_month_max",
    "shift_transition:forbid (hard)": "shift_transition",
    "shift_transition:require (hard)": "shift_transition",
}
