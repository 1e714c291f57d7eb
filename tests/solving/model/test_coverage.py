"""Coverage: demand minimums become shortage markers, maximums become excess penalties."""

from __future__ import annotations

from typing import Any

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Shortage
from shiftsched.errors import InvalidRequest
from shiftsched.solving.weights import DEMAND_EXCESS, SHORTAGE
from tests.solving.model.conftest import (
    OPEN_MAX,
    date,
    demand,
    duty,
    employee,
    request,
    shift,
    solve_and_audit,
)

DAY, NIGHT = "D", "N"
LEAD = "lead"
A, B = "A", "B"
M1, M2 = "M1", "M2"


# ------------------------------------------------------------------------------ staffing


def test_staffing_shortage_marker_counts_required_assigned_missing() -> None:
    data = request(
        2, [shift(DAY, 2, on={0: (2, OPEN_MAX), 1: (1, OPEN_MAX)})], [employee(A, [DAY])]
    )
    result = solve_and_audit(data)
    assert result.roster(A) == {date(0): DAY, date(1): DAY}
    assert result.shortages == [
        Shortage(kind="staffing", date=date(0), shift_id=DAY, required=2, assigned=1, missing=1)
    ]
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}
    assert result.objective == SHORTAGE


def test_staffing_shortage_violated_by_is_total_missing_heads() -> None:
    data = request(2, [shift(DAY, 2, 3)], [employee(A, [DAY])])
    result = solve_and_audit(data)
    assert [(s.date.isoformat(), s.missing) for s in result.shortages] == [
        (date(0), 2),
        (date(1), 2),
    ]
    assert result.violations == {"staffing_shortage": (4 * SHORTAGE, 4)}


def test_fully_staffed_has_no_shortage() -> None:
    data = request(2, [shift(DAY, 2, 2)], [employee(A, [DAY]), employee(B, [DAY])])
    result = solve_and_audit(data)
    assert result.shortages == []
    assert result.violations == {}
    assert result.objective == 0


# ------------------------------------------------------------------------------- manager


def _manager_request(*, a_is_manager: bool) -> dict[str, Any]:
    managers = demand(1, 1, 1)
    return request(
        1,
        [shift(DAY, 1, 1, managers=managers)],
        [employee(A, [DAY], is_manager=a_is_manager)],
    )


def test_manager_shortage_when_only_a_non_manager_works() -> None:
    result = solve_and_audit(_manager_request(a_is_manager=False))
    assert result.roster(A) == {date(0): DAY}
    assert result.shortages == [
        Shortage(kind="manager", date=date(0), shift_id=DAY, required=1, assigned=0, missing=1)
    ]
    assert result.violations == {"manager_shortage": (SHORTAGE, 1)}


def test_manager_demand_met_by_a_manager() -> None:
    result = solve_and_audit(_manager_request(a_is_manager=True))
    assert result.shortages == []
    assert result.violations == {}


# ---------------------------------------------------------------------------------- duty


def _duty_request(level: int) -> dict[str, Any]:
    return request(
        1,
        [shift(DAY, 1, 1)],
        [employee(A, [DAY], skill_levels={LEAD: level})],
        duties=[duty(LEAD, {DAY: demand(1, 1)})],
    )


def test_duty_shortage_when_nobody_may_hold_the_duty() -> None:
    result = solve_and_audit(_duty_request(level=0))
    assert result.duties(A) == {date(0): None}
    assert result.shortages == [
        Shortage(
            kind="duty", date=date(0), shift_id=DAY, duty_id=LEAD, required=1, assigned=0, missing=1
        )
    ]
    assert result.violations == {"duty_shortage": (SHORTAGE, 1)}


def test_duty_demand_met_by_a_holder() -> None:
    result = solve_and_audit(_duty_request(level=5))
    assert result.duties(A) == {date(0): LEAD}
    assert result.shortages == []
    assert result.violations == {}


