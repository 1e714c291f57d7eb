"""The airport: ground handling in the July peak, at every maximum of the contract
(``max_size.json``)."""

from __future__ import annotations

import datetime as dt
import random
from typing import NamedTuple

from shiftsched.data import request_body as build

from .builder import (
    DemandRule,
    Json,
    day_offs,
    duty,
    employee,
    hours_limit,
    names,
    period,
    request,
    shift,
    shift_wish,
    skill,
    summed_demand,
    transition,
)

AIRPORT_SHIFTS: tuple[tuple[str, str, str, str], ...] = (
    ("e04", "Early 04:00", "04:00", "12:00"),
    ("e05", "Early 05:00", "05:00", "13:00"),
    ("e06", "Early 06:00", "06:00", "14:00"),
    ("pk06", "Morning peak 06:00 (4 h)", "06:00", "10:00"),
    ("d08", "Day 08:00", "08:00", "16:00"),
    ("d10", "Day 10:00", "10:00", "18:00"),
    ("m12", "Midday 12:00", "12:00", "20:00"),
    ("l14", "Late 14:00", "14:00", "22:00"),
    ("l15", "Late 15:00", "15:00", "23:00"),
    ("pk17", "Evening peak 17:00 (4 h)", "17:00", "21:00"),
    ("l16", "Late 16:00", "16:00", "00:00"),
    ("n22", "Night 22:00", "22:00", "06:00"),
)

# duty id, name, {shift: (weekday range, Friday/Sunday peak range)}
AIRPORT_DUTIES: tuple[tuple[str, str, dict[str, tuple[tuple[int, int], tuple[int, int]]]], ...] = (
    ("check_in", "Check-in desk", {
        "e04": ((1, 2), (1, 2)), "e05": ((1, 2), (1, 2)), "pk06": ((1, 2), (1, 2)),
        "m12": ((0, 1), (0, 1)), "pk17": ((0, 1), (1, 2)),
    }),
    ("gate", "Boarding gate", {
        "e05": ((1, 1), (1, 1)), "d10": ((0, 1), (0, 1)), "l14": ((1, 1), (1, 1)),
        "l16": ((0, 1), (0, 1)),
    }),
    ("transfer", "Transfer and ticket desk", {
        "e06": ((1, 1), (1, 1)), "d10": ((0, 1), (0, 1)), "l15": ((0, 1), (0, 1)),
    }),
    ("prm", "Passengers with reduced mobility", {
        "e05": ((0, 1), (0, 1)), "d08": ((1, 1), (1, 1)), "l14": ((0, 1), (0, 1)),
    }),
    ("lost_found", "Baggage service and lost & found", {
        "d08": ((0, 1), (0, 1)), "m12": ((1, 1), (1, 1)), "l16": ((0, 1), (0, 1)),
    }),
    ("makeup", "Baggage make-up", {
        "e04": ((1, 1), (1, 1)), "m12": ((0, 1), (0, 1)), "l15": ((1, 1), (1, 1)),
    }),
    ("ramp", "Ramp loading", {
        "e04": ((1, 2), (1, 2)), "e05": ((1, 2), (1, 2)), "d10": ((0, 1), (1, 1)),
        "l14": ((0, 1), (0, 1)), "l15": ((1, 2), (1, 2)), "l16": ((1, 1), (1, 1)),
    }),
    ("pushback", "Pushback and towing", {
        "e05": ((1, 1), (1, 1)), "l14": ((0, 1), (0, 1)), "l16": ((1, 1), (1, 1)),
    }),
    ("apron_bus", "Apron bus", {
        "e05": ((0, 1), (0, 1)), "d10": ((0, 1), (0, 1)), "l15": ((1, 1), (1, 1)),
    }),
    ("lav_water", "Water and lavatory service", {
        "e06": ((0, 1), (0, 1)), "m12": ((1, 1), (1, 1)), "l15": ((0, 1), (0, 1)),
    }),
    ("cleaning", "Cabin cleaning", {
        "e06": ((0, 1), (1, 1)), "m12": ((0, 1), (0, 1)), "n22": ((1, 1), (1, 1)),
    }),
    ("load_control", "Load control", {
        "e04": ((1, 1), (1, 1)), "d08": ((0, 1), (0, 1)), "l14": ((1, 1), (1, 1)),
    }),
    ("ramp_lead", "Ramp supervisor", {
        "e04": ((1, 1), (1, 1)), "d10": ((0, 1), (0, 1)), "l15": ((1, 1), (1, 1)),
    }),
    ("ops", "Operations control", {
        "e05": ((1, 1), (1, 1)), "m12": ((0, 1), (0, 1)), "n22": ((1, 1), (1, 1)),
    }),
    ("gse", "Ground equipment workshop", {
        "d08": ((1, 1), (1, 1)), "l16": ((0, 1), (0, 1)), "n22": ((0, 1), (0, 1)),
    }),
)  # fmt: skip


class Trade(NamedTuple):
    """A group of airport staff: how many, their id prefix, trained duties and shifts."""

    headcount: int
    prefix: str
    duties: tuple[str, ...]
    levels: tuple[int, int]
    shifts: list[str]
    manager: bool = False
    acting: tuple[str, ...] = ()  # duties a senior (level 8+ on its own duty) may cover


AIRPORT_PASSENGER = ("check_in", "gate", "transfer", "prm", "lost_found")
AIRPORT_RAMP = ("ramp", "makeup", "pushback", "apron_bus", "lav_water", "cleaning")


