"""The OAuth approval page: ``shiftsched.service.mcp.oauth`` parks an app's authorization request
and sends the browser here; the signed-in user approves or denies it, and the browser goes back to
the app's redirect URI with a code or with ``access_denied``.

The page's CSP lets its form lead to that redirect URI's origin and no other (browsers
check the redirect after the POST against ``form-action``). A request whose redirect URI
the registration rules now refuse (a client registered before they held) is not shown.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

from mcp.server.auth.provider import construct_redirect_uri
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from shiftsched.service.dashboard.deps import deps_of
from shiftsched.service.dashboard.web import (
    csrf_failed,
    error_page,
    form_with_csrf,
    render,
    signed_in,
)
from shiftsched.service.mcp.oauth import SCOPE, redirect_origin, redirect_uri_problem
from shiftsched.service.store.connections import client_name
from shiftsched.service.store.users import User
from shiftsched.service.threads import in_thread

SCOPE_DESCRIPTIONS: Final = {
    SCOPE: [
        "check scheduling requests (free)",
        "solve rosters, consuming units of your account",
        "read your queued solves and your remaining units",
    ]
}


@signed_in
async def approve(request: Request, user: User) -> Response:
    """GET shows what the app asks for; POST answers it."""
    if request.method == "GET":
        return await _ask(request, user)
    return await _answer(request, user)


async def _ask(request: Request, user: User) -> Response:
    authorizations = deps_of(request).store.authorizations
    request_id = request.query_params.get("request", "")
    pending = await in_thread(authorizations.pending_request, request_id)
    if pending is None:
        return _expired_request(request, user)
    client_id, params = pending
    redirect_uri = str(params["redirect_uri"])
    if redirect_uri_problem(redirect_uri) is not None:
        message = "This app asks to be sent back to an address this service does not allow."
        return error_page(request, 400, "Unsafe app address", message, user)
    info = await in_thread(authorizations.client, client_id) or {}
    return render(
        request,
        "approve.html",
        user=user,
        form_targets=[redirect_origin(redirect_uri)],
        request_id=request_id,
        client=client_name(info),
        redirect_host=urlsplit(redirect_uri).netloc,
        abilities=[line for s in params["scopes"] for line in SCOPE_DESCRIPTIONS[s]],
    )


async def _answer(request: Request, user: User) -> Response:
    form = await form_with_csrf(request)
    if form is None:
        return csrf_failed(request, user)
    authorizations = deps_of(request).store.authorizations
    request_id = form.get("request", "")
    pending = await in_thread(authorizations.pending_request, request_id)
    if pending is not None and redirect_uri_problem(str(pending[1]["redirect_uri"])):
        return _expired_request(request, user)
    if form.get("decision") == "approve":
        approved = await in_thread(authorizations.approve, request_id, user.account_id)
        if approved is None:
            return _expired_request(request, user)
        code, params = approved
        target = construct_redirect_uri(
            params["redirect_uri"], code=code, state=params.get("state")
        )
    else:
        denied = await in_thread(authorizations.deny, request_id)
        if denied is None:
            return _expired_request(request, user)
        _, params = denied
        target = construct_redirect_uri(
            params["redirect_uri"], error="access_denied", state=params.get("state")
        )
    return RedirectResponse(target, status_code=303)


def _expired_request(request: Request, user: User) -> Response:
    message = (
        "This connection request is unknown or has expired. Start again from "
        "the app you were connecting."
    )
    return error_page(request, 400, "Request expired", message, user)
