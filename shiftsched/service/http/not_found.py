"""A readable 404 for a path that no part of the site serves.

BentoML builds the site's outermost app: its own routes (health, readiness, metrics,
its docs), then the mounts of the service (``shiftsched/service/app.py``). A path none of them
takes gets Starlette's bare ``Not Found``, which tells a person nothing. A catch-all
route at the root would take every path before BentoML's own, so this is a middleware
instead (BentoML's ``add_asgi_middleware``): it lets every answer through except that
bare one (status 404, ``text/plain``, the nine bytes ``Not Found``), which it replaces
with one that names the path and says where to go. Under the API that is problem+json,
as every error of the API; elsewhere an HTML page for a browser and plain text for any
other client, each pointing to the API's index, the dashboard and the docs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from shiftsched.service.errors import NotFound, RateLimited
from shiftsched.service.http.front import TEMPLATES, page_context
from shiftsched.service.http.problems import API_ROOT, render, server_root
from shiftsched.service.http.rate_limits import RateLimits

_BARE_BODY: Final = b"Not Found"


def index_link(request: Request) -> tuple[str, str]:
    """The ``Link`` header to the API's index of operations."""
    return ("Link", f'<{server_root(request)}{API_ROOT}/>; rel="index"')


def api_not_found(request: Request) -> NotFound:
    """No operation at this path under the API: the path, and where the list is."""
    detail = f"no operation at {request.url.path}; GET {API_ROOT} lists every operation"
    return NotFound(detail, headers=[index_link(request)])


def _in_api(path: str) -> bool:
    return path == API_ROOT or path.startswith(API_ROOT + "/")


def site_not_found(request: Request) -> Response:
    """The 404 of a path no app serves: problem+json under the API, else a page that
    points to the API's index, the dashboard and the docs (HTML when asked for)."""
    path = request.url.path
    if _in_api(path):
        return render(request, api_not_found(request))
    if "text/html" in request.headers.get("accept", ""):
        context = page_context(request) | {"path": path}
        return TEMPLATES.TemplateResponse(request, "not_found.html", context, status_code=404)
    base = server_root(request)
    lines = [
        f"Nothing at {path}.",
        f"The API: GET {base}{API_ROOT} lists every operation "
        f"(OpenAPI: {base}{API_ROOT}/openapi.json).",
        f"The dashboard: {base}/dashboard/",
        f"The docs: {base}/ (how to start) and {base}{API_ROOT}/errors/ (the error types).",
    ]
    return PlainTextResponse("\n".join(lines) + "\n", status_code=404)


def _is_bare(message: dict[str, Any]) -> bool:
    """Starlette's own 404 answer, as its default handler writes it."""
    if message.get("status") != 404:
        return False
    headers = dict(message.get("headers") or [])
    return (
        headers.get(b"content-type", b"").startswith(b"text/plain")
        and headers.get(b"content-length") == str(len(_BARE_BODY)).encode()
    )


class ReadableNotFound:
    """ASGI middleware: Starlette's bare 404 becomes :func:`site_not_found`; every other
    answer passes as it is.

    Its requests' app is BentoML's outer one, which knows nothing of the service, so
    the answer is the middleware's own (the request's app is this middleware) and its
    links start from ``public_url`` (``Settings.public_url``) when given, else from
    the value the API app recorded (:func:`shiftsched.service.http.problems.public_url`)."""

    def __init__(
        self,
        app: Any,
        public_url: str | None = None,
        limits_of: Callable[[], RateLimits | None] | None = None,
    ) -> None:
        self.app = app
        self.state = State({"public_url": public_url} if public_url else {})
        self.limits_of = limits_of  # the anonymous limit a page of nothing counts against

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        replaced = False

        async def send_readable(message: Any) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and _is_bare(message):
                replaced = True
                answer = await self._answer(Request({**scope, "app": self}))
                await answer(scope, receive, send)
            elif not replaced:  # the bare body is dropped
                await send(message)

        await self.app(scope, receive, send_readable)

    async def _answer(self, request: Request) -> Response:
        """The readable 404, or 429 once the client's address is past its limit: a page of
        nothing is free, like every call without a credential."""
        limits = self.limits_of() if self.limits_of is not None else None
        if limits is not None:
            try:
                await limits.check_address(request, "a path nothing serves")
            except RateLimited as refused:
                return render(request, refused)
        return site_not_found(request)
