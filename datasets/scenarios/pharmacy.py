"""The pharmacy: a community pharmacy over two months that start and end mid-week
(``two_month_period.json``)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Set

from shiftsched.data import request_body as build

from .builder import (
    DemandRule,
    Json,
    by_weekday,
    day_offs,
    demand,
    employee,
    fixed,
    hours_limit,
    names,
    period,
    request,
    shift,
    shift_wish,
    transition,
)

EVERY = ["morning", "afternoon", "full"]


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
    shifts = _shifts(dates, closed)
    people = names(rng, 15)
    business_days = [d for d in dates if d.weekday() != 6 and d.isoformat() not in closed]
    easter_break = [d for d in business_days if "2026-03-30" <= d.isoformat() <= "2026-04-10"]
    staff = _pharmacists(rng, business_days, easter_break, people) + _assistants(
        rng, business_days, easter_break, people
    )
    constraints = {"shift_transitions": [transition("afternoon", "morning", enforcement="soft")]}
    return request(dates, shifts, staff, constraints, holidays=holidays)


def _full_time() -> Json:
    return {
        "working_days_per_month": build.span(17, 20),
        "working_days_per_week": build.span(4, 5),
    }


def _part_time() -> Json:
    return {
        "working_days_per_month": build.span(9, 12),
        "working_days_per_week": build.span(2, 3),
    }


def _open_days(closed: Set[str], weekday: tuple[int, int], saturday: tuple[int, int]) -> DemandRule:
    """A demand rule for Monday..Saturday that is zero on Sundays and the closed dates."""
    base = by_weekday(weekday, saturday, (0, 0))
    return lambda d: (0, 0) if d.isoformat() in closed else base(d)


def _shifts(dates: list[dt.date], closed: Set[str]) -> list[Json]:
    """Morning and afternoon counters (each with a pharmacist) and a full back-office day."""
    pharmacist = _open_days(closed, (1, 1), (1, 1))
    return [
        shift(
            "morning",
            "Morning counter",
            ("08:00", "14:00"),
            demand(dates, _open_days(closed, (3, 4), (3, 4))),
            demand(dates, pharmacist),
        ),
        shift(
            "afternoon",
            "Afternoon counter",
            ("13:00", "19:00"),
            demand(dates, _open_days(closed, (3, 4), (2, 3))),
            demand(dates, pharmacist),
        ),
        shift(
            "full",
            "Full day (back office and deliveries)",
            ("09:00", "18:00"),
            demand(dates, _open_days(closed, (2, 3), (0, 0))),
        ),
    ]


def _pharmacists(
    rng: random.Random,
    business_days: list[dt.date],
    easter_break: list[dt.date],
    people: list[str],
) -> list[Json]:
    """The owner (opens every Monday), the vaccination pharmacist and two more."""
    return [
        employee(
            "ph-01",
            people[0],
            EVERY,
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
            EVERY,
            is_manager=True,
            preferences=day_offs(rng, [d for d in business_days if d.weekday() != 3], 2),
            fixed_assignments=[
                fixed(d.isoformat(), "afternoon") for d in business_days if d.weekday() == 3
            ],
            **_full_time(),
        ),
        employee(
            "ph-03",
            people[2],
            EVERY,
            is_manager=True,
            preferences=day_offs(rng, easter_break, 3),
            **_full_time(),
        ),
        employee(
            "ph-04",
            people[3],
            ["morning", "afternoon"],
            is_manager=True,
            available_weekdays=["mon", "tue", "wed", "sat"],
            **_part_time(),
        ),
    ]


def _assistants(
    rng: random.Random,
    business_days: list[dt.date],
    easter_break: list[dt.date],
    people: list[str],
) -> list[Json]:
    """Pharmacy technicians and assistants, full and part time; three do the stocktake."""
    staff: list[Json] = []
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
                EVERY,
                preferences=sorted(wishes, key=lambda w: w["date"]),
                fixed_assignments=pins,
                **_full_time(),
            )
        )
    staff.append(
        employee(
            "ph-11", people[10], EVERY, preferences=day_offs(rng, easter_break, 2), **_part_time()
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
                **_part_time(),
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
            **_full_time(),
        )
    )
    return staff
