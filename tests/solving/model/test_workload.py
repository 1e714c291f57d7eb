"""Workload: days per month and week, weekly hours, shift count limits."""

from __future__ import annotations

from collections import Counter
from typing import Any

from shiftsched.solving.weights import (
    DAYS_PER_MONTH_MIN,
    DAYS_PER_WEEK,
    DEMAND_EXCESS,
    SHORTAGE,
    WEEKLY_HOURS,
)
from tests.solving.model.conftest import (
    NIGHT_HOURS,
    Result,
    date,
    employee,
    request,
    shift,
    solve_and_audit,
    solve_request,
)

DAY, NIGHT = "D", "N"
A = "A"
MONTH_EDGE = "2026-03-29"  # Sunday: 3 March dates and 2 April dates in a 5-day period
MONTH_EDGE_DAYS = 5
MARCH_PERIOD_START = "2026-03-30"  # Monday: 2 March dates, 2 April dates in 4 days
WEEK_TAIL = "2026-03-05"  # Thursday: the last 4 dates of ISO week 2026-W10
WEEK = "2026-W10"
SATURDAY = "2026-03-07"


def _months(result: Result, employee_id: str) -> Counter[str]:
    return Counter(day[:7] for day in result.roster(employee_id))


def _excess_total(result: Result) -> float:
    return sum(p for name, (p, _) in result.violations.items() if name.startswith("staffing_"))


# ------------------------------------------------------------------ days per month


def test_days_per_month_max_is_a_hard_cap_per_month_not_prorated() -> None:
    data = request(
        4,
        [shift(DAY, 4, 1)],
        [employee(A, [DAY], working_days_per_month={"min": 0, "max": 1})],
        start=MARCH_PERIOD_START,
    )
    result = solve_and_audit(data)
    assert _months(result, A) == {"2026-03": 1, "2026-04": 1}
    assert result.violations == {"staffing_shortage": (2 * SHORTAGE, 2)}


def test_without_a_monthly_cap_every_date_is_worked() -> None:
    data = request(4, [shift(DAY, 4, 1)], [employee(A, [DAY])], start=MARCH_PERIOD_START)
    assert len(solve_and_audit(data).roster(A)) == 4


def _monthly_min(**fields: Any) -> dict[str, Any]:
    # Every worked date costs one head of excess (max 0), so A works exactly the
    # prorated minimum: floor(20 * 3 / 31) = 1 in March and floor(20 * 2 / 30) = 1 in April.
    return request(
        MONTH_EDGE_DAYS,
        [shift(DAY, MONTH_EDGE_DAYS, 0, 0)],
        [employee(A, [DAY], working_days_per_month={"min": 20, "max": 31}, **fields)],
        start=MONTH_EDGE,
    )


def test_days_per_month_min_is_prorated_at_the_period_edges() -> None:
    result = solve_and_audit(_monthly_min())
    assert _months(result, A) == {"2026-03": 1, "2026-04": 1}
    assert _excess_total(result) == 2 * DEMAND_EXCESS
    assert result.objective == 2 * DEMAND_EXCESS


def test_days_per_month_min_shortfall_is_penalized_per_day() -> None:
    # April 1 and 2 are a Wednesday and a Thursday: A cannot reach the April minimum.
    result = solve_and_audit(_monthly_min(available_weekdays=["sun", "mon", "tue"]))
    assert _months(result, A) == {"2026-03": 1}
    assert result.violations[f"days_per_month_min:{A}:2026-04"] == (DAYS_PER_MONTH_MIN, 1)
    assert result.objective == DAYS_PER_MONTH_MIN + DEMAND_EXCESS


# ------------------------------------------------------------------- days per week


def test_days_per_week_max_is_soft() -> None:
    data = request(
        3, [shift(DAY, 3, 1)], [employee(A, [DAY], working_days_per_week={"min": 0, "max": 2})]
    )
    result = solve_and_audit(data)
    assert len(result.roster(A)) == 3
    assert result.violations == {f"days_per_week:{A}:{WEEK}": (DAYS_PER_WEEK, 1)}


def _weekly_min(**fields: Any) -> dict[str, Any]:
    # 4 of the week's 7 dates are inside: the minimum 5 becomes floor(5 * 4 / 7) = 2.
    return request(
        4,
        [shift(DAY, 4, 0, 0)],
        [employee(A, [DAY], working_days_per_week={"min": 5, "max": 7}, **fields)],
        start=WEEK_TAIL,
    )


def test_days_per_week_min_is_prorated_in_a_partial_week() -> None:
    result = solve_and_audit(_weekly_min())
    assert len(result.roster(A)) == 2
    assert result.objective == 2 * DEMAND_EXCESS
    assert _excess_total(result) == 2 * DEMAND_EXCESS


