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
from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.history import History
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import PlanRequest
from shiftsched.contract.v1 import SolveRequest
from shiftsched.data.synthetic import synthetic_request
from shiftsched.periods.plan import plan
from shiftsched.periods.seam import ledger_after
from shiftsched.periods.split import join, limits_as_horizon, next_period, split
from tests.audited import EXACT, solved_and_audited, work_limited


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


# ------------------------------------------------------------------- the next period


def _carried(days: int = 10) -> SolveRequest:
    """A generated request of ``days`` days from Monday 1 June 2026 with every dated item:
    a holiday, preferences, a fixed assignment, cross-shift demands, count limits."""
    data = synthetic_request(8, 2, 1, days, seed=3, mix="all")
    data["schedule_period"]["holidays"] = [data["schedule_period"]["start_date"]]
    return parse_request(data)


def _latest_same_weekday(request: SolveRequest, day: dt.date) -> dt.date:
    period = request.schedule_period
    dates = [
        period.start_date + dt.timedelta(days=i)
        for i in range((period.end_date - period.start_date).days + 1)
    ]
    return max(d for d in dates if d.weekday() == day.weekday())


@pytest.mark.parametrize(("days", "gap"), [(10, 0), (3, 0), (17, 4)])
def test_the_next_period_repeats_each_weekdays_demand(days: int, gap: int) -> None:
    request = _carried()
    old = request.schedule_period
    start = old.end_date + dt.timedelta(days=1 + gap)
    nxt = next_period(request, days, start if gap else None)
    assert nxt.schedule_period.start_date == start
    assert nxt.schedule_period.end_date == start + dt.timedelta(days=days - 1)
    new_dates = [start + dt.timedelta(days=i) for i in range(days)]
    source = {d: (_latest_same_weekday(request, d) - old.start_date).days for d in new_dates}
    for was, now in zip(request.shifts, nxt.shifts, strict=True):
        assert now.staffing_demand == [was.staffing_demand[source[d]] for d in new_dates]
        assert was.manager_demand is not None and now.manager_demand is not None
        assert now.manager_demand == [was.manager_demand[source[d]] for d in new_dates]
    for was_duty, now_duty in zip(request.duties, nxt.duties, strict=True):
        for shift_id, ranges in was_duty.staffing_demand_by_shift.items():
            expected = [ranges[source[d]] for d in new_dates]
            assert now_duty.staffing_demand_by_shift[shift_id] == expected
    old_cross = request.constraints.cross_shift_demands
    expected_cross = [
        x.model_copy(update={"date": d})
        for d in new_dates
        for x in old_cross
        if x.date == _latest_same_weekday(request, d)
    ]
    assert nxt.constraints.cross_shift_demands == expected_cross
    assert expected_cross  # the generated request has some, on weekdays that repeat


def test_the_next_period_leaves_dated_wishes_and_holidays_behind() -> None:
    request = _carried()
    assert request.schedule_period.holidays
    assert any(e.preferences for e in request.employees)
    assert any(e.fixed_assignments for e in request.employees)
    nxt = next_period(request, 10)
    assert nxt.schedule_period.holidays == []
    assert nxt.schedule_period.timezone == request.schedule_period.timezone
    for was, now in zip(request.employees, nxt.employees, strict=True):
        assert now.preferences == [] and now.fixed_assignments == []
        kept = {"preferences", "fixed_assignments"}
        assert now.model_dump(exclude=kept) == was.model_dump(exclude=kept)
    same = {"shift_transitions", "max_consecutive_working_days", "employee_pairings"}
    assert nxt.constraints.model_dump(include=same) == request.constraints.model_dump(include=same)
    assert nxt.constraints.fairness_groups == request.constraints.fairness_groups
    assert nxt.options == request.options


def test_a_period_shorter_than_a_week_is_repeated_as_it_is() -> None:
    request = _carried(days=3)  # Monday..Wednesday
    nxt = next_period(request, 7)  # Thursday..Wednesday
    for was, now in zip(request.shifts, nxt.shifts, strict=True):
        demand = was.staffing_demand
        # Thursday..Sunday have no day of the same weekday: the three days, repeated.
        assert now.staffing_demand[:4] == [demand[0], demand[1], demand[2], demand[0]]
        assert now.staffing_demand[4:] == demand  # Monday..Wednesday, by weekday


@pytest.mark.parametrize(
    ("days", "low", "high"),
    [(10, 4, 6), (5, 2, 6), (15, 4, 9), (3, 1, 6)],
)
def test_count_limits_are_never_stricter_per_day_for_another_length(
    days: int, low: int, high: int
) -> None:
    data = synthetic_request(8, 2, 1, 10, seed=3, mix="all")
    data["employees"][0]["shift_count_limits"] = [{"shift_id": "s01", "min": 4, "max": 6}]
    request = parse_request(data)
    (limit,) = next_period(request, days).employees[0].shift_count_limits
    assert (limit.min, limit.max) == (low, high)


