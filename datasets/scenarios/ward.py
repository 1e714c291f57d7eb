"""The hospital ward: a surgical ward staffed around the clock (``ward_24_7.json``)."""

from __future__ import annotations

import datetime as dt
import random

from shiftsched.data import request_body as build

from .builder import (
    WEEKDAYS,
    Json,
    by_weekday,
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
)

ALL_SHIFTS = ["early", "late", "night"]


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
    shifts = _shifts(dates)
    people = names(rng, 20)
    staff = _leaders(rng, dates, people) + _nurses(rng, dates, people)
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


def _shifts(dates: list[dt.date]) -> list[Json]:
    """Early, late and night, each asking one leader (the night at most one)."""
    leader = by_weekday((1, 1), (1, 1), (1, 1))
    return [
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


def _leaders(rng: random.Random, dates: list[dt.date], people: list[str]) -> list[Json]:
    """The ward manager (weekday days only) and the four charge nurses."""
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
                ALL_SHIFTS,
                is_manager=True,
                preferences=day_offs(rng, dates, rng.randint(1, 3)),
                working_days_per_month=build.span(17, 19),
                weekly_working_hours_limit=hours_limit(48),
            )
        )
    return staff


def _nurses(rng: random.Random, dates: list[dt.date], people: list[str]) -> list[Json]:
    """Eleven full-time staff nurses and four part-timers (the last one does no nights)."""
    staff: list[Json] = []
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
                ALL_SHIFTS,
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
                ["early", "late"] if i == 19 else ALL_SHIFTS,
                preferences=day_offs(rng, dates, rng.randint(1, 2)),
                working_days_per_month=build.span(9, 11),
                weekly_working_hours_limit=hours_limit(30) if i < 18 else hours_limit(24, "soft"),
            )
        )
    return staff
