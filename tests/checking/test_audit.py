"""The independent auditor, rule by rule, on tiny hand-built rosters.

Every expected figure is worked out by hand in a comment next to the assertion, straight
from docs/semantics.md; each family also has a compliant roster that reports nothing.
"""

from __future__ import annotations

import datetime as dt
import importlib
from typing import Any

import pytest

from shiftsched.checking.audit import (
    HARD_CODES,
    WEIGHTS,
    AuditReport,
    ChangeEvaluator,
    audit,
    audit_json,
    compare_shortages,
    compare_with_metrics,
)
from shiftsched.checking.items import item_at
from shiftsched.contract.history import History
from shiftsched.contract.v1 import Assignment, Shortage, SolveRequest
from shiftsched.data import request_body as build

# The module itself: as an attribute of the package, shiftsched.checking.audit is the function.
audit_module = importlib.import_module("shiftsched.checking.audit")

MONDAY = dt.date(2026, 3, 2)  # ISO week 2026-W10


# ---------------------------------------------------------------------------- builders


def day(offset: int, start: dt.date = MONDAY) -> str:
    """The date ``offset`` days after ``start``, as a string."""
    return build.day(start, offset)


def ranges(n: int, lo: int = 0, hi: int = 9, at: dict[int, tuple[int, int]] | None = None) -> list:
    """``n`` demand ranges ``{lo, hi}``, with exceptions ``at[day] = (min, max)``."""
    return build.demand(n, lo, hi, at=at)


def shift(shift_id: str, start: str = "08:00", end: str = "16:00", **fields: Any) -> dict:
    """A shift with working hours; demand is filled in by :func:`request` when absent."""
    return build.shift(shift_id, None, hours=(start, end)) | fields


def employee(employee_id: str, shifts: tuple[str, ...] = ("D", "N"), **fields: Any) -> dict:
    return build.employee(employee_id, shifts, **fields)


def duty(duty_id: str, shift_ids: tuple[str, ...] = ("D",), **demand: list) -> dict:
    """A duty on ``shift_ids`` (demand filled in by :func:`request`), or given per shift."""
    return build.duty(duty_id, {s: demand.get(s) for s in shift_ids})


def request(
    employees: list[dict],
    *,
    days: int = 7,
    start: dt.date = MONDAY,
    shifts: list[dict] | None = None,
    duties: list[dict] | None = None,
    holidays: tuple[str, ...] = (),
    **constraints: Any,
) -> SolveRequest:
    """A request over ``days`` dates; any demand not given is 0..9 (never short or over)."""
    shifts = shifts if shifts is not None else [shift("D"), shift("N", "22:00", "06:00")]
    for s in shifts:
        s.setdefault("staffing_demand", ranges(days))
    for k in duties or []:
        for shift_id, demand in k["staffing_demand_by_shift"].items():
            if demand is None:
                k["staffing_demand_by_shift"][shift_id] = ranges(days)
    body = build.request_body(
        shifts,
        employees,
        start=start,
        days=days,
        holidays=holidays,
        duties=duties or [],
        constraints=constraints,
    )
    return SolveRequest.model_validate(body)


def a(employee_id: str, date: str, shift_id: str, duty_id: str | None = None) -> Assignment:
    return Assignment(employee_id=employee_id, date=date, shift_id=shift_id, duty_id=duty_id)


def codes(report: AuditReport) -> list[str]:
    return [v.code for v in report.hard_violations]


def soft(report: AuditReport) -> dict[str, tuple[float, float | None]]:
    """name -> (penalty, violated_by)."""
    return {v.name: (v.penalty, v.violated_by) for v in report.soft_constraint_violations}


def assert_clean(report: AuditReport) -> None:
    assert report.hard_violations == []
    assert report.soft_constraint_violations == []
    assert report.objective_value == 0.0
    assert report.shortages == []
    assert report.feasible


# ------------------------------------------------------------------------- the zero case


def compliant_request() -> SolveRequest:
    """Nearly every family switched on; :func:`compliant_roster` breaks none of them."""
    five_days = ranges(7, 1, 2, at={5: (0, 2), 6: (0, 2)})
    return request(
        [
            employee(
                "e1",
                is_manager=True,
                skill_levels={"lead": 8},
                preferences=[
                    {"type": "day_off", "date": day(6)},
                    {"type": "preferred_shift", "date": day(0), "shift_id": "D"},
                    {"type": "avoided_shift", "date": day(1), "shift_id": "N"},
                ],
                fixed_assignments=[{"date": day(0), "shift_id": "D", "duty_id": "lead"}],
                working_days_per_month={"min": 4, "max": 20},
                working_days_per_week={"min": 3, "max": 5},
                available_weekdays=["mon", "tue", "wed", "thu", "fri"],
                shift_count_limits=[{"shift_id": "D", "min": 1, "max": 5}],
                weekly_working_hours_limit={"hours": 40},
            ),
            employee("e2", ("D",), skill_levels={"lead": 2}),
            employee("e3", ("D",)),
        ],
        shifts=[
            shift(
                "D",
                staffing_demand=five_days,
                manager_demand=ranges(7, 1, 1, at={5: (0, 0), 6: (0, 0)}),
            ),
            shift("N", "22:00", "06:00", staffing_demand=ranges(7, 0, 0)),
        ],
        duties=[duty("lead", D=ranges(7, 0, 1, at={0: (1, 1)}))],
        holidays=(day(6),),
        shift_transitions=[
            {"from_shift_id": "N", "to_shift_id": "D", "rule": "forbid"},
            {"from_shift_id": "N", "to_shift_id": "N", "rule": "require", "enforcement": "soft"},
        ],
        employee_pairings=[{"employee_ids": ["e2", "e3"], "rule": "exclude"}],
        skill_support={"scope": "shift"},
        cross_shift_demands=[{"date": day(0), "shift_ids": ["D", "N"], "min": 2, "max": 3}],
        fairness_groups=[{"target_shift_ids": ["N"], "policy": "equal"}],
    )


def compliant_roster() -> list[Assignment]:
    # e1 works D Monday..Friday: 5 dates (no window of 6), 5 x 8 h = 40 h <= 40 h,
    # 5 days in W10 within [3, 5]; March min floor(4 x 7 / 31) = 0. e2 (beginner) works
    # with e1 (senior) on Monday; e3 works on Wednesday, never with e2.
    return [
        a("e1", day(0), "D", "lead"),
        a("e1", day(1), "D"),
        a("e1", day(2), "D"),
        a("e1", day(3), "D"),
        a("e1", day(4), "D"),
        a("e2", day(0), "D"),
        a("e3", day(2), "D"),
    ]


