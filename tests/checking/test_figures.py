"""Per-employee figures and plan KPIs: known answers, the audit's and the ledger's counts.

A hand-built fortnight has answers worked out on paper (a night shift, two weekends, a
holiday, preferences granted and refused, every kind of demand minimum with shortages).
On the committed datasets, rosters built by a plain round-robin (no solver) must keep
the invariants every face relies on, agree with the audit (shortages, preference terms,
the heads an empty roster misses) and with the ledger a plan hands on for the same
cells. A hypothesis property checks the same agreements on small random requests and
rosters.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shiftsched.checking.audit import SHORTAGE_KINDS, AuditReport, audit
from shiftsched.checking.figures import (
    EmployeeChange,
    EmployeeFigures,
    count_changed_cells,
    employee_changes,
    employee_figures,
    is_night,
    kpis,
    required_heads,
)
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.data import request_body as build
from shiftsched.periods.seam import ledger_after
from tests.strategies import requests

ROOT = Path(__file__).resolve().parent.parent.parent
DATASETS = ROOT / "datasets"
FILES = sorted(path.name for path in DATASETS.glob("*.json"))
START = dt.date(2026, 3, 2)  # a Monday; the fortnight runs to Sunday 15 March
HOLIDAY = "2026-03-04"


def _day(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def _cell(employee: str, day: str, shift: str, duty: str | None = None) -> Assignment:
    return Assignment(employee_id=employee, date=_day(day), shift_id=shift, duty_id=duty)


def _engine_imports(module: str) -> set[str]:
    """The engine modules ``module`` imports, directly or through each other."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        path = ROOT / todo.pop().replace(".", "/")
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                if name.startswith("shiftsched.") and name not in seen:
                    seen.add(name)
                    todo.append(name)
    return seen


def test_the_figures_share_no_code_with_the_model() -> None:
    # Like the audit, they compute from the contract, so they can check the solver.
    # The audit's package, and through it every module of the audit, is on the walk.
    reached = _engine_imports("shiftsched.checking.figures")
    assert {"shiftsched.checking.audit", "shiftsched.checking.audit.evaluate"} <= reached
    banned = ("shiftsched.solving", "shiftsched.contract.horizon")
    assert not [n for n in reached if any(n == b or n.startswith(f"{b}.") for b in banned)]


# ------------------------------------------------------------------ a known fortnight


def _fortnight() -> SolveRequest:
    """Two weeks, a holiday on Wednesday 4 March, shifts ``day`` (07-15) and ``night``
    (22-06). Demand minimums: 1 head on each shift every day, 1 manager on day 0, 1
    ``lead`` on day 1 and on the holiday, 3 heads over both shifts on 3 March and 2 on
    the holiday. Ann may work both shifts, ``b`` days only, ``c`` nights only."""
    days = 14
    shifts = [
        build.shift("day", build.demand(days, 1, 2), hours=("07:00", "15:00"),
                    managers=build.demand(days, 0, 1, at={0: (1, 1)})),
        build.shift("night", build.demand(days, 1, 1), hours=("22:00", "06:00")),
    ]  # fmt: skip
    lead = build.duty("lead", {"day": build.demand(days, 0, 1, at={1: (1, 1), 2: (1, 1)})})
    ann = build.employee("a", ["day", "night"], name="Ann", is_manager=True, preferences=[
        {"type": "day_off", "date": "2026-03-07"},  # worked: refused
        {"type": "preferred_shift", "date": "2026-03-09", "shift_id": "day"},  # granted
        {"type": "avoided_shift", "date": "2026-03-10", "shift_id": "night"},  # refused
    ])  # fmt: skip
    b = build.employee("b", ["day"], preferences=[{"type": "day_off", "date": "2026-03-08"}])
    c = build.employee("c", ["night"])
    cross = [
        {"date": "2026-03-03", "shift_ids": ["day", "night"], "min": 3},
        {"date": HOLIDAY, "shift_ids": ["day"], "min": 2},
    ]
    body = build.request_body(
        shifts, [ann, b, c], start=START, days=days, holidays=[HOLIDAY], duties=[lead],
        constraints={"cross_shift_demands": cross},
    )  # fmt: skip
    return parse_request(body)


