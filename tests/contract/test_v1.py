"""Field-level rules of the v1 contract, seen through parse_request: exact path and code.

Each case mutates one value of a valid request and expects exactly one fault, so a rule
that fires twice, fires somewhere else, or fires with another code fails the test.
"""

from __future__ import annotations

from typing import Any

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import MAX_DATE, MIN_DATE, SolveRequest
from shiftsched.errors import InvalidRequest
from tests.factories import (
    DELETE,
    deleted,
    demand,
    employee_dict,
    faults,
    full_request_dict,
    minimal_request_dict,
    replaced,
    request_with,
    shift_dict,
)

E0: tuple[str | int, ...] = ("employees", 0)
SHIFT0: tuple[str | int, ...] = ("shifts", 0)
PERIOD: tuple[str | int, ...] = ("schedule_period",)
CONSTRAINTS: tuple[str | int, ...] = ("constraints",)
PREF0 = (*E0, "preferences", 0)


def only_fault(path: tuple[str | int, ...], value: Any, code: str) -> None:
    """Setting ``path`` to ``value`` in the full request yields one fault there, ``code``."""
    assert faults(replaced(full_request_dict(), path, value)) == {(path, code)}


def accepted(path: tuple[str | int, ...], value: Any) -> SolveRequest:
    return parse_request(replaced(full_request_dict(), path, value))


# ------------------------------------------------------------------------------- basics


def test_minimal_and_full_requests_are_valid() -> None:
    assert faults(minimal_request_dict()) == set()
    assert faults(full_request_dict()) == set()


@pytest.mark.parametrize("junk", [None, [], "request", 3, 2.5, True])
def test_a_request_must_be_an_object(junk: Any) -> None:
    assert faults(junk) == {((), "wrong_type")}


def test_defaults_are_applied() -> None:
    request = parse_request(
        {
            "schedule_period": {"start_date": "2026-03-02", "end_date": "2026-03-08"},
            "shifts": [{"id": "day", "name": "Day", "staffing_demand": demand()}],
            "employees": [{"id": "e1", "assignable_shift_ids": ["day"]}],
        }
    )
    period, employee = request.schedule_period, request.employees[0]
    assert (period.holidays, period.timezone) == ([], "UTC")
    assert request.shifts[0].working_hours is None
    assert request.shifts[0].manager_demand is None
    assert request.duties == []
    assert employee.name is None
    assert employee.is_manager is False
    assert (employee.skill_levels, employee.preferences, employee.fixed_assignments) == ({}, [], [])
    assert employee.shift_count_limits == []
    assert employee.available_weekdays is None
    constraints = request.constraints
    assert (constraints.shift_transitions, constraints.employee_pairings) == ([], [])
    assert (constraints.cross_shift_demands, constraints.fairness_groups) == ([], [])
    assert constraints.max_consecutive_working_days is None
    assert constraints.skill_support is None
    assert request.options.solver_timeout_seconds == 30


def test_nested_defaults_are_applied() -> None:
    data = full_request_dict()
    data["employees"][0]["weekly_working_hours_limit"] = {"hours": 40}
    data["employees"][0]["fixed_assignments"] = [{"date": "2026-03-02", "shift_id": "day"}]
    data["constraints"]["skill_support"] = {"scope": "shift"}
    data["constraints"]["fairness_groups"] = [{"target_shift_ids": ["night"]}]
    request = parse_request(data)
    employee, constraints = request.employees[0], request.constraints
    assert employee.weekly_working_hours_limit is not None
    assert employee.weekly_working_hours_limit.enforcement == "hard"
    assert employee.fixed_assignments[0].duty_id is None
    assert constraints.shift_transitions[0].enforcement == "hard"
    assert constraints.skill_support is not None
    assert constraints.skill_support.enforcement == "soft"
    assert constraints.fairness_groups[0].policy == "proportional"
    assert constraints.fairness_groups[0].penalty_weight is None
    assert constraints.cross_shift_demands[0].managers_only is False
    assert constraints.cross_shift_demands[0].duty_id is None


# ------------------------------------------------------------------------ ids and names