def test_compliant_roster_reports_nothing() -> None:
    assert_clean(audit(compliant_request(), compliant_roster()))


def test_empty_roster_of_an_undemanding_request_reports_nothing() -> None:
    assert_clean(audit(request([employee("e1")]), []))


# ------------------------------------------------------------------------ hard rules


def test_unknown_reference_is_reported_and_left_out_of_the_counts() -> None:
    req = request(
        [employee("e1")],
        shifts=[
            shift("D", staffing_demand=ranges(7, at={0: (1, 1)})),
            shift("N", "22:00", "06:00"),
        ],
        duties=[duty("lead")],
    )
    roster = [
        a("ghost", day(0), "D"),
        a("e1", day(0), "X"),
        a("e1", day(0), "D", "nope"),
        a("e1", day(7), "D"),  # the day after the period
    ]
    report = audit(req, roster)
    assert codes(report) == ["unknown_reference"] * 4
    assert "ghost" in report.hard_violations[0].message
    assert "outside the period" in report.hard_violations[3].message
    # none of them staffs D on Monday: 1 required, 0 assigned -> 1 x 10000
    assert soft(report) == {"staffing_shortage": (10000.0, 1.0)}
    assert report.shortages == [
        Shortage(kind="staffing", date=day(0), shift_id="D", required=1, assigned=0, missing=1)
    ]
    assert not report.feasible


def test_one_shift_per_date() -> None:
    report = audit(request([employee("e1")]), [a("e1", day(0), "D"), a("e1", day(0), "N")])
    assert codes(report) == ["one_shift_per_date"]
    violation = report.hard_violations[0]
    assert (violation.employee_id, violation.date) == ("e1", dt.date(2026, 3, 2))
    assert audit(request([employee("e1")]), [a("e1", day(0), "D"), a("e1", day(1), "N")]).feasible


def test_assignable_shift() -> None:
    req = request([employee("e1", ("D",))])
    report = audit(req, [a("e1", day(0), "N")])
    assert codes(report) == ["assignable_shift"]
    assert report.hard_violations[0].shift_id == "N"
    assert_clean(audit(req, [a("e1", day(0), "D")]))


def test_holiday_forbids_work_and_zeroes_demand() -> None:
    # Wednesday is a holiday: D wants exactly 2 and N exactly 0 that day. Without the
    # holiday rule e1 on D would leave 1 missing and e2 on N would be 1 over; with it,
    # demand is zero, so only the two hard violations remain.
    req = request(
        [employee("e1"), employee("e2")],
        shifts=[
            shift("D", staffing_demand=ranges(7, at={2: (2, 2)})),
            shift("N", "22:00", "06:00", staffing_demand=ranges(7, at={2: (0, 0)})),
        ],
        holidays=(day(2),),
    )
    report = audit(req, [a("e1", day(2), "D"), a("e2", day(2), "N")])
    assert codes(report) == ["holiday", "holiday"]
    assert report.soft_constraint_violations == []
    assert report.shortages == []
    assert_clean(audit(req, [a("e1", day(1), "D")]))


def test_available_weekday_is_judged_on_the_start_date() -> None:
    # Night shift N 22:00-06:00. Saturday's night ends on Sunday: allowed (starts on sat).
    # Sunday's night starts on sun, which is not available.
    req = request([employee("e1", available_weekdays=["mon", "tue", "wed", "thu", "fri", "sat"])])
    report = audit(req, [a("e1", day(5), "N"), a("e1", day(6), "N")])
    assert codes(report) == ["available_weekday"]
    assert report.hard_violations[0].date == dt.date(2026, 3, 8)
    assert_clean(audit(req, [a("e1", day(5), "N")]))


def test_duty_not_on_shift() -> None:
    req = request([employee("e1")], duties=[duty("lead", ("D",))])
    report = audit(req, [a("e1", day(0), "N", "lead")])
    assert codes(report) == ["duty_not_on_shift"]
    assert_clean(audit(req, [a("e1", day(0), "D", "lead")]))


def test_skill_level_zero_forbids_the_duty_and_absent_allows_it() -> None:
    req = request([employee("e1", skill_levels={"lead": 0}), employee("e2")], duties=[duty("lead")])
    report = audit(req, [a("e1", day(0), "D", "lead"), a("e2", day(1), "D", "lead")])
    assert codes(report) == ["skill_level"]
    assert report.hard_violations[0].employee_id == "e1"
    # e1 may still work D without the duty
    assert_clean(audit(req, [a("e1", day(0), "D"), a("e2", day(1), "D", "lead")]))


def test_fixed_assignment() -> None:
    req = request(
        [
            employee(
                "e1",
                fixed_assignments=[
                    {"date": day(0), "shift_id": "D"},  # any duty (or none) is fine
                    {"date": day(1), "shift_id": "D", "duty_id": "lead"},
                    {"date": day(2), "shift_id": "N"},
                    {"date": "2026-04-01", "shift_id": "N"},  # outside the period: ignored
                ],
            )
        ],
        duties=[duty("lead")],
    )
    report = audit(req, [a("e1", day(0), "D", "lead"), a("e1", day(1), "D")])
    # day 1 is worked without its duty, day 2 is not worked at all
    assert codes(report) == ["fixed_assignment", "fixed_assignment"]
    assert [v.date for v in report.hard_violations] == [dt.date(2026, 3, 3), dt.date(2026, 3, 4)]
    compliant = [a("e1", day(0), "D"), a("e1", day(1), "D", "lead"), a("e1", day(2), "N")]
    assert_clean(audit(req, compliant))


def test_shift_count_limit() -> None:
    req = request(
        [
            employee(
                "e1",
                shift_count_limits=[
                    {"shift_id": "D", "min": 2},
                    {"shift_id": "N", "max": 1},
                ],
            )
        ]
    )
    # D once (< 2) and N twice (> 1)
    report = audit(req, [a("e1", day(0), "D"), a("e1", day(2), "N"), a("e1", day(4), "N")])
    assert codes(report) == ["shift_count_limit", "shift_count_limit"]
    assert [v.shift_id for v in report.hard_violations] == ["D", "N"]
    assert_clean(audit(req, [a("e1", day(0), "D"), a("e1", day(2), "D"), a("e1", day(4), "N")]))


def test_weekly_hours_hard_counts_a_night_shift_in_full() -> None:
    # N 22:00-06:00 lasts 06:00 - 22:00 + 24 h = 8 h. Three nights = 24 h > 20 h.
    req = request([employee("e1", weekly_working_hours_limit={"hours": 20})])
    report = audit(req, [a("e1", day(0), "N"), a("e1", day(1), "N"), a("e1", day(2), "N")])
    assert codes(report) == ["weekly_hours"]
    assert "1440 minutes" in report.hard_violations[0].message
    assert report.soft_constraint_violations == []
    assert_clean(audit(req, [a("e1", day(0), "N"), a("e1", day(1), "N")]))  # 16 h