FORTNIGHT_ROSTER = [
    _cell("a", "2026-03-02", "day"),  # Monday
    _cell("a", "2026-03-03", "day", "lead"),
    _cell("a", "2026-03-07", "night"),  # Saturday, a night
    _cell("a", "2026-03-08", "night"),  # Sunday of the same weekend
    _cell("a", "2026-03-09", "day"),
    _cell("a", "2026-03-10", "night"),
    _cell("a", "2026-03-14", "day"),  # Saturday of the second weekend
    _cell("b", "2026-03-03", "day"),
    _cell("b", "2026-03-15", "day"),  # Sunday of the second weekend
]
IGNORED = [
    _cell("zz", "2026-03-02", "day"),  # unknown employee
    _cell("b", "2026-03-05", "nope"),  # unknown shift
    _cell("b", "2026-03-06", "day", "nope"),  # unknown duty
    _cell("a", "2026-03-16", "day"),  # after the period
    _cell("c", "2026-03-01", "night"),  # before it
]


def test_the_figures_of_a_known_fortnight() -> None:
    figures = employee_figures(_fortnight(), FORTNIGHT_ROSTER + IGNORED)
    assert figures == [
        EmployeeFigures(
            employee_id="a", name="Ann", shifts=7, hours=56.0, nights=3, weekend_days=3,
            weekends=2, preferences_granted=1, preferences_refused=2,
            shift_counts={"day": 4, "night": 3},
        ),
        EmployeeFigures(
            employee_id="b", shifts=2, hours=16.0, nights=0, weekend_days=1, weekends=1,
            preferences_granted=1, preferences_refused=0, shift_counts={"day": 2},
        ),
        EmployeeFigures(
            employee_id="c", shifts=0, hours=0.0, nights=0, weekend_days=0, weekends=0,
            preferences_granted=0, preferences_refused=0, shift_counts={},
        ),
    ]  # fmt: skip


def test_the_kpis_of_a_known_fortnight() -> None:
    request = _fortnight()
    report = audit(request, FORTNIGHT_ROSTER + IGNORED)
    # 13 open days x (1 day + 1 night) + 1 manager + 1 lead + 3 over both shifts; the
    # lead and the cross-shift minimum on the holiday ask for nobody.
    assert required_heads(request) == 31
    # Missing: 8 days and 10 nights unstaffed, 1 head short over both shifts on 3 March.
    assert sum(marker.missing for marker in report.shortages) == 19
    result = kpis(request, FORTNIGHT_ROSTER + IGNORED, report.shortages)
    assert result.model_dump() == {
        "coverage_percent": pytest.approx(100 * 12 / 31),
        "required_heads": 31,
        "missing_heads": 19,
        "preferences_granted_percent": 50.0,
        "hours_min": 0.0, "hours_median": 16.0, "hours_max": 56.0,
        "nights_min": 0, "nights_max": 3, "nights_spread": 3,  # a and c may work nights
        "weekends_min": 0, "weekends_max": 2, "weekends_spread": 2,
    }  # fmt: skip
    figures = employee_figures(request, FORTNIGHT_ROSTER)
    assert kpis(request, [], report.shortages, figures) == result


def test_kpis_of_a_request_that_asks_for_nobody_and_states_no_wish() -> None:
    body = build.request_body(
        [build.shift("day", build.demand(3, 0, 2), hours=("09:00", "17:00"))],
        [build.employee("a", ["day"]), build.employee("b", ["day"])],
        start=START,
        days=3,
    )
    request = parse_request(body)
    roster = [_cell("a", "2026-03-02", "day"), _cell("a", "2026-03-03", "day")]
    result = kpis(request, roster, audit(request, roster).shortages)
    assert (result.coverage_percent, result.required_heads, result.missing_heads) == (100.0, 0, 0)
    assert result.preferences_granted_percent is None
    assert (result.hours_min, result.hours_median, result.hours_max) == (0.0, 8.0, 16.0)
    assert (result.nights_min, result.nights_max, result.nights_spread) == (0, 0, 0)


