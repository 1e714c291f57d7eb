"""The whole site as one ASGI app, as the Bento mounts it (BentoML's passive mounts and
the readable 404): the API at /v1/public, the dashboard at /dashboard, MCP (and the
OAuth routes) at the root; plus a real server.

``site_app`` runs every part's lifespan, so it can be driven in-process
(``TestClient``); ``served_site`` serves it with uvicorn on a loopback port, for a
browser or an MCP client that needs a real URL.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import replace
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Match, Mount
from starlette.types import Scope

from shiftsched.service.dashboard.app import create_dashboard_app
from shiftsched.service.dashboard.security import SignInLimiter, SignUpLimiter
from shiftsched.service.http.api import create_app
from shiftsched.service.http.front import serve_front_page
from shiftsched.service.http.not_found import ReadableNotFound
from shiftsched.service.http.redirects import PublicRedirects
from shiftsched.service.mcp.server import create_mcp_app, create_mcp_server
from shiftsched.service.settings import Settings
from tests.service.processes import free_port

DASHBOARD_SECRET = "test-dashboard-secret-" + "d" * 32


class PassiveMount(Mount):
    """A mount as BentoML mounts an app (``_bentoml_impl.server.mount``, not imported:
    it loads the whole of BentoML): it takes a path only when one of its app's routes
    does, so a path none takes reaches the outer router (its slash redirects, its 404)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child_scope = super().matches(scope)
        if match != Match.FULL or not isinstance(self.app, Starlette):
            return match, child_scope
        inner = {**scope, **child_scope}
        found = [route.matches(inner)[0] for route in self.app.routes]
        if Match.FULL in found:
            return Match.FULL, child_scope
        return (Match.PARTIAL if Match.PARTIAL in found else Match.NONE), child_scope


def site_app(
    settings: Settings,
    *,
    sign_in_limiter: SignInLimiter | None = None,
    sign_up_limiter: SignUpLimiter | None = None,
) -> Starlette:
    public_api = create_app(settings)
    mcp_app = serve_front_page(
        create_mcp_app(create_mcp_server(public_api, settings.public_url)), settings.public_url
    )
    dashboard = create_dashboard_app(
        public_api,
        settings.dashboard_secret or DASHBOARD_SECRET,
        sign_in_limiter=sign_in_limiter,
        # Test modules sign up many accounts from one address; the real limit is probed
        # with the service's defaults in test_access_limits.py.
        sign_up_limiter=sign_up_limiter or SignUpLimiter(per_address=100_000, total=100_000),
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for part in (public_api, mcp_app):
                await stack.enter_async_context(part.router.lifespan_context(part))
            app.state.public_api = public_api
            yield

    # BentoML's own mounts: each takes a path only when one of its app's routes does, so
    # an unknown path reaches the outer router, as served (redirects and 404 included).
    return Starlette(
        routes=[
            PassiveMount("/dashboard", dashboard),
            PassiveMount("/v1/public", public_api),
            PassiveMount("/", mcp_app),
        ],
        middleware=[  # as the Bento adds them
            Middleware(ReadableNotFound, public_url=settings.public_url),
            Middleware(PublicRedirects, public_url=settings.public_url),
        ],
        lifespan=lifespan,
    )


def site_settings(database_url: str, public_url: str, **overrides: Any) -> Settings:
    base = Settings(
        database_url=database_url,
        solve_processes=1,
        cp_sat_workers=1,
        diagnosis_budget_seconds=5,
        public_url=public_url,
        dashboard_secret=DASHBOARD_SECRET,
    )
    return replace(base, **overrides)


@contextmanager
def served_site(database_url: str, **overrides: Any) -> Iterator[str]:
    """The site served on 127.0.0.1:<free port>; yields its base URL."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    app = site_app(site_settings(database_url, base, **overrides))
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/v1/public/openapi.json", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            raise RuntimeError("the site did not start")
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=30)
