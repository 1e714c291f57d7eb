"""Cross-field rules (v1-interface.md rules 1..9 and the reference rules of
shiftsched.contract.parse).

Each test breaks one rule in an otherwise valid request and expects exactly the faults it
names, with their JSON paths and codes. The last tests feed parse_request random damage.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shiftsched.contract.cross_field import check
from shiftsched.contract.parse import ErrorCode, load_json, parse_request
from shiftsched.contract.planning import parse_plan, parse_recommend, parse_replan
from shiftsched.contract.v1 import MAX_PERIOD_DAYS, SolveRequest
from shiftsched.data import request_body as build
from shiftsched.errors import InvalidRequest
from shiftsched.questions.inquiry import parse_audit, parse_compare, parse_explain, parse_why
from tests.factories import (
    DELETE,
    START_DATE,
    demand,
    faults,
    full_request_dict,
    minimal_request_dict,
    replaced,
)

Path = tuple[str | int, ...]
E0: Path = ("employees", 0)
CONSTRAINTS: Path = ("constraints",)
CROSS0: Path = (*CONSTRAINTS, "cross_shift_demands", 0)


def broken(path: Path, value: Any, base: dict[str, Any] | None = None) -> set[tuple[Path, str]]:
    """The faults of the full request (or ``base``) with ``path`` set to ``value``."""
    return faults(replaced(base if base is not None else full_request_dict(), path, value))


def test_a_valid_request_has_no_cross_field_fault() -> None:
    assert check(parse_request(full_request_dict())) == []


def test_codes_are_snake_case_and_unique() -> None:
    values = [code.value for code in ErrorCode]
    assert len(values) == len(set(values))
    assert all(v.replace("_", "").isalpha() and v.islower() for v in values)


# ------------------------------------------------------------------ rule 1 and rule 7


@pytest.mark.parametrize("days", [6, 8])
def test_rule_1_staffing_demand_has_one_range_per_day(days: int) -> None:
    path: Path = ("shifts", 1, "staffing_demand")
    assert broken(path, demand(days=days)) == {(path, "demand_length_mismatch")}


def test_rule_1_duty_demand_has_one_range_per_day() -> None:
    path: Path = ("duties", 0, "staffing_demand_by_shift", "day")
    assert broken(path, demand(0, 1, days=3)) == {(path, "demand_length_mismatch")}


def test_rule_7_manager_demand_has_the_length_of_staffing_demand() -> None:
    path: Path = ("shifts", 0, "manager_demand")
    assert broken(path, demand(0, 1, days=2)) == {(path, "demand_length_mismatch")}


# --------------------------------------------------------------------------- rule 2


@pytest.mark.parametrize(
    "path",
    [
        ("shifts", 0, "staffing_demand", 3),
        ("shifts", 0, "manager_demand", 6),
        ("duties", 0, "staffing_demand_by_shift", "day", 0),
        (*E0, "working_days_per_month"),
        (*E0, "working_days_per_week"),
    ],
)
def test_rule_2_every_range_has_min_at_most_max(path: Path) -> None:
    assert broken(path, {"min": 3, "max": 2}) == {(path, "min_greater_than_max")}


def test_rule_2_min_equal_to_max_is_fine() -> None:
    assert broken(("shifts", 0, "staffing_demand", 0), {"min": 2, "max": 2}) == set()


# --------------------------------------------------------------------------- rule 3


def test_rule_3_start_date_not_after_end_date() -> None:
    path: Path = ("schedule_period", "start_date")
    assert broken(path, "2026-03-09") == {(path, "period_start_after_end")}


def test_rule_3_one_day_period() -> None:
    data = minimal_request_dict()
    data["schedule_period"]["end_date"] = "2026-03-02"
    for shift in data["shifts"]:
        shift["staffing_demand"] = demand(days=1)
    data["duties"][0]["staffing_demand_by_shift"]["day"] = demand(0, 1, days=1)
    assert faults(data) == set()


# ------------------------------------------------------------------ rules 4, 5, 8, 9


def test_rule_4_assignable_shifts_exist() -> None:
    path: Path = ("employees", 2, "assignable_shift_ids", 1)
    assert broken(path, "evening") == {(path, "unknown_shift_id")}


def test_rule_5_fairness_targets_exist() -> None:
    path: Path = (*CONSTRAINTS, "fairness_groups", 0, "target_shift_ids", 0)
    assert broken(path, "evening") == {(path, "unknown_shift_id")}


def test_rule_8_an_hours_limit_needs_working_hours_on_every_assignable_shift() -> None:
    data = replaced(full_request_dict(), ("shifts", 1, "working_hours"), DELETE)
    assert faults(data) == {((*E0, "assignable_shift_ids", 1), "missing_working_hours")}


def test_rule_8_without_an_hours_limit_working_hours_are_optional() -> None:
    data = replaced(minimal_request_dict(), ("shifts", 1, "working_hours"), DELETE)
    assert faults(data) == set()


def test_rule_9_shift_count_limit_references_a_shift() -> None:
    path: Path = (*E0, "shift_count_limits", 0, "shift_id")
    assert broken(path, "evening") == {(path, "unknown_shift_id")}


def test_rule_9_shift_count_limit_needs_a_bound() -> None:
    path: Path = (*E0, "shift_count_limits", 0)
    assert broken(path, {"shift_id": "night"}) == {(path, "missing_bound")}
    assert broken(path, {"shift_id": "night", "min": 1}) == set()
    assert broken(path, {"shift_id": "night", "max": 1}) == set()


def test_rule_9_shift_count_limit_min_at_most_max() -> None:
    path: Path = (*E0, "shift_count_limits", 0)
    value = {"shift_id": "night", "min": 4, "max": 3}
    assert broken(path, value) == {(path, "min_greater_than_max")}


# --------------------------------------------------------------------------- rule 6


def test_rule_6_cross_shift_demand_needs_a_bound() -> None:
    value = {"date": "2026-03-03", "shift_ids": ["day"]}
    assert broken(CROSS0, value) == {(CROSS0, "missing_bound")}
    assert broken(CROSS0, value | {"max": 0}) == set()


def test_rule_6_cross_shift_demand_min_at_most_max() -> None:
    value = {"date": "2026-03-03", "shift_ids": ["day"], "min": 2, "max": 1}
    assert broken(CROSS0, value) == {(CROSS0, "min_greater_than_max")}


def test_rule_6_cross_shift_demand_references_shifts_and_duty() -> None:
    value = {"date": "2026-03-03", "shift_ids": ["day", "late"], "duty_id": "chef", "min": 1}
    assert broken(CROSS0, value) == {
        ((*CROSS0, "shift_ids", 1), "unknown_shift_id"),
        ((*CROSS0, "duty_id"), "unknown_duty_id"),
    }


@pytest.mark.parametrize("day", ["2026-03-01", "2026-03-09"])
def test_rule_6_cross_shift_demand_date_inside_the_period(day: str) -> None:
    path: Path = (*CROSS0, "date")
    assert broken(path, day) == {(path, "date_outside_period")}


# ------------------------------------------------------------------------ duplicate ids


@pytest.mark.parametrize("section", ["shifts", "employees"])
def test_duplicate_ids_point_at_the_later_item(section: str) -> None:
    data = full_request_dict()
    data[section].append(copy.deepcopy(data[section][0]))
    assert faults(data) == {((section, len(data[section]) - 1, "id"), "duplicate_id")}


def test_duplicate_duty_ids() -> None:
    data = full_request_dict()
    data["duties"].append(data["duties"][0] | {"name": "Second lead"})
    assert faults(data) == {(("duties", 1, "id"), "duplicate_id")}


def test_each_later_duplicate_is_reported() -> None:
    data = minimal_request_dict()
    data["employees"] += [copy.deepcopy(data["employees"][0]) for _ in range(2)]
    assert faults(data) == {
        (("employees", 3, "id"), "duplicate_id"),
        (("employees", 4, "id"), "duplicate_id"),
    }


# ----------------------------------------------------------------- other references


def test_skill_levels_keys_are_duty_ids() -> None:
    path: Path = (*E0, "skill_levels")
    assert broken(path, {"lead": 5, "chef": 3}) == {((*path, "chef"), "unknown_duty_id")}


def test_duty_demand_keys_are_shift_ids() -> None:
    path: Path = ("duties", 0, "staffing_demand_by_shift")
    value = {"day": demand(0, 1), "late": demand(0, 1)}
    assert broken(path, value) == {((*path, "late"), "unknown_shift_id")}


@pytest.mark.parametrize("index", [1, 2])
def test_preference_shift_ids_exist(index: int) -> None:
    path: Path = (*E0, "preferences", index, "shift_id")
    assert broken(path, "late") == {(path, "unknown_shift_id")}


@pytest.mark.parametrize("field", ["from_shift_id", "to_shift_id"])
def test_shift_transitions_reference_shifts(field: str) -> None:
    path: Path = (*CONSTRAINTS, "shift_transitions", 0, field)
    assert broken(path, "late") == {(path, "unknown_shift_id")}


def test_pairing_employees_exist_and_are_not_repeated() -> None:
    path: Path = (*CONSTRAINTS, "employee_pairings", 0, "employee_ids")
    assert broken(path, ["e2", "e9", "e2", "e3", "e3"]) == {
        ((*path, 1), "unknown_employee_id"),
        ((*path, 2), "duplicate_reference"),
        ((*path, 4), "duplicate_reference"),
    }


# ------------------------------------------------------------------ the period's ceiling

END: Path = ("schedule_period", "end_date")


def lasting(days: int) -> dict[str, Any]:
    """The minimal request over ``days`` days from its start, its demand one per day."""
    data = minimal_request_dict()
    data["schedule_period"]["end_date"] = build.day(START_DATE, days - 1)
    for shift in data["shifts"]:
        shift["staffing_demand"] = demand(days=days)
    data["duties"][0]["staffing_demand_by_shift"]["day"] = demand(0, 1, days=days)
    return data


def test_a_period_of_the_ceiling_is_accepted() -> None:
    assert faults(lasting(MAX_PERIOD_DAYS)) == set()


def test_a_period_longer_than_the_ceiling_is_one_fault_at_its_end_date() -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse_request(lasting(MAX_PERIOD_DAYS + 1))
    (error,) = caught.value.errors
    assert (error.path, error.code) == (END, "out_of_range")
    assert "has 401 days; at most 400" in error.message
    assert "period by period" in error.message and "POST /solve/plan" in error.message


def test_a_period_too_long_skips_the_rules_measured_against_it() -> None:
    """As for an inverted period: demand lengths and dates are not measured against it."""
    data = full_request_dict()
    data["schedule_period"]["end_date"] = build.day(START_DATE, MAX_PERIOD_DAYS)
    data["schedule_period"]["holidays"] = ["2026-01-01"]
    request = SolveRequest.model_validate(data)
    assert [(f.path, f.code) for f in check(request)] == [(END, "out_of_range")]


def test_a_period_too_long_is_refused_before_its_arrays_are_read() -> None:
    """A body of many demand ranges costs the reading of its two dates, nothing more."""
    data = lasting(MAX_PERIOD_DAYS + 1)
    data["shifts"][0]["staffing_demand"] = ["not a range"] * (MAX_PERIOD_DAYS + 1)
    data["unknown"] = True
    assert faults(data) == {(END, "out_of_range")}


@pytest.mark.parametrize(
    "parse",
    [
        parse_audit,
        parse_compare,
        parse_explain,
        parse_why,
        parse_plan,
        parse_replan,
        parse_recommend,
    ],
)
def test_every_operation_refuses_the_long_period_of_its_request(
    parse: Callable[[object], object],
) -> None:
    long = lasting(MAX_PERIOD_DAYS + 1)
    long["shifts"][0]["staffing_demand"] = [None] * (MAX_PERIOD_DAYS + 1)
    with pytest.raises(InvalidRequest) as caught:
        parse({"request": long, "roster": "not a roster"})
    assert [(e.path, e.code) for e in caught.value.errors] == [(("request", *END), "out_of_range")]


def test_malformed_dates_are_left_to_the_field_rules() -> None:
    data = lasting(MAX_PERIOD_DAYS + 1)
    data["schedule_period"]["start_date"] = "1899-12-31"
    data["unknown"] = True
    assert faults(data) == {
        (("schedule_period", "start_date"), "out_of_range"),
        (("unknown",), "unknown_field"),
    }


# ------------------------------------------------------------------- dates in period


@pytest.mark.parametrize(
    "path",
    [
        ("schedule_period", "holidays", 0),
        (*E0, "preferences", 0, "date"),
        (*E0, "preferences", 2, "date"),
        (*E0, "fixed_assignments", 0, "date"),
    ],
)
@pytest.mark.parametrize("day", ["2026-03-01", "2026-03-09", "2025-03-04"])
def test_dates_lie_inside_the_period(path: Path, day: str) -> None:
    assert broken(path, day) == {(path, "date_outside_period")}


def test_an_inverted_period_reports_only_itself() -> None:
    """Lengths and dates are measured against the period; while it is inverted they are not."""
    data = full_request_dict()
    data["schedule_period"] |= {"start_date": "2026-03-10", "end_date": "2026-03-01"}
    data["shifts"][0]["staffing_demand"] = demand(days=2)
    data["shifts"][0]["staffing_demand"][1] = {"min": 2, "max": 1}
    assert faults(data) == {
        (("schedule_period", "start_date"), "period_start_after_end"),
        (("shifts", 0, "staffing_demand", 1), "min_greater_than_max"),
    }


# ----------------------------------------------------------------- fixed assignments

FIXED: Path = (*E0, "fixed_assignments")


def test_fixed_assignment_references() -> None:
    value = [
        {"date": "2026-03-03", "shift_id": "late"},
        {"date": "2026-03-04", "shift_id": "day", "duty_id": "chef"},
    ]
    assert broken(FIXED, value) == {
        ((*FIXED, 0, "shift_id"), "unknown_shift_id"),
        ((*FIXED, 1, "duty_id"), "unknown_duty_id"),
    }


def test_fixed_duty_must_be_defined_on_the_fixed_shift() -> None:
    value = [{"date": "2026-03-03", "shift_id": "night", "duty_id": "lead"}]
    assert broken(FIXED, value) == {((*FIXED, 0, "duty_id"), "duty_not_on_shift")}


def test_fixed_assignment_outside_assignable_shifts_is_not_a_rule_error() -> None:
    """It makes the problem infeasible, which the solver and validate's hints report."""
    data = minimal_request_dict()
    data["employees"][0]["assignable_shift_ids"] = ["night"]
    data["employees"][0]["fixed_assignments"] = [{"date": "2026-03-03", "shift_id": "day"}]
    assert faults(data) == set()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"shift_id": "day"}, {"shift_id": "night"}),
        ({"shift_id": "day", "duty_id": "lead"}, {"shift_id": "night"}),
    ],
)
def test_one_fixed_shift_per_date(first: dict[str, str], second: dict[str, str]) -> None:
    day = {"date": "2026-03-03"}
    value = [{"date": "2026-03-04", "shift_id": "night"}, day | first, day | second]
    assert broken(FIXED, value) == {((*FIXED, 2), "conflicting_fixed_assignments")}