def test_a_shift_with_work_between_midnight_and_five_is_a_night() -> None:
    shifts = [
        build.shift("late", build.demand(2, 0, 1), hours=("15:00", "00:00")),  # to midnight
        build.shift("full", build.demand(2, 0, 1), hours=("08:00", "08:00")),  # 24 hours
        build.shift("early", build.demand(2, 0, 1), hours=("06:00", "14:00")),
        build.shift("on_call", build.demand(2, 0, 1)),  # no hours
    ]
    request = parse_request(
        build.request_body(shifts, [build.employee("a", ["late", "full", "early", "on_call"])],
                           start="2026-03-07", days=2)
    )  # fmt: skip
    assert [is_night(s) for s in request.shifts] == [False, True, False, False]
    roster = [_cell("a", "2026-03-07", "late"), _cell("a", "2026-03-08", "full")]
    (figures,) = employee_figures(request, roster)
    assert (figures.nights, figures.hours) == (1, 33.0)  # 9 hours and 24
    assert (figures.weekend_days, figures.weekends) == (2, 1)
    (figures,) = employee_figures(request, [_cell("a", "2026-03-07", "on_call")])
    assert (figures.nights, figures.hours) == (0, 0.0)


def test_a_weekend_is_the_saturday_and_sunday_of_one_iso_week() -> None:
    # Sunday 8 March and Saturday 14 March are one week apart: two weekends.
    shifts = [build.shift("day", build.demand(14, 0, 1), hours=("09:00", "12:20"))]
    request = parse_request(build.request_body(shifts, [build.employee("a", ["day"])],
                                               start=START, days=14))  # fmt: skip
    roster = [_cell("a", "2026-03-08", "day"), _cell("a", "2026-03-14", "day")]
    (figures,) = employee_figures(request, roster)
    assert (figures.weekend_days, figures.weekends) == (2, 2)
    assert figures.hours == 6.67  # 400 minutes, rounded to 2 decimals


def test_two_cells_on_one_date_grant_a_preferred_shift_as_the_audit_prices_it() -> None:
    request = _fortnight()
    twice = [_cell("a", "2026-03-09", "night"), _cell("a", "2026-03-09", "day")]
    (ann, _, _) = employee_figures(request, twice)
    assert (ann.shifts, ann.preferences_granted, ann.preferences_refused) == (2, 3, 0)
    assert audit(request, twice).violation("preference:preferred_shift:a:2026-03-09:day") is None


# ------------------------------------------------------------------------- changes


def _figures(employee_id: str, **fields: Any) -> EmployeeFigures:
    zero: dict[str, Any] = dict.fromkeys(
        ("shifts", "nights", "weekend_days", "weekends", "preferences_granted",
         "preferences_refused"), 0,
    )  # fmt: skip
    return EmployeeFigures(
        employee_id=employee_id, **(zero | {"hours": 0.0, "shift_counts": {}} | fields)
    )


def test_employee_changes_list_who_moved_in_request_order() -> None:
    before = [
        _figures("a", name="Ann", shifts=3, hours=24.0, nights=1, preferences_refused=1),
        _figures("b", shifts=2, hours=16.0),
        _figures("c", shifts=1, hours=7.5),
        _figures("d", shifts=1, hours=8.0),
    ]
    after = [
        _figures("a", name="Ann", shifts=2, hours=16.0, nights=0, preferences_granted=1),
        _figures("b", shifts=2, hours=16.0),  # same figures, but a cell moved
        _figures("c", shifts=1, hours=7.5),  # nothing changed: left out
        _figures("d", shifts=1, hours=8.0, weekend_days=1, weekends=1),
    ]
    changes = employee_changes(before, after, {"b": 2, "a": 1})
    assert changes == [
        EmployeeChange(
            employee_id="a", name="Ann", shifts=-1, hours=-8.0, nights=-1, weekend_days=0,
            weekends=0, preferences_granted=1, preferences_refused=-1, changed_cells=1,
        ),
        EmployeeChange(
            employee_id="b", shifts=0, hours=0.0, nights=0, weekend_days=0, weekends=0,
            preferences_granted=0, preferences_refused=0, changed_cells=2,
        ),
        EmployeeChange(
            employee_id="d", shifts=0, hours=0.0, nights=0, weekend_days=1, weekends=1,
            preferences_granted=0, preferences_refused=0, changed_cells=0,
        ),
    ]  # fmt: skip


