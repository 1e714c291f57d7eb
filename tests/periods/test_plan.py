"""Planning with hard absences on dates: the engine, and the command line.

Absences are hard: whatever roster comes back, no absent employee works an absent date,
and the roster keeps every rule of the request (the independent audit agrees with its
metrics). Absences that cannot hold with the request's own hard rules are diagnosed by
their JSON paths, as a re-plan's are.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.planning import parse_plan
from shiftsched.errors import InvalidRequest
from shiftsched.periods.plan import plan
from tests.audited import EXACT
from tests.cli.test_cli import run, run_text
from tests.factories import employee_dict, minimal_request_dict


def _four_employees() -> dict[str, Any]:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    return data


def _dates(data: dict[str, Any]) -> list[str]:
    start = data["schedule_period"]["start_date"]
    end = data["schedule_period"]["end_date"]
    first, last = dt.date.fromisoformat(start), dt.date.fromisoformat(end)
    return [(first + dt.timedelta(days=k)).isoformat() for k in range((last - first).days + 1)]


def test_no_absent_employee_works_an_absent_date_and_the_roster_is_audit_clean() -> None:
    data = _four_employees()
    dates = _dates(data)
    absences = [
        {"employee_id": "e1", "dates": dates[:3]},
        {"employee_id": "e2", "dates": [dates[-1]]},
    ]
    ask = parse_plan({"request": data, "absences": absences})
    response = plan(ask, EXACT)
    assert response.status == "completed" and response.solution is not None
    absent = {(a["employee_id"], d) for a in absences for d in a["dates"]}
    worked = {(a.employee_id, a.date.isoformat()) for a in response.solution.assignments}
    assert not absent & worked
    report = audit(ask.request, response.solution.assignments)
    assert report.hard_violations == []
    metrics = response.solution.metrics
    assert compare_with_metrics(report, metrics, response.solution.shortages) == []
    assert metrics.best_bound is not None and metrics.best_bound <= metrics.objective_value


def test_an_absence_on_a_fixed_assignment_is_diagnosed_by_its_path() -> None:
    data = _four_employees()
    day = _dates(data)[0]
    data["employees"][0]["fixed_assignments"] = [{"date": day, "shift_id": data["shifts"][0]["id"]}]
    ask = parse_plan({"request": data, "absences": [{"employee_id": "e1", "dates": [day]}]})
    response = plan(ask, EXACT)
    assert response.status == "failed" and response.error is not None
    assert response.error.code == "no_solution"
    assert response.error.diagnosis is not None
    causes = {c.field for c in response.error.diagnosis.causes}
    assert causes == {"absences[0].dates[0]", "request.employees[0].fixed_assignments[0]"}


def test_absences_of_unknown_employees_or_outside_the_period_are_refused_with_paths() -> None:
    data = _four_employees()
    absences = [
        {"employee_id": "nobody", "dates": [_dates(data)[0]]},
        {"employee_id": "e1", "dates": ["2001-01-01"]},
    ]
    with pytest.raises(InvalidRequest) as refused:
        parse_plan({"request": data, "absences": absences})
    paths = {tuple(fault.path) for fault in refused.value.errors}
    assert paths == {("absences", 0, "employee_id"), ("absences", 1, "dates", 0)}


def test_the_command_line_plans_with_absent(tmp_path: Path) -> None:
    data = _four_employees()
    day = _dates(data)[1]
    path = tmp_path / "request.json"
    path.write_text(json.dumps(data))
    code, response = run(["solve", str(path), "--absent", f"e3:{day}", "--workers", "1", "--quiet"])
    assert code == 0 and response["status"] == "completed"
    cells = {(a["employee_id"], a["date"]) for a in response["solution"]["assignments"]}
    assert ("e3", day) not in cells
    code, _, faults = run_text(["solve", str(path), "--absent", f"nobody:{day}", "--quiet"])
    assert code == 2
    assert "absences[0].employee_id" in faults
