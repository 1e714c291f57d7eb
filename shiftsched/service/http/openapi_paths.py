"""The path operations of the OpenAPI document: every operation of the pipeline, the jobs,
usage and the document itself.

Every operation lists its statuses, the headers it sets and the problem+json error types
it can answer with; for a pipeline operation they follow from its declaration (who pays,
whether it solves or queues), and its words from its docs.
"""

from __future__ import annotations

from typing import Any

from shiftsched.service.errors import (
    IdempotencyConflict,
    IdempotencyKeyReused,
    InternalError,
    InvalidIdempotencyKey,
    InvalidJson,
    LongSolveNotImplemented,
    NotFound,
    QuotaExceeded,
    RateLimited,
    ServiceUnavailable,
    SolverInfeasible,
    SolverTimeout,
    TierLimitExceeded,
    Unauthorized,
    ValidationFailed,
    WorkTimeout,
)
from shiftsched.service.http.openapi_responses import (
    BODY_ERRORS,
    CALLBACK_URL,
    IDEMPOTENCY_KEY,
    JOB_OUTCOMES,
    OFFER,
    PAYMENT_HEADERS,
    POLL_AFTER,
    QUEUED,
    REPLAYED,
    RETRY_AFTER,
    SETTLE_REFUSED_HEADERS,
    UNITS_HEADERS,
    Problems,
    header,
    json_content,
    problem_response,
)
from shiftsched.service.http.openapi_schemas import ref
from shiftsched.service.http.operations import OPERATIONS
from shiftsched.service.http.pipeline import STOP_OPERATION_ID, InLightPool, InPool, Operation


def operation_item(operation: Operation) -> dict[str, Any]:
    """The path item of an operation of the pipeline: what it may answer follows from its
    declaration (who pays, whether it solves or queues); its words come from its docs."""
    docs, payable = operation.docs, operation.payment == "key_or_payment"
    paid, solves = operation.payment != "free", isinstance(operation.run, InPool)
    light = isinstance(operation.run, InLightPool)
    charged = {**UNITS_HEADERS, **(PAYMENT_HEADERS if payable else {})}
    answered: dict[str, Any] = {"description": docs.answered}
    if paid:
        answered["headers"] = {**charged, **REPLAYED}
    responses: dict[str, Any] = {
        "200": {**answered, "content": json_content(operation.answer.__name__)}
    }
    if operation.queues:
        responses["202"] = {**QUEUED, "content": json_content(operation.answer.__name__)}

    def may_answer(errors: Problems, headers: dict[str, Any] | None = None) -> None:
        (status,) = {cls.status for cls in (errors if isinstance(errors, tuple) else (errors,))}
        responses.update(problem_response(errors, docs.notes.get(status, ""), headers))

    responses.update(BODY_ERRORS)
    keyed = (IdempotencyKeyReused,) if paid else ()
    if paid:
        may_answer((InvalidJson, InvalidIdempotencyKey), None)
        may_answer(IdempotencyConflict, RETRY_AFTER)
        may_answer(Unauthorized, SETTLE_REFUSED_HEADERS if payable else None)
    if payable:
        responses["402"] = OFFER
    if solves:
        may_answer((ValidationFailed, TierLimitExceeded, SolverInfeasible, *keyed), charged)
    elif paid and light:  # a question that solves nothing is still admitted by size
        may_answer((ValidationFailed, TierLimitExceeded, *keyed))
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
        item["parameters"] = [IDEMPOTENCY_KEY, *([CALLBACK_URL] if operation.queues else [])]
    item["requestBody"] = {"required": True, "content": json_content(operation.body.__name__)}
    item["responses"] = responses
    return {"post": item}


def _job_answer() -> dict[str, Any]:
    """What a job answers: the answer of the operation it was (every one paid for is
    kept: a solve's, a plan's, a ranking, a verdict)."""
    names = sorted({op.answer.__name__ for op in OPERATIONS if op.queues or op.keeps_job})
    if len(names) == 1:
        return json_content(names[0])
    return {"application/json": {"schema": {"anyOf": [ref(name) for name in names]}}}


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
                **problem_response(Unauthorized, "API key required"),
                **problem_response(NotFound, "no such job for this account"),
                **problem_response(ServiceUnavailable, headers=RETRY_AFTER),
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
                "200": {"description": "usage", "content": json_content("UsageResponse")},
                **problem_response(Unauthorized, "API key required"),
                **problem_response(ServiceUnavailable, "usage store unavailable", RETRY_AFTER),
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
                        "Retry-After": header("seconds to wait before polling the job (1)")
                    },
                    "content": _job_answer(),
                },
                **problem_response(Unauthorized, "API key required"),
                **problem_response(NotFound, "no such job for this account"),
                **problem_response(ServiceUnavailable, headers=RETRY_AFTER),
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
                    "content": json_content("JobProgress"),
                },
                **problem_response(Unauthorized, "API key required"),
                **problem_response(NotFound, "no such job for this account"),
                **problem_response(ServiceUnavailable, headers=RETRY_AFTER),
            },
        }
    }


def _events_path(parameters: list[dict[str, Any]]) -> dict[str, Any]:
    """The live stream of a job (shiftsched.service.solving.job_events)."""
    event = {
        "type": "string",
        "description": "event: progress, data: a JobProgress (each time it changes); then "
        "event: end, data: {job_id, status, error_code}, and the stream closes",
    }
    return {
        "get": {
            "operationId": "stream_solve_job_events",
            "summary": "Follow a job of your account live (server-sent events)",
            "description": "A text/event-stream of the job's progress as it changes (the "
            "body of GET /solve/jobs/{id}/progress as each event's data), then one end "
            "event with its final status; the roster is fetched from the job. Comments "
            "every 15 s keep the connection open. Reconnecting gives the progress as it "
            "stands, then the rest.",
            "security": [{"apiKey": []}],
            "parameters": parameters,
            "responses": {
                "200": {
                    "description": "the stream, until the job ends",
                    "content": {"text/event-stream": {"schema": event}},
                },
                **problem_response(Unauthorized, "API key required"),
                **problem_response(NotFound, "no such job for this account"),
                **problem_response(ServiceUnavailable, headers=RETRY_AFTER),
            },
        }
    }


def all_paths() -> dict[str, Any]:
    """Every operation of the pipeline, then the jobs (with the job-control operations
    beside the v1 one), usage and this document."""
    paths = {operation.path: operation_item(operation) for operation in OPERATIONS}
    stop, progress = _job_control_operations()
    paths["/solve/jobs/{id}"] = {**_job_path(), **stop}
    paths["/solve/jobs/{id}/progress"] = progress
    paths["/solve/jobs/{id}/events"] = _events_path(progress["get"]["parameters"])
    paths["/usage"] = _usage_path()
    paths["/openapi.json"] = _openapi_path()
    return paths
