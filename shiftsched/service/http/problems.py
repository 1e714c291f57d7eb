"""problem+json responses (RFC 9457) with the service's own error-type namespace.

Every error the service returns goes through :func:`render`, so each one carries a
``type`` URI under ``errors_base``, a ``title``, the HTTP ``status``, the request's
``request_id`` and, for input faults, ``errors[]`` with JSON paths. Handlers raise a
:class:`shiftsched.service.errors.ServiceError`, whose class holds its status and title;
:func:`service_error` is the one exception handler that answers it.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from shiftsched.service.errors import ServiceError
from shiftsched.service.settings import Settings

PROBLEM_JSON = "application/problem+json"

API_ROOT = "/v1/public"


# The public URL of the API app made last in this process: ``create_app`` records it
# when it makes the app, not in the lifespan, which runs later, while the site's other
# apps (the front page's, the outer one the readable 404 sees) need it for every
# request. A service has one public URL, so the last one recorded is the one.
_recorded_public_url: str | None = None


def record_public_url(app: Starlette, url: str) -> None:
    """``url`` is where clients reach ``app`` (``state.public_url``) and, for requests
    whose app names none, this process (see :func:`public_url`)."""
    global _recorded_public_url
    app.state.public_url = _recorded_public_url = url


def url_root(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, without its path."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def public_url(request: Request) -> str:
    """Where clients reach the service (``Settings.public_url``), never the request's
    ``Host``: a client, proxy or cache could otherwise be handed links to any host. The
    request's app says it (``state.public_url``, else its started ``state.settings``),
    else the value recorded when the API app was made, else the settings' default."""
    state = getattr(request.scope.get("app"), "state", None)
    settings = getattr(state, "settings", None)
    for candidate in (
        getattr(state, "public_url", None),
        getattr(settings, "public_url", None),
        _recorded_public_url,
    ):
        if isinstance(candidate, str) and candidate:
            return candidate
    return Settings.public_url


def server_root(request: Request) -> str:
    """``scheme://host[:port]`` of the configured public URL (:func:`public_url`), the
    root every absolute link the service writes starts from."""
    return url_root(public_url(request))


def public_request_url(request: Request) -> str:
    """The address of this request as clients reach it: the configured root, then the
    request's own path and query (which name no host)."""
    query = request.url.query
    return server_root(request) + request.url.path + (f"?{query}" if query else "")


def errors_base(request: Request) -> str:
    """The configured namespace, or ``<public URL's root>/v1/public/errors``."""
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
