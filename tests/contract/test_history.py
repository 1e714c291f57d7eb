"""Planning across periods: a history read at the seam, in the model and in the audit.

Each rule that spans the boundary gets a small request whose only roster-wide effect
is the seam: whatever optimal roster comes back, it keeps the rule across the boundary,
the independent audit (reading the history on its own) finds no hard violation and the
same metrics, and the same roster moved to break the rule is flagged by the audit.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.history import (
    MAX_LEDGER_COUNT,
    MAX_LEDGER_MINUTES,
    History,
    Ledger,
    LedgerEntry,
)
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import PlanRequest, PlanResponse, parse_plan
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.data.synthetic import synthetic_request
from shiftsched.errors import InvalidRequest
from shiftsched.periods.plan import plan
from shiftsched.periods.seam import history_ledger, ledger_after, with_history
from shiftsched.periods.split import join, split
from shiftsched.solving.problem import from_request
from shiftsched.solving.specs import NO_SEAM
from tests.audited import EXACT, work_limited
from tests.cli.test_cli import run_text as run
from tests.factories import employee_dict, full_request_dict, minimal_request_dict

START = dt.date(2026, 3, 2)  # a Monday, the minimal request's first date


def day(index: int) -> str:
    """The date of day ``index`` of the generated requests, which start on 1 June 2026."""
    return (dt.date(2026, 6, 1) + dt.timedelta(days=index)).isoformat()


def _cell(employee: str, day: dt.date, shift: str = "day") -> dict[str, str]:
    return {"employee_id": employee, "date": day.isoformat(), "shift_id": shift}


ENTRY0: tuple[str | int, ...] = ("history", "ledger", "employees", 0)


def _ledger_of(entry: dict[str, Any]) -> dict[str, Any]:
    """A history of a ledger alone, through the day before START, of e1's ``entry``."""
    through = (START - dt.timedelta(days=1)).isoformat()
    return {"ledger": {"through": through, "employees": [{"employee_id": "e1", **entry}]}}


def _before(days: int) -> list[dt.date]:
    """The ``days`` dates right before START, oldest first."""
    return [START - dt.timedelta(days=back) for back in range(days, 0, -1)]


def _planned(data: dict[str, Any], history: dict[str, Any]) -> tuple[PlanRequest, PlanResponse]:
    """Plan ``data`` after ``history`` to optimality; the audit with the history agrees."""
    ask = parse_plan({"request": data, "history": history})
    response = plan(ask, EXACT)
    assert response.status == "completed" and response.solution is not None
    report = audit(ask.request, response.solution.assignments, history=ask.history)
    assert report.hard_violations == []
    solution = response.solution
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    return ask, response


def _moved(roster: list[Assignment], cell: Assignment) -> list[Assignment]:
    """``roster`` with ``cell`` in place of whatever its employee works that date."""
    kept = [a for a in roster if (a.employee_id, a.date) != (cell.employee_id, cell.date)]
    return [*kept, cell]


def _codes(request: SolveRequest, roster: list[Assignment], history: History | None) -> set[str]:
    return {v.code for v in audit(request, roster, history=history).hard_violations}


def test_the_run_in_progress_at_the_seam_counts_against_the_cap() -> None:
    data = minimal_request_dict()
    data.setdefault("constraints", {})["max_consecutive_working_days"] = 3
    history = {"assignments": [_cell("e1", day) for day in _before(3)]}
    ask, response = _planned(data, history)
    assert response.solution is not None
    roster = response.solution.assignments
    assert not any(a.employee_id == "e1" and a.date == START for a in roster)
    # The same roster with e1 on the first date: a fourth day in a row, across the seam.
    broken = _moved(roster, Assignment(employee_id="e1", date=START, shift_id="day"))
    assert "max_consecutive_days" in _codes(ask.request, broken, ask.history)
    assert "max_consecutive_days" not in _codes(ask.request, broken, None)


