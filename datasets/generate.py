"""Generate the realistic v1 SolveRequest datasets in this folder.

Each scenario is a small pure function returning a plain dict (a v1 request body) that
models one business. Randomness (names, preferences, skill levels) comes from one
``random.Random`` per scenario with a fixed seed, so ``python datasets/generate.py``
rewrites every file byte-identically and the tests can compare the committed files with
fresh output. Demand is sized against the staff's capacity so that a sensible roster can
meet nearly all of it, and every hard input (fixed assignments, count minimums, weekday
availability) is chosen so that the hard rules always admit a roster.

The parts and bodies are put together by :mod:`shiftsched.data.request_body`, like every other
request of the tests and datasets.

Usage: ``python datasets/generate.py [output_dir]`` (default: this folder).
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from shiftsched.data import request_body as build

Json = dict[str, Any]
DemandRule = Callable[[dt.date], tuple[int, int]]

HERE = Path(__file__).resolve().parent
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
WEEKEND = frozenset({5, 6})

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


# ------------------------------------------------------------------------- helpers


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


# ----------------------------------------------------------------------- scenarios


def ward_24_7() -> Json:
    """Surgical ward staffed around the clock: early, late and a night that ends next morning.

    Twenty nurses: a ward manager on weekday days, four charge nurses who can lead any
    shift (manager_demand asks one leader on early and late), eleven full-time staff
    nurses and four part-timers. Night workers may not come back on the early shift the
    next morning (hard) and should not come back on the late (soft); nights are shared in
    proportion to contracted days. February 2027 starts on a Monday: four whole weeks.
    """
    rng = random.Random(2401)
    dates = period("2027-02-01", "2027-02-28")
    leader = by_weekday((1, 1), (1, 1), (1, 1))
    shifts = [
        shift(
            "early",
            "Early",
            ("07:00", "15:00"),
            demand(dates, by_weekday((5, 6), (4, 5), (4, 5))),
            demand(dates, leader),
        ),
        shift(
            "late",
            "Late",
            ("14:00", "22:00"),
            demand(dates, by_weekday((4, 5), (3, 4), (3, 4))),
            demand(dates, leader),
        ),
        shift(
            "night",
            "Night",
            ("21:00", "07:00"),
            demand(dates, by_weekday((2, 3), (2, 3), (2, 3))),
            demand(dates, by_weekday((0, 1), (0, 1), (0, 1))),
        ),
    ]
    people = names(rng, 20)
    all_shifts = ["early", "late", "night"]
    staff: list[Json] = [
        employee(
            "nurse-01",
            people[0],
            ["early", "late"],
            is_manager=True,
            working_days_per_month=build.span(18, 20),
            available_weekdays=list(WEEKDAYS[:5]),
        )
    ]
    for i in range(1, 5):  # charge nurses
        staff.append(
            employee(
                f"nurse-{i + 1:02d}",
                people[i],
                all_shifts,
                is_manager=True,
                preferences=day_offs(rng, dates, rng.randint(1, 3)),
                working_days_per_month=build.span(17, 19),
                weekly_working_hours_limit=hours_limit(48),
            )
        )
    for i in range(5, 16):  # staff nurses
        wishes = day_offs(rng, dates, rng.randint(0, 3))
        if i % 4 == 0:  # a few dislike nights on a given date, e.g. a family event
            wishes.append(shift_wish("avoided_shift", rng.choice(dates), "night"))
        if i % 5 == 1:
            wishes.append(shift_wish("preferred_shift", rng.choice(dates), "early"))
        staff.append(
            employee(
                f"nurse-{i + 1:02d}",
                people[i],
                all_shifts,
                preferences=wishes,
                working_days_per_month=build.span(17, 19),
                weekly_working_hours_limit=hours_limit(48),
            )
        )
    for i in range(16, 20):  # part-time nurses; the last one does no nights
        staff.append(
            employee(
                f"nurse-{i + 1:02d}",
                people[i],
                ["early", "late"] if i == 19 else all_shifts,
                preferences=day_offs(rng, dates, rng.randint(1, 2)),
                working_days_per_month=build.span(9, 11),
                weekly_working_hours_limit=hours_limit(30) if i < 18 else hours_limit(24, "soft"),
            )
        )
    constraints = {
        "shift_transitions": [
            transition("night", "early"),
            transition("night", "late", enforcement="soft"),
            transition("late", "early", enforcement="soft"),
        ],
        "max_consecutive_working_days": 5,
        "fairness_groups": [{"target_shift_ids": ["night"], "policy": "proportional"}],
    }
    return request(dates, shifts, staff, constraints)


def retail_weekdays() -> Json:
    """Town-centre fashion store open Monday to Saturday, with Saturday as the peak day.

    Three weeks around May Day and Ascension Day (both closed; their demand rows are left
    as on any weekday because the engine zeroes demand on holidays). A key holder
    (manager) must open and close. Twelve staff: store manager, deputy, supervisor, three
    full-time associates, two apprentices who are never rostered on the same shift, and
    part-timers bound to the weekdays they can work (students, a parent).
    """
    rng = random.Random(2402)
    dates = period("2026-04-27", "2026-05-17")
    holidays = ["2026-05-01", "2026-05-14"]
    open_days = [d for d in dates if d.weekday() != 6 and d.isoformat() not in holidays]

    def weekday_heavy(mon_thu: tuple[int, int], fri: tuple[int, int], sat: tuple[int, int]):
        return weekly(mon_thu, mon_thu, mon_thu, mon_thu, fri, sat, (0, 0))

    key_holder = weekday_heavy((1, 1), (1, 1), (1, 1))
    shifts = [
        shift(
            "open",
            "Opening",
            ("08:00", "14:00"),
            demand(dates, weekday_heavy((2, 3), (2, 3), (3, 4))),
            demand(dates, key_holder),
        ),
        shift(
            "day",
            "Day",
            ("09:30", "18:00"),
            demand(dates, weekday_heavy((2, 3), (2, 3), (3, 4))),
        ),
        shift(
            "close",
            "Closing",
            ("14:00", "20:30"),
            demand(dates, weekday_heavy((2, 3), (3, 4), (3, 4))),
            demand(dates, key_holder),
        ),
    ]
    people = names(rng, 12)
    every = ["open", "day", "close"]
    full_week = build.span(4, 5)
    staff = [
        employee(
            "store-01",
            people[0],
            every,
            is_manager=True,
            preferences=day_offs(rng, open_days, 1),
            working_days_per_week=build.span(5, 5),
            available_weekdays=list(WEEKDAYS[:5]),
        ),
        employee(
            "store-02",
            people[1],
            every,
            is_manager=True,
            preferences=day_offs(rng, open_days, 2),
            working_days_per_week=full_week,
            weekly_working_hours_limit=hours_limit(40),
        ),
        employee(
            "store-03",
            people[2],
            every,
            is_manager=True,
            preferences=[shift_wish("preferred_shift", d, "open") for d in open_days[:3]],
            working_days_per_week=full_week,
            weekly_working_hours_limit=hours_limit(40),
        ),
    ]
    for i in range(3, 6):  # full-time sales associates
        wishes = day_offs(rng, open_days, rng.randint(1, 2))
        if i == 4:  # evening class on Wednesdays
            wishes += [
                shift_wish("avoided_shift", d, "close") for d in open_days if d.weekday() == 2
            ]
        staff.append(
            employee(
                f"store-{i + 1:02d}",
                people[i],
                every,
                preferences=wishes,
                working_days_per_week=full_week,
                weekly_working_hours_limit=hours_limit(40),
            )
        )
    for i in (6, 7):  # apprentices, excluded from sharing a shift
        staff.append(
            employee(
                f"store-{i + 1:02d}",
                people[i],
                ["open", "day"] if i == 6 else every,
                preferences=day_offs(rng, open_days, 1),
                working_days_per_week=full_week,
                weekly_working_hours_limit=hours_limit(40),
            )
        )
    student_days = [d for d in open_days if d.weekday() in (3, 4, 5)]
    staff += [
        employee(
            "store-09",
            people[8],
            ["day", "close"],
            preferences=[shift_wish("preferred_shift", d, "close") for d in student_days[::2]],
            working_days_per_week=build.span(2, 3),
            available_weekdays=["thu", "fri", "sat"],
            weekly_working_hours_limit=hours_limit(20),
        ),
        employee(
            "store-10",
            people[9],
            ["open"],
            preferences=day_offs(rng, open_days, 1),
            working_days_per_week=build.span(2, 3),
            available_weekdays=["mon", "tue", "wed", "thu"],
        ),
        employee(
            "store-11",
            people[10],
            every,
            working_days_per_week=build.span(2, 3),
            available_weekdays=["mon", "wed", "fri", "sat"],
            weekly_working_hours_limit=hours_limit(24, "soft"),
        ),
        employee(
            "store-12",
            people[11],
            ["day", "close"],
            working_days_per_week=build.span(1, 2),
            available_weekdays=["fri", "sat"],
        ),
    ]
    constraints = {
        "shift_transitions": [transition("close", "open", enforcement="soft")],
        "employee_pairings": [{"employee_ids": ["store-07", "store-08"], "rule": "exclude"}],
    }
    return request(dates, shifts, staff, constraints, holidays=holidays)


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


def call_centre_duties() -> Json:
    """Insurance customer-service centre, open daily, with four duties per shift.

    Agents hold one duty per shift: phones, chat, e-mail or (team leads only) floor
    supervision, each with its own demand per shift; a skills matrix says who may take
    what (0 = not trained). Beginners on a duty should have a senior on the same duty
    (soft). Mondays need more phone cover across early and midday than the two shifts'
    usual maximum, a marketing campaign day needs extra chat cover, the team leads meet
    on Friday 5th, a trainee should always sit with her mentor, and a third of the
    agents ask for the town festival Friday off. Two weeks, twenty-five agents.
    """
    rng = random.Random(2403)
    dates = period("2026-06-01", "2026-06-14")
    no = (0, 0)
    duties = [
        duty(
            "phones",
            "Phone queue",
            dates,
            {
                "early": by_weekday((4, 5), (2, 3), (2, 3)),
                "mid": by_weekday((4, 5), no, no),
                "late": by_weekday((3, 4), (2, 3), (2, 3)),
            },
        ),
        duty(
            "chat",
            "Web chat",
            dates,
            {
                "early": by_weekday((1, 2), (1, 1), (1, 1)),
                "mid": by_weekday((1, 2), no, no),
                "late": by_weekday((1, 2), (1, 1), (1, 1)),
            },
        ),
        duty(
            "email",
            "E-mail and letters",
            dates,
            {"early": by_weekday((1, 1), (0, 1), (0, 1)), "mid": by_weekday((1, 2), no, no)},
        ),
        duty(
            "supervisor",
            "Floor supervisor",
            dates,
            {
                "early": by_weekday((1, 1), (1, 1), (1, 1)),
                "mid": by_weekday((0, 1), no, no),
                "late": by_weekday((1, 1), (1, 1), (1, 1)),
            },
        ),
    ]
    hours = {"early": ("07:00", "15:00"), "mid": ("10:00", "18:00"), "late": ("13:00", "21:00")}
    labels = {"early": "Early", "mid": "Midday", "late": "Late"}
    shifts = [
        shift(s, labels[s], hours[s], summed_demand(duties, s, dates))
        for s in ("early", "mid", "late")
    ]
    people = names(rng, 25)
    every = ["early", "mid", "late"]
    week = build.span(5, 5)
    staff: list[Json] = []
    for i in range(4):  # team leads
        staff.append(
            employee(
                f"agent-{i + 1:02d}",
                people[i],
                every,
                is_manager=True,
                skill_levels={
                    "phones": rng.randint(7, 9),
                    "chat": rng.randint(5, 8),
                    "email": rng.randint(5, 8),
                    "supervisor": rng.randint(7, 9),
                },
                preferences=day_offs(rng, dates, 1),
                working_days_per_week=week,
                weekly_working_hours_limit=hours_limit(40),
            )
        )
    for i in range(4, 19):  # full-time agents; agent-05 mentors the trainee
        mentor = i == 4
        wishes = day_offs(rng, dates, rng.randint(0, 2))
        if i % 3 == 0:
            wishes.append(shift_wish("avoided_shift", rng.choice(dates), "late"))
        staff.append(
            employee(
                f"agent-{i + 1:02d}",
                people[i],
                ["early", "mid"] if mentor else every,
                skill_levels={
                    "phones": 9 if mentor else rng.randint(4, 9),
                    "chat": 7 if mentor else skill(rng, 4, 9, 0.3),
                    "email": skill(rng, 4, 9, 0.4),
                    "supervisor": 0,
                },
                preferences=[] if mentor else wishes,
                working_days_per_week=week,
                weekly_working_hours_limit=hours_limit(40),
            )
        )
    part_time_days = (["mon", "tue", "wed", "thu", "fri"], None, ["sat", "sun", "mon"], None)
    for i, available in zip(range(19, 23), part_time_days, strict=True):
        staff.append(
            employee(
                f"agent-{i + 1:02d}",
                people[i],
                every,
                skill_levels={
                    "phones": rng.randint(5, 7),
                    "chat": skill(rng, 5, 7, 0.5),
                    "email": 0,
                    "supervisor": 0,
                },
                preferences=day_offs(rng, dates, 1),
                working_days_per_week=build.span(2, 3),
                available_weekdays=available,
                weekly_working_hours_limit=hours_limit(24),
            )
        )
    for i in (23, 24):  # trainees: phones only, at beginner level
        staff.append(
            employee(
                f"agent-{i + 1:02d}",
                people[i],
                ["early", "mid"],
                skill_levels={"phones": 2, "chat": 0, "email": 0, "supervisor": 0},
                working_days_per_week=week,
                weekly_working_hours_limit=hours_limit(40),
            )
        )
    festival = {"type": "day_off", "date": "2026-06-12"}  # many ask for the festival Friday
    for e in rng.sample(staff[4:], 8):
        e.setdefault("preferences", []).append(festival)
        e["preferences"].sort(key=lambda w: w["date"])
    constraints = {
        "shift_transitions": [transition("late", "early", enforcement="soft")],
        "employee_pairings": [{"employee_ids": ["agent-24", "agent-05"], "rule": "require"}],
        "skill_support": {"scope": "duty", "enforcement": "soft"},
        "cross_shift_demands": [
            {"date": day, "shift_ids": ["early", "mid"], "duty_id": "phones", "min": 11}
            for day in ("2026-06-01", "2026-06-08")
        ]
        + [
            {
                "date": "2026-06-10",
                "shift_ids": ["early", "mid", "late"],
                "duty_id": "chat",
                "min": 5,
                "max": 6,
            },
            {
                "date": "2026-06-05",
                "shift_ids": ["early", "mid", "late"],
                "managers_only": True,
                "min": 3,
            },
        ],
    }
    return request(dates, shifts, staff, constraints, duties=duties, timezone="Europe/Dublin")


def factory_three_shifts() -> Json:
    """Packaging plant running around the clock in three eight-hour shifts, 7 days a week.

    Weekend day shifts carry their own ids (they are paid at a premium), so fairness can
    spread nights and weekend days evenly. Shift leads (managers) must run each shift.
    Rest rules forbid backward rotation (afternoon or night followed by an early start),
    nights should come in blocks (soft require night -> night), older operators have at
    most four nights, night volunteers at least six, and fixed assignments pin a
    maintenance shutdown and a safety training. Thirty workers, four weeks of November.
    """
    rng = random.Random(2404)
    dates = period("2026-11-02", "2026-11-29")
    no = (0, 0)
    lead = (1, 1)
    shifts = [
        shift(
            "morning",
            "Morning",
            ("06:00", "14:00"),
            demand(dates, by_weekday((8, 10), no, no)),
            demand(dates, by_weekday(lead, no, no)),
        ),
        shift(
            "afternoon",
            "Afternoon",
            ("14:00", "22:00"),
            demand(dates, by_weekday((7, 9), no, no)),
            demand(dates, by_weekday(lead, no, no)),
        ),
        shift(
            "night",
            "Night",
            ("22:00", "06:00"),
            demand(dates, by_weekday((5, 6), (4, 5), (4, 5))),
            demand(dates, by_weekday(lead, lead, lead)),
        ),
        shift(
            "we_morning",
            "Weekend morning",
            ("06:00", "14:00"),
            demand(dates, by_weekday(no, (5, 6), (5, 6))),
            demand(dates, by_weekday(no, lead, lead)),
        ),
        shift(
            "we_afternoon",
            "Weekend afternoon",
            ("14:00", "22:00"),
            demand(dates, by_weekday(no, (4, 5), (4, 5))),
            demand(dates, by_weekday(no, (0, 1), (0, 1))),
        ),
    ]
    people = names(rng, 30)
    every = ["morning", "afternoon", "night", "we_morning", "we_afternoon"]
    month = build.span(18, 20)
    weekly_48 = hours_limit(48)
    # Maintenance technicians op-25..op-27 run the planned shutdown on Saturday 14th and
    # op-25 the night inspection a week later; op-01 chairs two Monday production
    # meetings; op-11..op-14 attend a safety training on Tuesday 10th.
    pins = {
        "op-25": [fixed("2026-11-14", "we_morning"), fixed("2026-11-21", "night")],
        "op-26": [fixed("2026-11-14", "we_morning")],
        "op-27": [fixed("2026-11-14", "we_morning")],
        "op-01": [fixed("2026-11-02", "morning"), fixed("2026-11-16", "morning")],
    }
    for emp_id in ("op-11", "op-12", "op-13", "op-14"):
        pins[emp_id] = [fixed("2026-11-10", "morning")]
    staff: list[Json] = []
    for i in range(30):
        emp_id = f"op-{i + 1:02d}"
        fields: dict[str, Any] = {
            "working_days_per_month": month,
            "weekly_working_hours_limit": weekly_48,
            "preferences": day_offs(rng, dates, rng.randint(0, 2)),
            "fixed_assignments": pins.get(emp_id, []),
        }
        shifts_of = every
        if i < 6:  # shift leads
            fields["is_manager"] = True
        elif i < 9:  # night volunteers
            fields["shift_count_limits"] = [{"shift_id": "night", "min": 6, "max": 14}]
        elif 21 <= i < 24:  # older operators
            fields["shift_count_limits"] = [{"shift_id": "night", "max": 4}]
            fields["preferences"].append(shift_wish("avoided_shift", rng.choice(dates), "night"))
        elif i >= 27:  # apprentices: no nights, vocational school on Fridays
            shifts_of = ["morning", "afternoon", "we_morning"]
            fields["working_days_per_month"] = build.span(16, 18)
            fields["available_weekdays"] = ["mon", "tue", "wed", "thu", "sat", "sun"]
            fields["shift_count_limits"] = [{"shift_id": "we_morning", "max": 2}]
            fields["weekly_working_hours_limit"] = hours_limit(40)
        staff.append(employee(emp_id, people[i], shifts_of, **fields))
    constraints = {
        "shift_transitions": [
            transition("afternoon", "morning"),
            transition("night", "morning"),
            transition("night", "we_morning"),
            transition("afternoon", "we_morning"),
            transition("we_afternoon", "we_morning"),
            transition("we_afternoon", "morning"),
            transition("night", "afternoon", enforcement="soft"),
            transition("night", "night", rule="require", enforcement="soft"),
        ],
        "max_consecutive_working_days": 6,
        "fairness_groups": [
            {"target_shift_ids": ["night"], "policy": "equal", "penalty_weight": 20},
            {"target_shift_ids": ["we_morning", "we_afternoon"], "policy": "equal"},
        ],
    }
    return request(dates, shifts, staff, constraints)


def two_month_period() -> Json:
    """Community pharmacy over two months that start and end mid-week and mid-month.

    Open Monday to Saturday (Sunday demand is zero), closed on Good Friday, Easter Monday
    and May Day (demand zeroed on those dates too). A pharmacist (manager) must be on the
    morning and the afternoon counter. Fixed assignments: the owner opens every Monday,
    the vaccination pharmacist runs the Thursday afternoon clinic, and three people do
    the quarter-end stocktake. The period starts on a Thursday in March and ends on a
    Monday in May, so the first and last ISO weeks and the months of March and May are
    partial and monthly/weekly minimums are prorated there. The consecutive-days rule is
    left at its default (hard 6, soft 5).
    """
    rng = random.Random(2405)
    dates = period("2026-03-12", "2026-05-11")
    holidays = ["2026-04-03", "2026-04-06", "2026-05-01"]
    closed = set(holidays)

    def open_days(weekday: tuple[int, int], saturday: tuple[int, int]) -> DemandRule:
        base = by_weekday(weekday, saturday, (0, 0))
        return lambda d: (0, 0) if d.isoformat() in closed else base(d)

    pharmacist = open_days((1, 1), (1, 1))
    shifts = [
        shift(
            "morning",
            "Morning counter",
            ("08:00", "14:00"),
            demand(dates, open_days((3, 4), (3, 4))),
            demand(dates, pharmacist),
        ),
        shift(
            "afternoon",
            "Afternoon counter",
            ("13:00", "19:00"),
            demand(dates, open_days((3, 4), (2, 3))),
            demand(dates, pharmacist),
        ),
        shift(
            "full",
            "Full day (back office and deliveries)",
            ("09:00", "18:00"),
            demand(dates, open_days((2, 3), (0, 0))),
        ),
    ]
    people = names(rng, 15)
    every = ["morning", "afternoon", "full"]
    business_days = [d for d in dates if d.weekday() != 6 and d.isoformat() not in closed]
    full_time = {
        "working_days_per_month": build.span(17, 20),
        "working_days_per_week": build.span(4, 5),
    }
    part_time = {
        "working_days_per_month": build.span(9, 12),
        "working_days_per_week": build.span(2, 3),
    }
    easter_break = [d for d in business_days if "2026-03-30" <= d.isoformat() <= "2026-04-10"]

    staff = [
        employee(
            "ph-01",
            people[0],
            every,
            is_manager=True,
            fixed_assignments=[
                fixed(d.isoformat(), "morning") for d in business_days if d.weekday() == 0
            ],
            working_days_per_month=build.span(18, 21),
            working_days_per_week=build.span(4, 5),
        ),
        employee(
            "ph-02",
            people[1],
            every,
            is_manager=True,
            preferences=day_offs(rng, [d for d in business_days if d.weekday() != 3], 2),
            fixed_assignments=[
                fixed(d.isoformat(), "afternoon") for d in business_days if d.weekday() == 3
            ],
            **full_time,
        ),
        employee(
            "ph-03",
            people[2],
            every,
            is_manager=True,
            preferences=day_offs(rng, easter_break, 3),
            **full_time,
        ),
        employee(
            "ph-04",
            people[3],
            ["morning", "afternoon"],
            is_manager=True,
            available_weekdays=["mon", "tue", "wed", "sat"],
            **part_time,
        ),
    ]
    for i in range(4, 10):  # pharmacy technicians, full time
        wishes = day_offs(rng, business_days, rng.randint(1, 3))
        if i % 2 == 0:
            wishes += [
                shift_wish("preferred_shift", d, "morning") for d in rng.sample(business_days, 2)
            ]
        pins = [fixed("2026-03-31", "full")] if i in (4, 5) else []  # quarter-end stocktake
        staff.append(
            employee(
                f"ph-{i + 1:02d}",
                people[i],
                every,
                preferences=sorted(wishes, key=lambda w: w["date"]),
                fixed_assignments=pins,
                **full_time,
            )
        )
    staff.append(
        employee(
            "ph-11",
            people[10],
            every,
            preferences=day_offs(rng, easter_break, 2),
            **part_time,
        )
    )
    for i, available in zip(
        range(11, 14),
        (["mon", "tue", "wed", "thu", "fri"], ["thu", "fri", "sat"], ["mon", "wed", "fri"]),
        strict=True,
    ):
        staff.append(
            employee(
                f"ph-{i + 1:02d}",
                people[i],
                ["morning", "afternoon"],
                preferences=day_offs(rng, business_days, 1),
                available_weekdays=available,
                weekly_working_hours_limit=hours_limit(20, "soft"),
                **part_time,
            )
        )
    staff.append(
        employee(
            "ph-15",
            people[14],
            ["morning", "full"],
            fixed_assignments=[fixed("2026-03-31", "full")],
            available_weekdays=["mon", "tue", "wed", "thu", "sat"],
            weekly_working_hours_limit=hours_limit(40),
            **full_time,
        )
    )
    constraints = {"shift_transitions": [transition("afternoon", "morning", enforcement="soft")]}
    return request(dates, shifts, staff, constraints, holidays=holidays)


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

    count: int
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

    def peak(ranges: tuple[tuple[int, int], tuple[int, int]]) -> DemandRule:
        normal, busy = ranges
        return lambda d: busy if d.weekday() in (4, 6) else normal

    duties = [
        duty(k, name, dates, {s: peak(r) for s, r in rules.items()})
        for k, name, rules in AIRPORT_DUTIES
    ]
    shifts = [
        shift(s, name, (start, end), summed_demand(duties, s, dates))
        for s, name, start, end in AIRPORT_SHIFTS
    ]
    duty_ids = [k["id"] for k in duties]
    early_and_day = ["e04", "e05", "e06", "d08", "d10", "m12"]
    late = ["l14", "l15", "l16"]
    passenger = [*early_and_day, *late, "pk06", "pk17"]
    trades = [
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
    people = names(rng, 50)
    staff: list[Json] = []
    for trade in trades:
        prefix, trained, (low, high), pool = trade.prefix, trade.duties, trade.levels, trade.shifts
        for n in range(trade.count):
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
            staff.append(
                employee(
                    f"{prefix}-{n + 1:02d}",
                    people[len(staff)],
                    shifts_of,
                    is_manager=trade.manager,
                    skill_levels=levels,
                    preferences=sorted(wishes, key=lambda w: w["date"]),
                    working_days_per_month=build.span(8, 12) if part_time else build.span(19, 22),
                    weekly_working_hours_limit=(
                        hours_limit(20, "soft") if part_time else hours_limit(48)
                    ),
                )
            )
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


# -------------------------------------------------------------------------- output

SCENARIOS: dict[str, Callable[[], Json]] = {
    "ward_24_7.json": ward_24_7,
    "retail_weekdays.json": retail_weekdays,
    "call_centre_duties.json": call_centre_duties,
    "factory_three_shifts.json": factory_three_shifts,
    "two_month_period.json": two_month_period,
    "max_size.json": max_size,
}

_RANGE = re.compile(r'\{\s*"min": (\d+),\s*"max": (\d+)\s*\}')
_SHORT_LIST = re.compile(r'\[\s*((?:"[^"\n]*",\s*)*"[^"\n]*")\s*\]')


def render(body: Json) -> str:
    """Indented JSON with {min, max} ranges and short string lists kept on one line."""
    text = json.dumps(body, indent=2, ensure_ascii=False)
    text = _RANGE.sub(r'{"min": \1, "max": \2}', text)
    text = _SHORT_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    return text + "\n"


def write_all(directory: Path) -> list[Path]:
    """Write every scenario into ``directory``; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, scenario in SCENARIOS.items():
        path = directory / file_name
        path.write_text(render(scenario()), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for path in write_all(Path(args[0]) if args else HERE):
        print(path.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
