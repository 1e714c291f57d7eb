"""The service's pages for people: the front door at ``/`` and one page per error type.

A problem+json ``type`` is an address (RFC 9457 suggests one a person can open), so
``<API>/errors/<slug>`` answers a short page: when the error happens and what to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from shiftsched.service.errors import NotFound, ServiceError, error_type, error_types
from shiftsched.service.http.job_tools import tool_names
from shiftsched.service.http.problems import API_ROOT, server_root

HERE = Path(__file__).parent
# The pages extend the dashboard's frame (base.html), so both look alike.
TEMPLATES = Jinja2Templates(directory=[HERE / "templates", HERE.parent / "dashboard" / "templates"])
CODE_SPAN = re.compile(r"`([^`]+)`")


def _with_code(text: str) -> Markup:
    """The guide's text for a page: escaped, with `backticked` names as code."""
    return Markup(CODE_SPAN.sub(r"<code>\1</code>", str(escape(text))))


@dataclass(frozen=True)
class ErrorType:
    slug: str
    uri: str
    title: str
    status: int
    when: Markup
    advice: Markup


def _error_type(request: Request, cls: type[ServiceError]) -> ErrorType:
    uri = f"{server_root(request)}{API_ROOT}/errors/{cls.slug}"
    when, advice = _with_code(cls.when), _with_code(cls.advice)
    return ErrorType(cls.slug, uri, cls.title, cls.status, when, advice)


def page_context(request: Request) -> dict[str, object]:
    """What every page of the service's own (not the dashboard's) fills its frame with."""
    root = server_root(request)
    # "root" is the dashboard's, for its frame: the stylesheet lives under /dashboard.
    return {"root": "/dashboard", "server": root, "api": API_ROOT, "base": root + API_ROOT}


async def front_page(request: Request) -> Response:
    """What the service is, how to start, and where the reference lives, with every MCP
    tool the server offers."""
    context = page_context(request) | {"tools": tool_names()}
    return TEMPLATES.TemplateResponse(request, "front.html", context)


def serve_front_page(root_app: Starlette, public_url: str | None = None) -> Starlette:
    """Add the front page to the app mounted at the site's root. BentoML matches a root
    mount's own routes before its generic index page, and only those, so its /metrics
    and /readyz stay its own. ``public_url`` (``Settings.public_url``) is what its links
    start from; None: the one the API app recorded."""
    if public_url:
        root_app.state.public_url = public_url
    root_app.router.routes.append(Route("/", front_page, methods=["GET"]))
    return root_app


async def error_types_page(request: Request) -> Response:
    """Every error type (no slug), or one: when it happens and what to do. Served by the
    public API app, whose handler answers NotFound."""
    slug = request.path_params.get("slug")
    context = page_context(request)
    if slug is None:
        context["all"] = [_error_type(request, cls) for cls in error_types()]
    else:
        cls = error_type(slug)
        if cls is None:
            raise NotFound(f"no error type {slug!r}")
        context["one"] = _error_type(request, cls)
    return TEMPLATES.TemplateResponse(request, "error_types.html", context)
