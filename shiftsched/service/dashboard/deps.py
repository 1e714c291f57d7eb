"""What every dashboard page depends on, built once per app and kept on ``app.state``, so
pages are plain functions of the request: ``deps_of(request)`` returns it, and
``visitor`` / ``current_user`` say who is asking.

The store is read from the API at request time, never captured: the API's lifespan opens
it after the dashboard is built, so the dashboard always works on what the API bills.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.templating import Jinja2Templates

from shiftsched.service.dashboard.security import (
    ANONYMOUS_COOKIE,
    SESSION_COOKIE,
    CookieSigner,
    SignInLimiter,
    SignUpLimiter,
)
from shiftsched.service.http.addresses import client_address
from shiftsched.service.settings import Settings
from shiftsched.service.store import Store
from shiftsched.service.store.users import User
from shiftsched.service.threads import in_thread


@dataclass(frozen=True)
class DashboardDeps:
    """The API whose store and settings the pages show, and the dashboard's own tools."""

    public_api: Starlette
    templates: Jinja2Templates
    signer: CookieSigner
    limiter: SignInLimiter
    sign_up_limiter: SignUpLimiter

    @property
    def store(self) -> Store:
        store: Store = self.public_api.state.store
        return store

    @property
    def settings(self) -> Settings:
        settings: Settings = self.public_api.state.settings
        return settings


def deps_of(request: Request) -> DashboardDeps:
    """The dashboard's dependencies, from the app serving ``request``."""
    found: DashboardDeps = request.app.state.dashboard
    return found


def visitor(request: Request) -> tuple[str | None, str | None]:
    """(session id, anonymous id) from the signed cookies."""
    signer = deps_of(request).signer
    return (
        signer.unsign(request.cookies.get(SESSION_COOKIE)),
        signer.unsign(request.cookies.get(ANONYMOUS_COOKIE)),
    )


async def current_user(request: Request) -> User | None:
    """The signed-in user, or None without a live session."""
    session_id, _ = visitor(request)
    if session_id is None:
        return None
    return await in_thread(deps_of(request).store.sessions.session_user, session_id)


def address_of(request: Request) -> str:
    """The client address the sign-in and sign-up limits count (``client_address``)."""
    peer = request.client.host if request.client else None
    hops = deps_of(request).settings.trusted_proxy_hops
    return client_address(peer, request.headers.getlist("x-forwarded-for"), hops)
