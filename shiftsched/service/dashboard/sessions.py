"""Signing up, in and out: the only pages open without a session.

A successful sign-in always starts a new session id and drops whatever the browser held
before, so an id planted before sign-in is worthless (no session fixation).

Sign-up does not sign in. Its answer must not tell whether an email already has an
account, or anyone could list the registered emails one sign-up at a time: a new email
and a taken one get the same 303 to the sign-in page, with no cookie, and that page says
what is true in both cases (the account is ready to sign in with; an email that had one
keeps its password). Signing in with the password just chosen is what tells the person,
and sign-in is limited per email and per address. Without email delivery, that is as
little as an open sign-up can give away; the price is typing the password once more.

Both are limited per client address (``deps.address_of``): sign-in per minute, sign-up
per hour and for the whole service, answered 429 with Retry-After.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Final
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from shiftsched.service.dashboard.deps import address_of, current_user, deps_of, visitor
from shiftsched.service.dashboard.security import (
    ANONYMOUS_COOKIE,
    SESSION_COOKIE,
    password_problem,
    safe_next,
)
from shiftsched.service.dashboard.web import (
    csrf_failed,
    form_with_csrf,
    go,
    local,
    render,
    set_cookie,
)
from shiftsched.service.passwords import check_password, hash_password, needs_rehash
from shiftsched.service.store.users import EmailTaken, User, normalize_email
from shiftsched.service.threads import in_thread

AFTER_SIGN_IN: Final = "/keys"
# The sign-in page with the note for both kinds of sign-up, then the first page's welcome.
AFTER_SIGN_UP: Final = "/sign-in?" + urlencode(
    {"signed_up": 1, "next": AFTER_SIGN_IN + "?welcome=1"}
)


async def home(request: Request) -> Response:
    user = await current_user(request)
    return go(request, AFTER_SIGN_IN if user else "/sign-in")


async def sign_up(request: Request) -> Response:
    """A new account, or, for a taken email, nothing; both answer alike (module doc)."""
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
    deps = deps_of(request)
    wait = deps.sign_up_limiter.allow(address_of(request))
    if wait is not None:
        minutes = max(1, round(wait / 60))
        message = f"Too many new accounts at the moment. Try again in about {minutes} min."
        response = render(request, "sign_up.html", status=429, email=email, error=message)
        response.headers["Retry-After"] = str(wait)
        return response
    hashed = await in_thread(hash_password, password)
    # A taken email is answered exactly as a new account: the answer must not tell them apart.
    with suppress(EmailTaken):
        await in_thread(deps.store.users.create_user, email, hashed)
    return go(request, AFTER_SIGN_UP)


async def sign_in(request: Request) -> Response:
    target = safe_next(request.query_params.get("next"), AFTER_SIGN_IN)
    if request.method == "GET":
        signed_up = request.query_params.get("signed_up") == "1"
        return render(request, "sign_in.html", email="", next=target, signed_up=signed_up)
    form = await form_with_csrf(request)
    if form is None:
        return csrf_failed(request)
    email, password = form.get("email", ""), form.get("password", "")
    target = safe_next(form.get("next"), AFTER_SIGN_IN)
    deps = deps_of(request)
    if not deps.limiter.allow(email, address_of(request)):
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
    user = await in_thread(deps.store.users.user_by_email, email)
    ok = await in_thread(check_password, user.password_hash if user else None, password)
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
        rehashed = await in_thread(hash_password, password)
        await in_thread(deps.store.users.set_password_hash, user.id, rehashed)
    return await _start_session(request, user, target)


async def sign_out(request: Request) -> Response:
    form = await form_with_csrf(request)
    if form is None:
        return csrf_failed(request)
    session_id, _ = visitor(request)
    if session_id is not None:
        await in_thread(deps_of(request).store.sessions.end_session, session_id)
    response = go(request, "/sign-in")
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


async def _start_session(request: Request, user: User, target: str) -> Response:
    """A brand-new session id: whatever the browser held before is dropped."""
    deps = deps_of(request)
    old_session, _ = visitor(request)
    if old_session is not None:
        await in_thread(deps.store.sessions.end_session, old_session)
    session_id = await in_thread(deps.store.sessions.start_session, user.id)
    response = RedirectResponse(local(request, target), status_code=303)
    set_cookie(request, response, SESSION_COOKIE, deps.signer.sign(session_id))
    response.delete_cookie(ANONYMOUS_COOKIE, path="/")
    return response
