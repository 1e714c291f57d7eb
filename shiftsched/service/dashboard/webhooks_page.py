"""The Webhooks page: a pro account's endpoints, with their latest deliveries and every
attempt, and the forms to add one, rotate its secret, send it a test event or remove it.

The same operations as the webhook API (``shiftsched.service.http.webhook_routes``), on
the same store; a secret is shown once, when it is made or rotated.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from shiftsched.service.dashboard.deps import deps_of
from shiftsched.service.dashboard.web import csrf_failed, form_with_csrf, go, render, signed_in
from shiftsched.service.store.users import User
from shiftsched.service.store.webhooks import Endpoint
from shiftsched.service.threads import in_thread
from shiftsched.service.webhooks.addresses import address_fault
from shiftsched.service.webhooks.events import check_event
from shiftsched.service.webhooks.sender import policy_of


@signed_in
async def webhooks(request: Request, user: User) -> Response:
    """The page; a POST adds an endpoint and shows its secret this once."""
    if request.method == "GET":
        return await _page(request, user)
    form = await form_with_csrf(request)
    if form is None:
        return csrf_failed(request, user)
    if not await _is_pro(request, user):
        return await _page(request, user, fault="Webhooks need the pro tier.")
    url = form.get("url", "").strip()
    fault = await in_thread(address_fault, url, policy_of(deps_of(request).settings))
    if fault is not None:
        return await _page(request, user, fault=f"Not added: {fault}.", url=url)
    made = await in_thread(
        deps_of(request).store.webhooks.create_endpoint,
        user.account_id,
        url,
        form.get("description") or None,
    )
    return await _page(request, user, secret_of=made)


@signed_in
async def endpoint_action(request: Request, user: User) -> Response:
    """Rotate, test or remove one endpoint of the account (``{action}`` in the path)."""
    form = await form_with_csrf(request)
    if form is None:
        return csrf_failed(request, user)
    hooks = deps_of(request).store.webhooks
    endpoint_id, action = request.path_params["endpoint_id"], request.path_params["action"]
    endpoint = await in_thread(hooks.endpoint, user.account_id, endpoint_id)
    if endpoint is None or action not in ("rotate", "test", "delete"):
        return go(request, "/webhooks")
    if action == "delete":
        await in_thread(hooks.delete_endpoint, user.account_id, endpoint_id)
        return go(request, "/webhooks")
    if action == "test":
        kind, data = check_event(endpoint.id, "from the dashboard")
        await in_thread(hooks.enqueue, endpoint, kind, data)
        return go(request, "/webhooks")
    rotated = await in_thread(hooks.rotate_secret, user.account_id, endpoint_id)
    return await _page(request, user, secret_of=rotated)


async def _is_pro(request: Request, user: User) -> bool:
    account = await in_thread(deps_of(request).store.account_view.account, user.account_id)
    return account.tier == "pro"


async def _page(request: Request, user: User, **extra: Any) -> Response:
    hooks = deps_of(request).store.webhooks
    endpoints: list[Endpoint] = await in_thread(hooks.endpoints, user.account_id)
    deliveries = {
        e.id: await in_thread(hooks.deliveries, user.account_id, e.id, 10) for e in endpoints
    }
    return render(
        request,
        "webhooks.html",
        user=user,
        pro=await _is_pro(request, user),
        endpoints=endpoints,
        deliveries=deliveries,
        **extra,
    )
