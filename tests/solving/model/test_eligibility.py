"""Eligibility: who may work which shift and duty on which date, and fixed assignments."""

from __future__ import annotations

from typing import Any

import pytest

from shiftsched.contract.v1 import Shortage
from shiftsched.solving.weights import SHORTAGE
from tests.solving.model.conftest import (
    NIGHT_HOURS,
    date,
    demand,
    duty,
    employee,
    request,
    shift,
    solve_and_audit,
    solve_request,
)

DAY, NIGHT = "D", "N"
LEAD, HELP = "lead", "help"
A, B = "A", "B"
SUNDAY = "2026-03-08"
MONDAY = "2026-03-09"


def _fixed(day: int, shift_id: str, duty_id: str | None = None) -> dict[str, Any]:
    fixed = {"date": date(day), "shift_id": shift_id}
    return fixed if duty_id is None else {**fixed, "duty_id": duty_id}


# ----------------------------------------------------------------------- assignable shifts


def _night_needed(assignable: list[str]) -> dict[str, Any]:
    return request(
        1, [shift(DAY, 1), shift(NIGHT, 1, 1, hours=NIGHT_HOURS)], [employee(A, assignable)]
    )


def test_employee_works_a_shift_only_when_assignable() -> None:
    result = solve_and_audit(_night_needed([DAY]))
    assert NIGHT not in result.roster(A).values()
    assert result.shortages == [
        Shortage(kind="staffing", date=date(0), shift_id=NIGHT, required=1, assigned=0, missing=1)
    ]


def test_assignable_employee_covers_the_shift() -> None:
    result = solve_and_audit(_night_needed([DAY, NIGHT]))
    assert result.roster(A) == {date(0): NIGHT}
    assert result.violations == {}


# ------------------------------------------------------------------------------ weekdays


def test_available_weekdays_exclude_other_dates() -> None:
    data = request(2, [shift(DAY, 2, 1)], [employee(A, [DAY], available_weekdays=["mon"])])
    result = solve_and_audit(data)
    assert result.roster(A) == {date(0): DAY}
    assert [s.date.isoformat() for s in result.shortages] == [date(1)]
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}


def test_without_weekday_restriction_both_dates_are_worked() -> None:
    result = solve_and_audit(request(2, [shift(DAY, 2, 1)], [employee(A, [DAY])]))
    assert result.roster(A) == {date(0): DAY, date(1): DAY}


@pytest.mark.parametrize(("weekday", "worked"), [("mon", MONDAY), ("sun", SUNDAY)])
def test_night_shift_is_judged_by_its_start_date(weekday: str, worked: str) -> None:
    data = request(
        2,
        [shift(NIGHT, 2, 1, hours=NIGHT_HOURS)],
        [employee(A, [NIGHT], available_weekdays=[weekday])],
        start=SUNDAY,
    )
    result = solve_and_audit(data)
    # The Sunday night ends on Monday, yet it is a Sunday shift.
    assert result.roster(A) == {worked: NIGHT}
    assert [s.date.isoformat() for s in result.shortages] == sorted({SUNDAY, MONDAY} - {worked})


# ------------------------------------------------------------------------------ holidays


def test_nobody_works_on_a_holiday() -> None:
    data = request(2, [shift(DAY, 2, 1)], [employee(A, [DAY])], holidays=[date(1)])
    result = solve_and_audit(data)
    assert result.roster(A) == {date(0): DAY}
    assert result.shortages == []


# -------------------------------------------------------------------------------- duties


def test_skill_level_zero_never_holds_the_duty() -> None:
    data = request(
        1,
        [shift(DAY, 1, 2)],
        [employee(A, [DAY], skill_levels={LEAD: 0}), employee(B, [DAY], skill_levels={LEAD: 5})],
        duties=[duty(LEAD, {DAY: demand(1, 1, 1)})],
    )
    result = solve_and_audit(data)
    assert result.duties(A) == {date(0): None}
    assert result.duties(B) == {date(0): LEAD}
    assert result.violations == {}


