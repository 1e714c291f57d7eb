"""The re-planning benchmark's draws and report, on a hand-made roster (no solve)."""

from __future__ import annotations

import random

from benchmarks.replanning import _report, _sick_calls


def test_sick_calls_are_worked_dates_never_fixed_ones() -> None:
    data = {
        "employees": [
            {"id": "a", "fixed_assignments": [{"date": "2026-06-02", "shift_id": "s"}]},
            {"id": "b"},
        ]
    }
    roster = [
        {"employee_id": "a", "date": "2026-06-01", "shift_id": "s"},
        {"employee_id": "a", "date": "2026-06-02", "shift_id": "s"},
        {"employee_id": "b", "date": "2026-06-01", "shift_id": "s"},
        {"employee_id": "b", "date": "2026-06-02", "shift_id": "s"},
    ]
    calls = _sick_calls(data, roster, 50, random.Random(3))
    assert len(calls) == 50
    worked = {(a["employee_id"], a["date"]) for a in roster} - {("a", "2026-06-02")}
    for employee, dates in calls:
        assert 1 <= len(dates) <= 2
        assert all((employee, day) in worked for day in dates)
    assert any(len(dates) == 2 for _, dates in calls)  # b's two dates in a row


def test_report_states_the_targets() -> None:
    summary = {
        "runs": 2,
        "median_absent_slots": 1,
        "median_other_changes": 1,
        "median_changes": 2,
        "median_objective_change": 5.0,
        "median_seconds": 0.5,
        "hard_violations": 0,
        "no_roster": 0,
    }
    text = _report(
        {"published": 100.0, "target_met": True, "summary": {"replan": summary}},
        {"median_ms": 80.0, "max_ms": 90.0, "median_naive_ms": 800.0, "target_met": True},
    )
    assert "| replan | 2 | 1 | 1 | 2 | 5.0 | 0.5 | 0 | 0 |" in text
    assert "median 80.0 ms" in text and "Target met: True" in text