def test_weekly_hours_night_shift_belongs_to_its_start_week() -> None:
    # 8 h limit; Sunday's night (W10) ends on Monday (W11) but counts only in W10:
    # 480 minutes in W10 and 480 in W11, both exactly at the limit.
    req = request(
        [employee("e1", weekly_working_hours_limit={"hours": 8})],
        days=14,
        max_consecutive_working_days=7,
    )
    assert_clean(audit(req, [a("e1", day(6), "N"), a("e1", day(7), "N")]))
    report = audit(req, [a("e1", day(5), "N"), a("e1", day(6), "N")])  # 960 in W10
    assert codes(report) == ["weekly_hours"]


def test_shift_transition_forbid_hard() -> None:
    req = request(
        [employee("e1")],
        shift_transitions=[{"from_shift_id": "N", "to_shift_id": "D", "rule": "forbid"}],
    )
    report = audit(req, [a("e1", day(0), "N"), a("e1", day(1), "D")])
    assert codes(report) == ["shift_transition"]
    assert report.hard_violations[0].date == dt.date(2026, 3, 2)
    # D then N, or N with a free date between, is fine
    assert_clean(audit(req, [a("e1", day(0), "D"), a("e1", day(1), "N"), a("e1", day(3), "D")]))


def test_shift_transition_require_hard() -> None:
    req = request(
        [employee("e1")],
        shift_transitions=[{"from_shift_id": "N", "to_shift_id": "N", "rule": "require"}],
    )
    # N on Monday and Tuesday, then nothing on Wednesday: one occurrence (Tuesday)
    report = audit(req, [a("e1", day(0), "N"), a("e1", day(1), "N")])
    assert codes(report) == ["shift_transition"]
    assert report.hard_violations[0].date == dt.date(2026, 3, 3)


def test_pairing_exclude() -> None:
    req = request(
        [employee("e1"), employee("e2"), employee("e3")],
        employee_pairings=[{"employee_ids": ["e1", "e2"], "rule": "exclude"}],
    )
    report = audit(req, [a("e1", day(0), "D"), a("e2", day(0), "D"), a("e3", day(0), "D")])
    assert codes(report) == ["pairing_exclude"]
    assert (report.hard_violations[0].shift_id, report.hard_violations[0].date) == (
        "D",
        dt.date(2026, 3, 2),
    )
    # same date on different shifts is allowed
    assert_clean(audit(req, [a("e1", day(0), "D"), a("e2", day(0), "N"), a("e3", day(0), "D")]))


def test_skill_support_hard_scope_duty() -> None:
    req = request(
        [
            employee("e1", skill_levels={"k1": 2, "k2": 9}),
            employee("e2", skill_levels={"k1": 9, "k2": 1}),
            employee("e3"),
        ],
        duties=[duty("k1"), duty("k2")],
        skill_support={"scope": "duty", "enforcement": "hard"},
    )
    # Monday: (D, k1) = {e1: 2} and (D, k2) = {e2: 1}: both beginner-only groups.
    report = audit(req, [a("e1", day(0), "D", "k1"), a("e2", day(0), "D", "k2")])
    assert codes(report) == ["skill_support", "skill_support"]
    assert report.soft_constraint_violations == []
    # (D, k1) = {e1: 2, e2: 9} is supported; e3 holds no duty, so forms no group
    compliant = [a("e1", day(1), "D", "k1"), a("e2", day(1), "D", "k1"), a("e3", day(2), "D")]
    assert_clean(audit(req, compliant))


def test_every_hard_code_of_the_page_is_known() -> None:
    assert set(HARD_CODES) == {
        "unknown_reference",
        "one_shift_per_date",
        "assignable_shift",
        "holiday",
        "available_weekday",
        "duty_not_on_shift",
        "skill_level",
        "fixed_assignment",
        "shift_count_limit",
        "max_consecutive_days",
        "days_per_month_max",
        "weekly_hours",
        "shift_transition",
        "pairing_exclude",
        "skill_support",
    }


# -------------------------------------------------- every hard violation names its item


def planted(code: str) -> tuple[SolveRequest, list[Assignment], str]:
    """A request and a roster that break ``code`` once, and the field that must say where.

    The item behind each violation is never the first of its array, so a path that
    always named index 0 would fail.
    """
    staff = [employee("e0")]  # the employee at index 1 is e1
    defaults = "request.constraints.max_consecutive_working_days"
    cases: dict[str, tuple[SolveRequest, list[Assignment], str]] = {
        "unknown_reference": (
            request([*staff, employee("e1")]),
            [a("e1", day(0), "D"), a("ghost", day(0), "D")],
            "roster[1]",
        ),
        "one_shift_per_date": (
            request([*staff, employee("e1")]),
            [a("e1", day(0), "D"), a("e0", day(1), "D"), a("e1", day(0), "N")],
            "roster[2]",
        ),
        "assignable_shift": (
            request([*staff, employee("e1", ("D",))]),
            [a("e1", day(0), "N")],
            "request.employees[1].assignable_shift_ids",
        ),
        "holiday": (
            request([*staff, employee("e1")], holidays=(day(1), day(3))),
            [a("e1", day(3), "D")],
            "request.schedule_period.holidays[1]",
        ),
        "available_weekday": (
            request([*staff, employee("e1", available_weekdays=["mon", "tue"])]),
            [a("e1", day(2), "D")],
            "request.employees[1].available_weekdays",
        ),
        "duty_not_on_shift": (
            request([*staff, employee("e1")], duties=[duty("x"), duty("lead", ("D",))]),
            [a("e1", day(0), "N", "lead")],
            "request.duties[1].staffing_demand_by_shift",
        ),
        "skill_level": (
            request([*staff, employee("e1", skill_levels={"lead": 0})], duties=[duty("lead")]),
            [a("e1", day(0), "D", "lead")],
            "request.employees[1].skill_levels",
        ),
        "fixed_assignment": (
            request(
                [
                    *staff,
                    employee(
                        "e1",
                        fixed_assignments=[
                            {"date": day(0), "shift_id": "D"},
                            {"date": day(1), "shift_id": "N"},
                        ],
                    ),
                ]
            ),
            [a("e1", day(0), "D")],
            "request.employees[1].fixed_assignments[1]",
        ),
        "shift_count_limit": (
            request(
                [
                    *staff,
                    employee(
                        "e1",
                        shift_count_limits=[
                            {"shift_id": "D", "max": 5},
                            {"shift_id": "N", "max": 0},
                        ],
                    ),
                ]
            ),
            [a("e1", day(0), "N")],
            "request.employees[1].shift_count_limits[1]",
        ),
        # the default cap of 6 applies: the field to set is the absent one
        "max_consecutive_days": (
            request([*staff, employee("e1")]),
            worked("e1", range(7)),
            defaults,
        ),
        "days_per_month_max": (
            request([*staff, employee("e1", working_days_per_month={"min": 0, "max": 1})]),
            worked("e1", [0, 1]),
            "request.employees[1].working_days_per_month",
        ),
        "weekly_hours": (
            request([*staff, employee("e1", weekly_working_hours_limit={"hours": 8})]),
            worked("e1", [0, 1]),
            "request.employees[1].weekly_working_hours_limit",
        ),
        "shift_transition": (
            request(
                [*staff, employee("e1")],
                shift_transitions=[
                    {"from_shift_id": "D", "to_shift_id": "N", "rule": "forbid"},
                    {"from_shift_id": "N", "to_shift_id": "D", "rule": "forbid"},
                ],
            ),
            [a("e1", day(0), "N"), a("e1", day(1), "D")],
            "request.constraints.shift_transitions[1]",
        ),
        "pairing_exclude": (
            request(
                [*staff, employee("e1"), employee("e2")],
                employee_pairings=[
                    {"employee_ids": ["e0", "e1"], "rule": "require"},
                    {"employee_ids": ["e1", "e2"], "rule": "exclude"},
                ],
            ),
            [a("e1", day(0), "D"), a("e2", day(0), "D")],
            "request.constraints.employee_pairings[1]",
        ),
        "skill_support": (
            request(
                [*staff, employee("e1", skill_levels={"lead": 2})],
                duties=[duty("lead")],
                skill_support={"scope": "shift", "enforcement": "hard"},
            ),
            [a("e1", day(0), "D")],
            "request.constraints.skill_support",
        ),
    }
    return cases[code]


