"""The ``Callback-Url`` header: a queued job names the one webhook endpoint told of its end.

Beside the v1 body, which takes no unknown field. The address must be one of the
account's registered endpoints (``/webhooks``), so a job can never make the service send
to an address nobody checked; an unknown one is refused before anything is held.
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request

from shiftsched.errors import FieldError
from shiftsched.service.errors import ValidationFailed
from shiftsched.service.store import Account, Store
from shiftsched.service.threads import in_thread

HEADER: Final = "Callback-Url"


async def callback_of(request: Request, account: Account) -> str | None:
    """The id of the endpoint the request names, None when it names none;
    ValidationFailed when it is not one of the account's."""
    url = request.headers.get(HEADER)
    if url is None:
        return None
    store: Store = request.app.state.store
    endpoint = await in_thread(store.webhooks.endpoint_at, account.id, url.strip())
    if endpoint is None:
        fault = FieldError(
            ("headers", HEADER),
            "not one of your account's webhook endpoints: register it first (POST /webhooks)",
            "unknown_webhook_endpoint",
        )
        raise ValidationFailed([fault])
    return endpoint.id
