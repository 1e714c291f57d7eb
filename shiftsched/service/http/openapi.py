"""The machine-readable description (OpenAPI 3.1), generated from the contract models.

Schemas come from the same pydantic models that validate requests, so the document can
never drift from what the server accepts. Every operation lists its statuses, the
headers it sets and the problem+json error types it can answer with.
"""

from __future__ import annotations

from copy import deepcopy
from functools import cache
from typing import Any, Final

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from shiftsched.contract.v1 import (
    ProblemDetails,
    SolveRequest,
    SolveResponse,
    UsageResponse,
    ValidateResponse,
)
from shiftsched.service.errors import (
    InternalError,
    InvalidJson,
    LongSolveNotImplemented,
    NotFound,
    PayloadTooLarge,
    QuotaExceeded,
    RateLimited,
    ServiceError,
    ServiceUnavailable,
    SolverInfeasible,
    SolverTimeout,
    TierLimitExceeded,
    Unauthorized,
    UnsupportedMediaType,
    ValidationFailed,
    WorkTimeout,
    error_types,
)
from shiftsched.service.http.operations import OPERATIONS
from shiftsched.service.http.pipeline import STOP_OPERATION_ID, InLightPool, InPool, Operation
from shiftsched.service.http.problems import PROBLEM_JSON
from shiftsched.service.http.schemas import beside_v1_schemas
from shiftsched.service.solving.job_control import JobProgress

REF = "#/components/schemas/{model}"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _json(name: str) -> dict[str, Any]:
    return {"application/json": {"schema": _ref(name)}}


Problems = type[ServiceError] | tuple[type[ServiceError], ...]


