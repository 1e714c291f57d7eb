"""The factory: a packaging plant in three eight-hour shifts around the clock
(``factory_three_shifts.json``)."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from shiftsched.data import request_body as build

from .builder import (
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

NO = (0, 0)
LEAD = (1, 1)
EVERY = ["morning", "afternoon", "night", "we_morning", "we_afternoon"]


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
    shifts = _shifts(dates)
    people = names(rng, 30)
    staff = _operators(rng, dates, people)
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


def _shifts(dates: list[dt.date]) -> list[Json]:
    """Weekday morning and afternoon, a daily night, and the premium weekend days."""
    return [
        shift(
            "morning",
            "Morning",
            ("06:00", "14:00"),
            demand(dates, by_weekday((8, 10), NO, NO)),
            demand(dates, by_weekday(LEAD, NO, NO)),
        ),
        shift(
            "afternoon",
            "Afternoon",
            ("14:00", "22:00"),
            demand(dates, by_weekday((7, 9), NO, NO)),
            demand(dates, by_weekday(LEAD, NO, NO)),
        ),
        shift(
            "night",
            "Night",
            ("22:00", "06:00"),
            demand(dates, by_weekday((5, 6), (4, 5), (4, 5))),
            demand(dates, by_weekday(LEAD, LEAD, LEAD)),
        ),
        shift(
            "we_morning",
            "Weekend morning",
            ("06:00", "14:00"),
            demand(dates, by_weekday(NO, (5, 6), (5, 6))),
            demand(dates, by_weekday(NO, LEAD, LEAD)),
        ),
        shift(
            "we_afternoon",
            "Weekend afternoon",
            ("14:00", "22:00"),
            demand(dates, by_weekday(NO, (4, 5), (4, 5))),
            demand(dates, by_weekday(NO, (0, 1), (0, 1))),
        ),
    ]


def _pins() -> dict[str, list[Json]]:
    """The fixed assignments, by employee id.

    Maintenance technicians op-25..op-27 run the planned shutdown on Saturday 14th and
    op-25 the night inspection a week later; op-01 chairs two Monday production
    meetings; op-11..op-14 attend a safety training on Tuesday 10th.
    """
    pins = {
        "op-25": [fixed("2026-11-14", "we_morning"), fixed("2026-11-21", "night")],
        "op-26": [fixed("2026-11-14", "we_morning")],
        "op-27": [fixed("2026-11-14", "we_morning")],
        "op-01": [fixed("2026-11-02", "morning"), fixed("2026-11-16", "morning")],
    }
    for emp_id in ("op-11", "op-12", "op-13", "op-14"):
        pins[emp_id] = [fixed("2026-11-10", "morning")]
    return pins


def _operators(rng: random.Random, dates: list[dt.date], people: list[str]) -> list[Json]:
    """Thirty operators: shift leads, night volunteers, older operators, apprentices."""
    pins = _pins()
    month = build.span(18, 20)
    weekly_48 = hours_limit(48)
    staff: list[Json] = []
    for i in range(30):
        emp_id = f"op-{i + 1:02d}"
        fields: dict[str, Any] = {
            "working_days_per_month": month,
            "weekly_working_hours_limit": weekly_48,
            "preferences": day_offs(rng, dates, rng.randint(0, 2)),
            "fixed_assignments": pins.get(emp_id, []),
        }
        shifts_of = EVERY
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
    return staff
