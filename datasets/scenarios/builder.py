"""The parts every dataset is made of: dates, demand rules, shifts, staff, rules, a body.

Small pure functions over :mod:`shiftsched.data.request_body` (which puts the parts and
bodies together, as for every other request of the tests and datasets), plus the name
lists the scenarios draw their staff from. A scenario module calls them in a fixed order
with its own seeded ``random.Random``, so the output never changes.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Iterable
from typing import Any

from shiftsched.data import request_body as build

Json = dict[str, Any]
DemandRule = Callable[[dt.date], tuple[int, int]]

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

FIRST_NAMES = (
    "Amelia", "Ben", "Chiara", "Daniel", "Elif", "Farah", "Georg", "Hannah", "Ivan",
    "Jana", "Karim", "Lea", "Mateo", "Nadia", "Oskar", "Paula", "Quentin", "Rosa",
    "Samuel", "Tanja", "Umar", "Vera", "William", "Xenia", "Yusuf", "Zoe", "Aisha",
    "Bruno", "Carla", "Dmitri", "Emma", "Felix", "Greta", "Hugo", "Ines", "Jonas",
    "Katarina", "Luca", "Mira", "Noah", "Olga", "Pavel", "Rahel", "Stefan", "Tomas",
    "Ursula", "Viktor", "Wanda", "Yara", "Zeynep", "Anton", "Bianca", "Cem", "Dorota",
    "Erik", "Fatima", "Gustav", "Helena", "Ilias", "Julia",
)  # fmt: skip
LAST_NAMES = (
    "Andersson", "Becker", "Costa", "Demir", "Eriksen", "Fischer", "Garcia", "Hoffmann",
    "Ivanova", "Jansen", "Kowalski", "Lindqvist", "Meyer", "Novak", "Okafor", "Petrov",
    "Quinn", "Rossi", "Schmidt", "Tanaka", "Urban", "Vogel", "Wagner", "Yilmaz", "Zimmer",
    "Almeida", "Brandt", "Cohen", "Dubois", "Engel", "Ferrari", "Gruber", "Horvat",
    "Ibrahim", "Jovanovic", "Keller", "Larsen", "Moreau", "Nowak", "Olsen", "Popescu",
    "Richter", "Santos", "Thomsen", "Weber", "Kaya", "Lange", "Marino", "Nielsen",
    "Pereira", "Sommer", "Berg", "Hahn", "Krause", "Wolf", "Schulz", "Klein", "Braun",
)  # fmt: skip


def period(start: str, end: str) -> list[dt.date]:
    """All dates start..end inclusive: the index of a date is its demand-array position."""
    first, last = dt.date.fromisoformat(start), dt.date.fromisoformat(end)
    return [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]


def demand(dates: Iterable[dt.date], rule: DemandRule) -> list[Json]:
    """One {min, max} per date, so every array has the period's length by construction."""
    return [build.span(*rule(d)) for d in dates]


def weekly(*ranges: tuple[int, int]) -> DemandRule:
    """A demand rule with one (min, max) per weekday, Monday first."""
    if len(ranges) != 7:
        raise ValueError("one range per weekday")

    def rule(d: dt.date) -> tuple[int, int]:
        return ranges[d.weekday()]

    return rule


def by_weekday(
    weekday: tuple[int, int], saturday: tuple[int, int], sunday: tuple[int, int]
) -> DemandRule:
    """A demand rule with one range for Monday..Friday and one each for Saturday, Sunday."""
    return weekly(*[weekday] * 5, saturday, sunday)


def shift(
    shift_id: str,
    name: str,
    hours: tuple[str, str] | None,
    staffing: list[Json],
    managers: list[Json] | None = None,
) -> Json:
    return build.shift(shift_id, staffing, name=name, hours=hours, managers=managers)


def names(rng: random.Random, count: int) -> list[str]:
    """Distinct plausible full names (first and last names both distinct within a dataset)."""
    firsts = rng.sample(FIRST_NAMES, count)
    lasts = rng.sample(LAST_NAMES, count)
    return [f"{f} {s}" for f, s in zip(firsts, lasts, strict=True)]


def employee(emp_id: str, name: str, shifts: list[str], **fields: Any) -> Json:
    """An employee dict in contract field order; fields left None are omitted."""
    out: Json = {"id": emp_id, "name": name}
    if fields.pop("is_manager", False):
        out["is_manager"] = True
    out["assignable_shift_ids"] = shifts
    for key in (
        "skill_levels",
        "preferences",
        "fixed_assignments",
        "working_days_per_month",
        "working_days_per_week",
        "available_weekdays",
        "shift_count_limits",
        "weekly_working_hours_limit",
    ):
        value = fields.pop(key, None)
        if value:
            out[key] = value
    if fields:
        raise TypeError(f"unknown employee fields: {sorted(fields)}")
    return out


def hours_limit(hours: int, enforcement: str = "hard") -> Json:
    return {"hours": hours, "enforcement": enforcement}


def day_offs(rng: random.Random, dates: list[dt.date], count: int) -> list[Json]:
    """``count`` distinct day_off wishes, in date order (people ask for odd days off)."""
    return [{"type": "day_off", "date": d.isoformat()} for d in sorted(rng.sample(dates, count))]


def shift_wish(kind: str, date: dt.date, shift_id: str) -> Json:
    return {"type": kind, "date": date.isoformat(), "shift_id": shift_id}


def fixed(date: str, shift_id: str, duty_id: str | None = None) -> Json:
    return build.fixed(date, shift_id, duty_id)


def transition(src: str, dst: str, rule: str = "forbid", enforcement: str = "hard") -> Json:
    return {"from_shift_id": src, "to_shift_id": dst, "rule": rule, "enforcement": enforcement}


def request(
    dates: list[dt.date],
    shifts: list[Json],
    employees: list[Json],
    constraints: Json,
    duties: list[Json] | None = None,
    holidays: Iterable[str] = (),
    timezone: str = "Europe/Berlin",
) -> Json:
    return build.request_body(
        shifts,
        employees,
        start=dates[0],
        end=dates[-1],
        holidays=holidays,
        timezone=timezone,
        duties=duties,
        constraints=constraints,
        options={"solver_timeout_seconds": 30},
    )


def duty(duty_id: str, name: str, dates: list[dt.date], rules: dict[str, DemandRule]) -> Json:
    """A duty that exists only on the shifts named in ``rules``, with per-date demand."""
    return build.duty(duty_id, {s: demand(dates, rule) for s, rule in rules.items()}, name=name)


def summed_demand(duties: list[Json], shift_id: str, dates: list[dt.date]) -> list[Json]:
    """Shift headcount = sum of its duties' demand: everyone on the shift holds a duty."""
    out = []
    for day in range(len(dates)):
        ranges = [
            k["staffing_demand_by_shift"][shift_id][day]
            for k in duties
            if shift_id in k["staffing_demand_by_shift"]
        ]
        out.append(build.span(sum(r["min"] for r in ranges), sum(r["max"] for r in ranges)))
    return out


def skill(rng: random.Random, low: int, high: int, zero_chance: float = 0.0) -> int:
    """A skill level in low..high, or 0 (cannot) with the given chance."""
    return 0 if rng.random() < zero_chance else rng.randint(low, high)
