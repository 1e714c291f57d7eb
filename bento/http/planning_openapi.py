"""The OpenAPI description of re-planning and recommendations (``bento.http.operations``).

They go beside the v1 operations, which stay exactly as they are: their schemas are
generated apart from the v1 ones, since generating them together would split the v1
``Assignment`` into request and response copies (a published roster is input here,
while v1 only ever answers assignments). The roster's assignments are named
``RosterAssignment``; every other schema the two share with v1 is v1's own.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from bento.http.errors import (
    InternalError,
    QuotaExceeded,
    ServiceUnavailable,
    SolverInfeasible,
    SolverTimeout,
    TierLimitExceeded,
    Unauthorized,
    ValidationFailed,
)

REF: Final = "#/components/schemas/{model}"
ROSTER_ASSIGNMENT: Final = "RosterAssignment"

REPLAN_DESCRIPTION = (
    "Re-plan a published roster after a change, moving as few people as possible. The "
    "body holds the request (perhaps edited since), the published roster (its "
    "assignments), absences (an absent employee works none of those dates: hard), pins "
    "(each listed assignment is kept: hard; pin_before keeps every cell before that date, "
    "days off included) and change_weight, the objective price of each changed (employee, "
    "date) cell (default 500: above a preference, far below a missing head). The answer is "
    "a SolveResponse whose metrics are the request's own (the change penalty is not in "
    "them), plus changes[], every cell that differs from the published roster. Costs what "
    "a solve of the request costs, charged as POST /solve: a roster, or 422 "
    "solver-infeasible whose diagnosis names the absences and pins in conflict by their "
    "JSON paths (absences[i].dates[j], pinned[i], pin_before). Runs synchronously only, "
    "on any tier, with the request's time limit capped at 30 s (a large request is 422 "
    "tier-limit-exceeded); on an API key only; the answer's job_id is not kept."
)
RECOMMEND_DESCRIPTION = (
    "Rank the employees who could fill a slot (a shift on a date, optionally a duty) in "
    "a published roster, without solving: each candidate's move (taking the slot, leaving "
    "the shift they work that date) is priced by the independent audit of the edited "
    "roster: the hard rules it breaks, the objective delta and the soft terms it moves. "
    "Feasible moves first, then the smallest objective delta. Employees already in the "
    "slot and those absent on its date are not candidates. Costs "
    "1 unit, on an API key only."
)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _renamed(node: Any, old: str, new: str) -> Any:
    """``node`` with every reference to schema ``old`` pointed at ``new``."""
    if isinstance(node, dict):
        if node.get("$ref") == REF.format(model=old):
            return {**node, "$ref": REF.format(model=new)}
        return {key: _renamed(value, old, new) for key, value in node.items()}
    if isinstance(node, list):
        return [_renamed(value, old, new) for value in node]
    return node


@cache
def planning_schemas() -> dict[str, Any]:
    """The schemas of both operations' bodies and answers, new names only."""
    from engine.planning import RecommendRequest, RecommendResponse, ReplanRequest, ReplanResponse

    inputs: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (ReplanRequest, "validation"),
        (RecommendRequest, "validation"),
    ]
    outputs: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (ReplanResponse, "serialization"),
        (RecommendResponse, "serialization"),
    ]
    _, given = models_json_schema(inputs, ref_template=REF)
    _, answered = models_json_schema(outputs, ref_template=REF)
    schemas = dict(answered.get("$defs", {}))
    for name, schema in given.get("$defs", {}).items():
        if name == "Assignment":
            schemas[ROSTER_ASSIGNMENT] = schema
        else:
            schemas.setdefault(name, _renamed(schema, "Assignment", ROSTER_ASSIGNMENT))
    return schemas


def planning_paths(
    problem: Any, units_headers: dict[str, Any], retry_after: dict[str, Any], body_errors: Any
) -> dict[str, Any]:
    """The two path items; the helpers are the v1 document's own (``bento.http.openapi``)."""
    unauthorized = problem(
        Unauthorized,
        "no API key, or an unknown or disabled one (these operations take no payment, so "
        "a missing credential is 401, not the 402 offer of POST /solve)",
    )
    quota = problem(
        QuotaExceeded,
        "free quota and balance cannot cover the units, even once the "
        "account's solves under way have ended (no Retry-After: waiting will not help)",
    )
    store = problem(
        ServiceUnavailable,
        "the account store is unreachable, or the units are held by "
        "the account's solves under way (Retry-After); nothing was charged",
        retry_after,
    )
    return {
        "/solve/replan": {
            "post": {
                "operationId": "replan_shift",
                "summary": "Re-plan a published roster after absences, with pins; "
                "consumes the units of a solve of its request",
                "description": REPLAN_DESCRIPTION,
                "security": [{"apiKey": []}],
                "requestBody": {"required": True, "content": _json("ReplanRequest")},
                "responses": {
                    "200": {
                        "description": "the new roster (status completed), its usage and changes[]",
                        "headers": units_headers,
                        "content": _json("ReplanResponse"),
                    },
                    **body_errors,
                    **unauthorized,
                    **problem(
                        (ValidationFailed, TierLimitExceeded, SolverInfeasible),
                        "validation-error (errors[] with JSON paths, e.g. "
                        "[absences, 0, employee_id]), tier-limit-exceeded (a large request: "
                        "a re-plan runs synchronously only, on any tier), or "
                        "solver-infeasible (with solver_status and diagnosis; units are "
                        "consumed, as on POST /solve)",
                        units_headers,
                    ),
                    **quota,
                    **problem(InternalError, "the re-plan failed; nothing was charged"),
                    **problem(
                        ServiceUnavailable,
                        "every solver process stayed busy for the "
                        "queue wait or the waiting line is full (Retry-After), the "
                        "re-plan's process was lost or the service is stopping, the "
                        "account store is unreachable, or the units are held by the "
                        "account's solves under way; nothing was charged",
                        retry_after,
                    ),
                    **problem(SolverTimeout, "no roster within the time limit"),
                },
            }
        },
        "/solve/recommend": {
            "post": {
                "operationId": "recommend_employees",
                "summary": "Rank who could fill a slot, without solving; consumes 1 unit",
                "description": RECOMMEND_DESCRIPTION,
                "security": [{"apiKey": []}],
                "requestBody": {"required": True, "content": _json("RecommendRequest")},
                "responses": {
                    "200": {
                        "description": "the ranked candidates (the first top of them)",
                        "headers": units_headers,
                        "content": _json("RecommendResponse"),
                    },
                    **body_errors,
                    **unauthorized,
                    **problem(ValidationFailed, "errors[] with JSON paths, e.g. [slot, shift_id]"),
                    **quota,
                    **store,
                },
            }
        },
    }


def _json(name: str) -> dict[str, Any]:
    return {"application/json": {"schema": _ref(name)}}