def test_one_fixed_duty_per_shift() -> None:
    data = minimal_request_dict()
    data["duties"].append(data["duties"][0] | {"id": "cook"})
    fixes = [
        {"date": "2026-03-03", "shift_id": "day"},
        {"date": "2026-03-03", "shift_id": "day", "duty_id": "lead"},
        {"date": "2026-03-03", "shift_id": "day", "duty_id": "lead"},
        {"date": "2026-03-03", "shift_id": "day", "duty_id": "cook"},
    ]
    assert broken(FIXED, fixes, data) == {((*FIXED, 3), "conflicting_fixed_assignments")}


# ------------------------------------------------------------------------- timezone


@pytest.mark.parametrize("name", ["Mars/Olympus", "Europe", "../etc/passwd", "/UTC", "x" * 300])
def test_timezone_is_an_iana_name(name: str) -> None:
    path: Path = ("schedule_period", "timezone")
    assert broken(path, name) == {(path, "invalid_timezone")}


@pytest.mark.parametrize("name", ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires"])
def test_valid_timezones(name: str) -> None:
    assert broken(("schedule_period", "timezone"), name) == set()


# ---------------------------------------------------------------------- all at once


def test_every_cross_field_fault_is_reported() -> None:
    data = full_request_dict()
    data["shifts"][1]["staffing_demand"] = demand(days=5)
    data["employees"][2]["assignable_shift_ids"] = ["late"]
    data["schedule_period"]["timezone"] = "Nowhere/Land"
    data["constraints"]["fairness_groups"][0]["target_shift_ids"] = ["early"]
    with pytest.raises(InvalidRequest) as caught:
        parse_request(data)
    assert [(e.path, e.code) for e in caught.value.errors] == [
        (("schedule_period", "timezone"), "invalid_timezone"),
        (("shifts", 1, "staffing_demand"), "demand_length_mismatch"),
        (("employees", 2, "assignable_shift_ids", 0), "unknown_shift_id"),
        ((*CONSTRAINTS, "fairness_groups", 0, "target_shift_ids", 0), "unknown_shift_id"),
    ]
    assert all(e.message for e in caught.value.errors)


def test_cross_field_rules_wait_for_field_rules() -> None:
    """Typed values are needed to compare fields, so a field fault hides cross-field ones."""
    data = replaced(full_request_dict(), ("options", "solver_timeout_seconds"), 0)
    data["employees"][0]["assignable_shift_ids"] = ["late"]
    assert faults(data) == {(("options", "solver_timeout_seconds"), "out_of_range")}


def test_parse_request_accepts_a_parsed_request() -> None:
    request = parse_request(full_request_dict())
    assert parse_request(request) is request


def test_errors_serialise_as_json() -> None:
    data = replaced(full_request_dict(), (*E0, "preferences", 1, "type"), "nope")
    with pytest.raises(InvalidRequest) as caught:
        parse_request(data)
    payload = json.loads(json.dumps([e.as_dict() for e in caught.value.errors]))
    assert payload == [
        {
            "path": ["employees", 0, "preferences", 1, "type"],
            "message": "'type' must be one of avoided_shift, day_off, preferred_shift",
            "code": "invalid_enum",
        }
    ]


# --------------------------------------------------------------------- random damage

JSON_SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=12)
JSON_VALUES = st.recursive(
    JSON_SCALARS | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)


