"""The response and header entries the OpenAPI document's operations share.

Why apart from the paths: one status or header is answered by many operations (the units
headers of every paid one, the body errors of every POST, the 402 offer of every payable
one), so each is written once here and the paths only pick them. The words of each
problem type live on its error class (``shiftsched.service.errors``).
"""

from __future__ import annotations

from typing import Any

from shiftsched.service.errors import (
    InvalidJson,
    PayloadTooLarge,
    ServiceError,
    UnsupportedMediaType,
)
from shiftsched.service.http.openapi_schemas import ref
from shiftsched.service.http.pipeline import STOP_OPERATION_ID
from shiftsched.service.http.problems import PROBLEM_JSON


def json_content(name: str) -> dict[str, Any]:
    return {"application/json": {"schema": ref(name)}}


Problems = type[ServiceError] | tuple[type[ServiceError], ...]


def problem_response(
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
        "content": {PROBLEM_JSON: {"schema": ref("ProblemDetails")}},
    }
    if headers:
        response["headers"] = headers
    return {str(status): response}


def header(description: str, kind: str = "integer") -> dict[str, Any]:
    return {"description": description, "schema": {"type": kind}}


UNITS_HEADERS = {
    "X-Units-Consumed": header(
        "units consumed by this request (0 when none); with X-Service-Billing-Status "
        "failed, the units that will be captured once usage can be recorded"
    ),
    "X-Units-Remaining": header(
        "units available after the request; absent with X-Service-Billing-Status failed "
        "(the balance could not be read)"
    ),
    "X-Service-Billing-Status": header(
        "'failed' when the result was delivered but recording the usage failed", "string"
    ),
}
RETRY_AFTER = {"Retry-After": header("seconds to wait before retrying")}
POLL_AFTER = {
    "Retry-After": header("seconds to wait before polling the job (15); sent while running")
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
SETTLE_STATUSES = ["failed", "facilitator_error", "internal_error"]
PAYMENT_HEADERS = {
    "X-PAYMENT-RESPONSE": header(
        "x402: the facilitator's settle response (base64 JSON); present only when an "
        "x402 payment was settled",
        "string",
    ),
    "PAYMENT-RESPONSE": header(
        "x402 version 2 (a PAYMENT-SIGNATURE payload): the same base64 settle response",
        "string",
    ),
    "Payment-Receipt": header(
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
    "WWW-Authenticate": header(
        "one field per supported scheme: Bearer, X402 (when x402 is configured) and "
        "Payment (mpp challenge with the payments-link profile, when mpp is configured)",
        "string",
    ),
    "PAYMENT-REQUIRED": header(
        "x402's own challenge: base64 JSON PaymentRequired (in the configured protocol "
        "version) for this request; present when x402 is configured",
        "string",
    ),
}
BODY_ERRORS = {
    **problem_response(InvalidJson, "the body does not parse as JSON"),
    **problem_response(PayloadTooLarge, "the body is over the 1 MB cap"),
    **problem_response(UnsupportedMediaType, "Content-Type is not application/json"),
}


IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Makes a retry safe: the same key and body within 24 hours answer the "
    "first call's answer again (status, headers, body, job_id), charging nothing more; "
    "while the first call runs, 409 with Retry-After; with another body, 422 "
    "idempotency-key-reused. Per account and operation; a call that ended charging "
    "nothing frees its key. A call paid per request (x402, mpp) is keyed by its "
    "payment: the same payment, key and body answer the delivered answer again, "
    "settling nothing twice.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"},
}
CALLBACK_URL = {
    "name": "Callback-Url",
    "in": "header",
    "required": False,
    "description": "On a call that takes the queued path (202): the one webhook endpoint of "
    "the account (registered with POST /webhooks, at exactly this URL) told when the job "
    "ends; without it every endpoint of the account is told. Not one of the account's: "
    "422 validation-error at [headers, Callback-Url], nothing held.",
    "schema": {"type": "string", "maxLength": 2000},
}
REPLAYED = {
    "Idempotent-Replayed": header(
        "true when this is the stored answer of an earlier call with the same "
        "Idempotency-Key (nothing more was charged)",
        "string",
    )
}


JOB_LINKS = {
    "Location": header("the job: /v1/public/solve/jobs/{id}, from the server's root", "string"),
    "Link": header(
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
    "content": {PROBLEM_JSON: {"schema": ref("PaymentRequiredProblem")}},
}
