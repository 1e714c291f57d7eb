"""validate(): counts, rejection of invalid requests, and one test per hint."""

from __future__ import annotations

from typing import Any

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import ValidateResponse
from shiftsched.errors import InvalidRequest
from shiftsched.questions.validation import field_name, validate
from tests.factories import (
    demand,
    employee_dict,
    full_request_dict,
    minimal_request_dict,
    request_with,
)

SIZE_HINT = (
    "size 42 (basic): synchronous solve, 1 unit "
    "(size = 3 employees x 2 shifts x 1 duty x 7 days; one unit per started 10,000)"
)
DEFAULT_CONSECUTIVE_HINT = (
    "not set: the default applies, a hard cap of 6 consecutive working days with at most 5 "
    "preferred (omitting it does not mean unlimited)"
)


def hints_of(data: Any) -> dict[str, str]:
    """Hints by field; the tests below never produce two hints on one field."""
    response = validate(data)
    fields = [hint.field for hint in response.hints]
    assert len(fields) == len(set(fields))
    return {hint.field: hint.hint for hint in response.hints}


def test_counts_of_the_minimal_request() -> None:
    response = validate(minimal_request_dict())
    assert response == ValidateResponse(
        valid=True,
        schedule_days=7,
        shift_count=2,
        duty_count=1,
        employee_count=3,
        hints=response.hints,
    )
    assert response.valid is True


def test_the_minimal_request_only_gets_the_default_and_size_hints() -> None:
    assert hints_of(minimal_request_dict()) == {
        "constraints.max_consecutive_working_days": DEFAULT_CONSECUTIVE_HINT,
        "": SIZE_HINT,
    }


def test_counts_without_duties() -> None:
    response = validate(request_with(duties=[]))
    assert (response.duty_count, response.shift_count) == (0, 2)


def test_a_parsed_request_is_accepted() -> None:
    assert validate(parse_request(minimal_request_dict())).employee_count == 3


def test_an_invalid_request_raises_with_every_fault() -> None:
    data = minimal_request_dict()
    data["employees"][0]["assignable_shift_ids"] = ["late"]
    data["employees"][1]["assignable_shift_ids"] = ["early"]
    with pytest.raises(InvalidRequest) as caught:
        validate(data)
    assert [e.path for e in caught.value.errors] == [
        ("employees", 0, "assignable_shift_ids", 0),
        ("employees", 1, "assignable_shift_ids", 0),
    ]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ((), ""),
        (("shifts",), "shifts"),
        (("employees", 3, "fixed_assignments", 0), "employees[3].fixed_assignments[0]"),
        (
            ("duties", 0, "staffing_demand_by_shift", "day", 2),
            "duties[0].staffing_demand_by_shift.day[2]",
        ),
    ],
)
def test_field_names(path: tuple[str | int, ...], text: str) -> None:
    assert field_name(path) == text


# ------------------------------------------------------------------------------- hints


def test_demand_on_a_holiday_is_ignored() -> None:
    data = minimal_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-05", "2026-03-04", "2026-03-05"]
    data["shifts"][1]["staffing_demand"][3] = {"min": 0, "max": 2}
    data["duties"][0]["staffing_demand_by_shift"]["day"][2] = {"min": 1, "max": 1}
    data["constraints"] = {
        "cross_shift_demands": [{"date": "2026-03-04", "shift_ids": ["night"], "min": 1}]
    }
    hints = hints_of(data)
    assert hints["schedule_period.holidays[0]"] == (
        "2026-03-05 is a holiday: nobody works and its demand (shift day) is ignored "
        "(treated as zero)"
    )
    assert hints["schedule_period.holidays[1]"] == (
        "2026-03-04 is a holiday: nobody works and its demand (shift day, shift night, "
        "duty lead, cross_shift_demands[0]) is ignored (treated as zero)"
    )
    assert "schedule_period.holidays[2]" not in hints


def test_a_holiday_without_demand_gets_no_hint() -> None:
    data = minimal_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-04"]
    for shift in data["shifts"]:
        shift["staffing_demand"][2] = {"min": 0, "max": 0}
    assert "schedule_period.holidays[0]" not in hints_of(data)


def test_an_employee_without_any_eligible_day() -> None:
    data = minimal_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-07", "2026-03-08"]
    data["employees"][1]["available_weekdays"] = ["sat", "sun"]
    assert hints_of(data)["employees[1]"] == (
        "employee e2 can work on no date of the period: every date is a holiday or a weekday "
        "outside available_weekdays"
    )


def test_demand_above_capacity_makes_shortages_certain() -> None:
    data = minimal_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-08"]
    data["shifts"][0]["staffing_demand"] = demand(3, 3)
    data["employees"][0]["available_weekdays"] = ["mon"]
    # 6 working days x (3 + 1) heads = 24 required; 1 + 6 + 6 = 13 employee-days.
    assert hints_of(data)["shifts"] == (
        "minimum staffing on working days totals 24 heads but the employees can work at most "
        "13 employee-days: at least 11 shortages are certain"
    )


