"""Absences lower the day minimums pro rata, in the model and the audit alike.

docs/semantics.md, "Planning with absences": for each month (week) the minimum owed is
``floor(min * (covered dates - absent dates) / dates of the month (week))``, one rounding;
the maxima stay as stated. Each instance is solved by a plan (the model with the
absences), proven optimal with one worker, and its metrics must equal the audit's with
the same absences, term by term.
"""

from __future__ import annotations

from typing import Any

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.planning import parse_plan
from shiftsched.contract.v1 import Solution
from shiftsched.periods.plan import plan
from shiftsched.solving.weights import DAYS_PER_MONTH_MIN, DAYS_PER_WEEK, DEMAND_EXCESS
from tests.audited import EXACT
from tests.solving.model.conftest import date, employee, request, shift

DAY, A = "D", "A"
MARCH = "2026-03-01"  # a Sunday; March 2026 has 31 dates, five of them Mondays
MARCH_DAYS = 31
MONDAYS = {"2026-03-02", "2026-03-09", "2026-03-16", "2026-03-23", "2026-03-30"}
TEN_ABSENT = [date(i, MARCH) for i in range(2, 14) if date(i, MARCH) not in MONDAYS][:10]
WEEK_START = "2026-03-02"  # Monday of ISO week 2026-W10


def _planned(data: dict[str, Any], absent: list[str]) -> Solution:
    """Plan with A absent on ``absent``; the metrics must be the audit's with them."""
    ask = parse_plan({"request": data, "absences": [{"employee_id": A, "dates": absent}]})
    response = plan(ask, EXACT)
    assert response.status == "completed" and response.solution is not None
    solution = response.solution
    report = audit(ask.request, solution.assignments, absences=ask.absences)
    assert report.hard_violations == []
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    worked = {a.date.isoformat() for a in solution.assignments if a.employee_id == A}
    assert not worked & set(absent)
    return solution


def _terms(solution: Solution) -> dict[str, tuple[float, float]]:
    """Penalty and magnitude per term; demand terms (one per date) summed per kind."""
    found: dict[str, tuple[float, float]] = {}
    for v in solution.metrics.soft_constraint_violations:
        name = v.name.split(":")[0] if v.name.startswith("staffing_") else v.name
        penalty, magnitude = found.get(name, (0.0, 0.0))
        found[name] = (penalty + v.penalty, magnitude + (v.violated_by or 0.0))
    return found


def _month(**fields: Any) -> dict[str, Any]:
    """All of March; every worked date costs one head of excess (demand max 0), so A
    works exactly what the minimum owes, or less when she cannot work it."""
    return request(
        MARCH_DAYS,
        [shift(DAY, MARCH_DAYS, 0, 0)],
        [employee(A, [DAY], working_days_per_month={"min": 20, "max": 31}, **fields)],
        start=MARCH,
    )


def test_an_absence_lowers_the_monthly_minimum_to_the_available_share() -> None:
    # 21 of 31 dates available: floor(20 * 21 / 31) = 13 owed, not 20.
    solution = _planned(_month(), TEN_ABSENT)
    worked = [a for a in solution.assignments if a.employee_id == A]
    assert len(worked) == 13
    assert _terms(solution) == {"staffing_excess": (13 * DEMAND_EXCESS, 13)}


def test_a_shortfall_beyond_the_absence_is_priced_on_the_prorated_minimum() -> None:
    # A may work Mondays only (5 dates; a weekday rule is not an absence): 13 owed,
    # 5 worked, 8 days short.
    data = _month(available_weekdays=["mon"])
    data["shifts"][0]["staffing_demand"] = [{"min": 0, "max": 9}] * MARCH_DAYS
    solution = _planned(data, TEN_ABSENT)
    assert _terms(solution) == {
        f"days_per_month_min:{A}:2026-03": (8 * DAYS_PER_MONTH_MIN, 8),
    }


def test_a_month_absent_whole_owes_nothing() -> None:
    solution = _planned(_month(), [date(i, MARCH) for i in range(MARCH_DAYS)])
    assert _terms(solution) == {}
    assert solution.assignments == []


def test_an_absence_and_a_partial_month_prorate_together() -> None:
    # 2026-03-29..04-02: 3 March dates, one absent, so 2 available: floor(31 * 2 / 31)
    # = 2 owed in March (without the absence 3, one more than she can work); April's 2
    # dates owe floor(31 * 2 / 30) = 2.
    data = request(
        5,
        [shift(DAY, 5, 0, 0)],
        [employee(A, [DAY], working_days_per_month={"min": 31, "max": 31})],
        start="2026-03-29",
    )
    solution = _planned(data, ["2026-03-30"])
    months = sorted(a.date.isoformat()[:7] for a in solution.assignments)
    assert months == ["2026-03", "2026-03", "2026-04", "2026-04"]
    assert _terms(solution) == {"staffing_excess": (4 * DEMAND_EXCESS, 4)}


def test_an_absence_lowers_the_weekly_minimum_and_not_the_maximum() -> None:
    # Week 2026-W10, min 5 max 5, absent Monday and Tuesday: floor(5 * 5 / 7) = 3 owed;
    # demand wants 1 head each day, so A works her 5 available dates (the max, kept at 5).
    data = request(
        7,
        [shift(DAY, 7, 1, 1)],
        [employee(A, [DAY], working_days_per_week={"min": 5, "max": 5})],
        start=WEEK_START,
    )
    solution = _planned(data, [date(0, WEEK_START), date(1, WEEK_START)])
    assert len(solution.assignments) == 5
    assert _terms(solution) == {"staffing_shortage": (20_000, 2)}
    # Demand max 0 instead: she works only what is owed, 3 dates, short of nothing.
    data["shifts"][0]["staffing_demand"] = [{"min": 0, "max": 0}] * 7
    solution = _planned(data, [date(0, WEEK_START), date(1, WEEK_START)])
    assert _terms(solution) == {"staffing_excess": (3 * DEMAND_EXCESS, 3)}
    # Absent Monday to Friday: floor(5 * 2 / 7) = 1 owed, met on Saturday; a Monday
    # worker cannot meet it (her Monday is absent), so she is 1 day short.
    data["shifts"][0]["staffing_demand"] = [{"min": 0, "max": 9}] * 7
    weekdays = [date(i, WEEK_START) for i in range(5)]
    data["employees"][0]["available_weekdays"] = ["sat"]
    assert _terms(_planned(data, weekdays)) == {}
    data["employees"][0]["available_weekdays"] = ["mon"]
    solution = _planned(data, weekdays)
    assert _terms(solution) == {f"days_per_week:{A}:2026-W10": (DAYS_PER_WEEK, 1)}