@pytest.mark.parametrize("code", HARD_CODES)
def test_every_hard_violation_names_an_existing_item(code: str) -> None:
    req, roster, expected = planted(code)
    report = audit(req, roster)
    assert codes(report) == [code]
    field = report.hard_violations[0].field
    assert field == expected
    document = {
        "request": req.model_dump(mode="json"),
        "roster": [x.model_dump(mode="json") for x in roster],
    }
    found = item_at(document, field)  # KeyError when the path names nothing
    if field.startswith("roster["):
        assert found == document["roster"][int(field[7:-1])]
        assert found["employee_id"] == report.hard_violations[0].employee_id


def test_one_shift_per_date_is_one_finding_per_cell_naming_its_second_assignment() -> None:
    roster = [a("e1", day(0), "D"), a("e1", day(1), "D"), a("e1", day(0), "N")]
    roster.append(roster[0])  # the same object listed twice is two assignments
    report = audit(request([employee("e1")]), roster)
    assert [(v.code, v.field, v.message) for v in report.hard_violations] == [
        (
            "one_shift_per_date",
            "roster[2]",
            "e1 has 3 assignments on 2026-03-02 (D x2, N): at most one shift per date",
        )
    ]


def test_a_violation_across_the_seam_names_the_request_item() -> None:
    # Four dates worked before the period and three in it: a run of 7 over the cap of 6.
    history = History(assignments=[a("e1", day(i - 4), "D") for i in range(4)])
    req = request([employee("e0"), employee("e1")])
    report = audit(req, worked("e1", range(3)), history=history)
    assert [(v.code, v.field) for v in report.hard_violations] == [
        ("max_consecutive_days", "request.constraints.max_consecutive_working_days")
    ]


def test_an_edit_keeps_the_roster_faults_it_leaves_and_names_the_ones_it_adds() -> None:
    # e1 twice on Monday (roster[1]) stays so, whatever the edit on Wednesday does.
    roster = [a("e1", day(0), "D"), a("e1", day(0), "N"), a("e0", day(1), "D")]
    evaluator = ChangeEvaluator(request([employee("e0"), employee("e1", ("D",))]), roster)
    wednesday = dt.date(2026, 3, 4)
    assert evaluator.effect("e1", wednesday, a("e1", day(2), "D")).hard_violations == []
    broken = evaluator.effect("e1", wednesday, a("e1", day(2), "N")).hard_violations
    assert [(v.code, v.field) for v in broken] == [
        ("assignable_shift", "request.employees[1].assignable_shift_ids")
    ]


# -------------------------------------------------------------------------- sequences


def worked(employee_id: str, offsets: range | list[int], shift_id: str = "D") -> list[Assignment]:
    return [a(employee_id, day(i), shift_id) for i in offsets]


def test_consecutive_days_hard_and_soft_with_explicit_n() -> None:
    req = request([employee("e1")], max_consecutive_working_days=3)
    # 4 dates in a row: hard (4 > 3); soft windows of 3: [0..2], [1..3] -> 2 x 20
    report = audit(req, worked("e1", range(4)))
    assert codes(report) == ["max_consecutive_days"]
    assert soft(report) == {"consecutive_days:e1": (40.0, 2.0)}
    # 2 in a row, gap, 2 in a row: no window of 3
    assert_clean(audit(req, worked("e1", [0, 1, 3, 4])))


def test_consecutive_days_default_is_hard_six_soft_five() -> None:
    req = request([employee("e1"), employee("e2"), employee("e3")], days=10)
    roster = worked("e1", range(6)) + worked("e2", range(7)) + worked("e3", range(5))
    report = audit(req, roster)
    # e1: 6 dates, one window of 6 -> 20. e2: 7 dates -> hard, windows [0..5], [1..6] -> 40.
    # e3: 5 dates -> nothing.
    assert codes(report) == ["max_consecutive_days"]
    assert report.hard_violations[0].employee_id == "e2"
    assert soft(report) == {"consecutive_days:e1": (20.0, 1.0), "consecutive_days:e2": (40.0, 2.0)}


def test_consecutive_days_n_one_has_no_soft_term() -> None:
    req = request([employee("e1"), employee("e2")], max_consecutive_working_days=1)
    report = audit(req, worked("e1", [0, 1]) + worked("e2", [0, 2, 4]))
    assert codes(report) == ["max_consecutive_days"]
    assert report.hard_violations[0].employee_id == "e1"
    assert report.soft_constraint_violations == []


def test_shift_transition_forbid_soft_counts_occurrences() -> None:
    req = request(
        [employee("e1")],
        shift_transitions=[
            {"from_shift_id": "D", "to_shift_id": "N", "rule": "forbid", "enforcement": "soft"}
        ],
    )
    # D-N-D-N: occurrences on Monday and Wednesday -> 2 x 40
    report = audit(req, worked("e1", [0, 2]) + worked("e1", [1, 3], "N"))
    assert report.feasible
    assert soft(report) == {"shift_transition:forbid:D:N:e1": (80.0, 2.0)}