def test_days_per_week_min_shortfall_is_penalized_per_day() -> None:
    result = solve_and_audit(_weekly_min(available_weekdays=["thu"]))
    assert result.roster(A) == {date(0, WEEK_TAIL): DAY}
    assert result.violations[f"days_per_week:{A}:{WEEK}"] == (DAYS_PER_WEEK, 1)
    assert result.objective == DAYS_PER_WEEK + DEMAND_EXCESS


# ------------------------------------------------------------------ weekly hours


def _nights(
    hours: int, enforcement: str, shift_hours: tuple[str, str] = NIGHT_HOURS
) -> dict[str, Any]:
    limit = {"hours": hours, "enforcement": enforcement}
    return request(
        3,
        [shift(NIGHT, 3, 1, hours=shift_hours)],
        [employee(A, [NIGHT], weekly_working_hours_limit=limit)],
    )


def test_hard_weekly_hours_count_a_night_shift_as_eight_hours() -> None:
    result = solve_and_audit(_nights(20, "hard"))
    assert len(result.roster(A)) == 2
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}


def test_weekly_hours_within_the_limit() -> None:
    result = solve_and_audit(_nights(24, "hard"))
    assert len(result.roster(A)) == 3
    assert result.violations == {}


def test_soft_weekly_hours_cost_per_hour_over() -> None:
    result = solve_and_audit(_nights(20, "soft"))
    assert len(result.roster(A)) == 3
    assert result.violations == {f"weekly_hours:{A}:{WEEK}": (4 * WEEKLY_HOURS, 4)}


def test_soft_weekly_hours_round_up() -> None:
    # Three 8.5-hour nights: 25.5 h against 24 h is 1.5 h over, priced as 2 h.
    result = solve_and_audit(_nights(24, "soft", ("22:00", "06:30")))
    assert result.violations == {f"weekly_hours:{A}:{WEEK}": (2 * WEEKLY_HOURS, 2)}


def test_a_sunday_night_belongs_to_its_start_week() -> None:
    limit = {"hours": 8, "enforcement": "hard"}
    sunday = date(1, SATURDAY)
    data = request(
        3,
        [shift(NIGHT, 3, 1, hours=NIGHT_HOURS)],
        [
            employee(
                A,
                [NIGHT],
                weekly_working_hours_limit=limit,
                fixed_assignments=[{"date": sunday, "shift_id": NIGHT}],
            )
        ],
        start=SATURDAY,
    )
    result = solve_and_audit(data)
    # Sunday's night fills week 10; Monday's night is the only one in week 11.
    assert result.roster(A) == {sunday: NIGHT, date(2, SATURDAY): NIGHT}
    assert [s.date.isoformat() for s in result.shortages] == [SATURDAY]


# ------------------------------------------------------------------ shift count limits


def _counted(limit: dict[str, Any] | None) -> dict[str, Any]:
    limits = [] if limit is None else [limit]
    return request(
        3,
        [shift(DAY, 3, 1), shift(NIGHT, 3, hours=NIGHT_HOURS)],
        [employee(A, [DAY, NIGHT], shift_count_limits=limits)],
    )


def test_without_count_limits_the_needed_shift_is_worked() -> None:
    result = solve_and_audit(_counted(None))
    assert Counter(result.roster(A).values()) == {DAY: 3}


def test_shift_count_max_is_hard() -> None:
    result = solve_and_audit(_counted({"shift_id": DAY, "max": 1}))
    assert Counter(result.roster(A).values())[DAY] == 1
    assert result.violations == {"staffing_shortage": (2 * SHORTAGE, 2)}


def test_shift_count_min_is_hard() -> None:
    result = solve_and_audit(_counted({"shift_id": NIGHT, "min": 2}))
    assert Counter(result.roster(A).values()) == {NIGHT: 2, DAY: 1}
    assert result.violations == {"staffing_shortage": (2 * SHORTAGE, 2)}


def test_unreachable_shift_count_min_has_no_solution() -> None:
    response = solve_request(_counted({"shift_id": NIGHT, "min": 4}))
    assert response.status == "failed"
    assert response.error is not None and response.error.code == "no_solution"


def test_week_key_is_the_iso_week_across_new_year() -> None:
    # 2026-12-31 and 2027-01-01 both fall in ISO week 2026-W53.
    data = request(
        2,
        [shift(DAY, 2, 1)],
        [employee(A, [DAY], working_days_per_week={"min": 0, "max": 0})],
        start="2026-12-31",
    )
    result = solve_and_audit(data)
    assert result.violations == {f"days_per_week:{A}:2026-W53": (2 * DAYS_PER_WEEK, 2)}