# --------------------------------------------------------------------------- cross-shift


def test_cross_shift_shortage_counts_heads_over_all_listed_shifts() -> None:
    data = request(
        2,
        [shift(DAY, 2), shift(NIGHT, 2, hours=("22:00", "06:00"))],
        [employee(A, [DAY, NIGHT])],
        cross_shift_demands=[{"date": date(1), "shift_ids": [DAY, NIGHT], "min": 2}],
    )
    result = solve_and_audit(data)
    assert date(1) in result.roster(A)
    assert result.shortages == [
        Shortage(
            kind="cross_shift",
            date=date(1),
            shift_ids=[DAY, NIGHT],
            required=2,
            assigned=1,
            missing=1,
        )
    ]
    assert result.violations == {"cross_shift_shortage": (SHORTAGE, 1)}


def test_cross_shift_managers_only_counts_managers() -> None:
    data = request(
        1,
        [shift(DAY, 1)],
        [employee(M1, [DAY], is_manager=True), employee(B, [DAY])],
        cross_shift_demands=[
            {"date": date(0), "shift_ids": [DAY], "managers_only": True, "min": 2}
        ],
    )
    result = solve_and_audit(data)
    assert result.roster(M1) == {date(0): DAY}
    assert [(s.kind, s.required, s.assigned, s.missing) for s in result.shortages] == [
        ("cross_shift", 2, 1, 1)
    ]
    assert result.violations == {"cross_shift_shortage": (SHORTAGE, 1)}


def test_cross_shift_with_duty_counts_holders_only() -> None:
    data = request(
        1,
        [shift(DAY, 1)],
        [employee(A, [DAY], skill_levels={LEAD: 0}), employee(B, [DAY])],
        duties=[duty(LEAD, {DAY: demand(1, 0, 1)})],
        cross_shift_demands=[{"date": date(0), "shift_ids": [DAY], "duty_id": LEAD, "min": 2}],
    )
    result = solve_and_audit(data)
    assert result.duties(B) == {date(0): LEAD}
    assert [(s.kind, s.duty_id, s.assigned, s.missing) for s in result.shortages] == [
        ("cross_shift", LEAD, 1, 1)
    ]


def test_cross_shift_demand_listing_a_shift_twice_is_rejected() -> None:
    data = request(
        1,
        [shift(DAY, 1)],
        [employee(A, [DAY])],
        cross_shift_demands=[{"date": date(0), "shift_ids": [DAY, DAY], "min": 2}],
    )
    with pytest.raises(InvalidRequest) as caught:
        parse_request(data)
    assert [(e.path, e.code) for e in caught.value.errors] == [
        (("constraints", "cross_shift_demands", 0, "shift_ids", 1), "duplicate_reference")
    ]


def test_shortage_markers_sort_by_kind_then_date() -> None:
    data = request(
        2,
        [shift(DAY, 2, on={1: (2, OPEN_MAX)}, managers=demand(2, 1, 1))],
        [employee(A, [DAY])],
    )
    result = solve_and_audit(data)
    assert [(s.kind, s.date.isoformat()) for s in result.shortages] == [
        ("staffing", date(1)),
        ("manager", date(0)),
        ("manager", date(1)),
    ]
    assert result.violations == {
        "staffing_shortage": (SHORTAGE, 1),
        "manager_shortage": (2 * SHORTAGE, 2),
    }


# -------------------------------------------------------------------------------- maxima


def _fixed(day: int, shift_id: str, duty_id: str | None = None) -> dict[str, Any]:
    fixed = {"date": date(day), "shift_id": shift_id}
    return fixed if duty_id is None else {**fixed, "duty_id": duty_id}