def test_an_employee_on_one_side_only_counts_zero_on_the_other() -> None:
    changes = employee_changes([_figures("gone", shifts=2)], [_figures("new", shifts=1)], {"x": 1})
    assert [(c.employee_id, c.shifts, c.changed_cells) for c in changes] == [
        ("new", 1, 0),
        ("gone", -2, 0),
        ("x", 0, 1),
    ]
    assert employee_changes([], [], {}) == []


def test_changed_cells_count_shift_and_duty_moves_per_employee() -> None:
    before = [
        _cell("a", "2026-03-02", "day"),
        _cell("a", "2026-03-03", "day", "lead"),
        _cell("b", "2026-03-02", "night"),
        _cell("c", "2026-03-02", "day"),
    ]
    after = [
        _cell("a", "2026-03-02", "day"),  # kept
        _cell("a", "2026-03-03", "day"),  # the duty dropped: moved
        _cell("b", "2026-03-03", "night"),  # removed one date, added another
        _cell("c", "2026-03-02", "day"),
    ]
    assert count_changed_cells(before, after) == {"a": 1, "b": 2}
    assert count_changed_cells(after, after) == {}


def test_the_changes_of_a_real_edit_of_the_fortnight() -> None:
    request = _fortnight()
    after = [*FORTNIGHT_ROSTER[:6], _cell("c", "2026-03-14", "night"), *FORTNIGHT_ROSTER[7:]]
    changes = employee_changes(
        employee_figures(request, FORTNIGHT_ROSTER),
        employee_figures(request, after),
        count_changed_cells(FORTNIGHT_ROSTER, after),
    )
    assert [(c.employee_id, c.shifts, c.hours, c.nights, c.weekends, c.changed_cells)
            for c in changes] == [("a", -1, -8.0, 0, -1, 1), ("c", 1, 8.0, 1, 1, 1)]  # fmt: skip


# ------------------------------------------------------------- datasets, no solver


def _load(name: str) -> SolveRequest:
    return parse_request(json.loads((DATASETS / name).read_text(encoding="utf-8")))


def round_robin(request: SolveRequest, every: int = 1) -> list[Assignment]:
    """Each open date, each shift's minimum filled by the next employees in turn who may
    work it and work nothing else that date; ``every`` > 1 keeps one cell in ``every``
    (a roster short of heads)."""
    period = request.schedule_period
    employees = request.employees
    turn = 0
    roster = []
    for index in range((period.end_date - period.start_date).days + 1):
        day = period.start_date + dt.timedelta(days=index)
        if day in period.holidays:
            continue
        busy: set[str] = set()
        for shift in request.shifts:
            need = shift.staffing_demand[index].min
            for _ in range(len(employees)):
                if not need:
                    break
                employee = employees[turn % len(employees)]
                turn += 1
                if employee.id not in busy and shift.id in employee.assignable_shift_ids:
                    busy.add(employee.id)
                    roster.append(Assignment(employee_id=employee.id, date=day, shift_id=shift.id))
                    need -= 1
    return roster[::every]


def _known(request: SolveRequest, roster: Sequence[Assignment]) -> int:
    """The assignments the audit does not report as unknown references."""
    unknown = audit(request, roster).hard_violations
    return len(roster) - sum(1 for v in unknown if v.code == "unknown_reference")


def _preference_terms(report: AuditReport) -> int:
    return sum(
        int(v.violated_by or 0)
        for v in report.soft_constraint_violations
        if v.name.startswith("preference:")
    )


