"""The served OpenAPI document against the v1 field tables, object by object.

The expected fields are copied from the contract's tables (required ones marked), so a
renamed, missing or extra field in the models shows up here as a contract break.
"""

from __future__ import annotations

from typing import Any

import pytest

from bento.openapi import openapi_document

# object -> (all properties, required properties), as the v1 tables list them
CONTRACT: dict[str, tuple[set[str], set[str]]] = {
    "SolveRequest": (
        {"schedule_period", "shifts", "duties", "employees", "constraints", "options"},
        {"schedule_period", "shifts", "employees"},
    ),
    "SchedulePeriod": (
        {"start_date", "end_date", "holidays", "timezone"},
        {"start_date", "end_date"},
    ),
    "Range": ({"min", "max"}, {"min", "max"}),
    "WorkingHours": ({"start_time", "end_time"}, {"start_time", "end_time"}),
    "Shift": (
        {"id", "name", "working_hours", "staffing_demand", "manager_demand"},
        {"id", "name", "staffing_demand"},
    ),
    "Duty": (
        {"id", "name", "staffing_demand_by_shift"},
        {"id", "name", "staffing_demand_by_shift"},
    ),
    "Employee": (
        {
            "id",
            "name",
            "is_manager",
            "assignable_shift_ids",
            "skill_levels",
            "preferences",
            "fixed_assignments",
            "working_days_per_month",
            "working_days_per_week",
            "available_weekdays",
            "shift_count_limits",
            "weekly_working_hours_limit",
        },
        {"id", "assignable_shift_ids"},
    ),
    "DayOffPreference": ({"type", "date"}, {"type", "date"}),
    "PreferredShiftPreference": ({"type", "date", "shift_id"}, {"type", "date", "shift_id"}),
    "AvoidedShiftPreference": ({"type", "date", "shift_id"}, {"type", "date", "shift_id"}),
    "FixedAssignment": ({"date", "shift_id", "duty_id"}, {"date", "shift_id"}),
    "ShiftCountLimit": ({"shift_id", "min", "max"}, {"shift_id"}),
    "WeeklyWorkingHoursLimit": ({"hours", "enforcement"}, {"hours"}),
    "Constraints": (
        {
            "shift_transitions",
            "max_consecutive_working_days",
            "employee_pairings",
            "skill_support",
            "cross_shift_demands",
            "fairness_groups",
        },
        set(),
    ),
    "ShiftTransition": (
        {"from_shift_id", "to_shift_id", "rule", "enforcement"},
        {"from_shift_id", "to_shift_id", "rule"},
    ),
    "EmployeePairing": ({"employee_ids", "rule"}, {"employee_ids", "rule"}),
    "SkillSupport": ({"scope", "enforcement"}, {"scope"}),
    "CrossShiftDemand": (
        {"date", "shift_ids", "duty_id", "managers_only", "min", "max"},
        {"date", "shift_ids"},
    ),
    "FairnessGroup": ({"target_shift_ids", "policy", "penalty_weight"}, {"target_shift_ids"}),
    "Options": ({"solver_timeout_seconds"}, set()),
    "ValidateResponse": (
        {"valid", "schedule_days", "shift_count", "duty_count", "employee_count", "hints"},
        {"valid", "schedule_days", "shift_count", "duty_count", "employee_count"},
    ),
    "UsageResponse": (
        {"free_quota_remaining", "balance_units", "available_units"},
        {"free_quota_remaining", "balance_units", "available_units"},
    ),
    "Usage": ({"units_consumed", "units_remaining"}, {"units_consumed", "units_remaining"}),
    "Diagnosis": ({"status", "causes", "probes"}, {"status", "causes", "probes"}),
    "Cause": ({"cause_type", "field", "message"}, {"cause_type", "field", "message"}),
}

# Objects the contract lets us extend (DECISIONS: shortage markers, solver status), with
# the contract's own fields that must be there.
EXTENSIBLE: dict[str, tuple[set[str], set[str]]] = {
    "SolveResponse": ({"job_id", "status", "solution", "usage", "error"}, {"job_id", "status"}),
    "Solution": ({"assignments", "metrics"}, {"assignments", "metrics"}),
    "Metrics": (
        {"solver_runtime_seconds", "objective_value", "soft_constraint_violations"},
        {"solver_runtime_seconds"},
    ),
    "ErrorInfo": ({"code", "message", "solver_status", "diagnosis"}, {"code"}),
    "ProblemDetails": (
        {"type", "title", "status", "detail", "instance", "request_id", "errors"},
        {"type", "title", "status"},
    ),
}


@pytest.fixture(scope="module")
def schemas() -> dict[str, Any]:
    document = openapi_document("http://localhost:3000/v1/public")
    found: dict[str, Any] = document["components"]["schemas"]
    return found


def named(schemas: dict[str, Any], name: str) -> dict[str, Any]:
    """A schema by name; pydantic may suffix request-side copies with -Input."""
    for key in (name, f"{name}-Input"):
        if key in schemas:
            found: dict[str, Any] = schemas[key]
            return found
    raise AssertionError(f"{name} missing from the OpenAPI schemas")


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_object_has_exactly_the_contract_fields(schemas: dict[str, Any], name: str) -> None:
    fields, required = CONTRACT[name]
    schema = named(schemas, name)
    assert set(schema["properties"]) == fields
    assert set(schema.get("required", [])) == required
    assert schema.get("additionalProperties") is False


@pytest.mark.parametrize("name", sorted(EXTENSIBLE))
def test_response_object_keeps_every_contract_field(schemas: dict[str, Any], name: str) -> None:
    fields, required = EXTENSIBLE[name]
    schema = named(schemas, name)
    assert fields <= set(schema["properties"])
    assert required <= set(schema.get("required", []))
