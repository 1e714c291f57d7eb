"""The account dashboard: sign-up, sign-in, keys, usage, jobs, connected apps, tier, and
the OAuth approval page. Server-rendered (Jinja2), plain forms, no JavaScript needed.

It is its own Starlette app, mounted at ``/dashboard`` beside the API, and works on the
API's store (opened by the API's lifespan), so pages always show what the API bills.
Every POST checks the CSRF token first; every page but sign-in/up needs a session.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode, urlsplit

import anyio
from mcp.server.auth.provider import construct_redirect_uri
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from bento.dashboard.charts import units_chart
from bento.dashboard.security import (
    ANONYMOUS_COOKIE,
    SESSION_COOKIE,
    CookieSigner,
    SignInLimiter,
    check_password,
    hash_password,
    needs_rehash,
    new_visitor_id,
    password_problem,
    safe_next,
)
from bento.identity import EmailTaken, Identity, User, client_name, normalize_email
from bento.oauth import SCOPE
from bento.store import Store, StoreUnavailable

HERE: Final = Path(__file__).parent
SCOPE_DESCRIPTIONS: Final = {
    SCOPE: [
        "check scheduling requests (free)",
        "solve rosters, consuming units of your account",
        "read your queued solves and your remaining units",
    ]
}
TIER_FEATURES: Final = {
    "basic": "Synchronous solves of problems up to size 80,000, within 30 seconds.",
    "pro": "Everything in basic, plus queued solves of large problems and time limits "
    "up to 300 seconds.",
}
Page = Callable[[Request], Awaitable[Response]]


def create_dashboard_app(
    public_api: Starlette,
    secret: str | None = None,
    *,
    secure_cookies: bool = False,
    sign_in_limiter: SignInLimiter | None = None,
) -> Starlette:
    """The dashboard over the store of ``public_api`` (started by its lifespan)."""
    templates = Jinja2Templates(directory=HERE / "templates")
    signer = CookieSigner(secret or secrets.token_hex(32), secure=secure_cookies)
    limiter = sign_in_limiter or SignInLimiter()

    def identity() -> Identity:
        store: Store = public_api.state.store
        return Identity(store)

    # ---------------------------------------------------------------- request context

    def visitor(request: Request) -> tuple[str | None, str | None]:
        """(session id, anonymous id) from the signed cookies."""
        return (
            signer.unsign(request.cookies.get(SESSION_COOKIE)),
            signer.unsign(request.cookies.get(ANONYMOUS_COOKIE)),
        )

    async def current_user(request: Request) -> User | None:
        session_id, _ = visitor(request)
        if session_id is None:
            return None
        return await anyio.to_thread.run_sync(identity().session_user, session_id)

    def render(
        request: Request,
        template: str,
        status: int = 200,
        user: User | None = None,
        **context: Any,
    ) -> Response:
        session_id, anonymous_id = visitor(request)
        fresh_anonymous = None
        if session_id is None and anonymous_id is None:
            fresh_anonymous = anonymous_id = new_visitor_id()
        holder = session_id or anonymous_id or ""
        root = request.scope.get("root_path", "")
        response = templates.TemplateResponse(
            request,
            template,
            {
                "user": user,
                "csrf_token": signer.csrf_token(holder),
                "root": root,
                "page": template.removesuffix(".html"),
                **context,
            },
            status_code=status,
        )
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "same-origin"
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; style-src 'self'; img-src 'self' data:; "
            "form-action 'self' http: https:; frame-ancestors 'none'"
        )
        if fresh_anonymous is not None:
            set_cookie(response, ANONYMOUS_COOKIE, signer.sign(fresh_anonymous))
        return response

    def set_cookie(response: Response, name: str, value: str) -> None:
        response.set_cookie(
            name,
            value,
            httponly=True,
            samesite="lax",
            secure=signer.secure,
            path="/",
            max_age=7 * 24 * 3600,
        )

    async def form_with_csrf(request: Request) -> dict[str, str] | None:
        """The posted form, or None when its CSRF token is missing or wrong."""
        form = await request.form()
        values = {key: str(value) for key, value in form.items() if isinstance(value, str)}
        session_id, anonymous_id = visitor(request)
        if not signer.csrf_ok(session_id or anonymous_id, values.get("csrf_token")):
            return None
        return values

    def csrf_failed(request: Request, user: User | None = None) -> Response:
        return render(
            request,
            "error.html",
            status=403,
            user=user,
            title="Form expired",
            message="This form is no longer valid. Go back, reload the page and try again.",
        )

    def go(request: Request, path: str) -> RedirectResponse:
        return RedirectResponse(request.scope.get("root_path", "") + path, status_code=303)

    def signed_in(page: Callable[[Request, User], Awaitable[Response]]) -> Page:
        async def run(request: Request) -> Response:
            user = await current_user(request)
            if user is None:
                target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                return go(request, "/sign-in?" + urlencode({"next": target}))
            return await page(request, user)

        return run

    # ------------------------------------------------------------------ sign up / in / out

    async def home(request: Request) -> Response:
        user = await current_user(request)
        return go(request, "/keys" if user else "/sign-in")

    async def sign_up(request: Request) -> Response:
        if request.method == "GET":
            return render(request, "sign_up.html", email="")
        form = await form_with_csrf(request)
        if form is None:
            return csrf_failed(request)
        email, password = form.get("email", ""), form.get("password", "")
        problem = password_problem(password, form.get("confirm", ""))
        try:
            normalize_email(email)
        except ValueError as error:
            problem = problem or f"{str(error).capitalize()}."
        if problem:
            return render(request, "sign_up.html", status=400, email=email, error=problem)
        hashed = await anyio.to_thread.run_sync(hash_password, password)
        try:
            user = await anyio.to_thread.run_sync(identity().create_user, email, hashed)
        except EmailTaken:
            message = "An account with this email exists. Sign in instead."
            return render(request, "sign_up.html", status=409, email=email, error=message)
        return await start_session(request, user, "/keys?welcome=1")

    async def sign_in(request: Request) -> Response:
        target = safe_next(request.query_params.get("next"), "/keys")
        if request.method == "GET":
            return render(request, "sign_in.html", email="", next=target)
        form = await form_with_csrf(request)
        if form is None:
            return csrf_failed(request)
        email, password = form.get("email", ""), form.get("password", "")
        target = safe_next(form.get("next"), "/keys")
        address = request.client.host if request.client else "unknown"
        if not limiter.allow(email, address):
            response = render(
                request,
                "sign_in.html",
                status=429,
                email=email,
                next=target,
                error="Too many attempts. Wait a minute, then try again.",
            )
            response.headers["Retry-After"] = "60"
            return response
        user = await anyio.to_thread.run_sync(identity().user_by_email, email)
        ok = await anyio.to_thread.run_sync(
            check_password, user.password_hash if user else None, password
        )
        if user is None or not ok:
            return render(
                request,
                "sign_in.html",
                status=401,
                email=email,
                next=target,
                error="Wrong email or password.",
            )
        if needs_rehash(user.password_hash):
            rehashed = await anyio.to_thread.run_sync(hash_password, password)
            await anyio.to_thread.run_sync(identity().set_password_hash, user.id, rehashed)
        return await start_session(request, user, target)

    async def start_session(request: Request, user: User, target: str) -> Response:
        """A brand-new session id: whatever the browser held before is dropped."""
        old_session, _ = visitor(request)
        if old_session is not None:
            await anyio.to_thread.run_sync(identity().end_session, old_session)
        session_id = await anyio.to_thread.run_sync(identity().start_session, user.id)
        response = RedirectResponse(_local(request, target), status_code=303)
        set_cookie(response, SESSION_COOKIE, signer.sign(session_id))
        response.delete_cookie(ANONYMOUS_COOKIE, path="/")
        return response

    async def sign_out(request: Request) -> Response:
        form = await form_with_csrf(request)
        if form is None:
            return csrf_failed(request)
        session_id, _ = visitor(request)
        if session_id is not None:
            await anyio.to_thread.run_sync(identity().end_session, session_id)
        response = go(request, "/sign-in")
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    # ---------------------------------------------------------------------------- pages

    async def keys_page(request: Request, user: User, **extra: Any) -> Response:
        keys = await anyio.to_thread.run_sync(identity().keys, user.account_id)
        welcome = request.query_params.get("welcome") == "1"
        return render(request, "keys.html", user=user, keys=keys, welcome=welcome, **extra)

    async def keys(request: Request, user: User) -> Response:
        if request.method == "GET":
            return await keys_page(request, user)
        form = await form_with_csrf(request)
        if form is None:
            return csrf_failed(request, user)
        created = await anyio.to_thread.run_sync(
            identity().create_key, user.account_id, form.get("label")
        )
        return await keys_page(request, user, new_key=created)

    async def disable_key(request: Request, user: User) -> Response:
        form = await form_with_csrf(request)
        if form is None:
            return csrf_failed(request, user)
        key_id = request.path_params["key_id"]
        await anyio.to_thread.run_sync(identity().disable_key, user.account_id, key_id)
        return go(request, "/keys")

    async def usage(request: Request, user: User) -> Response:
        account = await anyio.to_thread.run_sync(identity().account, user.account_id)
        days = await anyio.to_thread.run_sync(identity().units_per_day, user.account_id)
        return render(
            request,
            "usage.html",
            user=user,
            account=account,
            days=days,
            chart=units_chart(days),
            total=sum(units for _, units in days),
        )

    async def jobs(request: Request, user: User) -> Response:
        recent = await anyio.to_thread.run_sync(identity().recent_jobs, user.account_id)
        retention = f"{public_api.state.settings.job_retention_days:g}"
        return render(request, "jobs.html", user=user, jobs=recent, retention_days=retention)

    async def job_result(request: Request, user: User) -> Response:
        """A job's SolveResponse, as the API would answer a poll (own jobs only)."""
        job_id = request.path_params["job_id"]
        store: Store = public_api.state.store
        job = await anyio.to_thread.run_sync(store.get_job, user.account_id, job_id)
        if job is None:
            message = "No job with this id belongs to your account."
            return render(
                request, "error.html", status=404, user=user, title="Not found", message=message
            )
        download = {"Content-Disposition": f'inline; filename="{job.id}.json"'}
        return JSONResponse(job.as_response(), headers={**download, "Cache-Control": "no-store"})

    async def apps(request: Request, user: User) -> Response:
        connected = await anyio.to_thread.run_sync(identity().connections, user.account_id)
        return render(request, "apps.html", user=user, connections=connected)

    async def revoke_app(request: Request, user: User) -> Response:
        form = await form_with_csrf(request)
        if form is None:
            return csrf_failed(request, user)
        revoke = identity().revoke_connection
        await anyio.to_thread.run_sync(revoke, user.account_id, request.path_params["app_id"])
        return go(request, "/apps")

    async def tier(request: Request, user: User) -> Response:
        account = await anyio.to_thread.run_sync(identity().account, user.account_id)
        return render(request, "tier.html", user=user, account=account, features=TIER_FEATURES)

    # ---------------------------------------------------------------------- OAuth approve

    async def approve(request: Request, user: User) -> Response:
        if request.method == "GET":
            request_id = request.query_params.get("request", "")
            pending = await anyio.to_thread.run_sync(identity().pending_request, request_id)
            if pending is None:
                return expired_request(request, user)
            client_id, params = pending
            info = await anyio.to_thread.run_sync(identity().client, client_id) or {}
            return render(
                request,
                "approve.html",
                user=user,
                request_id=request_id,
                client=client_name(info),
                redirect_host=urlsplit(params["redirect_uri"]).netloc,
                abilities=[line for s in params["scopes"] for line in SCOPE_DESCRIPTIONS[s]],
            )
        form = await form_with_csrf(request)
        if form is None:
            return csrf_failed(request, user)
        request_id = form.get("request", "")
        if form.get("decision") == "approve":
            approved = await anyio.to_thread.run_sync(
                identity().approve, request_id, user.account_id
            )
            if approved is None:
                return expired_request(request, user)
            code, params = approved
            target = construct_redirect_uri(
                params["redirect_uri"], code=code, state=params.get("state")
            )
        else:
            denied = await anyio.to_thread.run_sync(identity().deny, request_id)
            if denied is None:
                return expired_request(request, user)
            _, params = denied
            target = construct_redirect_uri(
                params["redirect_uri"], error="access_denied", state=params.get("state")
            )
        return RedirectResponse(target, status_code=303)

    def expired_request(request: Request, user: User) -> Response:
        return render(
            request,
            "error.html",
            status=400,
            user=user,
            title="Request expired",
            message="This connection request is unknown or has expired. Start again from "
            "the app you were connecting.",
        )

    async def unavailable(request: Request, exc: Exception) -> Response:
        return render(
            request,
            "error.html",
            status=503,
            title="Temporarily unavailable",
            message="The account store cannot be reached. Try again in a minute.",
        )

    both = ["GET", "POST"]
    return Starlette(
        routes=[
            Route("/", home),
            Route("/sign-up", sign_up, methods=both),
            Route("/sign-in", sign_in, methods=both),
            Route("/sign-out", sign_out, methods=["POST"]),
            Route("/keys", signed_in(keys), methods=both),
            Route("/keys/{key_id}/disable", signed_in(disable_key), methods=["POST"]),
            Route("/usage", signed_in(usage)),
            Route("/jobs", signed_in(jobs)),
            Route("/jobs/{job_id}.json", signed_in(job_result)),
            Route("/apps", signed_in(apps)),
            Route("/apps/{app_id}/revoke", signed_in(revoke_app), methods=["POST"]),
            Route("/tier", signed_in(tier)),
            Route("/oauth/approve", signed_in(approve), methods=both),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ],
        exception_handlers={StoreUnavailable: unavailable},
    )


def _local(request: Request, target: str) -> str:
    """``target`` (a path inside the dashboard, or a dashboard URL path) as a URL path."""
    root = str(request.scope.get("root_path", ""))
    if root and target.startswith(root + "/"):
        return target
    return root + target