@pytest.mark.parametrize(
    "path",
    [
        (*SHIFT0, "id"),
        ("duties", 0, "id"),
        (*E0, "id"),
        (*E0, "assignable_shift_ids", 0),
        (*E0, "fixed_assignments", 0, "shift_id"),
        (*E0, "fixed_assignments", 0, "duty_id"),
        (*E0, "shift_count_limits", 0, "shift_id"),
        (*PREF0[:-1], 1, "shift_id"),
        (*CONSTRAINTS, "shift_transitions", 0, "from_shift_id"),
        (*CONSTRAINTS, "employee_pairings", 0, "employee_ids", 0),
        (*CONSTRAINTS, "cross_shift_demands", 0, "shift_ids", 0),
        (*CONSTRAINTS, "fairness_groups", 0, "target_shift_ids", 0),
    ],
)
def test_ids_have_1_to_128_characters(path: tuple[str | int, ...]) -> None:
    only_fault(path, "", "too_short")
    only_fault(path, "x" * 129, "too_long")


def test_an_id_of_128_characters_is_accepted() -> None:
    long_id = "s" * 128
    data = request_with(
        shifts=[shift_dict(long_id, "07:00", "15:00")],
        duties=[],
        employees=[employee_dict(long_id, assignable_shift_ids=[long_id])],
    )
    assert parse_request(data).shifts[0].id == long_id


@pytest.mark.parametrize("path", [(*SHIFT0, "name"), ("duties", 0, "name")])
def test_shift_and_duty_names_have_1_to_200_characters(path: tuple[str | int, ...]) -> None:
    only_fault(path, "", "too_short")
    only_fault(path, "n" * 201, "too_long")
    accepted(path, "n" * 200)


def test_employee_name_is_optional_and_at_most_200_characters() -> None:
    only_fault((*E0, "name"), "n" * 201, "too_long")
    assert accepted((*E0, "name"), "").employees[0].name == ""
    assert accepted((*E0, "name"), DELETE).employees[0].name is None


# ------------------------------------------------------------------------ dates, times


DATE_PATHS = [
    (*PERIOD, "start_date"),
    (*PERIOD, "holidays", 0),
    (*PREF0, "date"),
    (*E0, "fixed_assignments", 0, "date"),
    (*CONSTRAINTS, "cross_shift_demands", 0, "date"),
]


@pytest.mark.parametrize("path", DATE_PATHS)
@pytest.mark.parametrize(
    "value", ["2026-3-02", "02.03.2026", "2026-03-02T00:00", "2026-02-30", "2026-13-01", ""]
)
def test_dates_are_calendar_dates_yyyy_mm_dd(path: tuple[str | int, ...], value: str) -> None:
    only_fault(path, value, "invalid_format")


@pytest.mark.parametrize("path", DATE_PATHS)
@pytest.mark.parametrize("value", [20260302, None, ["2026-03-02"]])
def test_dates_must_be_strings(path: tuple[str | int, ...], value: Any) -> None:
    only_fault(path, value, "invalid_format")


@pytest.mark.parametrize("path", [*DATE_PATHS, (*PERIOD, "end_date")])
@pytest.mark.parametrize("value", ["1899-12-31", "2200-01-01", "0001-01-01", "9999-12-31"])
def test_dates_outside_1900_to_2199_are_out_of_range(
    path: tuple[str | int, ...], value: str
) -> None:
    only_fault(path, value, "out_of_range")


def test_a_date_out_of_range_says_which_dates_are_planned() -> None:
    data = replaced(full_request_dict(), (*PERIOD, "start_date"), "0001-01-02")
    with pytest.raises(InvalidRequest) as caught:
        parse_request(data)
    (error,) = caught.value.errors
    assert error.message == "0001-01-02 is outside the dates this service plans, " + (
        f"{MIN_DATE.isoformat()} .. {MAX_DATE.isoformat()}"
    )


@pytest.mark.parametrize(("start", "end"), [(MIN_DATE, "1900-01-07"), ("2199-12-25", MAX_DATE)])
def test_the_first_and_last_dates_are_accepted(start: Any, end: Any) -> None:
    data = minimal_request_dict()
    data["schedule_period"] |= {"start_date": str(start), "end_date": str(end)}
    period = parse_request(data).schedule_period
    assert (str(period.start_date), str(period.end_date)) == (str(start), str(end))


def test_the_schema_of_a_date_keeps_its_pattern_and_names_the_range() -> None:
    schema = SolveRequest.model_json_schema()["$defs"]["SchedulePeriod"]["properties"]
    assert schema["start_date"]["type"] == "string"
    assert schema["start_date"]["pattern"] == r"^\d{4}-\d{2}-\d{2}$"
    assert "1900-01-01 .. 2199-12-31" in schema["start_date"]["description"]


@pytest.mark.parametrize("field", ["start_time", "end_time"])
@pytest.mark.parametrize("value", ["7:00", "24:00", "12:60", "12:00:00", "noon", 700, None])
def test_times_are_hh_mm(field: str, value: Any) -> None:
    only_fault((*SHIFT0, "working_hours", field), value, "invalid_format")


