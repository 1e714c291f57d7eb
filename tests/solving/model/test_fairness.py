"""Fairness groups: burdensome shifts shared equally or in proportion."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from shiftsched.checking.audit import FAIRNESS_DEFAULT as AUDIT_FAIRNESS_DEFAULT
from shiftsched.solving.weights import DEMAND_EXCESS, FAIRNESS_DEFAULT
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
CUSTOM_WEIGHT = 7
HEAVY_WEIGHT = 150  # above an unmet preference and two heads of excess


def _group(policy: str = "equal", weight: int | None = None) -> dict[str, Any]:
    group: dict[str, Any] = {"target_shift_ids": [NIGHT], "policy": policy}
    return group if weight is None else {**group, "penalty_weight": weight}


def _fixed(shift_id: str, *days: int) -> list[dict[str, Any]]:
    return [{"date": date(d), "shift_id": shift_id} for d in days]


def _nights(roster: dict[str, str]) -> int:
    return Counter(roster.values())[NIGHT]


def test_default_weight_matches_the_audit() -> None:
    assert FAIRNESS_DEFAULT == AUDIT_FAIRNESS_DEFAULT == 10


# ---------------------------------------------------- the rule against a preference


def _a_wants_every_night(groups: list[dict[str, Any]]) -> dict[str, Any]:
    wishes = [{"type": "preferred_shift", "date": date(d), "shift_id": NIGHT} for d in (0, 1)]
    return request(
        2,
        [shift(NIGHT, 2, 1, 1, hours=NIGHT_HOURS)],
        [employee(A, [NIGHT], preferences=wishes), employee(B, [NIGHT])],
        fairness_groups=groups,
    )


def test_without_fairness_a_takes_every_night() -> None:
    result = solve_and_audit(_a_wants_every_night([]))
    assert _nights(result.roster(A)) == 2
    assert result.violations == {}


def test_equal_share_with_the_default_weight() -> None:
    # counts 2 and 0, fair share 1 each: excess 1, cheaper than an unmet preference.
    result = solve_and_audit(_a_wants_every_night([_group()]))
    assert _nights(result.roster(A)) == 2
    assert result.violations == {"fairness:0": (FAIRNESS_DEFAULT, 1)}


def test_a_heavy_penalty_weight_brings_in_the_other_employee() -> None:
    # B joins A on both nights: two heads of excess are cheaper than one unit of excess
    # over the fair shares, and A keeps both wishes.
    result = solve_and_audit(_a_wants_every_night([_group(weight=HEAVY_WEIGHT)]))
    assert _nights(result.roster(A)) == _nights(result.roster(B)) == 2
    assert result.violations == {
        f"staffing_excess:{NIGHT}:{date(d)}": (DEMAND_EXCESS, 1) for d in (0, 1)
    }


# ------------------------------------------------------------- exact excess, rounded up


def _a_has_all_nights(groups: list[dict[str, Any]], **b_fields: Any) -> dict[str, Any]:
    """A is fixed on 3 nights; B, eligible for nights, is fixed on the day shift."""
    return request(
        3,
        [shift(DAY, 3), shift(NIGHT, 3, hours=NIGHT_HOURS)],
        [
            employee(A, [NIGHT], fixed_assignments=_fixed(NIGHT, 0, 1, 2)),
            employee(B, [DAY, NIGHT], fixed_assignments=_fixed(DAY, 0, 1, 2), **b_fields),
        ],
        fairness_groups=groups,
    )


@pytest.mark.parametrize(
    ("weight", "unit_price"), [(None, FAIRNESS_DEFAULT), (CUSTOM_WEIGHT, CUSTOM_WEIGHT)]
)
def test_equal_excess_is_rounded_up(weight: int | None, unit_price: int) -> None:
    # counts 3 and 0, share 1.5 each: excess 1.5, rounded up to 2.
    result = solve_and_audit(_a_has_all_nights([_group(weight=weight)]))
    assert result.violations == {"fairness:0": (2 * unit_price, 2)}


def test_fairness_is_named_by_group_index() -> None:
    groups = [{"target_shift_ids": [DAY], "policy": "equal"}, _group()]
    result = solve_and_audit(_a_has_all_nights(groups))
    assert result.violations == {"fairness:1": (2 * FAIRNESS_DEFAULT, 2)}


def test_proportional_weights_from_days_per_month() -> None:
    # w_A = 0 + 3 = 3, w_B = 0 + 6 = 6, W = 9: A's share of 3 nights is 1, excess 2.
    a_month = {"min": 0, "max": 3}
    data = _a_has_all_nights([_group("proportional")], working_days_per_month={"min": 0, "max": 6})
    data["employees"][0]["working_days_per_month"] = a_month
    result = solve_and_audit(data)
    assert result.violations == {"fairness:0": (2 * FAIRNESS_DEFAULT, 2)}


def test_proportional_excess_is_rounded_up() -> None:
    # w_A = 3, w_B = 5, W = 8: A's share of 3 nights is 9/8, excess 15/8, rounded up to 2.
    data = _a_has_all_nights([_group("proportional")], working_days_per_month={"min": 0, "max": 5})
    data["employees"][0]["working_days_per_month"] = {"min": 0, "max": 3}
    result = solve_and_audit(data)
    assert result.violations == {"fairness:0": (2 * FAIRNESS_DEFAULT, 2)}


# ------------------------------------------- proportional default weights: workable dates


def _b_can_take_two_nights(policy: str, limited_by: str) -> dict[str, Any]:
    """A is fixed on 4 nights (Mon..Thu); B may work a night only on Monday and Tuesday."""
    b_fields: dict[str, Any] = (
        {"available_weekdays": ["mon", "tue"]}
        if limited_by == "weekdays"
        else {"fixed_assignments": _fixed(DAY, 2, 3)}
    )
    return request(
        4,
        [shift(DAY, 4), shift(NIGHT, 4, hours=NIGHT_HOURS)],
        [
            employee(A, [NIGHT], fixed_assignments=_fixed(NIGHT, 0, 1, 2, 3)),
            employee(B, [DAY, NIGHT], **b_fields),
        ],
        fairness_groups=[_group(policy)],
    )


@pytest.mark.parametrize("limited_by", ["weekdays", "fixed_day_shifts"])
def test_proportional_share_follows_the_dates_one_may_work(limited_by: str) -> None:
    # w_A = 2 x 4, w_B = 2 x 2: two nights for B out of six is B's full share.
    result = solve_and_audit(_b_can_take_two_nights("proportional", limited_by))
    assert _nights(result.roster(B)) == 2
    assert result.violations == {}


@pytest.mark.parametrize("limited_by", ["weekdays", "fixed_day_shifts"])
def test_equal_share_ignores_the_dates_one_may_work(limited_by: str) -> None:
    # counts 4 and 2, share 3 each: excess 1.
    result = solve_and_audit(_b_can_take_two_nights("equal", limited_by))
    assert _nights(result.roster(B)) == 2
    assert result.violations == {"fairness:0": (FAIRNESS_DEFAULT, 1)}


def test_equal_share_met_has_no_violation() -> None:
    data = request(
        2,
        [shift(NIGHT, 2, 1, 1, hours=NIGHT_HOURS)],
        [employee(A, [NIGHT]), employee(B, [NIGHT])],
        fairness_groups=[_group()],
    )
    result = solve_and_audit(data)
    assert _nights(result.roster(A)) == _nights(result.roster(B)) == 1
    assert result.violations == {}
