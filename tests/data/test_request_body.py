"""shiftsched.data.request_body, the one builder of request bodies: the committed datasets are
written from its dicts, so the order of their keys and what is left out are its contract."""

from __future__ import annotations

import datetime as dt

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.data import request_body as build


def test_a_body_has_the_contracts_order_and_leaves_out_what_is_none() -> None:
    shifts = [build.shift("S", build.demand(3, 1, 2), hours=("08:00", "16:00"))]
    employees = [build.employee("e1", ["S"], name="Ada")]
    bare = build.request_body(shifts, employees, start="2026-03-02", days=3)
    assert list(bare) == ["schedule_period", "shifts", "employees"]
    assert bare["schedule_period"] == {"start_date": "2026-03-02", "end_date": "2026-03-04"}
    full = build.request_body(
        shifts,
        employees,
        start=dt.date(2026, 3, 2),
        end=dt.date(2026, 3, 4),
        holidays=["2026-03-03"],
        timezone="Europe/Berlin",
        duties=[build.duty("K", {"S": build.demand(3, 0, 1)})],
        constraints={"max_consecutive_working_days": 2},
        options={"solver_timeout_seconds": 5},
    )
    assert list(full) == [
        "schedule_period",
        "shifts",
        "duties",
        "employees",
        "constraints",
        "options",
    ]
    assert list(full["schedule_period"]) == ["start_date", "end_date", "holidays", "timezone"]
    assert full["schedule_period"]["end_date"] == "2026-03-04"
    parse_request(bare)
    parse_request(full)


def test_parts_keep_their_fields_in_order() -> None:
    assert list(build.shift("S", [], name="Day", hours=("08:00", "16:00"), managers=[])) == [
        "id",
        "name",
        "working_hours",
        "staffing_demand",
        "manager_demand",
    ]
    assert build.shift("S", None) == {"id": "S", "name": "S"}
    employee = build.employee("e1", ("S",), fixed_assignments=[], available_weekdays=["mon"])
    assert list(employee) == [
        "id",
        "assignable_shift_ids",
        "fixed_assignments",
        "available_weekdays",
    ]
    assert build.fixed("2026-03-02", "S") == {"date": "2026-03-02", "shift_id": "S"}
    assert build.demand(3, 0, 9, at={1: (2, 2)}) == [
        {"min": 0, "max": 9},
        {"min": 2, "max": 2},
        {"min": 0, "max": 9},
    ]


@pytest.mark.parametrize("period", [{}, {"end": "2026-03-04", "days": 3}])
def test_the_period_needs_its_end_or_its_days(period: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="one of the two"):
        build.request_body([], [], start="2026-03-02", **period)  # type: ignore[arg-type]