def _containers(node: Any, path: Path = ()) -> list[Path]:
    """Paths of every object and array inside a JSON value, the root included."""
    if isinstance(node, dict):
        children: list[tuple[str | int, Any]] = list(node.items())
    elif isinstance(node, list):
        children = list(enumerate(node))
    else:
        return []
    found = [path]
    for key, child in children:
        found += _containers(child, (*path, key))
    return found


def _at(node: Any, path: Path) -> Any:
    for segment in path:
        node = node[segment]
    return node


@st.composite
def damaged_requests(draw: st.DrawFn) -> Any:
    """A valid request after a few random deletions, replacements, additions, truncations."""
    data = draw(st.sampled_from([minimal_request_dict, full_request_dict]))()
    for _ in range(draw(st.integers(1, 4))):
        target = _at(data, draw(st.sampled_from(_containers(data))))
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        action = draw(st.sampled_from(["delete", "junk", "extra", "truncate", "duplicate"]))
        if action == "extra" and isinstance(target, dict):
            target[draw(st.text(max_size=8))] = draw(JSON_VALUES)
        elif action == "extra":
            target.append(draw(JSON_VALUES))
        elif not keys:
            continue
        elif action == "delete":
            del target[draw(st.sampled_from(keys))]
        elif action == "junk":
            target[draw(st.sampled_from(keys))] = draw(JSON_VALUES)
        elif action == "truncate" and isinstance(target, list):
            del target[draw(st.integers(0, len(target) - 1)) :]
        elif action == "duplicate" and isinstance(target, list):
            target.append(copy.deepcopy(target[draw(st.sampled_from(keys))]))
    return data