def test_demand_within_capacity_gets_no_capacity_hint() -> None:
    data = minimal_request_dict()
    data["shifts"][0]["staffing_demand"] = demand(2, 2)  # 21 heads, 21 employee-days
    assert "shifts" not in hints_of(data)


@pytest.mark.parametrize(
    ("employee", "fixed", "reason"),
    [
        ({}, {"date": "2026-03-04", "shift_id": "day"}, "2026-03-04 is a holiday"),
        (
            {"available_weekdays": ["mon", "tue"]},
            {"date": "2026-03-05", "shift_id": "day"},
            "2026-03-05 is a thu, not in available_weekdays",
        ),
        (
            {"assignable_shift_ids": ["night"]},
            {"date": "2026-03-05", "shift_id": "day"},
            "shift day is not in assignable_shift_ids",
        ),
        (
            {"skill_levels": {"lead": 0}},
            {"date": "2026-03-05", "shift_id": "day", "duty_id": "lead"},
            "skill level 0 for duty lead forbids holding it",
        ),
    ],
)
def test_fixed_assignments_that_cannot_be_worked(
    employee: dict[str, Any], fixed: dict[str, str], reason: str
) -> None:
    data = minimal_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-04"]
    data["employees"][2] = employee_dict("e3", fixed_assignments=[fixed], **employee)
    assert hints_of(data)["employees[2].fixed_assignments[0]"] == (
        f"cannot be worked ({reason}): the problem is infeasible"
    )


def test_a_workable_fixed_assignment_gets_no_hint() -> None:
    hints = hints_of(full_request_dict())
    assert not any(".fixed_assignments" in field for field in hints)


def test_skill_support_by_duty_without_duties() -> None:
    data = request_with(duties=[], constraints={"skill_support": {"scope": "duty"}})
    assert hints_of(data)["constraints.skill_support.scope"] == (
        "scope duty but the request has no duties: skill support has no effect"
    )


def test_skill_support_by_shift_without_duties_gets_no_scope_hint() -> None:
    data = request_with(duties=[], constraints={"skill_support": {"scope": "shift"}})
    assert "constraints.skill_support.scope" not in hints_of(data)


@pytest.mark.parametrize(
    ("preference", "effect"),
    [
        ({"type": "day_off"}, "it is always met"),
        ({"type": "avoided_shift", "shift_id": "day"}, "it is always met"),
        (
            {"type": "preferred_shift", "shift_id": "day"},
            "it can never be met and always costs its penalty",
        ),
    ],
)
def test_preferences_on_holidays(preference: dict[str, str], effect: str) -> None:
    data = minimal_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-06"]
    data["employees"][0]["preferences"] = [
        {"type": "day_off", "date": "2026-03-05"},
        preference | {"date": "2026-03-06"},
    ]
    hints = hints_of(data)
    assert hints["employees[0].preferences[1]"] == (
        f"2026-03-06 is a holiday, so nobody works: {effect}"
    )
    assert "employees[0].preferences[0]" not in hints


def test_size_of_a_large_request() -> None:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(50)]
    data["duties"] = [
        {"id": f"k{i}", "name": "K", "staffing_demand_by_shift": {"day": demand(0, 1)}}
        for i in range(15)
    ]
    # 50 x 2 x 15 x 7 = 10,500: basic, 2 units. Lengthen the period to 8 weeks for 84,000.
    assert hints_of(data)[""].startswith("size 10,500 (basic): synchronous solve, 2 units")
    data["schedule_period"]["end_date"] = "2026-04-26"
    for shift in data["shifts"]:
        shift["staffing_demand"] = demand(days=56)
    for duty in data["duties"]:
        duty["staffing_demand_by_shift"]["day"] = demand(0, 1, days=56)
    assert hints_of(data)[""] == (
        "size 84,000 (large): queued job (202) on a pro key, refused (422 tier-limit-exceeded) "
        "otherwise, 9 units (size = 50 employees x 2 shifts x 15 duties x 56 days; one unit per "
        "started 10,000)"
    )


def test_size_counts_one_duty_when_there_are_none() -> None:
    assert "x 1 duty x 7 days" in hints_of(request_with(duties=[]))[""]


def test_an_explicit_consecutive_days_cap_gets_no_default_hint() -> None:
    data = request_with(constraints={"max_consecutive_working_days": 4})
    assert "constraints.max_consecutive_working_days" not in hints_of(data)


def test_a_timeout_above_the_synchronous_limit() -> None:
    data = request_with(options={"solver_timeout_seconds": 31})
    assert hints_of(data)["options.solver_timeout_seconds"] == (
        "31 s exceeds the 30 s synchronous limit: a pro key gets a queued job, other "
        "credentials get 501"
    )
    data = request_with(options={"solver_timeout_seconds": 30})
    assert "options.solver_timeout_seconds" not in hints_of(data)


def test_hints_come_in_a_stable_order() -> None:
    data = full_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-04"]
    fields = [hint.field for hint in validate(data).hints]
    assert fields == [
        "schedule_period.holidays[0]",
        "employees[0].preferences[1]",
        "",
    ]
