"""A request cut into two periods, and the rosters of the parts joined again.

The parts must be the request restricted to their dates, nothing lost and nothing
invented: every per-day list sliced, every dated item in the part its date falls in.
Whatever a roster of the whole request keeps, its share of a part keeps there too, so a
roster hard-clean on the whole is hard-clean on each part: the seam can only add
violations when the parts are planned alone (``benchmarks/seam.py``), never hide them.
"""

from __future__ import annotations

import datetime as dt

import pytest

from benchmarks.seam import Joined, SeamRun, seam_request, summary
from engine.audit import audit
from engine.contract import SolveRequest
from engine.periods import join, split
from engine.rules import parse_request
from engine.synthetic import synthetic_request
from tests.audited import solved_and_audited, work_limited


def _request(days: int = 21, seed: int = 3) -> SolveRequest:
    data = synthetic_request(8, 2, 1, days, seed=seed, mix="all")
    for employee in data["employees"]:
        employee.pop("shift_count_limits", None)
    return parse_request(data)


@pytest.mark.parametrize("first_days", [1, 6, 10, 20])
def test_the_parts_are_the_request_restricted_to_their_dates(first_days: int) -> None:
    request = _request()
    before, after = split(request, first_days)
    period = request.schedule_period
    assert before.schedule_period.start_date == period.start_date
    assert after.schedule_period.end_date == period.end_date
    cut = period.start_date + dt.timedelta(days=first_days)
    assert before.schedule_period.end_date == cut - dt.timedelta(days=1)
    assert after.schedule_period.start_date == cut
    for whole, first, second in zip(request.shifts, before.shifts, after.shifts, strict=True):
        assert first.staffing_demand + second.staffing_demand == whole.staffing_demand
    for whole_duty, first_duty, second_duty in zip(
        request.duties, before.duties, after.duties, strict=True
    ):
        for shift_id, ranges in whole_duty.staffing_demand_by_shift.items():
            parts = (
                first_duty.staffing_demand_by_shift[shift_id],
                second_duty.staffing_demand_by_shift[shift_id],
            )
            assert parts[0] + parts[1] == ranges
    assert sorted(before.schedule_period.holidays + after.schedule_period.holidays) == sorted(
        period.holidays
    )
    for whole_e, first_e, second_e in zip(
        request.employees, before.employees, after.employees, strict=True
    ):
        assert all(p.date < cut for p in first_e.preferences + first_e.fixed_assignments)
        assert all(p.date >= cut for p in second_e.preferences + second_e.fixed_assignments)
        assert len(first_e.preferences) + len(second_e.preferences) == len(whole_e.preferences)
        assert len(first_e.fixed_assignments) + len(second_e.fixed_assignments) == len(
            whole_e.fixed_assignments
        )
    demands = request.constraints.cross_shift_demands
    assert len(before.constraints.cross_shift_demands) + len(
        after.constraints.cross_shift_demands
    ) == len(demands)


@pytest.mark.slow
def test_a_hard_clean_roster_of_the_whole_is_hard_clean_on_each_part() -> None:
    request = _request()
    roster = solved_and_audited(request, work_limited(2.0)).assignments
    cut = 10
    before, after = split(request, cut)
    first_dates = before.schedule_period.end_date
    first = [a for a in roster if a.date <= first_dates]
    second = [a for a in roster if a.date > first_dates]
    assert audit(before, first).hard_violations == []
    assert audit(after, second).hard_violations == []
    assert join(second, first) == sorted(roster, key=lambda a: (a.date, a.employee_id))


def test_a_cut_that_leaves_a_period_empty_is_refused() -> None:
    request = _request(days=7)
    for first_days in (0, 7, -1):
        with pytest.raises(ValueError, match="leaves a period empty"):
            split(request, first_days)


def test_shift_count_limits_have_no_part_and_are_refused() -> None:
    data = synthetic_request(8, 2, 1, 21, seed=3, mix="workload")
    request = parse_request(data)
    assert any(e.shift_count_limits for e in request.employees)
    with pytest.raises(ValueError, match="shift-count limits"):
        split(request, 10)


def test_the_seam_requests_have_every_family_but_shift_count_limits() -> None:
    request = seam_request(seed=0, days=28, first_days=14)
    assert not any(e.shift_count_limits for e in request.employees)
    assert request.constraints.shift_transitions
    assert request.constraints.max_consecutive_working_days is not None
    assert any(e.working_days_per_month for e in request.employees)
    second = request.schedule_period.start_date + dt.timedelta(days=14)
    fixed = [f.date for e in request.employees for f in e.fixed_assignments]
    assert fixed and max(fixed) < second  # the second part's are left out


def test_the_seam_summary_counts_runs_that_break_the_seam_and_the_soft_ratios() -> None:
    clean = Joined(0, "-", 98.0)
    runs = [
        SeamRun(0, "mid-week", "2026-06-27", Joined(2, "shift_transition x2", 90.0), clean, 100.0),
        SeamRun(1, "mid-week", "2026-06-27", clean, Joined(0, "-", 105.0), 100.0),
        SeamRun(2, "mid-week", "2026-06-27", Joined(0, "-", None), clean, 100.0),
    ]
    totals = summary(runs)
    assert totals["runs"] == 3
    assert totals["alone"]["with_hard_violations"] == 1
    assert totals["alone"]["hard_violations"] == 2
    assert totals["history"]["with_hard_violations"] == 0
    assert totals["history"]["worst_soft_ratio"] == pytest.approx(1.05)
    assert totals["history"]["median_soft_ratio"] == pytest.approx(0.98)
    assert totals["alone"]["median_soft_ratio"] == pytest.approx((0.90 + 0.98) / 2)
    assert totals["hard_target_met"] is True
    assert totals["soft_target_met"] is True
    broken = [*runs, SeamRun(3, "mid-week", "2026-06-27", clean, Joined(1, "x", 99.0), 100.0)]
    assert summary(broken)["hard_target_met"] is False