@pytest.mark.parametrize("value", ["00:00", "23:59", "19:30"])
def test_valid_times_are_accepted(value: str) -> None:
    shift = accepted((*SHIFT0, "working_hours", "start_time"), value).shifts[0]
    assert shift.working_hours is not None
    assert shift.working_hours.start_time == value


def test_timezone_must_not_be_empty() -> None:
    only_fault((*PERIOD, "timezone"), "", "too_short")


# ------------------------------------------------------------------------------ numbers


@pytest.mark.parametrize(
    ("path", "low", "high"),
    [
        ((*E0, "skill_levels", "lead"), 0, 10),
        ((*E0, "weekly_working_hours_limit", "hours"), 1, 168),
        (("options", "solver_timeout_seconds"), 1, 300),
    ],
)
def test_integer_ranges(path: tuple[str | int, ...], low: int, high: int) -> None:
    only_fault(path, low - 1, "out_of_range")
    only_fault(path, high + 1, "out_of_range")
    accepted(path, low)
    accepted(path, high)


@pytest.mark.parametrize(
    "path",
    [
        (*SHIFT0, "staffing_demand", 0, "min"),
        (*SHIFT0, "manager_demand", 0, "max"),
        ("duties", 0, "staffing_demand_by_shift", "day", 0, "min"),
        (*E0, "working_days_per_month", "min"),
        (*E0, "shift_count_limits", 0, "max"),
        (*CONSTRAINTS, "cross_shift_demands", 0, "min"),
    ],
)
def test_bounds_are_non_negative(path: tuple[str | int, ...]) -> None:
    only_fault(path, -1, "out_of_range")


@pytest.mark.parametrize(
    "path",
    [
        (*CONSTRAINTS, "max_consecutive_working_days"),
        (*CONSTRAINTS, "fairness_groups", 0, "penalty_weight"),
    ],
)
def test_positive_integers_reject_zero(path: tuple[str | int, ...]) -> None:
    only_fault(path, 0, "out_of_range")
    accepted(path, 1)


@pytest.mark.parametrize("value", ["1", 1.0, 1.5, True, None])
@pytest.mark.parametrize(
    "path",
    [
        (*SHIFT0, "staffing_demand", 0, "min"),
        (*E0, "skill_levels", "lead"),
        ("options", "solver_timeout_seconds"),
    ],
)
def test_integers_are_strict(path: tuple[str | int, ...], value: Any) -> None:
    only_fault(path, value, "wrong_type")


@pytest.mark.parametrize(
    "path", [(*E0, "is_manager"), (*CONSTRAINTS, "cross_shift_demands", 0, "managers_only")]
)
@pytest.mark.parametrize("value", ["true", "yes", 1, 0, None])
def test_booleans_are_strict(path: tuple[str | int, ...], value: Any) -> None:
    only_fault(path, value, "wrong_type")


# ------------------------------------------------------------------------- array sizes


def _shifts(count: int) -> list[dict[str, Any]]:
    return [shift_dict(f"s{i}", "07:00", "15:00") for i in range(count)]


def _employees(count: int) -> list[dict[str, Any]]:
    return [employee_dict(f"e{i}") for i in range(count)]


def test_shifts_number_1_to_12() -> None:
    assert faults(request_with(shifts=[], duties=[])) == {(("shifts",), "too_few_items")}
    assert faults(request_with(shifts=_shifts(13), duties=[])) == {(("shifts",), "too_many_items")}
    twelve = request_with(shifts=[*_shifts(10), *minimal_request_dict()["shifts"]])
    assert len(parse_request(twelve).shifts) == 12


def test_duties_number_at_most_15() -> None:
    def duties(count: int) -> list[dict[str, Any]]:
        return [
            {"id": f"k{i}", "name": "K", "staffing_demand_by_shift": {"day": demand(0, 1)}}
            for i in range(count)
        ]

    assert faults(request_with(duties=duties(16))) == {(("duties",), "too_many_items")}
    assert len(parse_request(request_with(duties=duties(15))).duties) == 15
    assert parse_request(request_with(duties=[])).duties == []


def test_employees_number_1_to_50() -> None:
    assert faults(request_with(employees=[])) == {(("employees",), "too_few_items")}
    assert faults(request_with(employees=_employees(51))) == {(("employees",), "too_many_items")}
    assert len(parse_request(request_with(employees=_employees(50))).employees) == 50


