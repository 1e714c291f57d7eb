"""Builders of small, valid v1 requests as plain dicts, for tests to mutate.

Every function returns a fresh deep structure, so a test may change it freely.

``minimal_request_dict()``
    A valid request: the 7 days Monday 2026-03-02 .. Sunday 2026-03-08 (UTC, no
    holidays); shifts ``day`` (07:00-15:00) and ``night`` (23:00-07:00), each needing
    exactly 1 head per day; duty ``lead`` on shift ``day`` only (0..1 per day); employees
    ``e1``, ``e2``, ``e3``, each assignable to both shifts. Size 3 x 2 x 1 x 7 = 42. A
    roster without shortages exists.
``request_with(**overrides)``
    The minimal request with top-level keys replaced, e.g. ``request_with(duties=[])``;
    a value of :data:`DELETE` removes the key.
``replaced(data, path, value)`` / ``deleted(data, path)``
    A copy of ``data`` with the value at a JSON path (``("employees", 0, "id")``) set or
    removed; ``value`` may be :data:`DELETE` too.
``demand(min_, max_, days=7)``, ``shift_dict(...)``, ``duty_dict(...)``, ``employee_dict(...)``
    The parts, for building other requests.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

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
    return [{"min": min_, "max": max_} for _ in range(days)]


def shift_dict(shift_id: str, start: str, end: str, **fields: Any) -> dict[str, Any]:
    """A shift with working hours and a demand of exactly 1 per day; ``fields`` override."""
    shift = {
        "id": shift_id,
        "name": shift_id.capitalize(),
        "working_hours": {"start_time": start, "end_time": end},
        "staffing_demand": demand(),
    }
    return shift | fields


def duty_dict(duty_id: str = DUTY_ID, shift_ids: Sequence[str] = ("day",)) -> dict[str, Any]:
    """A duty wanted 0..1 times per day on each of ``shift_ids``."""
    return {
        "id": duty_id,
        "name": duty_id.capitalize(),
        "staffing_demand_by_shift": {s: demand(0, 1) for s in shift_ids},
    }


def employee_dict(employee_id: str, **fields: Any) -> dict[str, Any]:
    """An employee assignable to every shift of the minimal request; ``fields`` override."""
    employee = {
        "id": employee_id,
        "name": employee_id.upper(),
        "assignable_shift_ids": list(SHIFT_IDS),
    }
    return employee | fields


def minimal_request_dict() -> dict[str, Any]:
    """The small valid request described in the module docstring."""
    return {
        "schedule_period": {"start_date": START_DATE, "end_date": END_DATE},
        "shifts": [shift_dict("day", "07:00", "15:00"), shift_dict("night", "23:00", "07:00")],
        "duties": [duty_dict()],
        "employees": [employee_dict(e) for e in EMPLOYEE_IDS],
    }


def request_with(**overrides: Any) -> dict[str, Any]:
    """The minimal request with top-level keys replaced (or removed with DELETE)."""
    data = minimal_request_dict()
    for key, value in overrides.items():
        data = replaced(data, (key,), value)
    return data


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
