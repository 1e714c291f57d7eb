"""The shop: a town-centre fashion store open Monday to Saturday (``retail_weekdays.json``)."""

from __future__ import annotations

import datetime as dt
import random

from shiftsched.data import request_body as build

from .builder import (
    WEEKDAYS,
    DemandRule,
    Json,
    day_offs,
    demand,
    employee,
    hours_limit,
    names,
    period,
    request,
    shift,
    shift_wish,
    transition,
    weekly,
)

EVERY = ["open", "day", "close"]


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
    shifts = _shifts(dates)
    people = names(rng, 12)
    staff = (
        _managers(rng, open_days, people)
        + _associates(rng, open_days, people)
        + _part_timers(rng, open_days, people)
    )
    constraints = {
        "shift_transitions": [transition("close", "open", enforcement="soft")],
        "employee_pairings": [{"employee_ids": ["store-07", "store-08"], "rule": "exclude"}],
    }
    return request(dates, shifts, staff, constraints, holidays=holidays)


def _weekday_heavy(
    mon_thu: tuple[int, int], fri: tuple[int, int], sat: tuple[int, int]
) -> DemandRule:
    """A demand rule for a shop shut on Sundays: Monday..Thursday alike, Friday, Saturday."""
    return weekly(mon_thu, mon_thu, mon_thu, mon_thu, fri, sat, (0, 0))


def _shifts(dates: list[dt.date]) -> list[Json]:
    """Opening, day and closing; a key holder opens and closes."""
    key_holder = _weekday_heavy((1, 1), (1, 1), (1, 1))
    return [
        shift(
            "open",
            "Opening",
            ("08:00", "14:00"),
            demand(dates, _weekday_heavy((2, 3), (2, 3), (3, 4))),
            demand(dates, key_holder),
        ),
        shift(
            "day",
            "Day",
            ("09:30", "18:00"),
            demand(dates, _weekday_heavy((2, 3), (2, 3), (3, 4))),
        ),
        shift(
            "close",
            "Closing",
            ("14:00", "20:30"),
            demand(dates, _weekday_heavy((2, 3), (3, 4), (3, 4))),
            demand(dates, key_holder),
        ),
    ]


def _managers(rng: random.Random, open_days: list[dt.date], people: list[str]) -> list[Json]:
    """The key holders: store manager (weekdays), deputy and supervisor."""
    full_week = build.span(4, 5)
    return [
        employee(
            "store-01",
            people[0],
            EVERY,
            is_manager=True,
            preferences=day_offs(rng, open_days, 1),
            working_days_per_week=build.span(5, 5),
            available_weekdays=list(WEEKDAYS[:5]),
        ),
        employee(
            "store-02",
            people[1],
            EVERY,
            is_manager=True,
            preferences=day_offs(rng, open_days, 2),
            working_days_per_week=full_week,
            weekly_working_hours_limit=hours_limit(40),
        ),
        employee(
            "store-03",
            people[2],
            EVERY,
            is_manager=True,
            preferences=[shift_wish("preferred_shift", d, "open") for d in open_days[:3]],
            working_days_per_week=full_week,
            weekly_working_hours_limit=hours_limit(40),
        ),
    ]


def _associates(rng: random.Random, open_days: list[dt.date], people: list[str]) -> list[Json]:
    """Three full-time sales associates and the two apprentices kept apart."""
    full_week = build.span(4, 5)
    staff: list[Json] = []
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
                EVERY,
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
                ["open", "day"] if i == 6 else EVERY,
                preferences=day_offs(rng, open_days, 1),
                working_days_per_week=full_week,
                weekly_working_hours_limit=hours_limit(40),
            )
        )
    return staff


def _part_timers(rng: random.Random, open_days: list[dt.date], people: list[str]) -> list[Json]:
    """Part-timers bound to the weekdays they can work: students, a parent."""
    student_days = [d for d in open_days if d.weekday() in (3, 4, 5)]
    return [
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
            EVERY,
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