def test_fairness_groups_number_at_most_4() -> None:
    group = {"target_shift_ids": ["night"]}
    path = (*CONSTRAINTS, "fairness_groups")
    assert faults(replaced(full_request_dict(), path, [group] * 5)) == {(path, "too_many_items")}
    assert len(accepted(path, [group] * 4).constraints.fairness_groups) == 4


def test_available_weekdays_number_1_to_7() -> None:
    path = (*E0, "available_weekdays")
    only_fault(path, [], "too_few_items")
    only_fault(path, ["mon"] * 8, "too_many_items")
    week = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    assert accepted(path, week).employees[0].available_weekdays == week


@pytest.mark.parametrize(
    "path",
    [
        (*SHIFT0, "staffing_demand"),
        ("duties", 0, "staffing_demand_by_shift", "day"),
        (*E0, "assignable_shift_ids"),
        (*CONSTRAINTS, "cross_shift_demands", 0, "shift_ids"),
        (*CONSTRAINTS, "fairness_groups", 0, "target_shift_ids"),
    ],
)
def test_arrays_that_need_at_least_one_item(path: tuple[str | int, ...]) -> None:
    only_fault(path, [], "too_few_items")


def test_a_pairing_needs_at_least_two_employees() -> None:
    only_fault((*CONSTRAINTS, "employee_pairings", 0, "employee_ids"), ["e2"], "too_few_items")


# -------------------------------------------------------------------------------- enums


@pytest.mark.parametrize(
    ("path", "bad"),
    [
        ((*E0, "available_weekdays", 0), "monday"),
        ((*E0, "weekly_working_hours_limit", "enforcement"), "strict"),
        ((*CONSTRAINTS, "shift_transitions", 0, "rule"), "allow"),
        ((*CONSTRAINTS, "shift_transitions", 0, "enforcement"), "HARD"),
        ((*CONSTRAINTS, "employee_pairings", 0, "rule"), "include"),
        ((*CONSTRAINTS, "skill_support", "scope"), "team"),
        ((*CONSTRAINTS, "skill_support", "enforcement"), None),
        ((*CONSTRAINTS, "fairness_groups", 0, "policy"), "random"),
    ],
)
def test_enums(path: tuple[str | int, ...], bad: Any) -> None:
    only_fault(path, bad, "invalid_enum")


# -------------------------------------------------------------------------- preferences


@pytest.mark.parametrize(
    "preference",
    [
        {"type": "day_off", "date": "2026-03-03"},
        {"type": "preferred_shift", "date": "2026-03-03", "shift_id": "day"},
        {"type": "avoided_shift", "date": "2026-03-03", "shift_id": "night"},
    ],
)
def test_each_preference_type_is_accepted(preference: dict[str, str]) -> None:
    parsed = accepted(PREF0, preference).employees[0].preferences[0]
    assert parsed.type == preference["type"]


@pytest.mark.parametrize(
    ("preference", "missing"),
    [
        ({"type": "preferred_shift", "date": "2026-03-03"}, "shift_id"),
        ({"type": "avoided_shift", "shift_id": "day"}, "date"),
        ({"type": "day_off"}, "date"),
    ],
)
def test_preference_fields_depend_on_its_type(preference: dict[str, str], missing: str) -> None:
    data = replaced(full_request_dict(), PREF0, preference)
    assert faults(data) == {((*PREF0, missing), "missing_field")}


def test_a_preference_type_must_be_known() -> None:
    data = replaced(full_request_dict(), PREF0, {"type": "holiday", "date": "2026-03-03"})
    assert faults(data) == {((*PREF0, "type"), "invalid_enum")}


def test_a_preference_needs_a_type() -> None:
    data = replaced(full_request_dict(), PREF0, {"date": "2026-03-03"})
    assert faults(data) == {((*PREF0, "type"), "missing_field")}


def test_a_day_off_has_no_shift() -> None:
    data = replaced(
        full_request_dict(),
        PREF0,
        {"type": "day_off", "date": "2026-03-03", "shift_id": "day"},
    )
    assert faults(data) == {((*PREF0, "shift_id"), "unknown_field")}


@pytest.mark.parametrize("junk", ["day_off", 1, None, []])
def test_a_preference_must_be_an_object(junk: Any) -> None:
    only_fault(PREF0, junk, "wrong_type")


# --------------------------------------------------------------- unknown and missing keys


