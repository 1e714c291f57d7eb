"""Teams: employee pairings and skill support."""

from __future__ import annotations

from typing import Any

import pytest

from shiftsched.solving.weights import (
    DEMAND_EXCESS,
    PAIRING_REQUIRE,
    PREFERENCE,
    SHORTAGE,
    SKILL_SUPPORT,
)
from tests.solving.model.conftest import (
    NIGHT_HOURS,
    date,
    demand,
    duty,
    employee,
    request,
    shift,
    solve_and_audit,
)

DAY, NIGHT = "D", "N"
LEAD, HELP = "lead", "help"
A, B, C = "A", "B", "C"
SENIOR = "S"
BEGINNER_LEVEL, MIDDLE_LEVEL, SENIOR_LEVEL = 2, 5, 8
NOT_MONDAY = ["tue", "wed", "thu", "fri", "sat", "sun"]


def _pairing(rule: str, *ids: str) -> dict[str, Any]:
    return {"employee_ids": list(ids), "rule": rule}


# -------------------------------------------------------------------------- pairings


def test_without_pairings_both_cover_the_demand() -> None:
    data = request(1, [shift(DAY, 1, 2)], [employee(A, [DAY]), employee(B, [DAY])])
    assert solve_and_audit(data).on(DAY, date(0)) == {A, B}


def test_exclude_keeps_the_pair_off_the_same_shift() -> None:
    data = request(
        1,
        [shift(DAY, 1, 2)],
        [employee(A, [DAY]), employee(B, [DAY])],
        employee_pairings=[_pairing("exclude", A, B)],
    )
    result = solve_and_audit(data)
    assert len(result.on(DAY, date(0))) == 1
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}


def test_exclude_allows_different_shifts_on_one_date() -> None:
    data = request(
        1,
        [shift(DAY, 1, 1), shift(NIGHT, 1, 1, hours=NIGHT_HOURS)],
        [employee(A, [DAY, NIGHT]), employee(B, [DAY, NIGHT])],
        employee_pairings=[_pairing("exclude", A, B)],
    )
    result = solve_and_audit(data)
    assert len(result.on(DAY, date(0))) == len(result.on(NIGHT, date(0))) == 1
    assert result.violations == {}


def _require(b_fields: dict[str, Any], pairings: list[dict[str, Any]]) -> dict[str, Any]:
    return request(
        1,
        [shift(DAY, 1, 1, 1), shift(NIGHT, 1, hours=NIGHT_HOURS)],
        [employee(A, [DAY]), employee(B, [DAY], **b_fields), employee(C, [NIGHT])],
        employee_pairings=pairings,
    )


def test_without_require_one_head_meets_the_demand() -> None:
    result = solve_and_audit(_require({}, []))
    assert len(result.on(DAY, date(0))) == 1
    assert result.violations == {}


def test_require_brings_the_partner_along() -> None:
    result = solve_and_audit(_require({}, [_pairing("require", A, B)]))
    assert result.on(DAY, date(0)) == {A, B}
    assert result.violations == {f"staffing_excess:{DAY}:{date(0)}": (DEMAND_EXCESS, 1)}


def test_require_costs_per_missing_partner_and_is_named_by_index() -> None:
    pairings = [_pairing("exclude", B, C), _pairing("require", A, B)]
    result = solve_and_audit(_require({"available_weekdays": NOT_MONDAY}, pairings))
    assert result.on(DAY, date(0)) == {A}
    assert result.violations == {"pairing_require:1": (PAIRING_REQUIRE, 1)}


def test_require_counts_each_missing_partner() -> None:
    data = request(
        1,
        [shift(DAY, 1, 1, 1)],
        [
            employee(A, [DAY]),
            employee(B, [DAY], available_weekdays=NOT_MONDAY),
            employee(C, [DAY], available_weekdays=NOT_MONDAY),
        ],
        employee_pairings=[_pairing("require", A, B, C)],
    )
    result = solve_and_audit(data)
    assert result.violations == {"pairing_require:0": (2 * PAIRING_REQUIRE, 2)}


# --------------------------------------------------------------- skill support: shift


