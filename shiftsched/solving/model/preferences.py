"""Preferences (soft, each priced by its spec's weight: PREFERENCE unless tuned).

- ``day_off``: 1 when the employee works that date.
- ``preferred_shift``: 1 when the employee is not on that shift that date (an unmeetable
  preference, e.g. on a holiday, always costs its weight: the wish was not granted).
- ``avoided_shift``: 1 when the employee is on that shift that date.
"""

from __future__ import annotations

from shiftsched.solving.model.context import ModelContext
from shiftsched.solving.model.family import RuleFamily, drop_employee_field
from shiftsched.solving.model.terms import Expr

FAMILY = "preference"


def add_preferences(ctx: ModelContext) -> None:
    for e, employee in enumerate(ctx.problem.employees):
        for pref in employee.preferences:
            magnitude: Expr
            if pref.kind == "day_off":
                works = ctx.works(e, pref.day)
                magnitude = 0 if works is None else works
            else:
                assert pref.shift is not None
                x = ctx.shift_var(e, pref.day, pref.shift)
                if pref.kind == "preferred_shift":
                    magnitude = 1 if x is None else 1 - x
                else:
                    magnitude = 0 if x is None else x
            ctx.penalize(pref.name, FAMILY, pref.weight, magnitude, "preference")


PREFERENCES = RuleFamily(
    "preferences",
    "employees' day-off and shift wishes",
    add_preferences,
    hard=False,
    soft_terms=("preference:",),
    switch_off=drop_employee_field("preferences"),
)