def test_shift_transition_require_soft_last_date_never_counts() -> None:
    req = request(
        [employee("e1"), employee("e2")],
        shift_transitions=[
            {"from_shift_id": "D", "to_shift_id": "D", "rule": "require", "enforcement": "soft"}
        ],
    )
    # e1: D Mon, nothing Tue -> 1. D Fri, Sat, Sun: Fri->Sat ok, Sat->Sun ok, Sun is the
    # last date of the period -> 0. Total 1 x 40.
    # e2: D on Sunday only (the last date) -> nothing.
    report = audit(req, worked("e1", [0, 4, 5, 6]) + worked("e2", [6]))
    assert report.feasible
    assert soft(report) == {"shift_transition:require:D:D:e1": (40.0, 1.0)}


def test_shift_transition_listed_twice_merges_by_name() -> None:
    rule = {"from_shift_id": "D", "to_shift_id": "N", "rule": "forbid", "enforcement": "soft"}
    req = request([employee("e1")], shift_transitions=[rule, rule])
    report = audit(req, [a("e1", day(0), "D"), a("e1", day(1), "N")])
    # one occurrence per rule, same name: magnitude 1 + 1 = 2, penalty 80
    assert soft(report) == {"shift_transition:forbid:D:N:e1": (80.0, 2.0)}


# --------------------------------------------------------------------------- workload


def test_days_per_month_prorated_min_and_unprorated_max() -> None:
    # Period Wed 2026-03-25 .. Fri 2026-04-03: 7 March dates of 31, 3 April dates of 30.
    start = dt.date(2026, 3, 25)
    req = request(
        [
            employee("e1", working_days_per_month={"min": 20, "max": 25}),
            employee("e2", working_days_per_month={"min": 0, "max": 1}),
            employee("e3", working_days_per_month={"min": 0, "max": 2}),
        ],
        days=10,
        start=start,
    )
    roster = [
        a("e1", day(5, start), "D"),  # 03-30
        a("e1", day(6, start), "D"),  # 03-31
        a("e2", day(0, start), "D"),  # 03-25
        a("e2", day(1, start), "D"),  # 03-26
        a("e3", day(7, start), "D"),  # 04-01
        a("e3", day(8, start), "D"),  # 04-02
    ]
    report = audit(req, roster)
    # e2: 2 dates in March > max 1 -> hard. e3: 2 dates in April = max 2 (a prorated max
    # would be floor(2 x 3 / 30) = 0 and would fire; the max is not prorated).
    assert codes(report) == ["days_per_month_max"]
    assert report.hard_violations[0].employee_id == "e2"
    # e1 March: floor(20 x 7 / 31) = floor(4.52) = 4, worked 2 -> 2 x 30 = 60.
    # e1 April: floor(20 x 3 / 30) = 2, worked 0 -> 2 x 30 = 60.
    assert soft(report) == {
        "days_per_month_min:e1:2026-03": (60.0, 2.0),
        "days_per_month_min:e1:2026-04": (60.0, 2.0),
    }


def test_days_per_week_prorated_min_and_max() -> None:
    # Period Wed 2026-03-04 .. Sun 2026-03-15: W10 has 5 dates inside, W11 all 7.
    start = dt.date(2026, 3, 4)
    req = request(
        [
            employee("e1", working_days_per_week={"min": 3, "max": 4}),
            employee("e2", working_days_per_week={"min": 0, "max": 7}),
        ],
        days=12,
        start=start,
        max_consecutive_working_days=7,
    )
    # e1 W10: min floor(3 x 5 / 7) = 2, works 1 -> 1 below -> 15.
    # e1 W11: works Mon..Sat = 6 > max 4 -> 2 above -> 30.
    roster = [a("e1", day(i, start), "D") for i in [0, 5, 6, 7, 8, 9, 10]]
    report = audit(req, roster)
    assert report.feasible
    assert soft(report) == {
        "days_per_week:e1:2026-W10": (15.0, 1.0),
        "days_per_week:e1:2026-W11": (30.0, 2.0),
    }


def test_days_per_week_key_uses_the_iso_year() -> None:
    # Mon 2026-12-28 .. Sun 2027-01-03 is ISO week 2026-W53 (2026 starts on a Thursday).
    req = request(
        [employee("e1", working_days_per_week={"min": 1, "max": 7})], start=dt.date(2026, 12, 28)
    )
    assert soft(audit(req, [])) == {"days_per_week:e1:2026-W53": (15.0, 1.0)}


def test_weekly_hours_soft_rounds_hours_up() -> None:
    req = request(
        [
            employee("e1", ("X",), weekly_working_hours_limit={"hours": 20, "enforcement": "soft"}),
            employee("e2", ("H",), weekly_working_hours_limit={"hours": 10, "enforcement": "soft"}),
            employee("e3", ("X",), weekly_working_hours_limit={"hours": 24}),
        ],
        days=14,
        shifts=[shift("X", "08:00", "08:00"), shift("H", "07:00", "12:30")],
    )
    roster = [
        a("e1", day(0), "X"),  # 24-hour shift: 1440 minutes
        a("e2", day(0), "H"),  # 330 minutes each
        a("e2", day(1), "H"),
        a("e2", day(7), "H"),
        a("e2", day(8), "H"),
        a("e2", day(9), "H"),
        a("e3", day(0), "X"),  # exactly 24 h: within a hard 24 h limit
    ]
    report = audit(req, roster)
    assert report.feasible
    # e1 W10: ceil((1440 - 1200) / 60) = 4 -> 40.
    # e2 W10: 660 - 600 = 60 -> 1 -> 10. W11: 990 - 600 = 390 -> ceil(6.5) = 7 -> 70.
    assert soft(report) == {
        "weekly_hours:e1:2026-W10": (40.0, 4.0),
        "weekly_hours:e2:2026-W10": (10.0, 1.0),
        "weekly_hours:e2:2026-W11": (70.0, 7.0),
    }


# ------------------------------------------------------------------------------ teams