def _assert_well_formed(error: Any) -> None:
    assert isinstance(error.path, tuple)
    assert all(isinstance(s, str | int) and not isinstance(s, bool) for s in error.path)
    assert error.code in {code.value for code in ErrorCode}
    assert isinstance(error.message, str) and error.message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_requests())
def test_damaged_requests_parse_or_raise_invalid_request(data: Any) -> None:
    try:
        request = parse_request(data)
    except InvalidRequest as exc:
        assert exc.errors
        for error in exc.errors:
            _assert_well_formed(error)
    else:
        assert isinstance(request, SolveRequest)


@settings(max_examples=60, deadline=None)
@given(JSON_VALUES)
def test_any_json_value_raises_invalid_request(data: Any) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse_request(data)
    for error in caught.value.errors:
        _assert_well_formed(error)


def test_error_paths_lead_to_real_values_or_missing_keys() -> None:
    """A path is a real JSON path: every segment but a missing last key exists in the input."""
    data = full_request_dict()
    data["employees"][0]["preferences"][1] = {"type": "preferred_shift", "date": 5, "x": 1}
    data["shifts"][0]["staffing_demand"][2] = "busy"
    del data["employees"][1]["assignable_shift_ids"]
    errors = {(e.path, e.code) for e in _errors(data)}
    pref: Path = (*E0, "preferences", 1)
    assert errors == {
        ((*pref, "date"), "invalid_format"),
        ((*pref, "shift_id"), "missing_field"),
        ((*pref, "x"), "unknown_field"),
        (("shifts", 0, "staffing_demand", 2), "wrong_type"),
        (("employees", 1, "assignable_shift_ids"), "missing_field"),
    }


