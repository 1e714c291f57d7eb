"""problem+json responses (RFC 9457) with the service's own error-type namespace.

Every error the service returns goes through :func:`render`, so each one carries a
``type`` URI under ``errors_base``, a ``title``, the HTTP ``status``, the request's
``request_id`` and, for input faults, ``errors[]`` with JSON paths. Handlers raise a
:class:`bento.http.errors.ServiceError`, whose class holds its status and title;
:func:`service_error` is the one exception handler that answers it.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from bento.http.errors import ServiceError

PROBLEM_JSON = "application/problem+json"

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


def render(request: Request, error: ServiceError) -> Response:
    """The problem+json response of ``error``: its class gives the type, title and
    status; the instance its detail, field faults, headers and own members."""
    body: dict[str, Any] = {
        "type": f"{errors_base(request)}/{error.slug}",
        "title": error.title,
        "status": error.status,
        "request_id": request_id(request),
        "instance": request.url.path,
    }
    if error.detail:
        body["detail"] = error.detail
    members = {"errors": error.errors, **error.members}
    body.update({k: v for k, v in members.items() if v is not None})
    response = Response(
        json.dumps(body, ensure_ascii=False), status_code=error.status, media_type=PROBLEM_JSON
    )
    for name, value in error.headers:
        response.headers.append(name, value)
    return response


async def service_error(request: Request, exc: Exception) -> Response:
    """The app's exception handler for :class:`ServiceError` (Starlette's signature)."""
    assert isinstance(exc, ServiceError), "registered for ServiceError only"
    return render(request, exc)