def test_pairing_require_counts_missing_partners() -> None:
    req = request(
        [employee("e1"), employee("e2"), employee("e3"), employee("e4"), employee("e5")],
        employee_pairings=[
            {"employee_ids": ["e4", "e5"], "rule": "exclude"},  # index 0
            {"employee_ids": ["e1", "e2", "e3"], "rule": "require"},  # index 1
        ],
    )
    roster = [
        a("e1", day(0), "D"),  # alone: e2, e3 missing -> 2
        a("e1", day(1), "D"),  # with e2: e3 missing for both -> 2
        a("e2", day(1), "D"),
        a("e3", day(2), "N"),  # alone: e1, e2 missing -> 2
    ]
    report = audit(req, roster)
    assert report.feasible
    # 6 missing partners x 40
    assert soft(report) == {"pairing_require:1": (240.0, 6.0)}
    # the whole group together: nobody missing
    together = [a("e1", day(3), "D"), a("e2", day(3), "D"), a("e3", day(3), "D")]
    assert_clean(audit(req, together))


def test_skill_support_soft_scope_shift_uses_the_highest_level() -> None:
    req = request(
        [
            employee("e1", skill_levels={"k1": 2, "k2": 3}),  # highest 3: beginner
            employee("e2", skill_levels={"k1": 8}),  # senior
            employee("e3"),  # no levels: neither
            employee("e4", skill_levels={"k1": 2, "k2": 9}),  # highest 9: senior
            employee("e5", skill_levels={"k1": 5}),  # neither
        ],
        duties=[duty("k1"), duty("k2")],
        skill_support={"scope": "shift"},
    )
    roster = [
        a("e1", day(0), "D"),  # beginner alone -> unsupported
        a("e1", day(1), "D"),  # with a senior -> supported
        a("e2", day(1), "D"),
        a("e3", day(2), "D"),  # no beginner -> fine
        a("e1", day(3), "N"),  # beginner with levels 0/5 people -> unsupported
        a("e3", day(3), "N"),
        a("e5", day(3), "N"),
        a("e4", day(4), "D"),  # alone, but senior by its highest level -> fine
    ]
    report = audit(req, roster)
    assert report.feasible
    assert soft(report) == {
        "skill_support:2026-03-02:D": (50.0, 1.0),
        "skill_support:2026-03-05:N": (50.0, 1.0),
    }


def test_skill_support_soft_scope_duty_names_the_duty() -> None:
    req = request(
        [employee("e1", skill_levels={"k1": 1, "k2": 10}), employee("e2", skill_levels={"k2": 7})],
        duties=[duty("k1"), duty("k2")],
        skill_support={"scope": "duty"},
    )
    # (Mon, D, k1) = {e1: 1} unsupported; (Mon, D, k2) = {e2: 7} no beginner.
    report = audit(req, [a("e1", day(0), "D", "k1"), a("e2", day(0), "D", "k2")])
    assert soft(report) == {"skill_support:2026-03-02:D:k1": (50.0, 1.0)}


# ----------------------------------------------------------------------------- demand


def test_demand_shortages_and_excesses_of_every_kind() -> None:
    req = request(
        [
            employee("m1", is_manager=True),
            employee("m2", is_manager=True),
            employee("e1"),
            employee("e2"),
        ],
        days=3,
        shifts=[
            shift(
                "D",
                staffing_demand=[{"min": 2, "max": 3}, {"min": 0, "max": 1}, {"min": 1, "max": 1}],
                manager_demand=[{"min": 1, "max": 1}, {"min": 0, "max": 0}, {"min": 0, "max": 0}],
            ),
            shift("N", "22:00", "06:00"),
        ],
        duties=[duty("k", D=[{"min": 1, "max": 1}, {"min": 0, "max": 0}, {"min": 2, "max": 2}])],
        cross_shift_demands=[
            {"date": day(0), "shift_ids": ["D", "N"], "min": 3},
            {"date": day(1), "shift_ids": ["D"], "managers_only": True, "max": 1},
            {"date": day(2), "shift_ids": ["N", "D"], "duty_id": "k", "min": 2, "max": 2},
            {"date": day(1), "shift_ids": ["N"], "min": 0},
        ],
    )
    roster = [
        a("e1", day(0), "D"),
        a("m2", day(0), "N"),
        a("m1", day(1), "D", "k"),
        a("m2", day(1), "D", "k"),
        a("e2", day(1), "D"),
        a("e2", day(2), "D", "k"),
    ]
    report = audit(req, roster)
    assert report.feasible
    # Mon D: heads 1 of min 2 -> 1 missing; managers 0 of 1 -> 1; k holders 0 of 1 -> 1.
    # Tue D: heads 3 > 1 -> excess 2; managers 2 > 0 -> 2; k holders 2 > 0 -> 2.
    # Wed D: heads 1 ok; k holders 1 of 2 -> 1 missing.
    # cross 0 (Mon, D+N): e1 + m2 = 2 of 3 -> 1 missing.
    # cross 1 (Tue, D, managers): 2 > 1 -> excess 1.
    # cross 2 (Wed, N+D, holders of k): 1 of 2 -> 1 missing.
    # cross 3 (Tue, N, min 0): nothing.
    assert soft(report) == {
        "cross_shift_excess:1": (10.0, 1.0),
        "cross_shift_shortage": (20000.0, 2.0),
        "duty_excess:k:D:2026-03-03": (20.0, 2.0),
        "duty_shortage": (20000.0, 2.0),
        "manager_excess:D:2026-03-03": (20.0, 2.0),
        "manager_shortage": (10000.0, 1.0),
        "staffing_excess:D:2026-03-03": (20.0, 2.0),
        "staffing_shortage": (10000.0, 1.0),
    }
    assert [v.name for v in report.soft_constraint_violations] == sorted(soft(report))
    # 10 + 20000 + 20 + 20000 + 20 + 10000 + 20 + 10000
    assert report.objective_value == 60070.0
    mon, wed = dt.date(2026, 3, 2), dt.date(2026, 3, 4)
    assert report.shortages == [
        Shortage(kind="staffing", date=mon, shift_id="D", required=2, assigned=1, missing=1),
        Shortage(kind="manager", date=mon, shift_id="D", required=1, assigned=0, missing=1),
        Shortage(
            kind="duty", date=mon, shift_id="D", duty_id="k", required=1, assigned=0, missing=1
        ),
        Shortage(
            kind="duty", date=wed, shift_id="D", duty_id="k", required=2, assigned=1, missing=1
        ),
        Shortage(
            kind="cross_shift", date=mon, shift_ids=["D", "N"], required=3, assigned=2, missing=1
        ),
        Shortage(
            kind="cross_shift",
            date=wed,
            shift_ids=["N", "D"],
            duty_id="k",
            required=2,
            assigned=1,
            missing=1,
        ),
    ]


