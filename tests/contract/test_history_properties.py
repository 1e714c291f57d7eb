"""Property: a plan after any history keeps every rule across the seam, to the unit.

Random small requests touching every family get a random history (cells on the days
before the start, sometimes a ledger of past counts) and are planned. The auditor reads
the history on its own (plain Python, no CP-SAT, no counters): it must find no hard
violation across the seam, and the same penalties, objective and shortages the plan
reported.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.planning import parse_plan
from shiftsched.periods.plan import plan
from tests.audited import failed_for_a_reason, work_limited
from tests.strategies import requests

LIMITS = replace(work_limited(1.0), diagnosis_budget_seconds=0)


@st.composite
def planned_after_a_history(draw: st.DrawFn) -> dict[str, Any]:
    data = draw(requests())
    start = dt.date.fromisoformat(data["schedule_period"]["start_date"])
    employees = [e["id"] for e in data["employees"]]
    shifts = [s["id"] for s in data["shifts"]]
    days = draw(st.integers(1, 10))
    cells = []
    for employee in employees:
        for back in range(1, days + 1):
            if draw(st.booleans()):
                day = start - dt.timedelta(days=back)
                cells.append(
                    {
                        "employee_id": employee,
                        "date": day.isoformat(),
                        "shift_id": draw(st.sampled_from(shifts)),
                    }
                )
    history: dict[str, Any] = {
        "start_date": (start - dt.timedelta(days=days)).isoformat(),
        "assignments": cells,
    }
    if draw(st.booleans()):
        history["ledger"] = {
            "through": (start - dt.timedelta(days=1)).isoformat(),
            "employees": [
                {
                    "employee_id": employee,
                    "shift_counts": {s: draw(st.integers(0, 9)) for s in shifts},
                }
                for employee in employees
            ],
        }
    return {"request": data, "history": history}


@pytest.mark.slow
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planned_after_a_history())
def test_plans_after_a_history_pass_the_audit_across_the_seam(body: dict[str, Any]) -> None:
    ask = parse_plan(body)
    response = plan(ask, LIMITS)
    event(response.status if response.error is None else response.error.code)
    if failed_for_a_reason(response):
        return
    assert response.solution is not None
    report = audit(ask.request, response.solution.assignments, history=ask.history)
    assert report.hard_violations == []
    metrics = response.solution.metrics
    assert compare_with_metrics(report, metrics) == []
    assert metrics.objective_value == report.objective_value
    assert response.solution.shortages == report.shortages
    assert response.ledger is not None
