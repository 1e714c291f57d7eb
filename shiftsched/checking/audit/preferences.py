"""Preferences (docs/semantics.md, "Preferences"): days off, preferred and avoided
shifts, each priced as written."""

from __future__ import annotations

import datetime as dt

from shiftsched.checking.audit.context import _Context
from shiftsched.checking.audit.findings import _Findings


def _preferences(ctx: _Context, out: _Findings) -> None:
    """Priced as written, even on holidays or for shifts the employee can never work."""
    for employee in ctx.scoped_employees:
        worked: dict[dt.date, set[str]] = {}  # several preferences may name one date
        for pref in employee.preferences:
            if pref.date not in worked:
                worked[pref.date] = ctx.shifts_of_on(employee.id, pref.date)
            worked_shifts = worked[pref.date]
            day = pref.date.isoformat()
            if pref.type == "day_off":
                name = f"preference:day_off:{employee.id}:{day}"
                out.soft(name, ctx.preference_weight, 1 if worked_shifts else 0)
            elif pref.type == "preferred_shift":
                name = f"preference:preferred_shift:{employee.id}:{day}:{pref.shift_id}"
                out.soft(name, ctx.preference_weight, 0 if pref.shift_id in worked_shifts else 1)
            else:
                name = f"preference:avoided_shift:{employee.id}:{day}:{pref.shift_id}"
                out.soft(name, ctx.preference_weight, 1 if pref.shift_id in worked_shifts else 0)