@pytest.mark.parametrize(
    ("days", "start_back", "message"),
    [(0, -1, "is empty"), (7, 0, "must start after"), (7, 3, "must start after")],
)
def test_a_next_period_that_is_empty_or_not_after_the_period_is_refused(
    days: int, start_back: int, message: str
) -> None:
    request = _carried()
    start = request.schedule_period.end_date - dt.timedelta(days=start_back)
    with pytest.raises(ValueError, match=message):
        next_period(request, days, start)


def test_the_next_period_planned_after_the_roster_keeps_every_rule_at_the_seam() -> None:
    """The notebook's path: solve, carry forward, plan after the roster and its ledger."""
    data = synthetic_request(6, 2, 0, 7, seed=5, mix="all")
    for employee in data["employees"]:
        employee.pop("shift_count_limits", None)
    request = parse_request(data)
    roster = solved_and_audited(request).assignments
    history = History(assignments=roster, ledger=ledger_after(request, roster, None))
    nxt = next_period(request, 7)
    planned = plan(PlanRequest(request=nxt, history=history), EXACT)
    assert planned.solution is not None and planned.ledger is not None
    report = audit(nxt, planned.solution.assignments, history=history)
    assert report.hard_violations == []
    solution = planned.solution
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    assert audit(_both_periods(request, nxt), join(roster, solution.assignments)).feasible
    by_id = {e.employee_id: e for e in planned.ledger.employees}
    for employee in request.employees:
        worked = [a for a in [*roster, *solution.assignments] if a.employee_id == employee.id]
        assert by_id[employee.id].days_worked == len(worked)


def _both_periods(first: SolveRequest, second: SolveRequest) -> SolveRequest:
    """The two consecutive periods as one request (without the second's holidays)."""
    data = first.model_dump(mode="json", exclude_none=True)
    data["schedule_period"]["end_date"] = second.schedule_period.end_date.isoformat()
    for shift, later in zip(data["shifts"], second.shifts, strict=True):
        shift["staffing_demand"] += [r.model_dump() for r in later.staffing_demand]
        if later.manager_demand is not None:
            shift["manager_demand"] += [r.model_dump() for r in later.manager_demand]
    for duty, later_duty in zip(data["duties"], second.duties, strict=True):
        for shift_id, ranges in later_duty.staffing_demand_by_shift.items():
            duty["staffing_demand_by_shift"][shift_id] += [r.model_dump() for r in ranges]
    data["constraints"]["cross_shift_demands"] = [
        *data["constraints"].get("cross_shift_demands", []),
        *(
            x.model_dump(mode="json", exclude_none=True)
            for x in second.constraints.cross_shift_demands
        ),
    ]
    return parse_request(data)


def test_limits_lifted_into_a_horizon_let_the_parts_share_them() -> None:
    request = parse_request(synthetic_request(8, 2, 1, 14, seed=3, mix="workload"))
    limits = {
        (e.id, c.shift_id): (c.min, c.max) for e in request.employees for c in e.shift_count_limits
    }
    assert limits
    with pytest.raises(ValueError, match="limits_as_horizon"):
        split(request, 7)
    lifted, horizon = limits_as_horizon(request, weight=45)
    assert horizon is not None and horizon.shift_weight == 45
    assert not any(e.shift_count_limits for e in lifted.employees)
    assert (horizon.start, horizon.end) == (
        request.schedule_period.start_date,
        request.schedule_period.end_date,
    )
    asked = {
        (t.employee_id, c.shift_id): (c.min, c.max) for t in horizon.targets for c in t.shift_counts
    }
    assert asked == limits
    first, second = split(lifted, 7)
    one = plan(PlanRequest(request=first, horizon=horizon), EXACT)
    assert one.solution is not None
    two = plan(
        PlanRequest(
            request=second,
            history=History.model_validate(one.model_dump(mode="json")),
            horizon=horizon,
        ),
        EXACT,
    )
    assert two.solution is not None and two.horizon_progress is not None
    history = History.model_validate(one.model_dump(mode="json"))
    report = audit(second, two.solution.assignments, history=history, horizon=horizon)
    assert compare_with_metrics(report, two.solution.metrics, two.solution.shortages) == []
    roster = join(one.solution.assignments, two.solution.assignments)
    # The last part prices the limits themselves, over the joined roster.
    missed = 0
    for (employee, shift), (low, high) in limits.items():
        count = sum(1 for a in roster if (a.employee_id, a.shift_id) == (employee, shift))
        missed += max(0, (low or 0) - count) + max(0, count - (high if high is not None else count))
        (standing,) = [
            c
            for p in two.horizon_progress
            if p.employee_id == employee
            for c in p.shift_counts
            if c.shift_id == shift
        ]
        assert standing.worked == count
        assert (standing.period_min, standing.period_max) == (low, high)
    priced = sum(
        v.violated_by or 0
        for v in two.solution.metrics.soft_constraint_violations
        if v.name.startswith("total_shifts:")
    )
    assert priced == missed


def test_a_request_without_count_limits_lifts_nothing() -> None:
    request = _request(days=7)
    assert limits_as_horizon(request) == (request, None)