def test_a_forbidden_transition_from_the_last_shift_of_the_history_is_kept() -> None:
    data = minimal_request_dict()
    data.setdefault("constraints", {})["shift_transitions"] = [
        {"from_shift_id": "night", "to_shift_id": "day", "rule": "forbid", "enforcement": "hard"}
    ]
    history = {"assignments": [_cell("e1", START - dt.timedelta(days=1), "night")]}
    ask, response = _planned(data, history)
    assert response.solution is not None
    roster = response.solution.assignments
    assert not any(
        a.employee_id == "e1" and a.date == START and a.shift_id == "day" for a in roster
    )
    broken = _moved(roster, Assignment(employee_id="e1", date=START, shift_id="day"))
    assert "shift_transition" in _codes(ask.request, broken, ask.history)


def test_a_soft_transition_at_the_seam_is_priced_alike_by_the_model_and_the_audit() -> None:
    data = minimal_request_dict()
    data["employees"] = [employee_dict("e1")]  # alone: works both shifts' demand it can
    data["shifts"][1]["staffing_demand"] = [{"min": 0, "max": 1}] * 7
    data.setdefault("constraints", {})["shift_transitions"] = [
        {"from_shift_id": "night", "to_shift_id": "night", "rule": "require", "enforcement": "soft"}
    ]
    history = {"assignments": [_cell("e1", START - dt.timedelta(days=1), "night")]}
    _, response = _planned(data, history)
    assert response.solution is not None
    names = {v.name for v in response.solution.metrics.soft_constraint_violations}
    # Day demand is worth far more than the transition: e1 takes the day on day 0 and the
    # require (night after night) is broken across the seam, once.
    assert "shift_transition:require:night:night:e1" in names


def test_the_hours_of_a_week_the_start_cuts_in_two_count_against_a_hard_limit() -> None:
    data = minimal_request_dict()  # Monday 2 .. Sunday 8 March; the history starts the week
    data["schedule_period"] |= {"start_date": "2026-03-05", "end_date": "2026-03-11"}
    data["employees"][0]["weekly_working_hours_limit"] = {"hours": 24, "enforcement": "hard"}
    history = {
        "assignments": [_cell("e1", dt.date(2026, 3, day)) for day in (2, 3, 4)],  # 24 h
    }
    ask, response = _planned(data, history)
    assert response.solution is not None
    first_week = [dt.date(2026, 3, day) for day in (5, 6, 7, 8)]
    worked = {a.date for a in response.solution.assignments if a.employee_id == "e1"}
    assert not worked & set(first_week)
    broken = _moved(
        response.solution.assignments,
        Assignment(employee_id="e1", date=first_week[0], shift_id="day"),
    )
    assert "weekly_hours" in _codes(ask.request, broken, ask.history)


def test_the_days_of_a_month_the_history_began_count_against_its_maximum() -> None:
    data = minimal_request_dict()
    data["schedule_period"] |= {"start_date": "2026-03-16", "end_date": "2026-03-22"}
    data["employees"][1]["working_days_per_month"] = {"min": 0, "max": 10}
    history = {
        "start_date": "2026-03-01",
        "assignments": [_cell("e2", dt.date(2026, 3, day)) for day in range(1, 11)],
    }
    _, response = _planned(data, history)
    assert response.solution is not None
    assert not any(a.employee_id == "e2" for a in response.solution.assignments)


def test_fairness_evens_out_what_the_ledger_left_uneven() -> None:
    data = minimal_request_dict()
    data.setdefault("constraints", {})["fairness_groups"] = [
        {"target_shift_ids": ["night"], "policy": "equal"}
    ]
    history = {
        "ledger": {
            "through": "2026-03-01",
            "employees": [{"employee_id": "e1", "shift_counts": {"night": 10}}],
        }
    }
    _, response = _planned(data, history)
    assert response.solution is not None
    nights = [a for a in response.solution.assignments if a.shift_id == "night"]
    assert len(nights) == 7 and not any(a.employee_id == "e1" for a in nights)
    ledger = response.ledger
    assert ledger is not None and ledger.through == dt.date(2026, 3, 8)
    counts = {e.employee_id: e.shift_counts.get("night", 0) for e in ledger.employees}
    assert counts["e1"] == 10 and counts["e2"] + counts["e3"] == 7


