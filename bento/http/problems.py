"""problem+json responses (RFC 9457) with the service's own error-type namespace.

Every error the service returns goes through :func:`problem`, so each one carries a
``type`` URI under ``errors_base``, a ``title``, the HTTP ``status``, the request's
``request_id`` and, for input faults, ``errors[]`` with JSON paths. Handlers raise a
:class:`bento.http.errors.ServiceError`; :func:`service_error` is the one exception handler that
answers it, so the slug -> status/title table below is the only one.

Error types (slug -> status):

    invalid-json 400, unauthorized 401, payment-required 402, not-found 404,
    method-not-allowed 405,
    payload-too-large 413, unsupported-media-type 415, validation-error 422,
    tier-limit-exceeded 422, solver-infeasible 422, quota-exceeded 429,
    internal-error 500, not-implemented 501, service-unavailable 503, solver-timeout 504
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from bento.http.errors import ServiceError

PROBLEM_JSON = "application/problem+json"

TITLES: dict[str, str] = {
    "invalid-json": "Request body is not valid JSON",
    "unauthorized": "Authentication failed",
    "payment-required": "A credential is required",
    "not-found": "Not found",
    "method-not-allowed": "Method not allowed",
    "payload-too-large": "Request body exceeds 1 MB",
    "unsupported-media-type": "Content-Type must be application/json",
    "validation-error": "The request breaks the contract",
    "tier-limit-exceeded": "Problem too large for this credential's tier",
    "solver-infeasible": "The hard rules admit no roster",
    "quota-exceeded": "Free quota and prepaid balance are exhausted",
    "internal-error": "Internal error",
    "not-implemented": "Not implemented",
    "service-unavailable": "Service temporarily unavailable",
    "solver-timeout": "No roster was found within the time limit",
}

STATUS: dict[str, int] = {
    "invalid-json": 400,
    "unauthorized": 401,
    "payment-required": 402,
    "not-found": 404,
    "method-not-allowed": 405,
    "payload-too-large": 413,
    "unsupported-media-type": 415,
    "validation-error": 422,
    "tier-limit-exceeded": 422,
    "solver-infeasible": 422,
    "quota-exceeded": 429,
    "internal-error": 500,
    "not-implemented": 501,
    "service-unavailable": 503,
    "solver-timeout": 504,
}

# For the human page of each error type (GET <errors base>/<slug>): when it happens, and
# what to do about it.
GUIDE: dict[str, tuple[str, str]] = {
    "invalid-json": (
        "The request body could not be parsed as JSON.",
        "Check the body with a JSON linter; `detail` says where parsing stopped.",
    ),
    "unauthorized": (
        "The Authorization header holds a key or token that is unknown, disabled or expired.",
        "Send `Authorization: Bearer <API key>` with a key from the dashboard, or sign in "
        "again when an assistant's token expired.",
    ),
    "payment-required": (
        "A paid operation came without any credential.",
        "Send an API key, or pay per solve: `accepts[]` lists the payment schemes offered.",
    ),
    "not-found": (
        "The path does not exist, or the job is not one of your credential's jobs.",
        "Check the path against the OpenAPI description; poll jobs with the key that created them.",
    ),
    "method-not-allowed": (
        "The path exists but not with this HTTP method.",
        "The `Allow` header lists the methods the path accepts.",
    ),
    "payload-too-large": (
        "The body is larger than 1 MB.",
        "Send one schedule per request; a request within the contract's limits fits.",
    ),
    "unsupported-media-type": (
        "The body was not sent as JSON.",
        "Send `Content-Type: application/json`.",
    ),
    "validation-error": (
        "The request breaks a rule of the contract: a missing field, a wrong type, an "
        "unknown reference, or a cross-field rule.",
        "Each entry of `errors[]` gives the JSON path of one fault and a stable code; "
        "POST the request to /solve/validate (free) until it passes.",
    ),
    "tier-limit-exceeded": (
        "The problem's size is above what the credential's tier may solve.",
        "Solve a shorter period or fewer employees, or move the account to a larger tier "
        "in the dashboard.",
    ),
    "solver-infeasible": (
        "The hard rules admit no roster at all.",
        "`error.diagnosis.causes` names the rules that conflict; relax one of them (for "
        "example make it soft) and solve again.",
    ),
    "quota-exceeded": (
        "The free quota and the prepaid balance cannot cover the solve.",
        "Top up the prepaid balance (the service's operator adds units) or, where the "
        "service takes payments, send the solve without a key and pay for it alone (the "
        "402 lists the schemes); GET /usage shows what is left.",
    ),
    "internal-error": (
        "A bug in the service. Nothing was charged.",
        "Retry once; if it happens again, report the `request_id`.",
    ),
    "not-implemented": (
        "A time limit over 30 s needs the queued path, which only a pro key may use.",
        "Lower `options.solver_timeout_seconds` to 30 or less, or use a pro key.",
    ),
    "service-unavailable": (
        "Every solver process stayed busy for the queue wait, or the waiting line is full; "
        "the solve's process was lost (killed for its memory, say); the service is "
        "stopping; the units a solve needs are held by the account's own solves under "
        "way; or the account store, the job queue or a payment provider cannot be "
        "reached. Nothing was charged.",
        "Retry after the number of seconds in the `Retry-After` header; large problems can "
        "be queued as jobs instead.",
    ),
    "solver-timeout": (
        "No roster was found within the time limit. Nothing was charged.",
        "Raise `options.solver_timeout_seconds`, or check that the request is not far "
        "larger than it needs to be.",
    ),
}


API_ROOT = "/v1/public"


def server_root(request: Request) -> str:
    """``scheme://host[:port]`` of this request, without any path."""
    return f"{request.url.scheme}://{request.url.netloc}"


def errors_base(request: Request) -> str:
    """The configured namespace, or ``<this server>/v1/public/errors``."""
    configured = getattr(request.app.state, "errors_base", None)
    if configured:
        return str(configured).rstrip("/")
    return server_root(request) + API_ROOT + "/errors"


def request_id(request: Request) -> str:
    return str(getattr(request.state, "request_id", ""))


def problem(
    request: Request,
    slug: str,
    detail: str | None = None,
    *,
    headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
    **extra: Any,
) -> Response:
    """A problem+json response of one of the documented error types.

    ``headers`` may be pairs, for a field sent more than once (one ``WWW-Authenticate``
    per scheme)."""
    body: dict[str, Any] = {
        "type": f"{errors_base(request)}/{slug}",
        "title": TITLES[slug],
        "status": STATUS[slug],
        "request_id": request_id(request),
        "instance": request.url.path,
    }
    if detail:
        body["detail"] = detail
    body.update({k: v for k, v in extra.items() if v is not None})
    response = Response(
        json.dumps(body, ensure_ascii=False), status_code=STATUS[slug], media_type=PROBLEM_JSON
    )
    pairs = headers.items() if isinstance(headers, Mapping) else headers or ()
    for name, value in pairs:
        response.headers.append(name, value)
    return response


def render(request: Request, error: ServiceError) -> Response:
    """The problem+json response of ``error``."""
    return problem(
        request,
        error.slug,
        error.detail,
        headers=error.headers,
        errors=error.errors,
        **error.members,
    )


async def service_error(request: Request, exc: Exception) -> Response:
    """The app's exception handler for :class:`ServiceError` (Starlette's signature)."""
    assert isinstance(exc, ServiceError), "registered for ServiceError only"
    return render(request, exc)
