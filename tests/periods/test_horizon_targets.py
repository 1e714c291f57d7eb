"""Horizon targets: a period planned inside a longer horizon gets its share of limits
that span the horizon, priced softly; the last period prices the limits themselves.

The request is the factories' week (Monday 2 to Sunday 8 March 2026): two shifts of one
head a day, three employees, one shift a day each, so 14 worked days and both weekend
days staffed twice, whatever the roster. Every solve is proven optimal on one worker,
and every answer's metrics equal the independent audit's, the horizon included.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.horizon_targets import PlanHorizon, share, weekends
from shiftsched.contract.planning import PlanRequest, PlanResponse, parse_plan
from shiftsched.errors import InvalidRequest
from shiftsched.periods.plan import plan
from tests.audited import EXACT
from tests.factories import END_DATE, START_DATE, minimal_request_dict

HORIZON_WEEK = {"start": START_DATE, "end": END_DATE}


def planned(body: dict[str, Any]) -> tuple[PlanRequest, PlanResponse]:
    """The plan of ``body``, checked against the audit with its history and horizon."""
    ask = parse_plan(body)
    response = plan(ask, EXACT)
    assert response.status == "completed" and response.solution is not None
    solution = response.solution
    report = audit(ask.request, solution.assignments, history=ask.history, horizon=ask.horizon)
    assert report.hard_violations == []
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    assert solution.metrics.best_bound == solution.metrics.objective_value  # proven
    return ask, response


def terms(response: PlanResponse, prefix: str) -> dict[str, float]:
    assert response.solution is not None
    return {
        v.name: v.penalty
        for v in response.solution.metrics.soft_constraint_violations
        if v.name.startswith(prefix)
    }


def objective(response: PlanResponse) -> float:
    assert response.solution is not None
    return response.solution.metrics.objective_value


def week_after(data: dict[str, Any]) -> dict[str, Any]:
    """The same request one week later."""
    later = dict(data)
    start = dt.date.fromisoformat(START_DATE) + dt.timedelta(days=7)
    later["schedule_period"] = {
        **data["schedule_period"],
        "start_date": start.isoformat(),
        "end_date": (start + dt.timedelta(days=6)).isoformat(),
    }
    return later


# ------------------------------------------------------------------------ the shares


def test_a_share_is_the_period_part_of_what_is_left_rounded_half_up() -> None:
    assert share(0, 10, 7, 14) == 5
    assert share(0, 3, 7, 14) == 2  # 1.5 rounds up
    assert share(4, 10, 7, 21) == 6  # 4 + 6 x 7/21
    assert share(12, 10, 7, 14) == 12  # over already: no share below the count so far
    assert share(3, 10, 7, 7) == 10  # the last period gets the limit itself


def test_weekends_count_the_iso_weeks_with_a_saturday_or_sunday() -> None:
    monday = dt.date(2026, 3, 2)
    assert weekends(monday, monday + dt.timedelta(days=4)) == 0
    assert weekends(monday, monday + dt.timedelta(days=6)) == 1
    assert weekends(monday + dt.timedelta(days=6), monday + dt.timedelta(days=12)) == 2


# ------------------------------------------------------------------------ the prices


def test_loose_targets_cost_nothing_and_change_nothing() -> None:
    data = minimal_request_dict()
    _, bare = planned({"request": data})
    targets = [
        {"employee_id": e, "min_days": 0, "max_days": 7, "max_weekends": 1}
        for e in ("e1", "e2", "e3")
    ]
    _, loose = planned({"request": data, "horizon": {**HORIZON_WEEK, "targets": targets}})
    assert objective(loose) == objective(bare)
    assert terms(loose, "total_days:") == {} and terms(loose, "weekend_cap:") == {}


def test_days_above_the_limits_cost_the_day_weight_each() -> None:
    data = minimal_request_dict()
    _, bare = planned({"request": data})
    targets = [{"employee_id": e, "max_days": 3} for e in ("e1", "e2", "e3")]
    horizon = {**HORIZON_WEEK, "targets": targets, "day_weight": 25}
    _, response = planned({"request": data, "horizon": horizon})
    assert sum(terms(response, "total_days:").values()) == 25 * (14 - 9)
    assert objective(response) == objective(bare) + 125


def test_weekends_above_the_limit_cost_the_weekend_weight_each() -> None:
    data = minimal_request_dict()
    _, bare = planned({"request": data})
    targets = [{"employee_id": e, "max_weekends": 0} for e in ("e1", "e2", "e3")]
    horizon = {**HORIZON_WEEK, "targets": targets, "weekend_weight": 40}
    _, response = planned({"request": data, "horizon": horizon})
    # two heads each weekend day: two people work that weekend at the least
    assert sum(terms(response, "weekend_cap:").values()) == 2 * 40
    assert objective(response) == objective(bare) + 80


def test_a_minimum_is_shared_over_the_weeks_and_met_at_the_last() -> None:
    first = minimal_request_dict()
    horizon = {"start": START_DATE, "end": week_after(first)["schedule_period"]["end_date"]}
    targets = [{"employee_id": "e1", "min_days": 12}]
    _, one = planned({"request": first, "horizon": {**horizon, "targets": targets}})
    assert one.horizon_progress is not None and one.ledger is not None
    (standing,) = one.horizon_progress
    assert standing.period_min_days == 6  # half of 12: one week of two
    assert standing.days_worked >= 6
    assert terms(one, "total_days:") == {}
    assert one.ledger.horizon is not None
    (kept,) = [c for c in one.ledger.horizon.employees if c.employee_id == "e1"]
    assert kept.days_worked == standing.days_worked
    history = one.model_dump(mode="json")
    body = {
        "request": week_after(first),
        "history": history,
        "horizon": {**horizon, "targets": targets},
    }
    _, two = planned(body)
    assert two.horizon_progress is not None
    (last,) = two.horizon_progress
    assert last.period_min_days == 12  # the last week prices the limit itself
    assert last.days_worked == standing.days_worked + sum(
        1
        for a in two.solution.assignments
        if a.employee_id == "e1"  # type: ignore[union-attr]
    )
    assert last.days_to_minimum == 0 and terms(two, "total_days:") == {}


def test_hours_past_a_share_cost_the_hour_weight_per_hour_begun() -> None:
    data = minimal_request_dict()  # every shift eight hours: 112 hours to work
    _, bare = planned({"request": data})
    horizon = {"start": START_DATE, "end": "2026-03-15"}  # two weeks: half of 75 h is 37.5
    targets = [{"employee_id": e, "max_hours": 75} for e in ("e1", "e2", "e3")]
    _, response = planned({"request": data, "horizon": {**horizon, "targets": targets}})
    # 37.5 h each: four shifts (32 h) leave 16 h to two people, 40 h each, 2.5 h over
    # their share, which costs three hours begun, twice
    assert sum(terms(response, "total_hours:").values()) == 4 * 6
    assert objective(response) == objective(bare) + 24
    assert response.horizon_progress is not None
    worked = sorted(p.minutes_worked for p in response.horizon_progress)
    assert worked == [32 * 60, 40 * 60, 40 * 60]
    assert {p.period_max_minutes for p in response.horizon_progress} == {2250}


def test_hours_so_far_come_from_the_ledger_and_the_last_week_prices_the_limit() -> None:
    first = minimal_request_dict()
    horizon = {"start": START_DATE, "end": week_after(first)["schedule_period"]["end_date"]}
    horizon |= {"targets": [{"employee_id": "e1", "min_hours": 80}], "hour_weight": 7}
    _, one = planned({"request": first, "horizon": horizon})
    assert one.ledger is not None and one.ledger.horizon is not None
    (kept,) = [c for c in one.ledger.horizon.employees if c.employee_id == "e1"]
    assert one.horizon_progress is not None
    (standing,) = one.horizon_progress
    assert standing.period_min_minutes == 40 * 60  # half of 80 h
    assert kept.minutes_worked == standing.minutes_worked >= 40 * 60
    body = {"request": week_after(first), "history": one.model_dump(mode="json")}
    _, two = planned({**body, "horizon": horizon})
    assert two.horizon_progress is not None and two.solution is not None
    (last,) = two.horizon_progress
    assert last.period_min_minutes == 80 * 60  # the limit itself
    mine = sum(1 for a in two.solution.assignments if a.employee_id == "e1")
    assert last.minutes_worked == kept.minutes_worked + 8 * 60 * mine
    assert last.minutes_to_minimum == 0 and terms(two, "total_hours:") == {}


def test_shifts_past_a_count_cost_the_shift_weight_each() -> None:
    data = minimal_request_dict()  # seven nights to staff, one head each
    _, bare = planned({"request": data})
    counts = [{"shift_id": "night", "max": 1}]
    targets = [{"employee_id": e, "shift_counts": counts} for e in ("e1", "e2", "e3")]
    horizon = {**HORIZON_WEEK, "targets": targets, "shift_weight": 35}
    _, response = planned({"request": data, "horizon": horizon})
    # three nights allowed of seven: four over, whoever works them
    assert sum(terms(response, "total_shifts:").values()) == 4 * 35
    assert set(terms(response, "total_shifts:")) <= {
        f"total_shifts:{e}:night" for e in ("e1", "e2", "e3")
    }
    assert objective(response) == objective(bare) + 140
    assert response.horizon_progress is not None and response.ledger is not None
    nights = {p.employee_id: p.shift_counts[0].worked for p in response.horizon_progress}
    assert sum(nights.values()) == 7
    assert response.ledger.horizon is not None
    kept = {c.employee_id: c.shift_counts for c in response.ledger.horizon.employees}
    assert kept == {e: {"night": n} for e, n in nights.items()}
    for p in response.horizon_progress:
        (count,) = p.shift_counts
        assert (count.period_max, count.max) == (1, 1)
        assert count.left_to_maximum == 1 - count.worked


def test_a_shift_minimum_is_shared_over_the_weeks_and_chained_by_the_ledger() -> None:
    first = minimal_request_dict()
    horizon = {"start": START_DATE, "end": week_after(first)["schedule_period"]["end_date"]}
    horizon |= {
        "targets": [{"employee_id": "e1", "shift_counts": [{"shift_id": "night", "min": 8}]}]
    }
    _, one = planned({"request": first, "horizon": horizon})
    assert one.horizon_progress is not None and one.ledger is not None
    (standing,) = one.horizon_progress
    (night,) = standing.shift_counts
    assert night.period_min == 4  # half of 8: one week of two
    assert night.worked >= 4 and terms(one, "total_shifts:") == {}
    body = {"request": week_after(first), "history": one.model_dump(mode="json")}
    _, two = planned({**body, "horizon": horizon})
    assert two.horizon_progress is not None and two.solution is not None
    (last,) = two.horizon_progress[0].shift_counts
    assert last.period_min == 8  # the last week prices the limit itself
    mine = sum(
        1 for a in two.solution.assignments if (a.employee_id, a.shift_id) == ("e1", "night")
    )
    assert last.worked == night.worked + mine >= 8
    assert last.to_minimum == 0 and terms(two, "total_shifts:") == {}


def test_shift_counts_so_far_come_from_history_cells_without_a_ledger() -> None:
    first = minimal_request_dict()
    horizon = {"start": START_DATE, "end": week_after(first)["schedule_period"]["end_date"]}
    horizon |= {
        "targets": [{"employee_id": "e1", "shift_counts": [{"shift_id": "night", "max": 3}]}]
    }
    nights = [
        {"employee_id": "e1", "date": f"2026-03-0{d}", "shift_id": "night"} for d in (2, 3, 4, 5)
    ]
    history = {"start_date": START_DATE, "assignments": nights}
    _, response = planned({"request": week_after(first), "history": history, "horizon": horizon})
    assert response.horizon_progress is not None
    (count,) = response.horizon_progress[0].shift_counts
    assert count.period_max == 3  # the limit, already passed: any night costs
    assert count.worked == 4 + sum(
        1
        for a in response.solution.assignments  # type: ignore[union-attr]
        if (a.employee_id, a.shift_id) == ("e1", "night")
    )
    over = terms(response, "total_shifts:").get("total_shifts:e1:night", 0)
    assert over == 30 * (count.worked - 3)


# ------------------------------------------------------------------------ the faults


@pytest.mark.parametrize(
    ("horizon", "path", "code"),
    [
        ({"start": START_DATE, "end": "2026-03-07"}, ["horizon", "end"], "out_of_range"),
        ({"start": "2026-03-03", "end": END_DATE}, ["horizon", "start"], "out_of_range"),
    ],
)
def test_a_horizon_that_does_not_hold_the_period_is_refused_at_its_date(
    horizon: dict[str, str], path: list[str], code: str
) -> None:
    body = {
        "request": minimal_request_dict(),
        "horizon": {**horizon, "targets": [{"employee_id": "e1"}]},
    }
    with pytest.raises(InvalidRequest) as raised:
        parse_plan(body)
    assert [(list(e.path), e.code) for e in raised.value.errors] == [(path, code)]


def test_targets_naming_no_employee_or_twice_or_upside_down_are_refused_by_path() -> None:
    targets = [
        {"employee_id": "e9"},
        {"employee_id": "e1", "min_days": 5, "max_days": 4},
        {"employee_id": "e1"},
        {"employee_id": "e2", "min_hours": 41, "max_hours": 40},
        {
            "employee_id": "e3",
            "shift_counts": [
                {"shift_id": "late", "max": 3},
                {"shift_id": "night", "min": 4, "max": 3},
                {"shift_id": "night"},
            ],
        },
    ]
    body = {"request": minimal_request_dict(), "horizon": {**HORIZON_WEEK, "targets": targets}}
    with pytest.raises(InvalidRequest) as raised:
        parse_plan(body)
    found = [(list(e.path), e.code) for e in raised.value.errors]
    assert found == [
        (["horizon", "targets", 0, "employee_id"], "unknown_employee_id"),
        (["horizon", "targets", 1, "min_days"], "min_greater_than_max"),
        (["horizon", "targets", 2, "employee_id"], "duplicate_reference"),
        (["horizon", "targets", 3, "min_hours"], "min_greater_than_max"),
        (["horizon", "targets", 4, "shift_counts", 0, "shift_id"], "unknown_shift_id"),
        (["horizon", "targets", 4, "shift_counts", 1, "min"], "min_greater_than_max"),
        (["horizon", "targets", 4, "shift_counts", 2, "shift_id"], "duplicate_reference"),
    ]


# ------------------------------------------------------------------- model and audit


limit = st.one_of(st.none(), st.integers(0, 7))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(limit, limit, st.one_of(st.none(), st.integers(0, 1))), min_size=3, max_size=3
    ),
    st.integers(0, 60),
    st.integers(0, 60),
    st.lists(st.one_of(st.none(), st.integers(0, 130)), min_size=3, max_size=3),
    st.lists(st.tuples(st.sampled_from(["day", "night"]), limit, limit), max_size=3),
)
def test_the_model_and_the_audit_price_any_targets_alike(
    limits: list[tuple[int | None, int | None, int | None]],
    day_weight: int,
    weekend_weight: int,
    hours: list[int | None],
    shift_counts: list[tuple[str, int | None, int | None]],
) -> None:
    targets = []
    for employee, (low, high, most), most_hours in zip(
        ("e1", "e2", "e3"), limits, hours, strict=True
    ):
        if low is not None and high is not None and low > high:
            low, high = high, low
        targets.append(
            {"employee_id": employee, "min_days": low, "max_days": high, "max_weekends": most}
            | (
                {}
                if most_hours is None
                else {"max_hours": most_hours, "min_hours": most_hours // 2}
            )
        )
    for i, (shift, low, high) in enumerate(shift_counts):
        if low is not None and high is not None and low > high:
            low, high = high, low
        bounds = {"min": low, "max": high}
        given_bounds = {k: v for k, v in bounds.items() if v is not None}
        targets[i]["shift_counts"] = [{"shift_id": shift} | given_bounds]
    horizon = {"start": START_DATE, "end": "2026-03-22", "targets": targets}
    horizon |= {"day_weight": day_weight, "weekend_weight": weekend_weight, "hour_weight": 3}
    horizon |= {"shift_weight": 17}
    PlanHorizon.model_validate(horizon)
    planned({"request": minimal_request_dict(), "horizon": horizon})  # asserts the agreement