def test_the_ledger_adds_each_period_and_keeps_who_is_away() -> None:
    data = minimal_request_dict()
    history = {
        "ledger": {
            "through": "2026-03-01",
            "employees": [
                {"employee_id": "e1", "shift_counts": {"day": 4}, "days_worked": 4},
                {"employee_id": "gone", "shift_counts": {"old": 3}, "days_worked": 3},
            ],
        }
    }
    _, response = _planned(data, history)
    assert response.solution is not None and response.ledger is not None
    by_id = {e.employee_id: e for e in response.ledger.employees}
    assert by_id["gone"].days_worked == 3 and by_id["gone"].shift_counts == {"old": 3}
    e1 = [a for a in response.solution.assignments if a.employee_id == "e1"]
    assert by_id["e1"].days_worked == 4 + len(e1)
    assert sum(e.days_worked for e in response.ledger.employees) == 7 + 14


def test_a_previous_answer_is_a_history_as_it_stands(tmp_path: Path) -> None:
    """Two weeks chained on the command line: the second reads the first's answer."""
    first = minimal_request_dict()
    first.setdefault("constraints", {})["max_consecutive_working_days"] = 2
    second = json.loads(json.dumps(first))
    second["schedule_period"] |= {"start_date": "2026-03-09", "end_date": "2026-03-15"}
    paths = {name: tmp_path / f"{name}.json" for name in ("first", "second")}
    for name, body in (("first", first), ("second", second)):
        paths[name].write_text(json.dumps(body))
    code, out, _ = run(["solve", str(paths["first"]), "--workers", "1", "--quiet"])
    assert code == 0
    answer = tmp_path / "answer.json"
    answer.write_text(out)
    code, out, _ = run(
        ["solve", str(paths["second"]), "--history", str(answer), "--workers", "1", "--quiet"]
    )
    assert code == 0
    planned = PlanResponse.model_validate_json(out)
    assert planned.solution is not None and planned.ledger is not None
    joined = join(
        [
            Assignment.model_validate(a)
            for a in json.loads(answer.read_text())["solution"]["assignments"]
        ],
        planned.solution.assignments,
    )
    whole = json.loads(json.dumps(first))
    whole["schedule_period"]["end_date"] = "2026-03-15"
    for shift in whole["shifts"]:
        shift["staffing_demand"] = shift["staffing_demand"] * 2
    for duty in whole["duties"]:
        for shift_id, ranges in duty["staffing_demand_by_shift"].items():
            duty["staffing_demand_by_shift"][shift_id] = ranges * 2
    assert audit(parse_request(whole), joined).hard_violations == []
    # The audit on the command line reads the history too.
    second_answer = tmp_path / "second_answer.json"
    second_answer.write_text(out)
    code, out, _ = run(
        ["audit", str(paths["second"]), str(second_answer), "--history", str(answer), "--quiet"]
    )
    assert code == 0 and json.loads(out)["hard_violations"] == []