def test_shortages_sort_by_date_then_shift_id() -> None:
    req = request(
        [employee("e1")],
        days=2,
        shifts=[
            shift("N", "22:00", "06:00", staffing_demand=ranges(2, 1, 1)),
            shift("D", staffing_demand=ranges(2, 1, 1)),
        ],
    )
    report = audit(req, [])
    assert [(m.date.isoformat(), m.shift_id) for m in report.shortages] == [
        ("2026-03-02", "D"),
        ("2026-03-02", "N"),
        ("2026-03-03", "D"),
        ("2026-03-03", "N"),
    ]
    assert soft(report) == {"staffing_shortage": (40000.0, 4.0)}


def test_cross_shift_shortages_of_one_date_sort_by_duty_then_index() -> None:
    # A cross-shift marker has no shift_id: same date -> duty id ("" first) -> index.
    req = request(
        [employee("e1")],
        days=1,
        duties=[duty("k", ("D", "N"))],
        cross_shift_demands=[
            {"date": day(0), "shift_ids": ["N"], "duty_id": "k", "min": 1},
            {"date": day(0), "shift_ids": ["D"], "min": 1},
            {"date": day(0), "shift_ids": ["N"], "min": 1},
        ],
    )
    report = audit(req, [])
    assert [(m.shift_ids, m.duty_id) for m in report.shortages] == [
        (["D"], None),
        (["N"], None),
        (["N"], "k"),
    ]
    assert soft(report) == {"cross_shift_shortage": (30000.0, 3.0)}


def test_demand_met_exactly_reports_nothing() -> None:
    req = request(
        [employee("m1", is_manager=True), employee("e1")],
        days=1,
        shifts=[
            shift("D", staffing_demand=ranges(1, 2, 2), manager_demand=ranges(1, 1, 1)),
            shift("N", "22:00", "06:00"),
        ],
        duties=[duty("k", D=ranges(1, 1, 1))],
        cross_shift_demands=[{"date": day(0), "shift_ids": ["D", "N"], "min": 2, "max": 2}],
    )
    assert_clean(audit(req, [a("m1", day(0), "D"), a("e1", day(0), "D", "k")]))


# --------------------------------------------------------------------------- fairness


def fairness_request(
    policy: str, employees: list[dict], holidays: tuple[str, ...] = (), **group: Any
) -> SolveRequest:
    """One fairness group over the night shift N."""
    return request(
        employees,
        fairness_groups=[{"target_shift_ids": ["N"], "policy": policy, **group}],
        holidays=holidays,
    )


def test_fairness_equal_with_a_non_integer_fair_share() -> None:
    employees = [employee("e1"), employee("e2"), employee("e3"), employee("e4", ("D",))]
    req = fairness_request("equal", employees)
    # e4 is not eligible (N not assignable). e1 works 2 nights: total 2, W = 3, w = 1.
    # sum max(0, count x 3 - 2 x 1) = (6 - 2) + 0 + 0 = 4; ceil(4 / 3) = 2 -> 2 x 10.
    report = audit(req, worked("e1", [0, 1], "N") + worked("e4", [0, 1, 2]))
    assert soft(report) == {"fairness:0": (20.0, 2.0)}
    # one night each: 3 - 3 = 0 for everyone
    assert_clean(audit(req, [a("e1", day(0), "N"), a("e2", day(1), "N"), a("e3", day(2), "N")]))


def test_fairness_penalty_weight() -> None:
    req = fairness_request("equal", [employee("e1"), employee("e2")], penalty_weight=7)
    # e1 3 nights: total 3, W = 2: (3 x 2 - 3) = 3; ceil(3 / 2) = 2 -> 2 x 7 = 14
    assert soft(audit(req, worked("e1", [0, 2, 4], "N"))) == {"fairness:0": (14.0, 2.0)}


def test_fairness_proportional_uses_days_per_month_bounds() -> None:
    req = fairness_request(
        "proportional",
        [
            employee("e1", working_days_per_month={"min": 2, "max": 4}),  # w = 6
            employee("e2", working_days_per_month={"min": 1, "max": 1}),  # w = 2
        ],
        penalty_weight=7,
    )
    # counts 2 and 1: total 3, W = 8. e1: 2 x 8 - 3 x 6 = -2 -> 0; e2: 1 x 8 - 3 x 2 = 2.
    # ceil(2 / 8) = 1 (fair shares 2.25 and 0.75) -> 1 x 7
    report = audit(req, worked("e1", [0, 2], "N") + worked("e2", [4], "N"))
    assert soft(report) == {"fairness:0": (7.0, 1.0)}


def test_fairness_proportional_counts_open_dates() -> None:
    # Mon..Sun, Wednesday a holiday, target N.
    # e1: Mon..Fri available, fixed to D (outside the target) on Thursday:
    #     Mon, Tue, Fri open -> w = 6.
    # e2: every date but the holiday -> 6 -> w = 12.
    # e3: N only, fixed to N on Tuesday (inside the target, stays open) -> 6 -> w = 12.
    # W = 30. Counts: e1 0, e2 1, e3 4; total 5.
    # e3: 4 x 30 - 5 x 12 = 60; e2: 30 - 60 < 0; e1: 0 - 30 < 0. ceil(60 / 30) = 2 -> 20.
    # (Ignoring the holiday, the weekdays or the fixed date would give 3, not 2.)
    req = fairness_request(
        "proportional",
        [
            employee(
                "e1",
                available_weekdays=["mon", "tue", "wed", "thu", "fri"],
                fixed_assignments=[{"date": day(3), "shift_id": "D"}],
            ),
            employee("e2"),
            employee("e3", ("N",), fixed_assignments=[{"date": day(1), "shift_id": "N"}]),
        ],
        holidays=(day(2),),
    )
    roster = [a("e1", day(3), "D"), a("e2", day(5), "N"), *worked("e3", [0, 1, 3, 4], "N")]
    report = audit(req, roster)
    assert report.feasible
    assert soft(report) == {"fairness:0": (20.0, 2.0)}


def test_fairness_proportional_with_zero_weights_falls_back_to_equal() -> None:
    bounds = {"min": 0, "max": 0}
    req = fairness_request(
        "proportional",
        [
            employee("e1", working_days_per_month=bounds),
            employee("e2", working_days_per_month=bounds),
        ],
    )
    # W = 0 -> w = 1 each, W = 2. Counts 2, 0: 2 x 2 - 2 = 2; ceil(2 / 2) = 1 -> 10.
    # (The month max of 0 is broken twice as well: hard, not part of fairness.)
    report = audit(req, worked("e1", [0, 2], "N"))
    assert soft(report) == {"fairness:0": (10.0, 1.0)}
    assert codes(report) == ["days_per_month_max"]


# ------------------------------------------------------------------------ preferences


