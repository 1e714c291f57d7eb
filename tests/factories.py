"""Builders of small, valid v1 requests as plain dicts, for tests to mutate.

Every function returns a fresh deep structure, so a test may change it freely.

``minimal_request_dict()``
    A valid request: the 7 days Monday 2026-03-02 .. Sunday 2026-03-08 (UTC, no
    holidays); shifts ``day`` (07:00-15:00) and ``night`` (23:00-07:00), each needing
    exactly 1 head per day; duty ``lead`` on shift ``day`` only (0..1 per day); employees
    ``e1``, ``e2``, ``e3``, each assignable to both shifts. Size 3 x 2 x 1 x 7 = 42. A
    roster without shortages exists.
``full_request_dict()``
    The minimal request with every optional object of the contract present at least once
    (holidays, manager demand, preferences of each type, fixed assignments, limits, every
    constraint family, options); still valid, for tests that must reach every level.
``request_with(**overrides)``
    The minimal request with top-level keys replaced, e.g. ``request_with(duties=[])``;
    a value of :data:`DELETE` removes the key.
``replaced(data, path, value)`` / ``deleted(data, path)``
    A copy of ``data`` with the value at a JSON path (``("employees", 0, "id")``) set or
    removed; ``value`` may be :data:`DELETE` too.
``faults(data)``
    The ``(path, code)`` pairs :func:`shiftsched.contract.parse.parse_request` reports for ``data``,
    as a set; empty when the request is valid.
``demand(min_, max_, days=7)``, ``shift_dict(...)``, ``duty_dict(...)``, ``employee_dict(...)``
    The parts, for building other requests.

The parts and the body come from :mod:`shiftsched.data.request_body`, the one builder the other
tests, the synthetic generator and the dataset scripts use too.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from shiftsched.contract.parse import parse_request
from shiftsched.data import request_body as build
from shiftsched.errors import InvalidRequest

START_DATE = "2026-03-02"  # a Monday
END_DATE = "2026-03-08"  # the Sunday after
DAYS = 7
SHIFT_IDS = ("day", "night")
DUTY_ID = "lead"
EMPLOYEE_IDS = ("e1", "e2", "e3")

#: Marker value: remove the key instead of setting it.
DELETE: Any = object()

JsonPath = Sequence[str | int]


def demand(min_: int = 1, max_: int = 1, days: int = DAYS) -> list[dict[str, int]]:
    """One ``{min, max}`` range per day."""
    return build.demand(days, min_, max_)


def shift_dict(shift_id: str, start: str, end: str, **fields: Any) -> dict[str, Any]:
    """A shift with working hours and a demand of exactly 1 per day; ``fields`` override."""
    return build.shift(shift_id, demand(), name=shift_id.capitalize(), hours=(start, end)) | fields


def duty_dict(duty_id: str = DUTY_ID, shift_ids: Sequence[str] = ("day",)) -> dict[str, Any]:
    """A duty wanted 0..1 times per day on each of ``shift_ids``."""
    return build.duty(duty_id, {s: demand(0, 1) for s in shift_ids}, name=duty_id.capitalize())


def employee_dict(employee_id: str, **fields: Any) -> dict[str, Any]:
    """An employee assignable to every shift of the minimal request; ``fields`` override."""
    return build.employee(employee_id, SHIFT_IDS, name=employee_id.upper()) | fields


def minimal_request_dict() -> dict[str, Any]:
    """The small valid request described in the module docstring."""
    return build.request_body(
        [shift_dict("day", "07:00", "15:00"), shift_dict("night", "23:00", "07:00")],
        [employee_dict(e) for e in EMPLOYEE_IDS],
        start=START_DATE,
        end=END_DATE,
        duties=[duty_dict()],
    )


def full_request_dict() -> dict[str, Any]:
    """The request described in the module docstring: every optional object, valid."""
    data = minimal_request_dict()
    data["schedule_period"] |= {"holidays": ["2026-03-08"], "timezone": "Europe/Berlin"}
    data["shifts"][0]["manager_demand"] = demand(0, 1)
    data["employees"][0] |= {
        "is_manager": True,
        "skill_levels": {DUTY_ID: 8},
        "preferences": [
            {"type": "day_off", "date": "2026-03-03"},
            {"type": "preferred_shift", "date": "2026-03-04", "shift_id": "day"},
            {"type": "avoided_shift", "date": "2026-03-05", "shift_id": "night"},
        ],
        "fixed_assignments": [{"date": "2026-03-02", "shift_id": "day", "duty_id": DUTY_ID}],
        "working_days_per_month": {"min": 2, "max": 6},
        "working_days_per_week": {"min": 1, "max": 5},
        "available_weekdays": ["mon", "tue", "wed", "thu", "fri"],
        "shift_count_limits": [{"shift_id": "night", "min": 0, "max": 3}],
        "weekly_working_hours_limit": {"hours": 40, "enforcement": "soft"},
    }
    data["constraints"] = {
        "shift_transitions": [{"from_shift_id": "night", "to_shift_id": "day", "rule": "forbid"}],
        "max_consecutive_working_days": 5,
        "employee_pairings": [{"employee_ids": ["e2", "e3"], "rule": "exclude"}],
        "skill_support": {"scope": "duty", "enforcement": "soft"},
        "cross_shift_demands": [{"date": "2026-03-03", "shift_ids": ["day", "night"], "min": 1}],
        "fairness_groups": [{"target_shift_ids": ["night"], "policy": "equal"}],
    }
    data["options"] = {"solver_timeout_seconds": 10}
    return data


def request_with(**overrides: Any) -> dict[str, Any]:
    """The minimal request with top-level keys replaced (or removed with DELETE)."""
    data = minimal_request_dict()
    for key, value in overrides.items():
        data = replaced(data, (key,), value)
    return data


def faults(data: Any) -> set[tuple[tuple[str | int, ...], str]]:
    """Where and why ``parse_request`` rejects ``data``; empty when it accepts it."""
    try:
        parse_request(data)
    except InvalidRequest as exc:
        return {(error.path, error.code) for error in exc.errors}
    return set()


def replaced(data: Any, path: JsonPath, value: Any) -> Any:
    """A deep copy of ``data`` with the value at ``path`` set (or removed with DELETE)."""
    result = copy.deepcopy(data)
    *parents, last = path
    node = result
    for segment in parents:
        node = node[segment]
    if value is DELETE:
        del node[last]
    else:
        node[last] = copy.deepcopy(value)
    return result


def deleted(data: Any, path: JsonPath) -> Any:
    """A deep copy of ``data`` without the value at ``path``."""
    return replaced(data, path, DELETE)