@pytest.mark.parametrize(
    ("history", "path", "code"),
    [
        (
            {"assignments": [_cell("nobody", START - dt.timedelta(days=1))]},
            ("history", "assignments", 0, "employee_id"),
            "unknown_employee_id",
        ),
        (
            {"assignments": [_cell("e1", START - dt.timedelta(days=1), "noon")]},
            ("history", "assignments", 0, "shift_id"),
            "unknown_shift_id",
        ),
        (
            {"assignments": [_cell("e1", START)]},
            ("history", "assignments", 0, "date"),
            "not_before_period",
        ),
        (
            {"assignments": [_cell("e1", _before(1)[0]), _cell("e1", _before(1)[0], "night")]},
            ("history", "assignments", 1),
            "duplicate_assignment",
        ),
        (
            {"start_date": "2026-02-28", "assignments": [_cell("e1", dt.date(2026, 2, 20))]},
            ("history", "assignments", 0, "date"),
            "date_outside_period",
        ),
        (
            {"ledger": {"through": "2026-03-02", "employees": []}},
            ("history", "ledger", "through"),
            "not_before_period",
        ),
        (
            {"job_id": "x", "status": "failed", "solution": None},
            ("history",),
            "invalid_value",
        ),
        ({"start_date": "1899-12-31"}, ("history", "start_date"), "out_of_range"),
        (
            {"assignments": [{"employee_id": "e1", "date": "1899-12-31", "shift_id": "day"}]},
            ("history", "assignments", 0, "date"),
            "out_of_range",
        ),
        (
            {"ledger": {"through": "1899-12-31", "employees": []}},
            ("history", "ledger", "through"),
            "out_of_range",
        ),
        (
            _ledger_of({"shift_counts": {"caf\u00e9": 1, "cafe\u0301": 2}}),
            (*ENTRY0, "shift_counts"),
            "invalid_format",
        ),
        (
            _ledger_of({"shift_counts": {"day": MAX_LEDGER_COUNT + 1}}),
            (*ENTRY0, "shift_counts", "day"),
            "out_of_range",
        ),
        (_ledger_of({"days_worked": 10**30}), (*ENTRY0, "days_worked"), "out_of_range"),
        (
            _ledger_of({"minutes_worked": MAX_LEDGER_MINUTES + 1}),
            (*ENTRY0, "minutes_worked"),
            "out_of_range",
        ),
        (
            _ledger_of({"preferences_refused": MAX_LEDGER_COUNT + 1}),
            (*ENTRY0, "preferences_refused"),
            "out_of_range",
        ),
    ],
)
def test_a_history_that_contradicts_the_request_is_refused_with_its_path(
    history: dict[str, Any], path: tuple[str | int, ...], code: str
) -> None:
    with pytest.raises(InvalidRequest) as raised:
        parse_plan({"request": minimal_request_dict(), "history": history})
    assert (path, code) in {(f.path, f.code) for f in raised.value.errors}


def test_without_a_history_the_problem_is_the_v1_one() -> None:
    request = parse_request(minimal_request_dict())
    problem = from_request(request)
    assert with_history(problem, request, None) is problem
    read = with_history(problem, request, History())
    assert all(e.seam == NO_SEAM for e in read.employees)
    assert read.horizon.covered_before == 0


@pytest.mark.slow
@pytest.mark.parametrize("first_days", [10, 14, 17])  # mid-week; a Monday; mid-week
def test_a_generated_request_planned_in_two_periods_keeps_every_rule_at_the_seam(
    first_days: int,
) -> None:
    """Whatever rosters the two solves return, the joined roster breaks no hard rule of
    the whole request, and the second period's metrics are the audit's with the history."""
    data = synthetic_request(8, 2, 0, 28, seed=first_days, mix="all", start=dt.date(2026, 6, 1))
    for employee in data["employees"]:  # limits over the whole period do not split;
        employee.pop("shift_count_limits", None)  # the first period cannot see the second's
        employee["fixed_assignments"] = [  # fixed assignments, which may then not hold
            f for f in employee.get("fixed_assignments", []) if f["date"] < day(first_days)
        ]
    request = parse_request(data)
    before, after = split(request, first_days)
    limits = work_limited(1.0)
    first = plan(PlanRequest(request=before), limits)
    assert first.solution is not None
    ask = PlanRequest(request=after, history=History.model_validate(first.model_dump(mode="json")))
    second = plan(ask, limits)
    assert second.solution is not None
    report = audit(after, second.solution.assignments, history=ask.history)
    solution = second.solution
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    joined = join(first.solution.assignments, second.solution.assignments)
    assert audit(request, joined).hard_violations == []


def test_a_fixed_assignment_the_history_makes_impossible_is_diagnosed() -> None:
    """The history is a fact, never a cause: the rules it meets are named."""
    data = minimal_request_dict()
    data.setdefault("constraints", {})["max_consecutive_working_days"] = 3
    data["employees"][0]["fixed_assignments"] = [{"date": START.isoformat(), "shift_id": "day"}]
    ask = parse_plan(
        {"request": data, "history": {"assignments": [_cell("e1", day) for day in _before(3)]}}
    )
    response = plan(ask, EXACT)
    assert response.solution is None and response.error is not None
    diagnosis = response.error.diagnosis
    assert diagnosis is not None and diagnosis.status == "identified"
    fields = {c.field for c in diagnosis.causes}
    assert fields == {
        "request.constraints.max_consecutive_working_days",
        "request.employees[0].fixed_assignments[0]",
    }


