"""The webhook API of a pro key: register, list, delete an endpoint, rotate its secret,
send it a test event, and read its deliveries (``/webhooks``).

An endpoint gets a ``job.completed``, ``job.failed`` or ``job.stopped`` event for every
queued job of the account that ends after it was registered
(``shiftsched.service.webhooks``). Its secret is shown when it is made and when it is
rotated, never in a listing.
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from shiftsched.errors import FieldError
from shiftsched.service.errors import NotFound, TierLimitExceeded, ValidationFailed
from shiftsched.service.http.gate import json_body
from shiftsched.service.http.pipeline import account_for
from shiftsched.service.store import Account, Store
from shiftsched.service.store.webhooks import Endpoint
from shiftsched.service.threads import in_thread
from shiftsched.service.webhooks.addresses import address_fault
from shiftsched.service.webhooks.events import check_event
from shiftsched.service.webhooks.sender import policy_of

_NOT_FOUND: Final = "no webhook endpoint with this id belongs to your account"
_FIELDS: Final = {"url", "description"}


async def _pro_account(request: Request) -> Account:
    account = await account_for(request)
    if account.tier != "pro":
        raise TierLimitExceeded("webhooks need a pro key: a basic key polls its jobs")
    return account


def _shown(endpoint: Endpoint, *, secret: bool) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "id": endpoint.id,
        "url": endpoint.url,
        "description": endpoint.description,
        "created_at": endpoint.created_at.isoformat(),
    }
    if secret:
        shown["secret"] = endpoint.secret
    return shown


def _faults(data: Any, fault: str | None) -> list[FieldError]:
    if not isinstance(data, dict):
        return [FieldError((), "the body must be an object with a url", "type_error")]
    found = [
        FieldError((name,), "unknown field", "extra_forbidden")
        for name in data
        if name not in _FIELDS
    ]
    url, description = data.get("url"), data.get("description")
    if not isinstance(url, str):
        found.append(FieldError(("url",), "a url (string) is required", "missing"))
    elif fault is not None:
        found.append(FieldError(("url",), fault, "webhook_address_refused"))
    if description is not None and (not isinstance(description, str) or len(description) > 200):
        found.append(FieldError(("description",), "at most 200 characters", "string_too_long"))
    return found


async def create_endpoint(request: Request) -> Response:
    account = await _pro_account(request)
    data = await json_body(request)
    url = data.get("url") if isinstance(data, dict) else None
    policy = policy_of(request.app.state.settings)
    fault = await in_thread(address_fault, url, policy) if isinstance(url, str) else None
    faults = _faults(data, fault)
    if faults:
        raise ValidationFailed(faults)
    assert isinstance(url, str)  # _faults found it otherwise
    store: Store = request.app.state.store
    endpoint = await in_thread(
        store.webhooks.create_endpoint, account.id, url, data.get("description")
    )
    return JSONResponse(_shown(endpoint, secret=True), status_code=201)


async def list_endpoints(request: Request) -> Response:
    account = await _pro_account(request)
    store: Store = request.app.state.store
    found = await in_thread(store.webhooks.endpoints, account.id)
    return JSONResponse({"endpoints": [_shown(e, secret=False) for e in found]})


async def delete_endpoint(request: Request) -> Response:
    account = await _pro_account(request)
    store: Store = request.app.state.store
    if not await in_thread(store.webhooks.delete_endpoint, account.id, request.path_params["id"]):
        raise NotFound(_NOT_FOUND)
    return Response(status_code=204)


async def rotate_secret(request: Request) -> Response:
    account = await _pro_account(request)
    store: Store = request.app.state.store
    endpoint = await in_thread(store.webhooks.rotate_secret, account.id, request.path_params["id"])
    if endpoint is None:
        raise NotFound(_NOT_FOUND)
    return JSONResponse(_shown(endpoint, secret=True))


async def send_test_event(request: Request) -> Response:
    account = await _pro_account(request)
    store: Store = request.app.state.store
    endpoint = await in_thread(store.webhooks.endpoint, account.id, request.path_params["id"])
    if endpoint is None:
        raise NotFound(_NOT_FOUND)
    kind, data = check_event(endpoint.id, "on request")
    event_id = await in_thread(store.webhooks.enqueue, endpoint, kind, data)
    return JSONResponse({"event_id": event_id}, status_code=202)


async def list_deliveries(request: Request) -> Response:
    account = await _pro_account(request)
    store: Store = request.app.state.store
    endpoint_id = request.path_params["id"]
    if await in_thread(store.webhooks.endpoint, account.id, endpoint_id) is None:
        raise NotFound(_NOT_FOUND)
    found = await in_thread(store.webhooks.deliveries, account.id, endpoint_id)
    return JSONResponse({"deliveries": found})


def webhook_routes() -> list[Route]:
    return [
        Route("/webhooks", create_endpoint, methods=["POST"]),
        Route("/webhooks", list_endpoints, methods=["GET"]),
        Route("/webhooks/{id}", delete_endpoint, methods=["DELETE"]),
        Route("/webhooks/{id}/rotate", rotate_secret, methods=["POST"]),
        Route("/webhooks/{id}/test", send_test_event, methods=["POST"]),
        Route("/webhooks/{id}/deliveries", list_deliveries, methods=["GET"]),
    ]