def _problem(
    errors: Problems,
    note: str = "",
    headers: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The response entry of the problem types an operation answers with at one status,
    keyed by that status: the types' own slugs and titles, and what the operation adds
    (``note``). docs of every type live on the error classes
    (``shiftsched.service.errors``)."""
    types = errors if isinstance(errors, tuple) else (errors,)
    (status,) = {cls.status for cls in types}
    slugs = ", ".join(cls.slug for cls in types)
    what = note or "; ".join(cls.title for cls in types)
    response: dict[str, Any] = {
        "description": f"{slugs}: {what}",
        "content": {PROBLEM_JSON: {"schema": _ref("ProblemDetails")}},
    }
    if headers:
        response["headers"] = headers
    return {str(status): response}


def _header(description: str, kind: str = "integer") -> dict[str, Any]:
    return {"description": description, "schema": {"type": kind}}


UNITS_HEADERS = {
    "X-Units-Consumed": _header(
        "units consumed by this request (0 when none); with X-Service-Billing-Status "
        "failed, the units that will be captured once usage can be recorded"
    ),
    "X-Units-Remaining": _header(
        "units available after the request; absent with X-Service-Billing-Status failed "
        "(the balance could not be read)"
    ),
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
    "stopped before the job finished, or the consumer solving it died on the job's second "
    "run: a job whose consumer dies is run once more under the same reservation, never "
    "charged twice; submit it again)."
)
POSITIVE_INTEGER_STRING = {"type": "string", "pattern": "^[1-9][0-9]*$"}
SETTLE_STATUSES = ["failed", "facilitator_error", "internal_error"]
PAYMENT_HEADERS = {
    "X-PAYMENT-RESPONSE": _header(
        "x402: the facilitator's settle response (base64 JSON); present only when an "
        "x402 payment was settled",
        "string",
    ),
    "PAYMENT-RESPONSE": _header(
        "x402 version 2 (a PAYMENT-SIGNATURE payload): the same base64 settle response",
        "string",
    ),
    "Payment-Receipt": _header(
        "mpp: the receipt of the captured payment (base64url); present only when the "
        "payment was captured",
        "string",
    ),
    "X-Service-Settle-Status": {
        "description": "set when a payment (x402 settlement or mpp capture) failed after "
        "the roster was produced: failed (the facilitator/provider refused, e.g. a nonce "
        "collision: no money moved, so the roster is withheld and the answer is 401 with "
        "this header; the payment is given back and can pay a later try), "
        "facilitator_error (facilitator/provider unreachable or no valid answer) or "
        "internal_error (an unexpected gateway-side fault). With the last two the money "
        "may have moved, so the roster is delivered with this header and the payment is "
        "held: it cannot pay another solve, and its settlement is retried until it gets "
        "an answer. Absent on success",
        "schema": {"type": "string", "enum": SETTLE_STATUSES},
    },
}
SETTLE_REFUSED_HEADERS = {
    "X-Service-Settle-Status": {
        "description": "failed: the roster was produced but the facilitator/provider "
        "refused the settlement outright, so it is withheld (nothing was charged)",
        "schema": {"type": "string", "enum": ["failed"]},
    },
}
PAYMENT_REQUIRED_HEADERS = {
    "WWW-Authenticate": _header(
        "one field per supported scheme: Bearer, X402 (when x402 is configured) and "
        "Payment (mpp challenge with the payments-link profile, when mpp is configured)",
        "string",
    ),
    "PAYMENT-REQUIRED": _header(
        "x402's own challenge: base64 JSON PaymentRequired (in the configured protocol "
        "version) for this request; present when x402 is configured",
        "string",
    ),
}
X402_DESCRIPTION = (
    "Pay per solve with x402: send a base64 JSON payment payload in X-PAYMENT (x402 "
    "protocol version 1) or PAYMENT-SIGNATURE (version 2). The service checks that it pays "
    "this request's requirements (scheme, network, pay_to, asset; price = units x the "
    "configured unit price, in the asset's atomic units), asks the facilitator to verify "
    "it before solving and to settle it after the roster is delivered. A payment is used "
    "once: one used before, or in use by a concurrent request, is refused (401); one "
    "authorization (payer, nonce) is one payment in either header. The "
    "requirements are in the 402 answer's accepts[] and PAYMENT-REQUIRED header."
)
MPP_DESCRIPTION = (
    "Pay per solve with mpp, the HTTP Payment authentication scheme, payments-link "
    "profile: the 402 answer carries the challenge in WWW-Authenticate (Payment ..., "
    'profile="payments-link"); pay it through the payment provider and send '
    "Authorization: Payment <credential> (or Payment-Authorization: Payment <credential> "
    "beside an Authorization: Bearer key). The provider's authorized payment is checked "
    "before solving and captured after the roster is delivered; the response then "
    "carries Payment-Receipt. A payment is used once (a replay is refused, 401)."
)
BODY_ERRORS = {
    **_problem(InvalidJson, "the body does not parse as JSON"),
    **_problem(PayloadTooLarge, "the body is over the 1 MB cap"),
    **_problem(UnsupportedMediaType, "Content-Type is not application/json"),
}


JOB_LINKS = {
    "Location": _header("the job: /v1/public/solve/jobs/{id}, from the server's root", "string"),
    "Link": _header(
        'the job\'s progress (rel="monitor", GET .../progress), its stop (DELETE on '
        f"the job; rel: this document's URL with the fragment #{STOP_OPERATION_ID}) and "
        "its page in the dashboard (rel=alternate, text/html), which shows the progress "
        "live and can stop the job",
        "string",
    ),
}
QUEUED = {
    "description": "queued (a pro key with a problem over 80,000 or a time limit over 30 s): "
    "job_id, status running, solution null; poll GET /solve/jobs/{id} (Location), follow "
    "its progress and stop it (Link). " + JOB_OUTCOMES,
    "headers": {**POLL_AFTER, **JOB_LINKS},
}
OFFER = {
    "description": "no credential: accepts[] lists every configured way to authorise this "
    "solve (API key, x402, mpp), priced for this request",
    "headers": PAYMENT_REQUIRED_HEADERS,
    "content": {PROBLEM_JSON: {"schema": _ref("PaymentRequiredProblem")}},
}
V1_MODELS: Final = (SolveRequest, SolveResponse, ValidateResponse)


def _operation_item(operation: Operation) -> dict[str, Any]:
    """The path item of an operation of the pipeline: what it may answer follows from its
    declaration (who pays, whether it solves or queues); its words come from its docs."""
    docs, payable = operation.docs, operation.payment == "key_or_payment"
    paid, solves = operation.payment != "free", isinstance(operation.run, InPool)
    light = isinstance(operation.run, InLightPool)
    charged = {**UNITS_HEADERS, **(PAYMENT_HEADERS if payable else {})}
    answered: dict[str, Any] = {"description": docs.answered}
    if paid:
        answered["headers"] = charged
    responses: dict[str, Any] = {"200": {**answered, "content": _json(operation.answer.__name__)}}
    if operation.queues:
        responses["202"] = {**QUEUED, "content": _json(operation.answer.__name__)}

    def may_answer(errors: Problems, headers: dict[str, Any] | None = None) -> None:
        (status,) = {cls.status for cls in (errors if isinstance(errors, tuple) else (errors,))}
        responses.update(_problem(errors, docs.notes.get(status, ""), headers))

    responses.update(BODY_ERRORS)
    if paid:
        may_answer(Unauthorized, SETTLE_REFUSED_HEADERS if payable else None)
    if payable:
        responses["402"] = OFFER
    if solves:
        may_answer((ValidationFailed, TierLimitExceeded, SolverInfeasible), charged)
    elif paid and light:  # a question that solves nothing is still admitted by size
        may_answer((ValidationFailed, TierLimitExceeded))
    else:
        may_answer(ValidationFailed)
    if paid:
        may_answer((QuotaExceeded, RateLimited))
    else:
        may_answer(RateLimited, RETRY_AFTER)
    if solves or light:
        may_answer(InternalError)
    if operation.queues:
        may_answer(LongSolveNotImplemented)
    if paid or light:
        may_answer(ServiceUnavailable, RETRY_AFTER)
    if solves:
        may_answer(SolverTimeout)
    elif light:
        may_answer(WorkTimeout)
    item: dict[str, Any] = {"operationId": operation.tool.name, "summary": docs.summary}
    if docs.description:
        item["description"] = docs.description
    if paid:
        item["security"] = [{"apiKey": []}, *([{"x402": []}, {"mpp": []}] if payable else [])]
    item["requestBody"] = {"required": True, "content": _json(operation.body.__name__)}
    item["responses"] = responses
    return {"post": item}


def _job_answer() -> dict[str, Any]:
    """What a job answers: the answer of the operation it was (every one paid for is
    kept: a solve's, a plan's, a ranking, a verdict)."""
    names = sorted({op.answer.__name__ for op in OPERATIONS if op.queues or op.keeps_job})
    if len(names) == 1:
        return _json(names[0])
    return {"application/json": {"schema": {"anyOf": [_ref(name) for name in names]}}}


def _job_path() -> dict[str, Any]:
    queued = " or ".join(f"POST {op.path}" for op in OPERATIONS if op.queues)
    return {
        "get": {
            "operationId": "get_solve_job",
            "summary": "Poll a queued solve of your account, or fetch a finished one",
            "description": f"Answers the job_id of a queued run ({queued}: the 202), "
            "whose answer is that operation's, and the job_id of every call charged to an "
            "API key of the same account (a solve, plan, re-plan, recommendation, "
            "explanation or why-not question: its 200, or its 422 solver-infeasible, whose "
            "problem carries the job_id), whose stored answer it answers again. A finished "
            "job can be fetched for the service's retention time, JOB_RETENTION_DAYS "
            "(default 30 days after it ended), then 404. Calls paid per request without an "
            "account, and calls that delivered nothing (and were not charged), are not kept.",
            "security": [{"apiKey": []}],
            "parameters": [
                {
                    "name": "id",
                    "in": "path",
                    "required": True,
                    "description": "the job_id of a 202, or of a charged 200 or 422 (32 "
                    "lowercase hex characters); any other id is 404",
                    "schema": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
                }
            ],
            "responses": {
                "200": {
                    "description": "running (with Retry-After), completed or failed. "
                    + JOB_OUTCOMES,
                    "headers": POLL_AFTER,
                    "content": _job_answer(),
                },
                **_problem(Unauthorized, "API key required"),
                **_problem(NotFound, "no such job for this account"),
                **_problem(ServiceUnavailable, headers=RETRY_AFTER),
            },
        }
    }


def _usage_path() -> dict[str, Any]:
    return {
        "get": {
            "operationId": "get_usage",
            "summary": "Units left on your key",
            "security": [{"apiKey": []}],
            "responses": {
                "200": {"description": "usage", "content": _json("UsageResponse")},
                **_problem(Unauthorized, "API key required"),
                **_problem(ServiceUnavailable, "usage store unavailable", RETRY_AFTER),
            },
        }
    }


def _openapi_path() -> dict[str, Any]:
    return {
        "get": {
            "operationId": "get_openapi",
            "summary": "This document",
            "responses": {"200": {"description": "OpenAPI 3.1 document"}},
        }
    }


STOP_OUTCOMES = (
    "A stop is heeded within about a second. A job that already has a roster completes "
    "with its best roster so far and is charged like any completed job; one without a "
    "roster fails with error.code cancelled and is not charged (its units are released). "
    "A job settles once, whichever way it ends."
)


def _job_control_operations() -> tuple[dict[str, Any], dict[str, Any]]:
    """Stopping a queued job (DELETE on the job) and watching it (its progress path), for
    shiftsched.service.solving.job_control; they go beside the v1 operations, which stay as they
    are."""
    job_id = {
        "name": "id",
        "in": "path",
        "required": True,
        "description": "the job_id of a 202 (32 lowercase hex characters); any other id is 404",
        "schema": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
    }
    return {
        "delete": {
            "operationId": STOP_OPERATION_ID,
            "summary": "Stop a queued solve of your account",
            "description": STOP_OUTCOMES,
            "security": [{"apiKey": []}],
            "parameters": [job_id],
            "responses": {
                "200": {
                    "description": "the job's final SolveResponse: it had already ended "
                    "(nothing changes, so a repeated stop is harmless), or it had not started "
                    "solving and failed at once with error.code cancelled (not charged)",
                    "content": _job_answer(),
                },
                "202": {
                    "description": "the job is solving and its stop was recorded: the job "
                    "as it stands (status running); poll GET /solve/jobs/{id} for its end",
                    "headers": {
                        "Retry-After": _header("seconds to wait before polling the job (1)")
                    },
                    "content": _job_answer(),
                },
                **_problem(Unauthorized, "API key required"),
                **_problem(NotFound, "no such job for this account"),
                **_problem(ServiceUnavailable, headers=RETRY_AFTER),
            },
        }
    }, {
        "get": {
            "operationId": "get_solve_job_progress",
            "summary": "How far a queued solve of your account has come",
            "description": "Elapsed solving time, best objective and bound so far, the "
            "number of improving rosters and the last few improvements; recorded by the "
            "process solving the job, so every replica of the service answers the same.",
            "security": [{"apiKey": []}],
            "parameters": [job_id],
            "responses": {
                "200": {
                    "description": "the job's progress (Retry-After while it runs)",
                    "headers": POLL_AFTER,
                    "content": _json("JobProgress"),
                },
                **_problem(Unauthorized, "API key required"),
                **_problem(NotFound, "no such job for this account"),
                **_problem(ServiceUnavailable, headers=RETRY_AFTER),
            },
        }
    }


def _paths() -> dict[str, Any]:
    """Every operation of the pipeline, then the jobs (with the job-control operations
    beside the v1 one), usage and this document."""
    paths = {operation.path: _operation_item(operation) for operation in OPERATIONS}
    stop, progress = _job_control_operations()
    paths["/solve/jobs/{id}"] = {**_job_path(), **stop}
    paths["/solve/jobs/{id}/progress"] = progress
    paths["/usage"] = _usage_path()
    paths["/openapi.json"] = _openapi_path()
    return paths


@cache
def _schemas() -> dict[str, Any]:
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (SolveRequest, "validation"),
        (SolveResponse, "serialization"),
        (ValidateResponse, "serialization"),
        (UsageResponse, "serialization"),
        (JobProgress, "serialization"),
        (ProblemDetails, "serialization"),
    ]
    _, top = models_json_schema(models, ref_template=REF)
    schemas = dict(top.get("$defs", {}))
    schemas.update(_payment_schemas(schemas["ProblemDetails"]))
    bodies = [op.body for op in OPERATIONS if op.body not in V1_MODELS]
    answers = [op.answer for op in OPERATIONS if op.answer not in V1_MODELS]
    for name, schema in beside_v1_schemas(bodies, answers).items():
        schemas.setdefault(name, schema)  # v1's own where they share one
    return schemas


def _accept(scheme: str, fields: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """One ``accepts[]`` entry of the 402 body, discriminated by ``scheme``."""
    return {
        "type": "object",
        "properties": {
            "scheme": {"type": "string", "const": scheme},
            **fields,
            "description": {"type": "string"},
            "docs": {"type": "string", "description": "where this API is described"},
        },
        "required": ["scheme", *required, "description"],
        "additionalProperties": False,
    }


def _payment_schemas(problem_details: dict[str, Any]) -> dict[str, Any]:
    """The 402 body (ProblemDetails with a required ``accepts[]``) and its three entries."""
    entries = {
        "ApiKeyAccept": _accept("api_key", {}, []),
        "X402Accept": _accept(
            "x402",
            {
                "version": {"type": "integer", "description": "x402 protocol version"},
                "x402_scheme": {"type": "string", "description": "x402 payment scheme"},
                "network": {"type": "string"},
                "pay_to": {"type": "string"},
                "asset": {"type": "string"},
                "max_amount_required": {
                    **POSITIVE_INTEGER_STRING,
                    "description": "price of this solve in the asset's atomic units",
                },
                "max_timeout_seconds": {"type": "integer", "exclusiveMinimum": 0},
            },
            [
                "version",
                "x402_scheme",
                "network",
                "pay_to",
                "asset",
                "max_amount_required",
                "max_timeout_seconds",
            ],
        ),
        "MppAccept": _accept(
            "mpp",
            {
                "profile": {"type": "string", "description": "payments-link"},
                "payments_account": {"type": "string"},
                "amount_minor": {
                    **POSITIVE_INTEGER_STRING,
                    "description": "price of this solve in minor units of the currency",
                },
                "currency": {"type": "string", "pattern": "^[a-z]{3}$"},
            },
            ["profile", "payments_account", "amount_minor", "currency"],
        ),
    }
    body = deepcopy(problem_details)
    body["title"] = "PaymentRequiredProblem"
    body["properties"]["status"] = {"type": "integer", "const": 402, "title": "Status"}
    body["properties"]["accepts"] = {
        "type": "array",
        "minItems": 1,
        "items": {
            "oneOf": [_ref(name) for name in entries],
            "discriminator": {
                "propertyName": "scheme",
                "mapping": {
                    "api_key": REF.format(model="ApiKeyAccept"),
                    "x402": REF.format(model="X402Accept"),
                    "mpp": REF.format(model="MppAccept"),
                },
            },
        },
        "title": "Accepts",
    }
    body["required"] = [*body.get("required", []), "accepts"]
    return {**entries, "PaymentRequiredProblem": body}


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
                + ", ".join(f"{cls.slug} ({cls.status})" for cls in error_types())
            ),
        },
        "servers": [{"url": server_url.rstrip("/")}],
        "paths": _paths(),
        "components": {
            "schemas": _schemas(),
            "securitySchemes": {
                "apiKey": {"type": "http", "scheme": "bearer"},
                "x402": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-PAYMENT",
                    "description": X402_DESCRIPTION,
                },
                "mpp": {"type": "http", "scheme": "Payment", "description": MPP_DESCRIPTION},
            },
        },
    }