def test_a_history_of_years_is_read_as_far_back_as_the_rules_need() -> None:
    request = parse_request(minimal_request_dict())
    years = History(start_date=dt.date(1990, 1, 1), assignments=[])
    read = with_history(from_request(request), request, years)
    assert read.horizon.covered_before == 366
    report = audit(request, [], history=years)
    assert report.hard_violations == []


def test_a_history_hands_on_its_own_ledger_or_its_cells_counted() -> None:
    request = parse_request(minimal_request_dict())  # day 07-15 (480 min), night 23-07
    cells = [
        Assignment.model_validate(_cell("e1", day, shift))
        for day, shift in zip(_before(3), ("day", "night", "night"), strict=True)
    ]
    counted = history_ledger(request, History(assignments=cells))
    assert counted is not None
    assert counted.through == START - dt.timedelta(days=1)
    (entry,) = counted.employees
    assert entry.employee_id == "e1" and entry.shift_counts == {"day": 1, "night": 2}
    assert (entry.days_worked, entry.minutes_worked) == (3, 3 * 480)
    assert (entry.preferences_granted, entry.preferences_refused) == (0, 0)
    own = Ledger(through=START - dt.timedelta(days=9), employees=[])
    assert history_ledger(request, History(assignments=cells, ledger=own)) is own
    # What a plan hands on starts from the same counts.
    after = ledger_after(request, [], History(assignments=cells))
    assert {e.employee_id: e for e in after.employees}["e1"] == entry


def test_a_ledger_at_its_bounds_is_accepted_and_a_plan_hands_it_on_capped() -> None:
    full = {
        "shift_counts": {"day": MAX_LEDGER_COUNT},
        "days_worked": MAX_LEDGER_COUNT,
        "minutes_worked": MAX_LEDGER_MINUTES,
        "preferences_granted": MAX_LEDGER_COUNT,
        "preferences_refused": MAX_LEDGER_COUNT,
    }
    ask = parse_plan({"request": full_request_dict(), "history": _ledger_of(full)})
    roster = [
        Assignment(employee_id="e1", date=START + dt.timedelta(days=i), shift_id="day")
        for i in range(3)
    ]  # e1 also has three preferences: every count would pass its bound
    ledger = ledger_after(ask.request, roster, ask.history)
    assert {e.employee_id: e for e in ledger.employees}["e1"] == LedgerEntry(
        employee_id="e1", **full
    )
    assert Ledger.model_validate(ledger.model_dump(mode="json")) == ledger  # the next takes it


def _at(request: SolveRequest, start: dt.date) -> SolveRequest:
    """``request`` moved, in Python and unchecked, to the 7 days from ``start``."""
    period = request.schedule_period.model_copy(
        update={"start_date": start, "end_date": start + dt.timedelta(days=6)}
    )
    return request.model_copy(update={"schedule_period": period})


@pytest.mark.parametrize("offset", [0, 1, 300])
def test_the_seam_never_reads_before_the_first_date_python_has(offset: int) -> None:
    """A period built in Python near the calendar's start: no OverflowError anywhere."""
    start = dt.date.min + dt.timedelta(days=offset)
    request = _at(parse_request(minimal_request_dict()), start)
    history = History(start_date=dt.date.min)
    assert history.read_from(start) == dt.date.min
    assert with_history(from_request(request), request, history).horizon.covered_before == offset
    assert audit(request, [], history=history).hard_violations == []
    assert ledger_after(request, [], history).through == start + dt.timedelta(days=6)


def test_no_ledger_comes_before_the_first_date_python_has() -> None:
    request = _at(parse_request(minimal_request_dict()), dt.date.min)
    assert history_ledger(request, History()) is None
