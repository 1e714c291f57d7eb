"""The explorer's horizon: the default targets, the targets as edited, and where each
employee stands against them once the period is planned, as a table and a chart.

The plan is the factories' week (Monday 2 to Sunday 8 March 2026: two shifts of one head
a day, three employees, 14 worked days) inside a horizon of two weeks, so every share is
half of its limit. The maxima's shares add up to the 14 days exactly, so the optimum
(proven on one worker) has one count per employee and the table exact values.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.history import History
from shiftsched.contract.horizon_targets import PlanHorizon, ShiftProgress, TargetProgress
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import PlanRequest, PlanResponse
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.periods.plan import plan
from shiftsched.present import charts, frames
from shiftsched.present.explore.next_period import (
    default_targets,
    horizon_asked,
    horizon_shown,
    quarter_end,
)
from shiftsched.present.period_frames import HORIZON_COLUMNS, standing_words
from tests.audited import EXACT
from tests.factories import minimal_request_dict

START = dt.date(2026, 3, 2)  # the week's Monday
TWO_WEEKS = dt.date(2026, 3, 15)
WITHIN = "within its share"
TARGETS: list[dict[str, Any]] = [
    {"employee_id": "e1", "min_days": 6, "max_days": 8, "max_weekends": 0},
    {"employee_id": "e2", "min_days": None, "max_days": 8, "max_weekends": 2},
    {"employee_id": "e3", "min_days": 12, "max_days": 12, "max_hours": 96, "min_hours": 96},
]  # e3: 12 days of eight hours


def week() -> SolveRequest:
    return parse_request(minimal_request_dict())


def planned_inside(rows: list[dict[str, Any]]) -> tuple[SolveRequest, PlanResponse]:
    request = week()
    horizon, faults = horizon_asked(rows, START, TWO_WEEKS, request)
    assert faults == [] and horizon is not None
    response = plan(PlanRequest(request=request, horizon=horizon), EXACT)
    assert response.solution is not None
    metrics = response.solution.metrics
    assert metrics.best_bound == metrics.objective_value == 0  # proven, every share met
    report = audit(request, response.solution.assignments, horizon=horizon)
    assert compare_with_metrics(report, metrics, response.solution.shortages) == []
    return request, response


def test_the_progress_frame_holds_the_counts_the_limits_the_shares_and_what_is_left() -> None:
    _, response = planned_inside(TARGETS)
    table = frames.horizon_progress_frame(response.horizon_progress or [])
    assert table.columns == ["employee", *HORIZON_COLUMNS]
    assert table.rows() == [
        # days worked, least, most, share least/most, owed, allowed; weekends worked,
        # most, share, left; hours worked, least, most, share least/most, allowed; shifts
        ("e1", 4, 6, 8, 3, 4, 2, 4, 0, 0, 0, 0, *(32.0, *[None] * 5), None, WITHIN),
        ("e2", 4, None, 8, None, 4, None, 4, 1, 2, 1, 1, *(32.0, *[None] * 5), None, WITHIN),
        ("e3", 6, 12, 12, 6, 6, 6, 6, 1, *[None] * 3, *(48.0, 96, 96), *[48.0] * 3, None, WITHIN),
    ]


def test_the_view_charts_the_table_and_says_how_many_are_within_their_share() -> None:
    request, response = planned_inside(TARGETS)
    horizon, _ = horizon_asked(TARGETS, START, TWO_WEEKS, request)
    assert horizon is not None
    view = horizon_shown(request, horizon, response)
    assert view.table.equals(frames.horizon_progress_frame(response.horizon_progress or []))
    assert "2026-03-02 .. 2026-03-15" in view.words and "**3 of 3 targets**" in view.words
    datasets = list(view.chart.to_dict()["datasets"].values())
    assert [len(rows) for rows in datasets] == [3]
    assert {row["employee"]: row["days worked"] for row in datasets[0]} == {
        "e1": 4,
        "e2": 4,
        "e3": 6,
    }
    assert isinstance(charts.horizon_progress_chart(view.table, "t").to_dict(), dict)


def test_the_standing_names_each_count_outside_its_share() -> None:
    off = TargetProgress(
        employee_id="e1",
        days_worked=9,
        weekends_worked=3,
        period_min_days=10,
        period_max_weekends=1,
    )
    assert standing_words(off) == "1 day short of its share; 2 weekends over its share"
    over = TargetProgress(employee_id="e1", days_worked=9, weekends_worked=0, period_max_days=7)
    assert standing_words(over) == "2 days over its share"
    hours = TargetProgress(
        employee_id="e1",
        days_worked=5,
        weekends_worked=0,
        minutes_worked=40 * 60,
        period_min_minutes=41 * 60 + 30,
    )
    assert standing_words(hours) == "1 h 30 short of its share"
    nights = TargetProgress(
        employee_id="e1",
        days_worked=5,
        weekends_worked=0,
        shift_counts=[
            ShiftProgress(shift_id="night", worked=5, max=12, period_max=3),
            ShiftProgress(shift_id="day", worked=0, min=2, period_min=1),
        ],
    )
    assert standing_words(nights) == (
        "2 night shifts over its share; 1 day shift short of its share"
    )


def test_the_progress_frame_counts_each_shift_against_its_share_and_limits() -> None:
    targets = [{"employee_id": "e1", "shift_counts": [{"shift_id": "night", "max": 2}]}]
    request = week()
    horizon = PlanHorizon.model_validate({"start": START, "end": TWO_WEEKS, "targets": targets})
    response = plan(PlanRequest(request=request, horizon=horizon), EXACT)
    assert response.solution is not None and response.horizon_progress is not None
    nights = sum(
        1 for a in response.solution.assignments if (a.employee_id, a.shift_id) == ("e1", "night")
    )
    assert nights <= 1  # the share of two nights in two weeks, held at no cost
    table = frames.horizon_progress_frame(response.horizon_progress)
    assert table["shift counts"].to_list() == [
        f"night {nights} (share at most 1; horizon at most 2)"
    ]


def test_the_default_targets_hold_the_history_pace_over_the_horizon() -> None:
    request = week()
    worked = [("e1", 2 + i) for i in range(5)] + [("e2", 7), ("e2", 8)]  # e2 the weekend
    history = History(
        assignments=[
            Assignment(employee_id=e, date=dt.date(2026, 3, day), shift_id="day")
            for e, day in worked
        ]
    )
    end = dt.date(2026, 3, 29)  # four weeks
    table = default_targets(request, history, START, dt.date(2026, 3, 8), end)
    # 7 worked days of 3 x 7: 28 / 3 = 9.33 days over the horizon, 8.4 .. 10.27 either way;
    # one working weekend of 3: 4 / 3 = 1.33 weekends
    assert table.rows() == [(e, 8, 11, 2, None, None) for e in ("e1", "e2", "e3")]
    loose = default_targets(request, History(assignments=[]), START, START, end)
    assert loose.rows() == [(e, 0, 28, 4, None, None) for e in ("e1", "e2", "e3")]


def test_the_edited_targets_become_the_horizon_or_say_what_is_wrong() -> None:
    request = week()
    rows: list[dict[str, Any]] = [
        {"employee_id": "e1", "min_days": "3", "max_days": 5.0, "max_weekends": math.nan},
        {"employee_id": "e2", "min_days": None, "max_days": "", "max_weekends": None},
    ]
    horizon, faults = horizon_asked(rows, START, TWO_WEEKS, request)
    assert faults == [] and horizon is not None
    assert [t.model_dump() for t in horizon.targets] == [
        {
            "employee_id": "e1",
            "min_days": 3,
            "max_days": 5,
            "max_weekends": None,
            "min_hours": None,
            "max_hours": None,
            "shift_counts": [],
        }
    ]  # e2 has no limit, so no target
    assert horizon_asked([rows[1]], START, TWO_WEEKS, request) == (
        None,
        ["no target: fill in a limit for at least one employee"],
    )
    assert horizon_asked([{**rows[0], "min_days": "2.5"}], START, TWO_WEEKS, request) == (
        None,
        ["targets[0].min_days: '2.5' is not a whole number"],
    )
    _, upside_down = horizon_asked([{**rows[0], "min_days": 6}], START, TWO_WEEKS, request)
    assert upside_down == [
        "horizon.targets[0].min_days: min_days 6 is above max_days 5 [min_greater_than_max]"
    ]
    _, short = horizon_asked(rows, START, dt.date(2026, 3, 7), request)
    assert len(short) == 1 and short[0].startswith("horizon.end: the horizon ends on 2026-03-07")


@pytest.mark.parametrize(
    ("day", "end"),
    [
        (dt.date(2026, 5, 17), dt.date(2026, 6, 30)),
        (dt.date(2026, 12, 1), dt.date(2026, 12, 31)),
        (dt.date(2027, 1, 1), dt.date(2027, 3, 31)),
    ],
)
def test_the_default_horizon_ends_with_the_quarter(day: dt.date, end: dt.date) -> None:
    assert quarter_end(day) == end