def test_preferences_are_priced_as_written() -> None:
    req = request(
        [
            employee(
                "e1",
                preferences=[
                    {"type": "day_off", "date": day(0)},  # works -> 1
                    {"type": "preferred_shift", "date": day(1), "shift_id": "D"},  # on N -> 1
                    {"type": "avoided_shift", "date": day(1), "shift_id": "N"},  # on N -> 1
                    {"type": "preferred_shift", "date": day(6), "shift_id": "D"},  # holiday -> 1
                    {"type": "day_off", "date": day(2)},  # free -> 0
                    {"type": "preferred_shift", "date": day(3), "shift_id": "D"},  # on D -> 0
                    {"type": "avoided_shift", "date": day(3), "shift_id": "N"},  # on D -> 0
                ],
            ),
            employee(
                "e2",
                ("D",),
                preferences=[
                    {"type": "preferred_shift", "date": day(0), "shift_id": "N"},  # never -> 1
                    {"type": "day_off", "date": day(4)},
                    {"type": "day_off", "date": day(4)},  # twice, same name -> 2
                ],
            ),
        ],
        holidays=(day(6),),
    )
    roster = [
        a("e1", day(0), "D"),
        a("e1", day(1), "N"),
        a("e1", day(3), "D"),
        a("e2", day(0), "D"),
        a("e2", day(4), "D"),
    ]
    report = audit(req, roster)
    assert report.feasible
    assert soft(report) == {
        "preference:avoided_shift:e1:2026-03-03:N": (100.0, 1.0),
        "preference:day_off:e1:2026-03-02": (100.0, 1.0),
        "preference:day_off:e2:2026-03-06": (200.0, 2.0),
        "preference:preferred_shift:e1:2026-03-03:D": (100.0, 1.0),
        "preference:preferred_shift:e1:2026-03-08:D": (100.0, 1.0),
        "preference:preferred_shift:e2:2026-03-02:N": (100.0, 1.0),
    }
    assert report.objective_value == 700.0


# --------------------------------------------------------------- weights and plumbing


def test_weights_match_the_semantics_table() -> None:
    assert dict(WEIGHTS) == {
        "staffing_shortage": 10000,
        "manager_shortage": 10000,
        "duty_shortage": 10000,
        "cross_shift_shortage": 10000,
        "preference:day_off": 100,
        "preference:preferred_shift": 100,
        "preference:avoided_shift": 100,
        "skill_support": 50,
        "shift_transition": 40,
        "pairing_require": 40,
        "days_per_month_min": 30,
        "consecutive_days": 20,
        "days_per_week": 15,
        "staffing_excess": 10,
        "manager_excess": 10,
        "duty_excess": 10,
        "cross_shift_excess": 10,
        "weekly_hours": 10,
        "fairness": 10,
    }
    assert audit_module.DEFAULT_MAX_CONSECUTIVE_DAYS == 6


def test_report_round_trips_through_json() -> None:
    report = audit(compliant_request(), [*compliant_roster(), a("e1", day(5), "N")])
    assert not report.feasible  # Saturday is not an available weekday for e1
    again = AuditReport.model_validate_json(report.model_dump_json())
    assert again == report
    assert report.model_dump(mode="json")["hard_violations"][0]["date"] == "2026-03-07"


def test_audit_json_accepts_every_response_shape() -> None:
    request_data = compliant_request().model_dump(mode="json", exclude_none=True)
    assignments = [x.model_dump(mode="json", exclude_none=True) for x in compliant_roster()]
    response = {
        "job_id": "j",
        "status": "completed",
        "solution": {"assignments": assignments, "metrics": {"solver_runtime_seconds": 0.1}},
    }
    for shape in (response, {"assignments": assignments}, assignments):
        assert_clean(audit_json(request_data, shape))
    with pytest.raises(ValueError, match="no solution"):
        audit_json(request_data, {"job_id": "j", "status": "failed", "solution": None})


def demand_report() -> AuditReport:
    req = request(
        [employee("e1", preferences=[{"type": "day_off", "date": day(1)}])],
        days=2,
        shifts=[shift("D", staffing_demand=ranges(2, 1, 1)), shift("N", "22:00", "06:00")],
    )
    # Mon D: nobody -> 1 missing; Tue D: e1 -> met, but a day off is lost.
    return audit(req, [a("e1", day(1), "D")])


def test_compare_with_metrics_agrees_and_disagrees() -> None:
    report = demand_report()
    assert soft(report) == {
        "preference:day_off:e1:2026-03-03": (100.0, 1.0),
        "staffing_shortage": (10000.0, 1.0),
    }
    metrics: dict[str, Any] = {
        "solver_runtime_seconds": 0.0,
        "objective_value": 10100.0,
        "soft_constraint_violations": [
            {"name": "staffing_shortage", "penalty": 10000.0, "violated_by": 1.0},
            {"name": "preference:day_off:e1:2026-03-03", "penalty": 100.0, "violated_by": 1.0},
        ],
    }
    assert compare_with_metrics(report, metrics) == []

    wrong = {
        "solver_runtime_seconds": 0.0,
        "objective_value": 10140.0,
        "soft_constraint_violations": [
            {"name": "staffing_shortage", "penalty": 10000.0, "violated_by": 2.0},
            {"name": "fairness:0", "penalty": 40.0, "violated_by": 4.0},
            {"name": "fairness:0", "penalty": 40.0, "violated_by": 4.0},
        ],
    }
    differences = compare_with_metrics(report, wrong)
    assert len(differences) == 4
    assert differences[0].startswith("objective_value")
    assert any(d.startswith("fairness:0: audit has 0") for d in differences)
    assert any(d.startswith("preference:day_off:e1:2026-03-03: audit has 1") for d in differences)
    assert any(d.startswith("staffing_shortage: violated_by audit 1.0") for d in differences)


def test_compare_shortages() -> None:
    report = audit(
        request(
            [employee("e1")],
            days=2,
            shifts=[shift("D", staffing_demand=ranges(2, 1, 1)), shift("N", "22:00", "06:00")],
        ),
        [],
    )
    markers = [m.model_dump(mode="json", exclude_none=True) for m in report.shortages]
    assert len(markers) == 2
    assert compare_shortages(report, markers) == []
    metrics = {"solver_runtime_seconds": 0.0, "objective_value": 20000.0}
    metrics["soft_constraint_violations"] = [
        {"name": "staffing_shortage", "penalty": 20000.0, "violated_by": 2.0}
    ]
    assert compare_with_metrics(report, metrics, markers) == []
    assert compare_shortages(report, markers[:1]) == [
        "shortage only in the audit: ('staffing', '2026-03-03', 'D', None, None, 1, 0, 1)"
    ]
    assert compare_shortages(report, markers[::-1]) == [
        "shortages: same markers, reported in another order"
    ]
    assert compare_shortages(report, markers[::-1], check_order=False) == []
