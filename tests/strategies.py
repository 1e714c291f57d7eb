"""Hypothesis strategies for small, valid v1 requests that touch every constraint family.

Requests are built so that every reference resolves and every array has the period's
length; hard features are drawn sparingly so most examples stay feasible, while still
combining families in ways no hand-written test does. The parts and the body are put
together by :mod:`shiftsched.data.request_body`, as every other request of the tests is.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import strategies as st

from shiftsched.data import request_body as build

WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
SHIFT_TEMPLATES = [
    ("early", "06:00", "14:00"),
    ("late", "14:00", "22:00"),
    ("night", "22:00", "06:00"),
    ("mid", "10:00", "18:00"),
]
BASE_DATE = dt.date(2026, 2, 20)

Draw = Any


def _range(draw: Draw, low: int, high: int, spread: int = 2) -> dict[str, int]:
    minimum = draw(st.integers(low, high))
    return build.span(minimum, minimum + draw(st.integers(0, spread)))


def _maybe(draw: Draw, probability_tenths: int) -> bool:
    return draw(st.integers(0, 9)) < probability_tenths


@st.composite
def requests(draw: Draw) -> dict[str, Any]:
    """A valid SolveRequest as a plain dict (tiny: <= 5 employees, <= 9 days)."""
    start = BASE_DATE + dt.timedelta(days=draw(st.integers(0, 40)))
    num_days = draw(st.integers(2, 9))
    dates = [start + dt.timedelta(days=i) for i in range(num_days)]
    iso = [d.isoformat() for d in dates]
    holidays = draw(st.lists(st.sampled_from(iso), max_size=1, unique=True))

    templates = draw(
        st.lists(st.sampled_from(SHIFT_TEMPLATES), min_size=1, max_size=3, unique=True)
    )
    shift_ids = [t[0] for t in templates]
    shifts = []
    for sid, begin, end in templates:
        staffing = [_range(draw, 0, 2) for _ in dates]
        managers = [_range(draw, 0, 1, 1) for _ in dates] if _maybe(draw, 3) else None
        shifts.append(
            build.shift(sid, staffing, name=sid.title(), hours=(begin, end), managers=managers)
        )

    duties = []
    for k in range(draw(st.integers(0, 2))):
        on = draw(st.lists(st.sampled_from(shift_ids), min_size=1, unique=True))
        by_shift = {s: [_range(draw, 0, 1, 1) for _ in dates] for s in on}
        duties.append(build.duty(f"duty{k}", by_shift, name=f"Duty {k}"))
    duty_ids = [d["id"] for d in duties]

    employees = [
        _employee(draw, f"e{i}", shift_ids, duty_ids, iso, num_days)
        for i in range(draw(st.integers(2, 5)))
    ]
    employee_ids = [e["id"] for e in employees]
    constraints = _constraints(draw, shift_ids, duty_ids, employee_ids, iso)
    return build.request_body(
        shifts,
        employees,
        start=iso[0],
        end=iso[-1],
        holidays=holidays,
        duties=duties,
        constraints=constraints,
        options={"solver_timeout_seconds": 5},
    )


def _employee(
    draw: Draw, eid: str, shift_ids: list[str], duty_ids: list[str], iso: list[str], num_days: int
) -> dict[str, Any]:
    assignable = draw(st.lists(st.sampled_from(shift_ids), min_size=1, unique=True))
    employee = build.employee(
        eid,
        assignable,
        is_manager=draw(st.booleans()),
        skill_levels={k: draw(st.integers(0, 10)) for k in duty_ids if draw(st.booleans())},
        preferences=[_preference(draw, iso, shift_ids) for _ in range(draw(st.integers(0, 2)))],
    )
    if _maybe(draw, 1):
        employee["fixed_assignments"] = [
            build.fixed(draw(st.sampled_from(iso)), draw(st.sampled_from(assignable)))
        ]
    if _maybe(draw, 3):
        low = draw(st.integers(0, num_days))
        employee["working_days_per_month"] = {"min": low, "max": low + draw(st.integers(0, 10))}
    if _maybe(draw, 3):
        low = draw(st.integers(0, 5))
        employee["working_days_per_week"] = {"min": low, "max": low + draw(st.integers(0, 2))}
    if _maybe(draw, 2):
        employee["available_weekdays"] = draw(
            st.lists(st.sampled_from(WEEKDAYS), min_size=1, max_size=7, unique=True)
        )
    if _maybe(draw, 2):
        low = draw(st.integers(0, 1))
        employee["shift_count_limits"] = [
            {
                "shift_id": draw(st.sampled_from(assignable)),
                "min": low,
                "max": low + draw(st.integers(0, 4)),
            }
        ]
    if _maybe(draw, 3):
        employee["weekly_working_hours_limit"] = {
            "hours": draw(st.integers(8, 48)),
            "enforcement": draw(st.sampled_from(["hard", "soft"])),
        }
    return employee


def _preference(draw: Draw, iso: list[str], shift_ids: list[str]) -> dict[str, Any]:
    kind = draw(st.sampled_from(["day_off", "preferred_shift", "avoided_shift"]))
    pref: dict[str, Any] = {"type": kind, "date": draw(st.sampled_from(iso))}
    if kind != "day_off":
        pref["shift_id"] = draw(st.sampled_from(shift_ids))
    return pref


def _constraints(
    draw: Draw, shift_ids: list[str], duty_ids: list[str], employee_ids: list[str], iso: list[str]
) -> dict[str, Any]:
    constraints: dict[str, Any] = {
        "shift_transitions": [
            {
                "from_shift_id": draw(st.sampled_from(shift_ids)),
                "to_shift_id": draw(st.sampled_from(shift_ids)),
                "rule": draw(st.sampled_from(["forbid", "require"])),
                "enforcement": draw(st.sampled_from(["hard", "soft", "soft"])),
            }
            for _ in range(draw(st.integers(0, 2)))
        ],
        "employee_pairings": [
            {
                "employee_ids": draw(
                    st.lists(st.sampled_from(employee_ids), min_size=2, max_size=3, unique=True)
                ),
                "rule": draw(st.sampled_from(["exclude", "require"])),
            }
            for _ in range(draw(st.integers(0, 1)))
        ],
        "cross_shift_demands": [],
        "fairness_groups": [
            {
                "target_shift_ids": draw(
                    st.lists(st.sampled_from(shift_ids), min_size=1, unique=True)
                ),
                "policy": draw(st.sampled_from(["proportional", "equal"])),
                **({"penalty_weight": draw(st.integers(1, 30))} if draw(st.booleans()) else {}),
            }
            for _ in range(draw(st.integers(0, 2)))
        ],
    }
    if _maybe(draw, 4):
        constraints["max_consecutive_working_days"] = draw(st.integers(1, 6))
    if _maybe(draw, 3):
        constraints["skill_support"] = {
            "scope": draw(st.sampled_from(["shift", "duty"])),
            "enforcement": draw(st.sampled_from(["hard", "soft", "soft"])),
        }
    if _maybe(draw, 4):
        low = draw(st.integers(0, 3))
        demand: dict[str, Any] = {
            "date": draw(st.sampled_from(iso)),
            "shift_ids": draw(st.lists(st.sampled_from(shift_ids), min_size=1, unique=True)),
            "managers_only": draw(st.booleans()),
            "min": low,
        }
        if draw(st.booleans()):
            demand["max"] = low + draw(st.integers(0, 2))
        if duty_ids and draw(st.booleans()):
            demand["duty_id"] = draw(st.sampled_from(duty_ids))
        constraints["cross_shift_demands"].append(demand)
    return constraints