def _check_against_the_audit(request: SolveRequest, roster: Sequence[Assignment]) -> None:
    """Every invariant the faces rely on, and agreement with the audit's counts."""
    report = audit(request, roster)
    figures = employee_figures(request, roster)
    result = kpis(request, roster, report.shortages)
    assert [f.employee_id for f in figures] == [e.id for e in request.employees]
    assert [f.name for f in figures] == [e.name for e in request.employees]
    assert sum(f.shifts for f in figures) == _known(request, roster)
    for f in figures:
        assert sum(f.shift_counts.values()) == f.shifts
        assert 0 <= f.nights <= f.shifts and 0 <= f.weekends <= f.weekend_days <= f.shifts
        assert f.preferences_granted + f.preferences_refused == len(
            next(e for e in request.employees if e.id == f.employee_id).preferences
        )
    assert sum(f.preferences_refused for f in figures) == _preference_terms(report)
    assert (result.coverage_percent == 100.0) == (not report.shortages)
    assert 0.0 <= result.coverage_percent <= 100.0
    shortage_terms = {f"{kind}_shortage" for kind in SHORTAGE_KINDS}
    assert result.missing_heads == sum(
        int(v.violated_by or 0)
        for v in report.soft_constraint_violations
        if v.name in shortage_terms
    )
    # An empty roster misses every head asked for, as the audit counts them.
    assert result.required_heads == sum(m.missing for m in audit(request, []).shortages)
    percent = result.preferences_granted_percent
    stated = any(e.preferences for e in request.employees)
    assert (percent is None) == (not stated)
    assert percent is None or 0.0 <= percent <= 100.0
    assert result.hours_min <= result.hours_median <= result.hours_max
    assert result.nights_spread == result.nights_max - result.nights_min >= 0
    assert result.weekends_spread == result.weekends_max - result.weekends_min >= 0


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("every", [1, 3])
def test_round_robin_rosters_of_the_datasets_keep_the_invariants(name: str, every: int) -> None:
    request = _load(name)
    roster = round_robin(request, every)
    junk = [
        Assignment(employee_id="nobody", date=request.schedule_period.start_date, shift_id="x"),
        roster[0].model_copy(update={"date": request.schedule_period.end_date + dt.timedelta(1)}),
    ]
    _check_against_the_audit(request, roster + junk)
    if every > 1:
        assert kpis(request, roster, audit(request, roster).shortages).coverage_percent < 100


@pytest.mark.parametrize("name", FILES)
def test_the_figures_agree_with_the_ledger_a_plan_hands_on(name: str) -> None:
    request = _load(name)
    roster = round_robin(request)
    ledger = {e.employee_id: e for e in ledger_after(request, roster, None).employees}
    for f in employee_figures(request, roster):
        entry = ledger[f.employee_id]
        assert f.shifts == entry.days_worked
        assert f.hours == round(entry.minutes_worked / 60, 2)
        assert f.shift_counts == entry.shift_counts
        assert (f.preferences_granted, f.preferences_refused) == (
            entry.preferences_granted,
            entry.preferences_refused,
        )


# ------------------------------------------------------------------------ property


@st.composite
def _rosters(draw: st.DrawFn) -> tuple[SolveRequest, list[Assignment]]:
    """A small valid request and any roster of its cells, one date twice at times."""
    request = parse_request(draw(requests()))
    period = request.schedule_period
    dates = [
        period.start_date + dt.timedelta(days=i)
        for i in range((period.end_date - period.start_date).days + 1)
    ]
    cell = st.builds(
        Assignment,
        employee_id=st.sampled_from([e.id for e in request.employees]),
        date=st.sampled_from(dates),
        shift_id=st.sampled_from([s.id for s in request.shifts]),
    )
    return request, draw(st.lists(cell, max_size=3 * len(dates)))


@settings(max_examples=40)
@given(_rosters())
def test_any_roster_of_a_small_request_agrees_with_the_audit(
    case: tuple[SolveRequest, list[Assignment]],
) -> None:
    _check_against_the_audit(*case)