def test_staffing_excess_penalized_per_head_over_max() -> None:
    data = request(
        1,
        [shift(DAY, 1, 0, 1)],
        [
            employee(A, [DAY], fixed_assignments=[_fixed(0, DAY)]),
            employee(B, [DAY], fixed_assignments=[_fixed(0, DAY)]),
        ],
    )
    result = solve_and_audit(data)
    assert result.on(DAY, date(0)) == {A, B}
    assert result.violations == {f"staffing_excess:{DAY}:{date(0)}": (DEMAND_EXCESS, 1)}
    assert result.objective == DEMAND_EXCESS


def test_staffing_max_caps_heads_when_nothing_forces_more() -> None:
    data = request(1, [shift(DAY, 1, 1, 1)], [employee(A, [DAY]), employee(B, [DAY])])
    result = solve_and_audit(data)
    assert len(result.on(DAY, date(0))) == 1
    assert result.violations == {}


def test_staffing_excess_is_cheaper_than_an_unmet_preference() -> None:
    preferred = {"type": "preferred_shift", "date": date(0), "shift_id": DAY}
    data = request(
        1,
        [shift(DAY, 1, 1, 1)],
        [employee(A, [DAY], preferences=[preferred]), employee(B, [DAY], preferences=[preferred])],
    )
    result = solve_and_audit(data)
    assert result.on(DAY, date(0)) == {A, B}
    assert result.violations == {f"staffing_excess:{DAY}:{date(0)}": (DEMAND_EXCESS, 1)}


def test_manager_excess() -> None:
    data = request(
        1,
        [shift(DAY, 1, managers=demand(1, 0, 1))],
        [
            employee(M1, [DAY], is_manager=True, fixed_assignments=[_fixed(0, DAY)]),
            employee(M2, [DAY], is_manager=True, fixed_assignments=[_fixed(0, DAY)]),
            employee(B, [DAY], fixed_assignments=[_fixed(0, DAY)]),
        ],
    )
    result = solve_and_audit(data)
    assert result.violations == {f"manager_excess:{DAY}:{date(0)}": (DEMAND_EXCESS, 1)}


def test_duty_excess() -> None:
    data = request(
        1,
        [shift(DAY, 1)],
        [
            employee(A, [DAY], fixed_assignments=[_fixed(0, DAY, LEAD)]),
            employee(B, [DAY], fixed_assignments=[_fixed(0, DAY, LEAD)]),
        ],
        duties=[duty(LEAD, {DAY: demand(1, 0, 1)})],
    )
    result = solve_and_audit(data)
    assert result.violations == {f"duty_excess:{LEAD}:{DAY}:{date(0)}": (DEMAND_EXCESS, 1)}


def test_cross_shift_excess_is_named_by_its_index() -> None:
    data = request(
        1,
        [shift(DAY, 1), shift(NIGHT, 1, hours=("22:00", "06:00"))],
        [
            employee(A, [DAY, NIGHT], fixed_assignments=[_fixed(0, DAY)]),
            employee(B, [DAY, NIGHT], fixed_assignments=[_fixed(0, NIGHT)]),
        ],
        cross_shift_demands=[
            {"date": date(0), "shift_ids": [DAY], "max": 5},
            {"date": date(0), "shift_ids": [DAY, NIGHT], "max": 1},
        ],
    )
    result = solve_and_audit(data)
    assert result.violations == {"cross_shift_excess:1": (DEMAND_EXCESS, 1)}


# ------------------------------------------------------------------------------ holidays


def test_holiday_has_zero_demand_and_nobody_works() -> None:
    data = request(
        2,
        [shift(DAY, 2, 2, managers=demand(2, 1, 1))],
        [employee(M1, [DAY], is_manager=True), employee(B, [DAY])],
        holidays=[date(1)],
        cross_shift_demands=[{"date": date(1), "shift_ids": [DAY], "min": 3}],
    )
    result = solve_and_audit(data)
    assert result.on(DAY, date(1)) == set()
    assert result.on(DAY, date(0)) == {M1, B}
    assert result.shortages == []
    assert result.violations == {}