def test_skill_level_zero_alone_leaves_a_duty_shortage() -> None:
    data = request(
        1,
        [shift(DAY, 1, 1)],
        [employee(A, [DAY], skill_levels={LEAD: 0})],
        duties=[duty(LEAD, {DAY: demand(1, 1, 1)})],
    )
    result = solve_and_audit(data)
    assert result.duties(A) == {date(0): None}
    assert result.violations == {"duty_shortage": (SHORTAGE, 1)}


def test_duty_is_held_only_on_its_shifts() -> None:
    data = request(
        1,
        [shift(DAY, 1), shift(NIGHT, 1, 1, hours=NIGHT_HOURS)],
        [employee(A, [NIGHT])],
        duties=[duty(LEAD, {DAY: demand(1, 1, 1)})],
    )
    result = solve_and_audit(data)
    assert result.roster(A) == {date(0): NIGHT}
    assert result.duties(A) == {date(0): None}
    assert result.shortages == [
        Shortage(
            kind="duty", date=date(0), shift_id=DAY, duty_id=LEAD, required=1, assigned=0, missing=1
        )
    ]


# ---------------------------------------------------------------------- fixed assignments


def _fixed_request(fixed: list[dict[str, Any]]) -> dict[str, Any]:
    return request(
        1,
        [shift(DAY, 1, 1), shift(NIGHT, 1, hours=NIGHT_HOURS)],
        [employee(A, [DAY, NIGHT], fixed_assignments=fixed)],
    )


def test_fixed_assignment_overrides_demand() -> None:
    assert solve_and_audit(_fixed_request([])).roster(A) == {date(0): DAY}
    result = solve_and_audit(_fixed_request([_fixed(0, NIGHT)]))
    assert result.roster(A) == {date(0): NIGHT}
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}


def _duty_fixed_request(fixed: list[dict[str, Any]]) -> dict[str, Any]:
    return request(
        1,
        [shift(DAY, 1, 1)],
        [employee(A, [DAY], fixed_assignments=fixed)],
        duties=[duty(LEAD, {DAY: demand(1, 0, 1)}), duty(HELP, {DAY: demand(1, 1, 1)})],
    )


def test_fixed_assignment_without_duty_leaves_the_duty_free() -> None:
    result = solve_and_audit(_duty_fixed_request([_fixed(0, DAY)]))
    assert result.duties(A) == {date(0): HELP}
    assert result.violations == {}


def test_fixed_assignment_with_duty_holds_that_duty() -> None:
    result = solve_and_audit(_duty_fixed_request([_fixed(0, DAY, LEAD)]))
    assert result.duties(A) == {date(0): LEAD}
    assert result.violations == {"duty_shortage": (SHORTAGE, 1)}


def _conflict(case: str) -> dict[str, Any]:
    fields: dict[str, Any] = {"fixed_assignments": [_fixed(0, DAY)]}
    holidays: list[str] = []
    assignable = [DAY, NIGHT]
    if case == "not_assignable":
        assignable = [NIGHT]
    elif case == "weekday":
        fields["available_weekdays"] = ["tue"]
    elif case == "holiday":
        holidays = [date(0)]
    elif case == "skill_level_zero":
        fields = {"fixed_assignments": [_fixed(0, DAY, LEAD)], "skill_levels": {LEAD: 0}}
    return request(
        1,
        [shift(DAY, 1), shift(NIGHT, 1, hours=NIGHT_HOURS)],
        [employee(A, assignable, **fields)],
        duties=[duty(LEAD, {DAY: demand(1)})],
        holidays=holidays,
    )


@pytest.mark.parametrize("case", ["not_assignable", "weekday", "holiday", "skill_level_zero"])
def test_fixed_assignment_against_eligibility_has_no_solution(case: str) -> None:
    response = solve_request(_conflict(case))
    assert response.status == "failed"
    assert response.solution is None
    assert response.error is not None
    assert response.error.code == "no_solution"
    assert response.error.solver_status == "INFEASIBLE"