def max_size() -> Json:
    """Ground handling at a regional airport in the July peak: the largest request allowed.

    Exactly 50 employees x 12 staggered shifts x 15 duties x 31 days. Passenger-service
    agents, ramp agents, load controllers, ramp supervisors, operations controllers,
    workshop mechanics and part-time peak helpers, each with a skills matrix (0 = not
    trained) over the duties of their trade. Short rest after late and night shifts is
    forbidden (hard for real turnarounds under eight hours, soft for the mildest one),
    04:00 starts, nights and midnight finishes are shared fairly, full-timers have a hard
    48-hour week and monthly day ranges, and beginners on a duty should have a senior.
    """
    rng = random.Random(2406)
    dates = period("2026-07-01", "2026-07-31")
    duties = [
        duty(k, name, dates, {s: _peak(r) for s, r in rules.items()})
        for k, name, rules in AIRPORT_DUTIES
    ]
    shifts = [
        shift(s, name, (start, end), summed_demand(duties, s, dates))
        for s, name, start, end in AIRPORT_SHIFTS
    ]
    duty_ids = [k["id"] for k in duties]
    people = names(rng, 50)
    staff: list[Json] = []
    for trade in _trades():
        for n in range(trade.headcount):
            staff.append(_member(rng, trade, n, duty_ids, dates, people[len(staff)]))
    early = ["e04", "e05", "e06", "pk06", "d08"]
    constraints = {
        "shift_transitions": [transition("n22", s) for s in [*early, "d10", "m12"]]
        + [transition("l16", s) for s in ("e04", "e05", "e06", "pk06")]
        + [transition("l15", s) for s in ("e04", "e05")]
        + [transition("l14", "e04", enforcement="soft")],
        "max_consecutive_working_days": 6,
        "skill_support": {"scope": "duty", "enforcement": "soft"},
        "fairness_groups": [
            {"target_shift_ids": ["n22"], "policy": "proportional"},
            {"target_shift_ids": ["e04"], "policy": "proportional"},
            {"target_shift_ids": ["l16"], "policy": "equal", "penalty_weight": 5},
        ],
    }
    return request(dates, shifts, staff, constraints, duties=duties)


def _peak(ranges: tuple[tuple[int, int], tuple[int, int]]) -> DemandRule:
    """A demand rule with the busy range on Fridays and Sundays, the normal one otherwise."""
    normal, busy = ranges
    return lambda d: busy if d.weekday() in (4, 6) else normal


def _trades() -> list[Trade]:
    """The seven trades, in the order their staff are numbered and named."""
    early_and_day = ["e04", "e05", "e06", "d08", "d10", "m12"]
    late = ["l14", "l15", "l16"]
    passenger = [*early_and_day, *late, "pk06", "pk17"]
    return [
        Trade(14, "pax", AIRPORT_PASSENGER, (2, 9), passenger),
        Trade(
            16,
            "ramp",
            AIRPORT_RAMP,
            (2, 9),
            [*early_and_day, *late, "n22"],
            acting=("ramp_lead",),
        ),
        Trade(
            4,
            "lc",
            ("load_control", "ramp", "makeup"),
            (5, 9),
            ["e04", "e05", "d08", "m12", "l14", "n22"],
            acting=("ops",),
        ),
        Trade(
            4,
            "rl",
            ("ramp_lead", "ramp", "pushback", "load_control"),
            (6, 9),
            ["e04", "e05", "d10", "l15", "l16"],
            manager=True,
        ),
        Trade(
            4,
            "ops",
            ("ops", "load_control", "transfer"),
            (6, 9),
            ["e05", "d08", "m12", "l14", "n22"],
            manager=True,
        ),
        Trade(
            3, "gse", ("gse", "pushback", "apron_bus"), (5, 9), ["e05", "d08", "d10", "l16", "n22"]
        ),
        Trade(
            5, "peak", ("check_in", "gate", "lost_found"), (3, 7), ["pk06", "d08", "m12", "pk17"]
        ),
    ]


def _member(
    rng: random.Random,
    trade: Trade,
    n: int,
    duty_ids: list[str],
    dates: list[dt.date],
    name: str,
) -> Json:
    """The ``n``-th employee of a trade: skill levels, five of its shifts, wishes, limits."""
    prefix, trained, (low, high), pool = trade.prefix, trade.duties, trade.levels, trade.shifts
    part_time = prefix == "peak"
    levels = {k: 0 for k in duty_ids}
    levels[trained[0]] = rng.randint(max(low, 4), high)  # the trade's own duty
    for k in trained[1:]:
        levels[k] = skill(rng, low, high, 0.2)
    for k in trade.acting:
        levels[k] = 5 if levels[trained[0]] >= 8 else 0
    shifts_of = sorted(
        rng.sample(pool, k=5) if len(pool) > 5 else pool,
        key=[s[0] for s in AIRPORT_SHIFTS].index,
    )
    wishes = day_offs(rng, dates, rng.randint(1, 3))
    if rng.random() < 0.3:
        wishes.append(shift_wish("avoided_shift", rng.choice(dates), shifts_of[0]))
    if rng.random() < 0.2:
        wishes.append(shift_wish("preferred_shift", rng.choice(dates), shifts_of[-1]))
    return employee(
        f"{prefix}-{n + 1:02d}",
        name,
        shifts_of,
        is_manager=trade.manager,
        skill_levels=levels,
        preferences=sorted(wishes, key=lambda w: w["date"]),
        working_days_per_month=build.span(8, 12) if part_time else build.span(19, 22),
        weekly_working_hours_limit=(hours_limit(20, "soft") if part_time else hours_limit(48)),
    )
