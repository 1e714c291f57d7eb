"""The machine-readable description (OpenAPI 3.1), generated from the contract models.

Schemas come from the same pydantic models that validate requests, so the document can
never drift from what the server accepts. Every operation lists its statuses, the
headers it sets and the problem+json error types it can answer with.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from bento.problems import PROBLEM_JSON, STATUS
from engine.contract import (
    ProblemDetails,
    SolveRequest,
    SolveResponse,
    UsageResponse,
    ValidateResponse,
)

REF = "#/components/schemas/{model}"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _json(name: str) -> dict[str, Any]:
    return {"application/json": {"schema": _ref(name)}}


def _problem(description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": description,
        "content": {PROBLEM_JSON: {"schema": _ref("ProblemDetails")}},
    }
    if headers:
        response["headers"] = headers
    return response


def _header(description: str, kind: str = "integer") -> dict[str, Any]:
    return {"description": description, "schema": {"type": kind}}


UNITS_HEADERS = {
    "X-Units-Consumed": _header("units consumed by this request (0 when none)"),
    "X-Units-Remaining": _header("units available after the request"),
    "X-Service-Billing-Status": _header(
        "'failed' when the result was delivered but recording the usage failed", "string"
    ),
}
RETRY_AFTER = {"Retry-After": _header("seconds to wait before retrying")}
POLL_AFTER = {
    "Retry-After": _header("seconds to wait before polling the job (15); sent while running")
}
JOB_OUTCOMES = (
    "A queued job holds its units from acceptance and settles once when it ends: completed "
    "(solution and usage) captures them; failed releases them, whatever error.code says: "
    "no_solution (with diagnosis when one was found; unlike the synchronous 422, a failed "
    "job is not charged), solver_timeout, internal_error, or interrupted (the service "
    "stopped or restarted before the job finished; submit it again)."
)
BODY_ERRORS = {
    "400": _problem("invalid JSON (type invalid-json)"),
    "413": _problem("body over the 1 MB cap (type payload-too-large)"),
    "415": _problem("Content-Type is not application/json (type unsupported-media-type)"),
}


def _operations() -> dict[str, Any]:
    body = {"required": True, "content": _json("SolveRequest")}
    return {
        "/solve/validate": {
            "post": {
                "operationId": "validate_shift_input",
                "summary": "Check a request without solving it (free, no authentication)",
                "requestBody": body,
                "responses": {
                    "200": {
                        "description": "valid, with hints",
                        "content": _json("ValidateResponse"),
                    },
                    **BODY_ERRORS,
                    "422": _problem("the request breaks the contract; errors[] has JSON paths"),
                },
            }
        },
        "/solve": {
            "post": {
                "operationId": "solve_shift",
                "summary": "Solve a request; consumes max(1, ceil(size / 10,000)) units",
                "security": [{"apiKey": []}],
                "requestBody": body,
                "responses": {
                    "200": {
                        "description": "a roster (status completed)",
                        "headers": UNITS_HEADERS,
                        "content": _json("SolveResponse"),
                    },
                    "202": {
                        "description": "queued (a pro key with a problem over 80,000 or a "
                        "time limit over 30 s): job_id, status running, solution null; poll "
                        "GET /solve/jobs/{id}. " + JOB_OUTCOMES,
                        "headers": POLL_AFTER,
                        "content": _json("SolveResponse"),
                    },
                    **BODY_ERRORS,
                    "401": _problem(
                        "invalid or disabled API key; WWW-Authenticate names the scheme"
                    ),
                    "402": _problem("no credential; accepts[] lists the supported ones"),
                    "422": _problem(
                        "validation-error, tier-limit-exceeded, or solver-infeasible (with "
                        "solver_status and diagnosis; units are consumed)",
                        UNITS_HEADERS,
                    ),
                    "429": _problem(
                        "quota-exceeded: free quota and balance cannot cover the solve (a "
                        "queued job reserves its units when accepted)"
                    ),
                    "500": _problem("internal-error: the solve failed; nothing was charged"),
                    "501": _problem(
                        "not-implemented: a time limit over 30 s needs the queued path, "
                        "which needs a pro key"
                    ),
                    "503": _problem(
                        "service-unavailable (account store or job queue unreachable); "
                        "nothing was charged",
                        RETRY_AFTER,
                    ),
                    "504": _problem("solver-timeout: no roster within the time limit"),
                },
            }
        },
        "/solve/jobs/{id}": {
            "get": {
                "operationId": "get_solve_job",
                "summary": "Poll a queued solve of your account",
                "security": [{"apiKey": []}],
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "running (with Retry-After), completed or failed. "
                        + JOB_OUTCOMES,
                        "headers": POLL_AFTER,
                        "content": _json("SolveResponse"),
                    },
                    "401": _problem("API key required"),
                    "404": _problem("no such job for this account"),
                    "503": _problem("service-unavailable", RETRY_AFTER),
                },
            }
        },
        "/usage": {
            "get": {
                "operationId": "get_usage",
                "summary": "Units left on your key",
                "security": [{"apiKey": []}],
                "responses": {
                    "200": {"description": "usage", "content": _json("UsageResponse")},
                    "401": _problem("API key required"),
                    "503": _problem("usage store unavailable", RETRY_AFTER),
                },
            }
        },
        "/openapi.json": {
            "get": {
                "operationId": "get_openapi",
                "summary": "This document",
                "responses": {"200": {"description": "OpenAPI 3.1 document"}},
            }
        },
    }


@cache
def _schemas() -> dict[str, Any]:
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (SolveRequest, "validation"),
        (SolveResponse, "serialization"),
        (ValidateResponse, "serialization"),
        (UsageResponse, "serialization"),
        (ProblemDetails, "serialization"),
    ]
    _, top = models_json_schema(models, ref_template=REF)
    return dict(top.get("$defs", {}))


def openapi_document(server_url: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the v1 public API as served at ``server_url``."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Shift scheduling solver",
            "version": "v1",
            "description": (
                "Builds shift rosters with a constraint solver. Units per solve = "
                "max(1, ceil(employees x shifts x max(1, duties) x days / 10,000)). "
                "Errors are application/problem+json; error types: "
                + ", ".join(f"{slug} ({status})" for slug, status in STATUS.items())
            ),
        },
        "servers": [{"url": server_url.rstrip("/")}],
        "paths": _operations(),
        "components": {
            "schemas": _schemas(),
            "securitySchemes": {"apiKey": {"type": "http", "scheme": "bearer"}},
        },
    }
