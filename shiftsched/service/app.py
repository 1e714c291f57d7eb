"""The Bento: the public API under /v1/public, the account dashboard under /dashboard,
the MCP tools at /mcp (with the OAuth routes at the root), and the front page at /.

BentoML's own ``@bentoml.api`` cannot produce the v1 contract (its validation errors
are 400 plain JSON, it has no 413 or 415), so the whole API is one Starlette app
mounted with ``@bentoml.asgi_app``; BentoML runs each mounted app's lifespan (the
store, the solver pool, the MCP session manager). BentoML's traffic timeout is set far
above our own deadlines, so its plain-JSON 504 never pre-empts our problem+json one; its
timer is cancelled when a request ends (``shiftsched.service.ops.traffic_timeout``), so that long
timeout costs no memory per request.

BentoML keeps its own probes and ``/metrics``; the service only adds to them: readiness
asks the database and the job queue and turns 503 when a graceful stop begins
(``shiftsched.service.ops.health``, ``shiftsched.service.solving.stopping``), the metrics text gets
the gauges read from them (``shiftsched.service.ops.gauges``), BentoML's request metrics are
labelled by route, not by raw path (``shiftsched.service.ops.route_labels``), and the service's own
log lines become structured (``shiftsched.service.ops.logs``) when a worker starts. A path that
nothing serves gets a readable 404 instead of Starlette's bare one
(``shiftsched.service.http.not_found``), as a middleware, since a catch-all route at the root would
take BentoML's own routes; another one points the slash redirects Starlette writes to ``PUBLIC_URL``
(``shiftsched.service.http.redirects``), as every absolute link of the service is written from it,
never from the request's Host.
"""

from __future__ import annotations

from typing import cast

import bentoml

from shiftsched.service.dashboard.app import create_dashboard_app
from shiftsched.service.dashboard.security import SignInLimiter, SignUpLimiter
from shiftsched.service.http.api import create_app
from shiftsched.service.http.front import serve_front_page
from shiftsched.service.http.not_found import ReadableNotFound
from shiftsched.service.http.rate_limits import LimitedByAddress
from shiftsched.service.http.redirects import PublicRedirects
from shiftsched.service.mcp.server import create_mcp_app, create_mcp_server
from shiftsched.service.ops import logs
from shiftsched.service.ops.gauges import StateGauges
from shiftsched.service.ops.health import Readiness, check_app, stopping
from shiftsched.service.ops.listening import announce_listening
from shiftsched.service.ops.route_labels import BENTOML_PATHS, RouteLabels
from shiftsched.service.ops.route_labels import install as label_requests_by_route
from shiftsched.service.ops.traffic_timeout import install as cancel_request_timers
from shiftsched.service.settings import Settings
from shiftsched.service.solving import lifeline

TRAFFIC_TIMEOUT_SECONDS = 900

settings = Settings.from_env()
public_api = create_app(settings)
mcp_app = serve_front_page(
    create_mcp_app(create_mcp_server(public_api, settings.public_url)), settings.public_url
)
dashboard_app = create_dashboard_app(
    public_api,
    settings.dashboard_secret,
    secure_cookies=settings.public_url.startswith("https://"),
    sign_in_limiter=SignInLimiter(storage_uri=settings.sign_in_limit_storage),
    sign_up_limiter=SignUpLimiter(storage_uri=settings.sign_in_limit_storage),
)
# Both read what the public API's lifespan opened; before it has, they answer not ready
# and leave the gauges out.
readiness = Readiness(lambda: check_app(public_api))
state_gauges = StateGauges(lambda: (public_api.state.store, public_api.state.jobs.huey))
# OAuth client registration (the MCP library's route) is free and anonymous: limited per
# client address like the API's free operations.
mcp_app.add_middleware(
    LimitedByAddress,
    limits_of=lambda: getattr(public_api.state, "rate_limits", None),
    routes=frozenset({("POST", "/register")}),
    what="OAuth client registration",
)
cancel_request_timers()
label_requests_by_route(
    RouteLabels(
        [("/v1/public", public_api), ("/dashboard", dashboard_app), ("", mcp_app)],
        BENTOML_PATHS,
    )
)


@bentoml.service(name="shiftsched", traffic={"timeout": TRAFFIC_TIMEOUT_SECONDS}, workers=1)
@bentoml.asgi_app(mcp_app, path="/")
@bentoml.asgi_app(public_api, path="/v1/public")
@bentoml.asgi_app(dashboard_app, path="/dashboard")
class ShiftScheduler:
    """Roster solving over the v1 HTTP contract, and the same operations as MCP tools."""

    def __init__(self) -> None:
        logs.configure()
        # Made only in the web worker: it must not outlive BentoML's supervisor, which
        # started it in a session of its own (shiftsched.service.solving.lifeline).
        lifeline.die_with_parent()
        announce_listening()  # BentoML's own line says "localhost" for every interface

    async def __is_ready__(self) -> bool:
        """BentoML's /readyz: 503 once a graceful stop has begun (at once, not cached),
        else unless the database takes a write and the job queue answers."""
        if stopping(public_api):
            return False
        return await readiness.ready()

    def __metrics__(self, content: str) -> str:
        """BentoML's /metrics text (our counters included), then the scrape-time gauges."""
        return content + state_gauges.text()


# A path no part of the site serves answers where to go, not a bare "Not Found"; the
# redirects Starlette writes itself point to PUBLIC_URL, not to the request's Host.
# (bentoml.service made the class a Service; its decorators' types keep the class.)
bento_service = cast("bentoml.Service[ShiftScheduler]", ShiftScheduler)
bento_service.add_asgi_middleware(
    ReadableNotFound,
    public_url=settings.public_url,
    limits_of=lambda: getattr(public_api.state, "rate_limits", None),
)
bento_service.add_asgi_middleware(PublicRedirects, public_url=settings.public_url)
