"""How every dashboard page answers: rendered with the security headers and a CSRF token,
cookies set with one set of flags, forms read only when their CSRF token holds, redirects
kept under the dashboard's mount path, and pages that need a session sent to sign-in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import wraps
from typing import Any, Final
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from shiftsched.service.dashboard.deps import current_user, deps_of, visitor
from shiftsched.service.dashboard.security import ANONYMOUS_COOKIE, new_visitor_id
from shiftsched.service.store.users import User

Page = Callable[[Request], Awaitable[Response]]
UserPage = Callable[[Request, User], Awaitable[Response]]

COOKIE_MAX_AGE_SECONDS: Final = 7 * 24 * 3600
SECURITY_HEADERS: Final = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


def content_security_policy(form_targets: Sequence[str] = ()) -> str:
    """The pages' CSP. Forms post only to the dashboard itself; ``form_targets`` are
    exact origins a form's answer may redirect to, because browsers apply ``form-action``
    to the redirects after a POST as well: the OAuth approval page names the one app it
    sends the browser back to, and no other page names any."""
    form_action = " ".join(["'self'", *form_targets])
    return (
        "default-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"form-action {form_action}; frame-ancestors 'none'"
    )


def render(
    request: Request,
    template: str,
    status: int = 200,
    user: User | None = None,
    form_targets: Sequence[str] = (),
    **context: Any,
) -> Response:
    """The page, with a CSRF token for its forms; a first-time visitor gets an anonymous
    id cookie so the token has something to be bound to before sign-in. ``form_targets``:
    see ``content_security_policy``."""
    deps = deps_of(request)
    session_id, anonymous_id = visitor(request)
    fresh_anonymous = None
    if session_id is None and anonymous_id is None:
        fresh_anonymous = anonymous_id = new_visitor_id()
    holder = session_id or anonymous_id or ""
    response = deps.templates.TemplateResponse(
        request,
        template,
        {
            "user": user,
            "csrf_token": deps.signer.csrf_token(holder),
            "root": request.scope.get("root_path", ""),
            "page": template.removesuffix(".html"),
            **context,
        },
        status_code=status,
    )
    response.headers.update(SECURITY_HEADERS)
    response.headers["Content-Security-Policy"] = content_security_policy(form_targets)
    if fresh_anonymous is not None:
        set_cookie(request, response, ANONYMOUS_COOKIE, deps.signer.sign(fresh_anonymous))
    return response


def error_page(
    request: Request, status: int, title: str, message: str, user: User | None = None
) -> Response:
    return render(request, "error.html", status=status, user=user, title=title, message=message)


def set_cookie(request: Request, response: Response, name: str, value: str) -> None:
    """HttpOnly, SameSite=Lax (the OAuth approval is reached by a top-level redirect),
    Secure when the dashboard is served over https."""
    response.set_cookie(
        name,
        value,
        httponly=True,
        samesite="lax",
        secure=deps_of(request).signer.secure,
        path="/",
        max_age=COOKIE_MAX_AGE_SECONDS,
    )


async def form_with_csrf(request: Request) -> dict[str, str] | None:
    """The posted form, or None when its CSRF token is missing or wrong."""
    form = await request.form()
    values = {key: str(value) for key, value in form.items() if isinstance(value, str)}
    session_id, anonymous_id = visitor(request)
    if not deps_of(request).signer.csrf_ok(session_id or anonymous_id, values.get("csrf_token")):
        return None
    return values


def csrf_failed(request: Request, user: User | None = None) -> Response:
    message = "This form is no longer valid. Go back, reload the page and try again."
    return error_page(request, 403, "Form expired", message, user)


def go(request: Request, path: str) -> RedirectResponse:
    """A 303 to ``path`` inside the dashboard, wherever it is mounted."""
    return RedirectResponse(request.scope.get("root_path", "") + path, status_code=303)


def local(request: Request, target: str) -> str:
    """``target`` (a path inside the dashboard, or a dashboard URL path) as a URL path."""
    root = str(request.scope.get("root_path", ""))
    if root and target.startswith(root + "/"):
        return target
    return root + target


def signed_in(page: UserPage) -> Page:
    """``page`` for a signed-in user; anyone else is sent to sign in, and back after."""

    @wraps(page)
    async def run(request: Request) -> Response:
        user = await current_user(request)
        if user is None:
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return go(request, "/sign-in?" + urlencode({"next": target}))
        return await page(request, user)

    return run


async def unavailable(request: Request, exc: Exception) -> Response:
    """The store is down: a page saying so, rather than a bare 500."""
    message = "The account store cannot be reached. Try again in a minute."
    return error_page(request, 503, "Temporarily unavailable", message)
