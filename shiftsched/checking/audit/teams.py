"""Teams (docs/semantics.md, "Teams"): employee pairings and skill support, judged on each
occupied (shift, date)."""

from __future__ import annotations

import datetime as dt

from shiftsched.checking.audit.context import _Context, _unique
from shiftsched.checking.audit.findings import _Findings
from shiftsched.checking.audit.terms import PAIRING_REQUIRE, SKILL_SUPPORT
from shiftsched.contract.v1 import Employee


def _pairings(ctx: _Context, out: _Findings) -> None:
    """exclude: at most one listed employee per (shift, date). require: missing partners."""
    pairings = ctx.request.constraints.employee_pairings
    if not pairings:
        return
    # who works each occupied cell, read once for all pairings
    cells = [(key, {a.employee_id for a in ctx.on(*key)}) for key in ctx.occupied()]
    for index, pairing in enumerate(pairings):
        members = _unique(pairing.employee_ids)
        missing = 0
        for (shift_id, day), working in cells:
            present = [m for m in members if m in working]
            if pairing.rule == "exclude" and len(present) > 1:
                out.broken(
                    "pairing_exclude",
                    f"{', '.join(present)} work together on shift {shift_id} on "
                    f"{day.isoformat()} (employee_pairings[{index}] excludes it)",
                    None,
                    day,
                    shift_id,
                    at=f"request.constraints.employee_pairings[{index}]",
                )
            if pairing.rule == "require":
                missing += len(present) * (len(members) - len(present))
        if pairing.rule == "require":
            out.soft(f"pairing_require:{index}", PAIRING_REQUIRE, missing)


def _is_beginner(level: int | None) -> bool:
    return level is not None and 1 <= level <= 3


def _is_senior(level: int | None) -> bool:
    return level is not None and 7 <= level <= 10


def _highest_level(employee: Employee) -> int | None:
    return max(employee.skill_levels.values()) if employee.skill_levels else None


def _skill_support(ctx: _Context, out: _Findings) -> None:
    """A group with a beginner (1..3) and no senior (7..10) is unsupported."""
    support = ctx.request.constraints.skill_support
    if support is None:
        return
    groups: list[tuple[dt.date, str, str | None, list[int | None]]] = []
    for shift_id, day in ctx.occupied():
        on_shift = ctx.on(shift_id, day)
        if support.scope == "shift":
            levels = [_highest_level(ctx.employees[a.employee_id]) for a in on_shift]
            groups.append((day, shift_id, None, levels))
            continue
        for held in sorted({a.duty_id for a in on_shift if a.duty_id is not None}):
            levels = [
                ctx.employees[a.employee_id].skill_levels.get(held)
                for a in on_shift
                if a.duty_id == held
            ]
            groups.append((day, shift_id, held, levels))

    for day, shift_id, duty_id, levels in groups:
        if not any(map(_is_beginner, levels)) or any(map(_is_senior, levels)):
            continue
        name = f"skill_support:{day.isoformat()}:{shift_id}"
        if duty_id is not None:
            name += f":{duty_id}"
        if support.enforcement == "soft":
            out.soft(name, SKILL_SUPPORT, 1)
        else:
            where = f"shift {shift_id}" + (f" duty {duty_id}" if duty_id else "")
            out.broken(
                "skill_support",
                f"{where} on {day.isoformat()} has a beginner and no senior",
                None,
                day,
                shift_id,
                at="request.constraints.skill_support",
            )
