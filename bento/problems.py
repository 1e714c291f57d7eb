"""problem+json responses (RFC 9457) with the service's own error-type namespace.

Every error the service returns goes through :func:`problem`, so each one carries a
``type`` URI under ``errors_base``, a ``title``, the HTTP ``status``, the request's
``request_id`` and, for input faults, ``errors[]`` with JSON paths.

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
