"""The account dashboard: sign-up, sign-in, keys, usage, jobs, connected apps, tier, and
the OAuth approval page. Server-rendered (Jinja2), plain forms, no JavaScript needed
(where it runs, small scripts add to a page: a Copy button, a job followed live).

It is its own Starlette app, mounted at ``/dashboard`` beside the API, and works on the
API's store (opened by the API's lifespan), so pages always show what the API bills.
Every POST checks the CSRF token first; every page but sign-in/up needs a session.

The pages live in ``sessions`` (sign up, in, out), ``account``, ``job_page`` (one job,
followed live and stopped, and its roster to print), ``job_live`` (the job's event
stream and search section, which the job page's script follows), ``exports`` (a job's
roster as CSV, iCalendar or XLSX) and ``approval``; what they share is built here once,
as ``deps.DashboardDeps`` on ``app.state``.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Final

from starlette.applications import Starlette
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from shiftsched.service.dashboard import (
    account,
    approval,
    exports,
    job_live,
    job_page,
    sessions,
    webhooks_page,
)
from shiftsched.service.dashboard.deps import DashboardDeps
from shiftsched.service.dashboard.security import CookieSigner, SignInLimiter, SignUpLimiter
from shiftsched.service.dashboard.web import unavailable
from shiftsched.service.store import StoreUnavailable

HERE: Final = Path(__file__).parent
BOTH: Final = ("GET", "POST")


def create_dashboard_app(
    public_api: Starlette,
    secret: str | None = None,
    *,
    secure_cookies: bool = False,
    sign_in_limiter: SignInLimiter | None = None,
    sign_up_limiter: SignUpLimiter | None = None,
) -> Starlette:
    """The dashboard over the store of ``public_api`` (started by its lifespan). Without
    a ``secret``, cookies are signed with a random one, so sessions end on restart."""
    routes = [
        Route("/", sessions.home),
        Route("/sign-up", sessions.sign_up, methods=BOTH),
        Route("/sign-in", sessions.sign_in, methods=BOTH),
        Route("/sign-out", sessions.sign_out, methods=["POST"]),
        Route("/keys", account.keys, methods=BOTH),
        Route("/keys/{key_id}/disable", account.disable_key, methods=["POST"]),
        Route("/usage", account.usage),
        Route("/jobs", account.jobs),
        Route("/jobs/{job_id}.json", account.job_result),
        Route("/jobs/{job_id}/export.{fmt}", exports.job_export),
        Route("/jobs/{job_id}", job_page.job_page),
        Route("/jobs/{job_id}/stop", job_page.stop_job, methods=["POST"]),
        Route("/jobs/{job_id}/events", job_live.job_events),
        Route("/jobs/{job_id}/search", job_live.job_search),
        Route("/jobs/{job_id}/roster", job_page.roster_page),
        Route("/apps", account.apps),
        Route("/apps/{app_id}/revoke", account.revoke_app, methods=["POST"]),
        Route("/tier", account.tier),
        Route("/webhooks", webhooks_page.webhooks, methods=BOTH),
        Route("/webhooks/{endpoint_id}/{action}", webhooks_page.endpoint_action, methods=["POST"]),
        Route("/oauth/approve", approval.approve, methods=BOTH),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={StoreUnavailable: unavailable})
    app.state.dashboard = DashboardDeps(
        public_api=public_api,
        templates=Jinja2Templates(directory=HERE / "templates"),
        signer=CookieSigner(secret or secrets.token_hex(32), secure=secure_cookies),
        limiter=sign_in_limiter or SignInLimiter(),
        sign_up_limiter=sign_up_limiter or SignUpLimiter(),
    )
    return app
