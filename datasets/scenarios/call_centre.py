"""The call centre: an insurance customer-service centre with four duties per shift
(``call_centre_duties.json``)."""

from __future__ import annotations

import datetime as dt
import random

from shiftsched.data import request_body as build

from .builder import (
    Json,
    by_weekday,
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

NO = (0, 0)
EVERY = ["early", "mid", "late"]


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
    duties = _duties(dates)
    hours = {"early": ("07:00", "15:00"), "mid": ("10:00", "18:00"), "late": ("13:00", "21:00")}
    labels = {"early": "Early", "mid": "Midday", "late": "Late"}
    shifts = [
        shift(s, labels[s], hours[s], summed_demand(duties, s, dates))
        for s in ("early", "mid", "late")
    ]
    people = names(rng, 25)
    staff = _full_time(rng, dates, people) + _part_time(rng, dates, people)
    festival = {"type": "day_off", "date": "2026-06-12"}  # many ask for the festival Friday
    for e in rng.sample(staff[4:], 8):
        e.setdefault("preferences", []).append(festival)
        e["preferences"].sort(key=lambda w: w["date"])
    return request(dates, shifts, staff, _constraints(), duties=duties, timezone="Europe/Dublin")


def _duties(dates: list[dt.date]) -> list[Json]:
    """Phones, chat, e-mail and floor supervision, each with its demand per shift."""
    return [
        duty(
            "phones",
            "Phone queue",
            dates,
            {
                "early": by_weekday((4, 5), (2, 3), (2, 3)),
                "mid": by_weekday((4, 5), NO, NO),
                "late": by_weekday((3, 4), (2, 3), (2, 3)),
            },
        ),
        duty(
            "chat",
            "Web chat",
            dates,
            {
                "early": by_weekday((1, 2), (1, 1), (1, 1)),
                "mid": by_weekday((1, 2), NO, NO),
                "late": by_weekday((1, 2), (1, 1), (1, 1)),
            },
        ),
        duty(
            "email",
            "E-mail and letters",
            dates,
            {"early": by_weekday((1, 1), (0, 1), (0, 1)), "mid": by_weekday((1, 2), NO, NO)},
        ),
        duty(
            "supervisor",
            "Floor supervisor",
            dates,
            {
                "early": by_weekday((1, 1), (1, 1), (1, 1)),
                "mid": by_weekday((0, 1), NO, NO),
                "late": by_weekday((1, 1), (1, 1), (1, 1)),
            },
        ),
    ]


def _full_time(rng: random.Random, dates: list[dt.date], people: list[str]) -> list[Json]:
    """Four team leads and fifteen full-time agents; agent-05 mentors the trainee."""
    week = build.span(5, 5)
    staff: list[Json] = []
    for i in range(4):  # team leads
        staff.append(
            employee(
                f"agent-{i + 1:02d}",
                people[i],
                EVERY,
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
                ["early", "mid"] if mentor else EVERY,
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
    return staff


def _part_time(rng: random.Random, dates: list[dt.date], people: list[str]) -> list[Json]:
    """Four part-time agents (some bound to weekdays) and two trainees on phones only."""
    staff: list[Json] = []
    part_time_days = (["mon", "tue", "wed", "thu", "fri"], None, ["sat", "sun", "mon"], None)
    for i, available in zip(range(19, 23), part_time_days, strict=True):
        staff.append(
            employee(
                f"agent-{i + 1:02d}",
                people[i],
                EVERY,
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
                working_days_per_week=build.span(5, 5),
                weekly_working_hours_limit=hours_limit(40),
            )
        )
    return staff


def _constraints() -> Json:
    """Soft late->early rest, the trainee with her mentor, skill support, cross-shift cover."""
    return {
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
