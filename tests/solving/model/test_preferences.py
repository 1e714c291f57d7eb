"""Preferences: day off, preferred shift, avoided shift (soft)."""

from __future__ import annotations

from typing import Any

import pytest

from shiftsched.solving import weights
from shiftsched.solving.weights import DAYS_PER_WEEK, PREFERENCE, SHORTAGE
from tests.solving.model.conftest import (
    NIGHT_HOURS,
    date,
    employee,
    request,
    shift,
    solve_and_audit,
)

DAY, NIGHT = "D", "N"
A, B = "A", "B"
WEEK = "2026-W10"
RELUCTANT = {"working_days_per_week": {"min": 0, "max": 0}}  # each worked day costs a little
RELUCTANT_COST = f"days_per_week:{B}:{WEEK}"


def _wish(kind: str, day: int = 0, shift_id: str | None = None) -> dict[str, Any]:
    wish: dict[str, Any] = {"type": kind, "date": date(day)}
    return wish if shift_id is None else {**wish, "shift_id": shift_id}


def test_preferences_outweigh_every_soft_term_but_shortages() -> None:
    others = [
        weights.SKILL_SUPPORT,
        weights.SHIFT_TRANSITION,
        weights.PAIRING_REQUIRE,
        weights.DAYS_PER_MONTH_MIN,
        weights.CONSECUTIVE_DAYS,
        weights.DAYS_PER_WEEK,
        weights.DEMAND_EXCESS,
        weights.WEEKLY_HOURS,
        weights.FAIRNESS_DEFAULT,
    ]
    assert max(others) < PREFERENCE < SHORTAGE


# ------------------------------------------------------------------------------ day off


def _one_needed(a_wishes: list[dict[str, Any]], *, with_b: bool = True) -> dict[str, Any]:
    """One head needed on the day shift; B (if present) dislikes working at all."""
    staff = [employee(A, [DAY, NIGHT], preferences=a_wishes)]
    if with_b:
        staff.append(employee(B, [DAY], **RELUCTANT))
    return request(1, [shift(DAY, 1, 1, 1), shift(NIGHT, 1, hours=NIGHT_HOURS)], staff)


def test_without_wishes_a_covers_the_shift() -> None:
    result = solve_and_audit(_one_needed([]))
    assert result.roster(A) == {date(0): DAY}
    assert result.violations == {}


def test_day_off_hands_the_shift_to_someone_else() -> None:
    result = solve_and_audit(_one_needed([_wish("day_off")]))
    assert result.roster(A) == {}
    assert result.roster(B) == {date(0): DAY}
    assert result.violations == {RELUCTANT_COST: (DAYS_PER_WEEK, 1)}


def test_day_off_costs_when_worked() -> None:
    result = solve_and_audit(_one_needed([_wish("day_off")], with_b=False))
    assert result.roster(A) == {date(0): DAY}
    assert result.violations == {f"preference:day_off:{A}:{date(0)}": (PREFERENCE, 1)}


# ------------------------------------------------------------------------ avoided shift


def test_avoided_shift_hands_the_shift_to_someone_else() -> None:
    result = solve_and_audit(_one_needed([_wish("avoided_shift", shift_id=DAY)]))
    assert DAY not in result.roster(A).values()
    assert result.roster(B) == {date(0): DAY}
    assert result.violations == {RELUCTANT_COST: (DAYS_PER_WEEK, 1)}


def test_avoided_shift_costs_when_worked() -> None:
    result = solve_and_audit(_one_needed([_wish("avoided_shift", shift_id=DAY)], with_b=False))
    assert result.roster(A) == {date(0): DAY}
    assert result.violations == {f"preference:avoided_shift:{A}:{date(0)}:{DAY}": (PREFERENCE, 1)}


# ---------------------------------------------------------------------- preferred shift


def test_preferred_shift_is_granted_when_someone_else_covers() -> None:
    result = solve_and_audit(_one_needed([_wish("preferred_shift", shift_id=NIGHT)]))
    assert result.roster(A) == {date(0): NIGHT}
    assert result.roster(B) == {date(0): DAY}
    assert result.violations == {RELUCTANT_COST: (DAYS_PER_WEEK, 1)}


def test_preferred_shift_costs_when_not_granted() -> None:
    result = solve_and_audit(_one_needed([_wish("preferred_shift", shift_id=NIGHT)], with_b=False))
    assert result.roster(A) == {date(0): DAY}
    assert result.violations == {
        f"preference:preferred_shift:{A}:{date(0)}:{NIGHT}": (PREFERENCE, 1)
    }


def test_preferred_shift_makes_a_reluctant_employee_work() -> None:
    data = request(
        1,
        [shift(NIGHT, 1, hours=NIGHT_HOURS)],
        [employee(B, [NIGHT], preferences=[_wish("preferred_shift", shift_id=NIGHT)], **RELUCTANT)],
    )
    result = solve_and_audit(data)
    assert result.roster(B) == {date(0): NIGHT}
    assert result.violations == {RELUCTANT_COST: (DAYS_PER_WEEK, 1)}


# ------------------------------------------------------------------- unmeetable wishes


def _unmeetable(wish: dict[str, Any], *, holiday: bool) -> dict[str, Any]:
    return request(
        2,
        [shift(DAY, 2), shift(NIGHT, 2, hours=NIGHT_HOURS)],
        [employee(A, [DAY], preferences=[wish])],
        holidays=[date(0)] if holiday else [],
    )


@pytest.mark.parametrize("holiday", [False, True], ids=["not_assignable", "holiday"])
def test_unmeetable_preferred_shift_always_costs(holiday: bool) -> None:
    shift_id = DAY if holiday else NIGHT
    result = solve_and_audit(
        _unmeetable(_wish("preferred_shift", shift_id=shift_id), holiday=holiday)
    )
    assert result.violations == {
        f"preference:preferred_shift:{A}:{date(0)}:{shift_id}": (PREFERENCE, 1)
    }
    assert result.objective == PREFERENCE


@pytest.mark.parametrize("kind", ["day_off", "avoided_shift"])
def test_day_off_or_avoided_shift_on_a_holiday_is_free(kind: str) -> None:
    wish = _wish(kind) if kind == "day_off" else _wish(kind, shift_id=DAY)
    result = solve_and_audit(_unmeetable(wish, holiday=True))
    assert result.violations == {}
