"""Auditing any roster and comparing two: the same figures as the audit, and a comparison
that agrees with a plain cell-by-cell diff and with the audits of both rosters.

No solver runs here: the rosters are the greedy starts of the datasets (rosters that
break no hard rule only by construction of the greedy, which is not assumed) and hand
edits of them, so every assertion is about the evaluation, on any roster.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shiftsched.checking.audit import audit
from shiftsched.checking.figures import employee_figures
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import roster_changes
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.errors import InvalidRequest
from shiftsched.questions.edit import reassign
from shiftsched.questions.inquiry import parse_audit, parse_compare
from shiftsched.questions.review import audit_roster, compare
from shiftsched.solving.greedy import greedy_roster, roster_assignments
from shiftsched.solving.problem import from_request
from tests.factories import START_DATE, minimal_request_dict

DATASETS = sorted((Path(__file__).resolve().parents[2] / "datasets").glob("*.json"))


def greedy(request: SolveRequest) -> list[Assignment]:
    problem = from_request(request)
    return roster_assignments(problem, greedy_roster(problem))


@pytest.fixture(scope="module", params=DATASETS, ids=lambda p: p.stem)
def dataset(request: pytest.FixtureRequest) -> tuple[dict[str, Any], list[Assignment]]:
    data = json.loads(request.param.read_text())
    return data, greedy(parse_request(data))


def resolves(data: dict[str, Any], roster: list[Any], field: str) -> bool:
    """Whether ``field`` (``request.employees[3].holidays`` or ``roster[2]``) names an
    item of the body {request: data, roster}."""
    node: Any = {"request": data, "roster": roster}
    for part in field.replace("]", "").replace("[", ".").split("."):
        if isinstance(node, list):
            index = int(part)
            if not 0 <= index < len(node):
                return False
            node = node[index]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return False
    return True


def test_the_audit_answer_is_the_audit_with_items(
    dataset: tuple[dict[str, Any], list[Assignment]],
) -> None:
    data, roster = dataset
    body = {"request": data, "roster": [a.model_dump(mode="json") for a in roster]}
    answer = audit_roster(parse_audit(body))
    report = audit(parse_request(data), roster)
    assert answer.feasible == report.feasible
    assert answer.objective_value == report.objective_value
    assert answer.hard_violations == report.hard_violations
    assert [(t.name, t.penalty, t.violated_by) for t in answer.soft_constraint_violations] == [
        (v.name, v.penalty, v.violated_by) for v in report.soft_constraint_violations
    ]
    assert [dict(m) | {"field": None} for m in answer.shortages] == [
        dict(m) | {"field": None} for m in report.shortages
    ]
    for item in [*answer.shortages, *answer.soft_constraint_violations]:
        assert item.field is None or resolves(data, body["roster"], item.field), item
    assert all(t.words for t in answer.soft_constraint_violations)
    assert [f.employee_id for f in answer.employees] == [e["id"] for e in data["employees"]]
    assert sum(f.shifts for f in answer.employees) == len(roster)
    assert 0 <= answer.kpis.coverage_percent <= 100
    assert (answer.kpis.coverage_percent == 100) == (not report.shortages)


def edited(roster: list[Assignment], request: SolveRequest) -> list[Assignment]:
    """Three hand edits: a day off, a move to another shift, a shift added."""
    first, second = roster[0], roster[len(roster) // 2]
    other = next(s.id for s in request.shifts if s.id != second.shift_id)
    after = reassign(roster, first.employee_id, first.date, None)
    after = reassign(after, second.employee_id, second.date, other)
    worked = {(a.employee_id, a.date) for a in after}
    free = next(
        (e.id, day)
        for e in request.employees
        for day in sorted({a.date for a in roster})
        if (e.id, day) not in worked
    )
    return reassign(after, free[0], free[1], request.shifts[0].id)


def test_a_comparison_agrees_with_a_plain_diff_and_both_audits(
    dataset: tuple[dict[str, Any], list[Assignment]],
) -> None:
    data, before = dataset
    request = parse_request(data)
    after = edited(before, request)
    answer = compare(request, before, after)
    old, new = audit(request, before), audit(request, after)
    direct = {(a.employee_id, a.date, a.shift_id, a.duty_id) for a in before} ^ {
        (a.employee_id, a.date, a.shift_id, a.duty_id) for a in after
    }
    assert {(c.employee_id, c.date) for c in answer.changes} == {(e, d) for e, d, *_ in direct}
    assert answer.changes == roster_changes(before, after)
    assert (answer.objective_before, answer.objective_after) == (
        old.objective_value,
        new.objective_value,
    )
    assert answer.objective_delta == pytest.approx(sum(t.delta for t in answer.terms))
    assert all(t.delta == t.after - t.before != 0 for t in answer.terms)
    figures_before = {f.employee_id: f for f in employee_figures(request, before)}
    figures_after = {f.employee_id: f for f in employee_figures(request, after)}
    for change in answer.employees:
        b, a = figures_before[change.employee_id], figures_after[change.employee_id]
        assert change.shifts == a.shifts - b.shifts
        assert change.nights == a.nights - b.nights
        assert change.hours == pytest.approx(a.hours - b.hours)
    moved = {c.employee_id for c in answer.changes}
    assert moved <= {c.employee_id for c in answer.employees}
    assert len(answer.hard_violations_added) - len(answer.hard_violations_removed) == len(
        new.hard_violations
    ) - len(old.hard_violations)


def test_the_same_roster_compares_to_nothing(
    dataset: tuple[dict[str, Any], list[Assignment]],
) -> None:
    data, roster = dataset
    answer = compare(parse_request(data), roster, list(reversed(roster)))
    assert (answer.changes, answer.employees, answer.terms, answer.objective_delta) == (
        [],
        [],
        [],
        0.0,
    )


def test_an_employee_twice_on_a_date_is_a_finding_not_a_fault() -> None:
    data = minimal_request_dict()
    roster = [
        {"employee_id": "e1", "date": START_DATE, "shift_id": "day"},
        {"employee_id": "e1", "date": START_DATE, "shift_id": "night"},
    ]
    answer = audit_roster(parse_audit({"request": data, "roster": roster}))
    assert not answer.feasible
    [twice] = [v for v in answer.hard_violations if v.code == "one_shift_per_date"]
    assert twice.field == "roster[1]"


@pytest.mark.parametrize(
    ("roster", "expected"),
    [
        (
            [{"employee_id": "x", "date": START_DATE, "shift_id": "day"}],
            {(("before",), "roster_of_another_request")},
        ),
        (
            [{"employee_id": "e1", "date": "2020-01-01", "shift_id": "day"}],
            {(("before",), "roster_of_another_request")},
        ),
        (
            [
                {"employee_id": "e1", "date": START_DATE, "shift_id": "day"},
                {"employee_id": "e9", "date": START_DATE, "shift_id": "day", "duty_id": "x"},
            ],
            {
                (("before", 1, "employee_id"), "unknown_employee_id"),
                (("before", 1, "duty_id"), "unknown_duty_id"),
            },
        ),
    ],
)
def test_rosters_that_do_not_fit_the_request_are_faults_with_paths(
    roster: list[dict[str, Any]], expected: set[Any]
) -> None:
    body = {"request": minimal_request_dict(), "before": roster, "after": []}
    with pytest.raises(InvalidRequest) as caught:
        parse_compare(body)
    assert {(tuple(f.path), f.code) for f in caught.value.errors} == expected