def _beginner_or_senior(
    support: dict[str, Any] | None, beginner_levels: dict[str, int] | None = None
) -> dict[str, Any]:
    """A beginner and a senior who would rather stay home; one head is needed."""
    day_off = [{"type": "day_off", "date": date(0)}]
    constraints = {} if support is None else {"skill_support": support}
    return request(
        1,
        [shift(DAY, 1, 1)],
        [
            employee(A, [DAY], skill_levels=beginner_levels or {LEAD: BEGINNER_LEVEL}),
            employee(SENIOR, [DAY], skill_levels={LEAD: SENIOR_LEVEL}, preferences=day_off),
        ],
        duties=[duty(LEAD, {DAY: demand(1)})],
        **constraints,
    )


def test_without_skill_support_the_beginner_works_alone() -> None:
    result = solve_and_audit(_beginner_or_senior(None))
    assert result.on(DAY, date(0)) == {A}
    assert result.violations == {}


def test_soft_skill_support_by_shift_costs_per_unsupported_group() -> None:
    result = solve_and_audit(_beginner_or_senior({"scope": "shift"}))
    assert result.on(DAY, date(0)) == {A}
    assert result.violations == {f"skill_support:{date(0)}:{DAY}": (SKILL_SUPPORT, 1)}


def test_hard_skill_support_by_shift_brings_in_the_senior() -> None:
    result = solve_and_audit(_beginner_or_senior({"scope": "shift", "enforcement": "hard"}))
    assert SENIOR in result.on(DAY, date(0))
    assert result.violations == {f"preference:day_off:{SENIOR}:{date(0)}": (PREFERENCE, 1)}


@pytest.mark.parametrize("enforcement", ["hard", "soft"])
def test_scope_shift_uses_the_highest_level(enforcement: str) -> None:
    levels = {LEAD: BEGINNER_LEVEL, HELP: SENIOR_LEVEL}
    data = _beginner_or_senior({"scope": "shift", "enforcement": enforcement}, levels)
    data["duties"].append(duty(HELP, {DAY: demand(1)}))
    result = solve_and_audit(data)
    assert result.on(DAY, date(0)) == {A}
    assert result.violations == {}


def test_a_middle_level_is_neither_beginner_nor_senior() -> None:
    data = _beginner_or_senior({"scope": "shift", "enforcement": "hard"}, {LEAD: MIDDLE_LEVEL})
    result = solve_and_audit(data)
    assert result.on(DAY, date(0)) == {A}
    assert result.violations == {}


# ---------------------------------------------------------------- skill support: duty


def _two_duties(support: dict[str, Any]) -> dict[str, Any]:
    """A can only lead (as a beginner); the senior is needed for help as well."""
    return request(
        1,
        [shift(DAY, 1, 2)],
        [
            employee(A, [DAY], skill_levels={LEAD: BEGINNER_LEVEL, HELP: 0}),
            employee(SENIOR, [DAY], skill_levels={LEAD: SENIOR_LEVEL, HELP: SENIOR_LEVEL}),
        ],
        duties=[duty(LEAD, {DAY: demand(1, 1, 1)}), duty(HELP, {DAY: demand(1, 1, 1)})],
        skill_support=support,
    )


def test_soft_skill_support_by_duty_groups_holders_of_the_duty() -> None:
    result = solve_and_audit(_two_duties({"scope": "duty"}))
    assert result.duties(A) == {date(0): LEAD}
    assert result.duties(SENIOR) == {date(0): HELP}
    assert result.violations == {f"skill_support:{date(0)}:{DAY}:{LEAD}": (SKILL_SUPPORT, 1)}


def test_scope_shift_counts_the_senior_on_another_duty() -> None:
    result = solve_and_audit(_two_duties({"scope": "shift"}))
    assert result.duties(A) == {date(0): LEAD}
    assert result.violations == {}


def test_hard_skill_support_by_duty_gives_the_duty_to_the_senior() -> None:
    result = solve_and_audit(_two_duties({"scope": "duty", "enforcement": "hard"}))
    assert result.duties(A) != {date(0): LEAD}
    assert result.violations == {"duty_shortage": (SHORTAGE, 1)}
