"""The greedy starting roster keeps every hard rule it can check looking backwards.

It is only a hint (the solver repairs and improves it), but a hint that breaks the
structural rules would waste the search's first seconds, so the auditor checks it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from engine.audit import audit
from engine.contract import SolveRequest
from engine.greedy import greedy_roster, roster_assignments
from engine.problem import from_request
from engine.rules import parse_request
from tests.strategies import requests

DATASETS = sorted((Path(__file__).parent.parent / "datasets").glob("*.json"))

# Rules the greedy pass cannot see: forward-looking requirements and minimums.
NOT_CHECKED_BY_GREEDY = {
    "shift_count_limit",
    "shift_transition",
    "fixed_assignment",
    "skill_support",
}


def greedy_audit(request: SolveRequest) -> tuple[set[str], float]:
    problem = from_request(request)
    report = audit(request, roster_assignments(problem, greedy_roster(problem)))
    missing = sum(s.missing for s in report.shortages)
    return {v.code for v in report.hard_violations}, missing


@pytest.mark.parametrize("path", DATASETS, ids=lambda p: p.stem)
def test_greedy_roster_of_each_dataset_keeps_backward_checkable_rules(path: Path) -> None:
    request = parse_request(json.loads(path.read_text()))
    codes, _ = greedy_audit(request)
    assert codes <= NOT_CHECKED_BY_GREEDY


def test_greedy_roster_staffs_the_max_size_dataset_almost_fully() -> None:
    request = parse_request(json.loads((DATASETS[0].parent / "max_size.json").read_text()))
    required = sum(r.min for shift in request.shifts for r in shift.staffing_demand)
    _, missing = greedy_audit(request)
    assert missing < 0.1 * required


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_greedy_roster_keeps_backward_checkable_rules(data: dict[str, Any]) -> None:
    codes, _ = greedy_audit(parse_request(data))
    assert codes <= NOT_CHECKED_BY_GREEDY


def test_greedy_meets_shift_count_minimums_on_free_days() -> None:
    # No demand at all: only the count minimum asks for work, and the greedy tops it up.
    data = {
        "schedule_period": {"start_date": "2026-03-02", "end_date": "2026-03-08"},
        "shifts": [
            {"id": "S", "name": "S", "staffing_demand": [{"min": 0, "max": 3}] * 7},
            {"id": "T", "name": "T", "staffing_demand": [{"min": 0, "max": 3}] * 7},
        ],
        "employees": [
            {
                "id": "e0",
                "assignable_shift_ids": ["S", "T"],
                "shift_count_limits": [{"shift_id": "T", "min": 3}],
            }
        ],
        "constraints": {
            "shift_transitions": [{"from_shift_id": "T", "to_shift_id": "T", "rule": "forbid"}]
        },
    }
    request = parse_request(data)
    problem = from_request(request)
    roster = greedy_roster(problem)
    report = audit(request, roster_assignments(problem, roster))
    assert report.hard_violations == []
    assert sorted(d for (_, d, s) in roster if s == 1) == [0, 2, 4]  # never two in a row
