"""The served OpenAPI document against the v1 field tables, object by object.

The expected fields are copied from the contract's tables (required ones marked), so a
renamed, missing or extra field in the models shows up here as a contract break.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema_rs import Draft202012Validator
from schemathesis.specs.openapi.adapter.validators import validate_v3

from shiftsched.service.billing.paid import API_KEY_ENTRY
from shiftsched.service.billing.payments.config import MppSettings, X402Settings
from shiftsched.service.billing.payments.mpp_gateway import MppGateway
from shiftsched.service.billing.payments.x402_gateway import X402Gateway
from shiftsched.service.http.openapi import openapi_document

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

# Objects the contract lets us extend (docs/semantics.md, "What a result adds to the
# contract": shortage markers, solver status), with the contract's own fields that must be
# there.
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


# ------------------------------------------------------------------ paying for a solve

# accepts[] entry -> (scheme, all properties, required properties), as Authentication
# rule 3 lists them (docs is the one optional field)
ACCEPTS: dict[str, tuple[str, set[str], set[str]]] = {
    "ApiKeyAccept": ("api_key", {"scheme", "description", "docs"}, {"scheme", "description"}),
    "X402Accept": (
        "x402",
        {
            "scheme",
            "version",
            "x402_scheme",
            "network",
            "pay_to",
            "asset",
            "max_amount_required",
            "max_timeout_seconds",
            "description",
            "docs",
        },
        {
            "scheme",
            "version",
            "x402_scheme",
            "network",
            "pay_to",
            "asset",
            "max_amount_required",
            "max_timeout_seconds",
            "description",
        },
    ),
    "MppAccept": (
        "mpp",
        {
            "scheme",
            "profile",
            "payments_account",
            "amount_minor",
            "currency",
            "description",
            "docs",
        },
        {"scheme", "profile", "payments_account", "amount_minor", "currency", "description"},
    ),
}
PAID_HEADERS = {"X-PAYMENT-RESPONSE", "PAYMENT-RESPONSE", "Payment-Receipt"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return openapi_document("http://localhost:3000/v1/public")


def solve(document: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = document["paths"]["/solve"]["post"]
    return found


def conforms(document: dict[str, Any], name: str, instance: Any) -> bool:
    """Whether ``instance`` validates against the named component schema."""
    root = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    return Draft202012Validator(root).is_valid(instance)


def test_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    validate_v3(document)  # raises on a document that breaks the OpenAPI 3.1 schema


def test_every_schema_has_a_title_of_its_own(document: dict[str, Any]) -> None:
    """Client generators name a model by its title and drop a duplicate, with every
    schema that refers to it (tests/service/http/test_generated_client.py)."""
    schemas = document["components"]["schemas"]
    titles = [schema.get("title", name) for name, schema in schemas.items()]
    assert len(titles) == len(set(titles)), sorted(t for t in titles if titles.count(t) > 1)


def test_security_schemes_are_bearer_x402_and_mpp(document: dict[str, Any]) -> None:
    schemes = document["components"]["securitySchemes"]
    assert set(schemes) == {"apiKey", "x402", "mpp"}
    assert schemes["apiKey"] == {"type": "http", "scheme": "bearer"}
    x402 = schemes["x402"]
    assert (x402["type"], x402["in"], x402["name"]) == ("apiKey", "header", "X-PAYMENT")
    for words in ("PAYMENT-SIGNATURE", "version 2", "facilitator", "verify", "settle", "once"):
        assert words in x402["description"]
    mpp = schemes["mpp"]
    assert (mpp["type"], mpp["scheme"]) == ("http", "Payment")
    for words in ("payments-link", "WWW-Authenticate", "Payment-Authorization", "Bearer"):
        assert words in mpp["description"]
    assert "Payment-Receipt" in mpp["description"]


def test_solve_takes_any_of_three_credentials_the_rest_a_key(document: dict[str, Any]) -> None:
    assert solve(document)["security"] == [{"apiKey": []}, {"x402": []}, {"mpp": []}]
    assert document["paths"]["/solve/jobs/{id}"]["get"]["security"] == [{"apiKey": []}]
    assert document["paths"]["/usage"]["get"]["security"] == [{"apiKey": []}]
    assert "security" not in document["paths"]["/solve/validate"]["post"]


def test_402_is_a_payment_required_problem(document: dict[str, Any]) -> None:
    answer = solve(document)["responses"]["402"]
    schema = answer["content"]["application/problem+json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/PaymentRequiredProblem"}
    assert set(answer["headers"]) == {"WWW-Authenticate", "PAYMENT-REQUIRED"}
    assert not any(header.get("required") for header in answer["headers"].values())


def test_payment_required_problem_extends_problem_details(schemas: dict[str, Any]) -> None:
    body = schemas["PaymentRequiredProblem"]
    problem = schemas["ProblemDetails"]
    assert set(problem["properties"]) <= set(body["properties"])
    assert set(body["required"]) == set(problem["required"]) | {"accepts"}
    assert body["properties"]["status"]["const"] == 402
    accepts = body["properties"]["accepts"]
    assert (accepts["type"], accepts["minItems"]) == ("array", 1)
    refs = {f"#/components/schemas/{name}" for name in ACCEPTS}
    assert {entry["$ref"] for entry in accepts["items"]["oneOf"]} == refs
    discriminator = accepts["items"]["discriminator"]
    assert discriminator["propertyName"] == "scheme"
    assert discriminator["mapping"] == {
        scheme: f"#/components/schemas/{name}" for name, (scheme, _, _) in ACCEPTS.items()
    }


@pytest.mark.parametrize("name", sorted(ACCEPTS))
def test_accepts_entry_has_exactly_the_contract_fields(schemas: dict[str, Any], name: str) -> None:
    scheme, fields, required = ACCEPTS[name]
    schema = schemas[name]
    assert set(schema["properties"]) == fields
    assert set(schema["required"]) == required
    assert schema["properties"]["scheme"]["const"] == scheme


def test_accepts_entry_field_rules(schemas: dict[str, Any]) -> None:
    x402 = schemas["X402Accept"]["properties"]
    amount = x402["max_amount_required"]
    assert (amount["type"], amount["pattern"]) == ("string", "^[1-9][0-9]*$")
    assert x402["max_timeout_seconds"]["type"] == "integer"
    assert x402["max_timeout_seconds"]["exclusiveMinimum"] == 0
    assert x402["version"]["type"] == "integer"
    mpp = schemas["MppAccept"]["properties"]
    assert (mpp["amount_minor"]["type"], mpp["amount_minor"]["pattern"]) == (
        "string",
        "^[1-9][0-9]*$",
    )
    assert (mpp["currency"]["type"], mpp["currency"]["pattern"]) == ("string", "^[a-z]{3}$")


def test_the_gateways_offers_conform(document: dict[str, Any]) -> None:
    """What the 402 really lists, built from settings alone (no facilitator, no provider)."""
    docs = "http://localhost:3000/v1/public/openapi.json"
    x402 = X402Gateway(X402Settings(pay_to="0x" + "1" * 40)).accepts_entry(3, docs)
    mpp = MppGateway(MppSettings(payments_account="acct_1")).accepts_entry(3, docs)
    api_key = {**API_KEY_ENTRY, "docs": docs}
    for name, entry in (("X402Accept", x402), ("MppAccept", mpp), ("ApiKeyAccept", api_key)):
        assert conforms(document, name, entry), name
    body = {
        "type": "http://localhost:3000/v1/public/errors/payment-required",
        "title": "A credential is required",
        "status": 402,
        "request_id": "r1",
        "instance": "/v1/public/solve",
        "detail": "this solve costs 3 unit(s)",
        "accepts": [api_key, x402, mpp],
    }
    assert conforms(document, "PaymentRequiredProblem", body)
    assert not conforms(document, "PaymentRequiredProblem", {**body, "accepts": []})
    assert not conforms(document, "X402Accept", {**x402, "max_amount_required": "0"})
    assert not conforms(document, "X402Accept", {**x402, "max_timeout_seconds": 0})
    assert not conforms(document, "MppAccept", {**mpp, "currency": "USD"})
    assert not conforms(document, "MppAccept", {**mpp, "amount_minor": "01"})
    assert not conforms(document, "ApiKeyAccept", {"scheme": "api_key"})


def test_solve_200_documents_the_payment_headers(document: dict[str, Any]) -> None:
    headers = solve(document)["responses"]["200"]["headers"]
    assert PAID_HEADERS | {"X-Service-Settle-Status"} <= set(headers)
    assert {"X-Units-Consumed", "X-Units-Remaining", "X-Service-Billing-Status"} <= set(headers)
    settle = headers["X-Service-Settle-Status"]
    assert settle["schema"] == {
        "type": "string",
        "enum": ["failed", "facilitator_error", "internal_error"],
    }
    assert "mpp" in settle["description"]
    assert "base64" in headers["X-PAYMENT-RESPONSE"]["description"]
    assert "version 2" in headers["PAYMENT-RESPONSE"]["description"]
    assert "base64url" in headers["Payment-Receipt"]["description"]


def test_solve_error_descriptions_name_the_payment_cases(document: dict[str, Any]) -> None:
    responses = solve(document)["responses"]
    assert "X402" in responses["401"]["description"]
    assert "Payment" in responses["401"]["description"]
    assert "facilitator" in responses["503"]["description"]
    assert "provider" in responses["503"]["description"]
    assert "misconfigured" in responses["503"]["description"]
    assert "tier-limit-exceeded" in responses["422"]["description"]
    assert "x402/mpp" in responses["422"]["description"]


def test_solve_401_documents_a_withheld_roster_whose_settlement_was_refused(
    document: dict[str, Any],
) -> None:
    refused = solve(document)["responses"]["401"]
    assert refused["headers"]["X-Service-Settle-Status"]["schema"]["enum"] == ["failed"]
    assert "withheld" in refused["description"]
    assert "lease" in refused["description"]
