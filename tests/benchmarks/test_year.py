"""The year benchmark's arithmetic: twelve calendar months, the quotas, and their misses."""

from __future__ import annotations

import datetime as dt

from benchmarks.year import (
    BAND,
    COST_TARGET,
    Judged,
    YearRun,
    counts,
    misses,
    months,
    quotas,
    summary,
    year_request,
)
from shiftsched.contract.horizon_targets import HorizonTarget, PlanHorizon
from shiftsched.contract.v1 import Assignment


def test_the_year_is_cut_into_its_twelve_calendar_months() -> None:
    parts = months(year_request(seed=0, employees=4))
    assert len(parts) == 12
    for number, part in enumerate(parts, start=1):
        period = part.schedule_period
        assert (period.start_date.month, period.start_date.day) == (number, 1)
        assert period.end_date.month == number
        assert (period.end_date + dt.timedelta(days=1)).day == 1
    assert all(not e.fixed_assignments for p in parts[1:] for e in p.employees)


def test_the_quotas_fit_the_monthly_ranges_and_are_the_same_for_a_seed() -> None:
    request = year_request(seed=1, employees=6)
    horizon = quotas(request, seed=1)
    assert horizon == quotas(year_request(seed=1, employees=6), seed=1)
    assert (horizon.start, horizon.end) == (dt.date(2027, 1, 1), dt.date(2027, 12, 31))
    by_id = {e.id: e for e in request.employees}
    for t in horizon.targets:
        monthly = by_id[t.employee_id].working_days_per_month
        assert monthly is not None and t.min_days is not None and t.max_days is not None
        assert 12 * monthly.min <= t.min_days <= t.max_days <= 12 * monthly.max
        assert t.max_days - t.min_days <= 2 * BAND * t.max_days + 2
        weekdays = by_id[t.employee_id].available_weekdays
        if weekdays is not None and not {"sat", "sun"} & set(weekdays):
            assert t.max_weekends is None


def _worked(employee: str, *days: str) -> list[Assignment]:
    return [
        Assignment(employee_id=employee, date=dt.date.fromisoformat(d), shift_id="s01")
        for d in days
    ]


def test_a_miss_is_the_distance_outside_the_quota_in_percent_of_it() -> None:
    # 2027-01-02/03 is one weekend (ISO week 2026-W53), 2027-01-09 the next.
    roster = _worked("a", "2027-01-02", "2027-01-03", "2027-01-04", "2027-01-09")
    roster += _worked("b", "2027-01-04")
    assert counts(roster) == {"a": (4, 2), "b": (1, 0)}
    horizon = PlanHorizon(
        start=dt.date(2027, 1, 1),
        end=dt.date(2027, 12, 31),
        targets=[
            HorizonTarget(employee_id="a", min_days=2, max_days=2, max_weekends=1),
            HorizonTarget(employee_id="b", min_days=4),
        ],
    )
    # a: 4 days against at most 2 (100 %), 2 weekends against 1 (100 %); b: 1 of 4 (75 %).
    assert misses(horizon, roster) == (100.0, 100.0)
    assert misses(horizon, roster[:2] + roster[-1:]) == (75.0, 0.0)


def _run(horizon_cost: float, days_miss: float) -> YearRun:
    clean = Judged(0, cost=1000.0, days_miss=0.0, weekends_miss=0.0)
    return YearRun(
        seed=0,
        employees=2,
        quota_days=100,
        horizon=Judged(0, cost=horizon_cost, days_miss=days_miss, weekends_miss=0.0),
        baseline=Judged(0, cost=3000.0, days_miss=20.0, weekends_miss=40.0),
        whole=clean,
    )


def test_the_targets_are_the_cost_ratio_and_the_worst_miss() -> None:
    met = summary([_run(1000 * COST_TARGET, 2.0), _run(900.0, 0.0)])
    assert met["cost_target_met"] and met["quota_target_met"] and met["hard_target_met"]
    assert met["horizon"]["median_cost_ratio"] == (COST_TARGET + 0.9) / 2
    assert met["baseline"]["worst_weekends_miss"] == 40.0
    missed = summary([_run(1200.0, 2.5), _run(900.0, 0.0)])
    assert not missed["cost_target_met"] and not missed["quota_target_met"]
    unplanned = summary(
        [_run(900.0, 0.0), YearRun(1, 2, 100, Judged(None), Judged(None), Judged(None))]
    )
    assert not unplanned["hard_target_met"] and not unplanned["quota_target_met"]
