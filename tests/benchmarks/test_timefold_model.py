"""The Timefold model without its JVM: which requests it refuses, how it reads the rest,
and how Timefold's score is set against the audit. Nothing here imports Timefold.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.timefold_model.command import EXIT_INVALID, run
from benchmarks.timefold_model.outcome import Improvement, Limit, TimefoldRun
from benchmarks.timefold_model.pricing import agreement, price
from benchmarks.timefold_model.support import UnsupportedFamily, check_supported, unsupported
from benchmarks.timefold_model.terms import SOFT
from benchmarks.timefold_model.translate import EXCESS_SLOTS, translate
from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment, SolveRequest, SolveResponse
from tests.factories import DELETE, full_request_dict, replaced, request_with

LACKING = [
    "duty_demand",
    "manager_demand",
    "cross_shift_demands",
    "employee_pairings",
    "skill_support",
    "fairness_groups",
    "skill_levels",
    "shift_count_limits",
    "weekly_working_hours_limit",
]


def core_body() -> dict[str, Any]:
    """The minimal request without duties, with every family the model holds: a holiday,
    weekdays, a fixed day, days per week and month, transitions, the cap, preferences."""
    data = request_with(duties=[])
    data["schedule_period"]["holidays"] = ["2026-03-08"]
    data["employees"][0] |= {
        "available_weekdays": ["mon", "tue", "wed", "thu", "fri"],
        "fixed_assignments": [{"date": "2026-03-02", "shift_id": "day"}],
        "working_days_per_week": {"min": 3, "max": 4},
        "working_days_per_month": {"min": 5, "max": 6},
        "preferences": [
            {"type": "day_off", "date": "2026-03-03"},
            {"type": "preferred_shift", "date": "2026-03-04", "shift_id": "night"},
            {"type": "avoided_shift", "date": "2026-03-05", "shift_id": "day"},
        ],
    }
    data["constraints"] = {
        "shift_transitions": [
            {"from_shift_id": "night", "to_shift_id": "day", "rule": "forbid"},
            {
                "from_shift_id": "day",
                "to_shift_id": "day",
                "rule": "require",
                "enforcement": "soft",
            },
        ],
        "max_consecutive_working_days": 3,
    }
    return data


def core() -> SolveRequest:
    return parse_request(core_body())


# ------------------------------------------------------------------------- refusal


def test_a_request_of_every_family_is_refused_naming_each_one_the_model_lacks() -> None:
    found = unsupported(parse_request(full_request_dict()))
    assert [u.family for u in found] == LACKING
    assert found[0].field == "request.duties"
    assert found[1].field == "request.shifts[0].manager_demand"
    assert found[-1].field == "request.employees[0].weekly_working_hours_limit"
    with pytest.raises(UnsupportedFamily, match="duty_demand") as refused:
        check_supported(parse_request(full_request_dict()))
    assert refused.value.families == LACKING


@pytest.mark.parametrize(
    ("path", "value", "family"),
    [
        (("shifts", 1, "manager_demand"), [{"min": 0, "max": 1}] * 7, "manager_demand"),
        (
            ("employees", 2, "shift_count_limits"),
            [{"shift_id": "day", "max": 3}],
            "shift_count_limits",
        ),
        (
            ("employees", 1, "weekly_working_hours_limit"),
            {"hours": 40},
            "weekly_working_hours_limit",
        ),
        (("constraints", "fairness_groups"), [{"target_shift_ids": ["night"]}], "fairness_groups"),
        (("constraints", "skill_support"), {"scope": "shift"}, "skill_support"),
    ],
)
def test_one_family_the_model_lacks_is_named_alone(
    path: tuple[str | int, ...], value: Any, family: str
) -> None:
    request = parse_request(replaced(core_body(), path, value))
    assert [u.family for u in unsupported(request)] == [family]


def test_the_families_the_model_holds_and_a_manager_flag_alone_pass() -> None:
    data = replaced(core_body(), ("employees", 1, "is_manager"), True)
    assert unsupported(parse_request(data)) == []


def _command(body: Any, tmp_path: Path) -> tuple[int, str, str]:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body))
    args = argparse.Namespace(request=str(path), time_limit=1.0, calculations=None, quiet=False)
    out, err = io.StringIO(), io.StringIO()
    return run(args, out, err), out.getvalue(), err.getvalue()


def test_the_command_exits_2_naming_each_family_before_any_jvm(tmp_path: Path) -> None:
    code, out, err = _command(full_request_dict(), tmp_path)
    assert code == EXIT_INVALID and out == ""
    for family in LACKING:
        assert family in err
    assert "request.constraints.fairness_groups" in err


def test_the_command_exits_2_with_the_path_of_a_fault(tmp_path: Path) -> None:
    code, _, err = _command(replaced(core_body(), ("employees", 0, "id"), DELETE), tmp_path)
    assert code == EXIT_INVALID
    assert "employees[0].id" in err


# --------------------------------------------------------------------- translation


def test_each_demanded_head_is_a_slot_with_room_for_one_over_the_maximum() -> None:
    model = translate(core())
    day = {d.key: d for d in model.demands}
    assert "day:2026-03-08" not in day  # the holiday demands nothing
    assert len(model.demands) == 2 * 6
    first = day["day:2026-03-02"]
    slots = [s for s in model.slots if model.demands[s.demand] == first]
    assert len(slots) == 1 + EXCESS_SLOTS  # a maximum of 1: one head, one over
    assert [s.fixed for s in slots] == [0, None]  # e1's fixed day comes first, pinned
    assert len(model.slots) == len(model.demands) * (1 + EXCESS_SLOTS)


def test_a_fixed_day_on_a_holiday_gets_its_slot_and_no_maximum() -> None:
    data = core_body()
    data["employees"][1]["fixed_assignments"] = [{"date": "2026-03-08", "shift_id": "night"}]
    model = translate(parse_request(data))
    holiday = [d for d in model.demands if d.key == "night:2026-03-08"]
    assert [(d.minimum, d.maximum) for d in holiday] == [(0, None)]
    assert [s.fixed for s in model.slots if s.key.startswith("night:2026-03-08")] == [1]
    assert model.holidays == {6}


def test_limits_calendar_and_rules_are_read_as_the_semantics_say() -> None:
    data = core_body()
    data["schedule_period"] |= {"start_date": "2026-03-04", "end_date": "2026-03-10"}
    data["schedule_period"]["holidays"] = []
    for shift in data["shifts"]:
        shift["staffing_demand"] = shift["staffing_demand"][:7]
    data["employees"][0]["fixed_assignments"] = []
    data["employees"][0]["preferences"] = [{"type": "day_off", "date": "2026-03-05"}]
    model = translate(parse_request(data))
    weeks = model.employees[0].weeks  # Wed..Sun of W10 (5 days), Mon..Tue of W11 (2)
    assert [(w.key, w.minimum, w.maximum) for w in weeks] == [
        ("e1:2026-W10", 3 * 5 // 7, 4),
        ("e1:2026-W11", 3 * 2 // 7, 4),
    ]
    assert [(m.key, m.minimum) for m in model.employees[0].months] == [("e1:2026-03", 5 * 7 // 31)]
    assert model.weeks == (0, 0, 0, 0, 0, 1, 1)
    assert model.employees[0].weekdays == frozenset(range(5))
    assert model.employees[1].weekdays == frozenset(range(7)) and model.employees[1].weeks == ()
    assert model.max_run == 3
    assert [(t.forbid, t.hard) for t in model.transitions] == [(True, True), (False, False)]
    assert [(p.kind, p.day) for p in model.preferences] == [("day_off", 1)]


def test_the_cap_is_6_when_the_request_leaves_it_out() -> None:
    data = core_body()
    del data["constraints"]["max_consecutive_working_days"]
    assert translate(parse_request(data)).max_run == 6


# ------------------------------------------------------------------------- pricing


def _roster(request: SolveRequest) -> list[Assignment]:
    """e1 on the day shift every date (a holiday, an unavailable weekday and a run over
    the cap included), e2 on nights every other date: breaks rules, costs every term."""
    start = request.schedule_period.start_date
    dates = [start + dt.timedelta(days=i) for i in range(7)]
    roster = [Assignment(employee_id="e1", date=d, shift_id="day") for d in dates]
    roster += [Assignment(employee_id="e2", date=d, shift_id="night") for d in dates[::2]]
    return roster


def _run_matching(report_terms: dict[str, float], hard: int) -> TimefoldRun:
    return TimefoldRun(
        assignments=[],
        score=f"-{hard}hard/0soft",
        hard=hard,
        soft=int(sum(report_terms.values())),
        constraints={k: int(v) for k, v in report_terms.items()},
        setup_seconds=1.0,
        wall_seconds=2.0,
        improvements=[Improvement(1.5, hard, 0)],
    )


def _sums(request: SolveRequest, roster: list[Assignment]) -> dict[str, float]:
    report = audit(request, roster)
    return {
        name: sum(v.penalty for v in report.soft_constraint_violations if v.name.startswith(p))
        for name, (p, _) in SOFT.items()
    }


def test_every_soft_term_of_a_supported_request_is_covered_by_a_constraint() -> None:
    request = core()
    report = audit(request, _roster(request))
    sums = _sums(request, _roster(request))
    assert {"staffing_shortage", "consecutive_days", "days_per_week"} <= {
        k for k, v in sums.items() if v
    }
    found = agreement(_run_matching(sums, hard=3), report)
    assert found.uncovered == [] and found.agrees, found.differences
    assert sum(t.audit for t in found.terms) == report.objective_value


def test_a_term_or_a_verdict_that_differs_is_named() -> None:
    request = core()
    roster = _roster(request)
    report = audit(request, roster)
    sums = _sums(request, roster)
    off = agreement(_run_matching({**sums, "days_per_week": sums["days_per_week"] + 15}, 3), report)
    assert off.differences == ["days_per_week"]
    assert agreement(_run_matching(sums, hard=0), report).differences == ["hard verdict"]


def test_someone_twice_on_a_date_leaves_the_soft_terms_out_not_the_verdict() -> None:
    """The audit reads a date's shifts as a set, the model counts slots: they may differ
    on such a roster, whose hard verdict they still share."""
    request = core()
    roster = _roster(request)
    roster.append(roster[0])
    report = audit(request, roster)
    sums = _sums(request, roster)
    off = agreement(_run_matching({**sums, "shift_transition:require": 999}, 3), report)
    assert not off.soft_compared and off.agrees
    assert agreement(_run_matching(sums, hard=0), report).differences == ["hard verdict"]


def test_the_response_carries_the_audit_figures_and_the_first_roster_time() -> None:
    request = core()
    roster = _roster(request)
    run_ = _run_matching(_sums(request, roster), hard=3)
    run_ = TimefoldRun(**{**run_.__dict__, "assignments": roster, "version": "1.24.0b0"})
    priced = price(request, run_, Limit(seconds=5.0))
    response = SolveResponse.model_validate(priced.response.model_dump(mode="json"))
    assert response.solution is not None
    metrics = response.solution.metrics
    assert metrics.objective_value == priced.report.objective_value
    assert metrics.status is None  # the roster breaks hard rules
    assert metrics.solver is not None and metrics.solver.time_to_first_solution_seconds == 1.5
    assert metrics.solver.cp_sat_status == "NOT_USED"
    assert response.solution.shortages == priced.report.shortages