def _errors(data: Any) -> list[Any]:
    with pytest.raises(InvalidRequest) as caught:
        parse_request(data)
    return list(caught.value.errors)


def test_a_bad_mapping_key_points_at_its_mapping_entry() -> None:
    """Not JSON, but JSON-like: a non-string key is reported without pydantic's [key] marker."""
    path: Path = (*E0, "skill_levels")
    assert broken(path, {1: 2}) == {((*path, 1), "wrong_type")}


def test_a_property_named_like_a_pydantic_marker_is_still_a_real_path() -> None:
    path: Path = (*E0, "[key]")
    assert broken(path, 1) == {(path, "unknown_field")}


def test_load_json_names_the_source_line_and_code() -> None:
    with pytest.raises(InvalidRequest) as caught:
        load_json(b'{"schedule_period": ', "upload.json")
    (fault,) = caught.value.errors
    assert fault.code == "invalid_json" and fault.path == ()
    assert "upload.json is not valid JSON" in fault.message and "line 1" in fault.message
    assert str(fault).startswith("(root): upload.json is not valid JSON")


def test_load_json_refuses_bytes_that_are_not_utf8() -> None:
    with pytest.raises(InvalidRequest) as caught:
        load_json(b"\xff\xfe{}", "upload.json")
    assert caught.value.errors[0].code == "invalid_json"