OBJECT_PATHS: list[tuple[str | int, ...]] = [
    (),
    PERIOD,
    SHIFT0,
    (*SHIFT0, "working_hours"),
    (*SHIFT0, "staffing_demand", 0),
    (*SHIFT0, "manager_demand", 0),
    ("duties", 0),
    ("duties", 0, "staffing_demand_by_shift", "day", 0),
    E0,
    PREF0,
    (*E0, "preferences", 1),
    (*E0, "preferences", 2),
    (*E0, "fixed_assignments", 0),
    (*E0, "working_days_per_month"),
    (*E0, "working_days_per_week"),
    (*E0, "shift_count_limits", 0),
    (*E0, "weekly_working_hours_limit"),
    CONSTRAINTS,
    (*CONSTRAINTS, "shift_transitions", 0),
    (*CONSTRAINTS, "employee_pairings", 0),
    (*CONSTRAINTS, "skill_support"),
    (*CONSTRAINTS, "cross_shift_demands", 0),
    (*CONSTRAINTS, "fairness_groups", 0),
    ("options",),
]


@pytest.mark.parametrize("path", OBJECT_PATHS)
def test_unknown_properties_are_rejected_at_every_level(path: tuple[str | int, ...]) -> None:
    only_fault((*path, "extra"), 1, "unknown_field")


@pytest.mark.parametrize(
    "path",
    [
        (*PERIOD, "start_date"),
        (*PERIOD, "end_date"),
        ("schedule_period",),
        ("shifts",),
        ("employees",),
        (*SHIFT0, "id"),
        (*SHIFT0, "name"),
        (*SHIFT0, "staffing_demand"),
        (*SHIFT0, "working_hours", "end_time"),
        (*SHIFT0, "staffing_demand", 0, "min"),
        ("duties", 0, "staffing_demand_by_shift"),
        (*E0, "id"),
        (*E0, "assignable_shift_ids"),
        (*PREF0, "date"),
        (*E0, "preferences", 1, "shift_id"),
        (*E0, "fixed_assignments", 0, "shift_id"),
        (*E0, "shift_count_limits", 0, "shift_id"),
        (*E0, "weekly_working_hours_limit", "hours"),
        (*CONSTRAINTS, "shift_transitions", 0, "to_shift_id"),
        (*CONSTRAINTS, "employee_pairings", 0, "rule"),
        (*CONSTRAINTS, "skill_support", "scope"),
        (*CONSTRAINTS, "cross_shift_demands", 0, "shift_ids"),
        (*CONSTRAINTS, "fairness_groups", 0, "target_shift_ids"),
    ],
)
def test_required_properties(path: tuple[str | int, ...]) -> None:
    assert faults(deleted(full_request_dict(), path)) == {(path, "missing_field")}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("shifts",), {"day": {}}),
        (PERIOD, "2026-03-02"),
        (CONSTRAINTS, None),
        (("options",), []),
        ((*SHIFT0, "working_hours"), "07:00-15:00"),
        ((*E0, "skill_levels"), ["lead"]),
        ((*E0, "assignable_shift_ids"), "day"),
        ((*E0, "assignable_shift_ids", 0), 1),
    ],
)
def test_wrong_json_types(path: tuple[str | int, ...], value: Any) -> None:
    only_fault(path, value, "wrong_type")


def test_every_fault_is_reported_at_once() -> None:
    data = full_request_dict()
    data["shifts"][0]["id"] = ""
    data["employees"][1]["extra"] = True
    data["options"]["solver_timeout_seconds"] = 0
    del data["constraints"]["skill_support"]["scope"]
    assert faults(data) == {
        (("shifts", 0, "id"), "too_short"),
        (("employees", 1, "extra"), "unknown_field"),
        (("options", "solver_timeout_seconds"), "out_of_range"),
        ((*CONSTRAINTS, "skill_support", "scope"), "missing_field"),
    }


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("shifts",), {}, "must be an array"),
        (("options",), [], "must be an object"),
        ((*E0, "id"), 7, "must be a string"),
        (("options", "solver_timeout_seconds"), "30", "must be an integer"),
        ((*E0, "is_manager"), "yes", "must be a boolean"),
        ((*E0, "bogus"), 1, "unknown property 'bogus'"),
        (
            (*PERIOD, "start_date"),
            "2026-02-30",
            "not a valid calendar date: day is out of range for month",
        ),
    ],
)
def test_messages_speak_json(path: tuple[str | int, ...], value: Any, message: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse_request(replaced(full_request_dict(), path, value))
    assert [(e.path, e.message) for e in caught.value.errors] == [(path, message)]


def test_a_missing_property_names_itself() -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse_request(deleted(full_request_dict(), (*E0, "assignable_shift_ids")))
    assert caught.value.errors[0].message == "required property 'assignable_shift_ids' is missing"
