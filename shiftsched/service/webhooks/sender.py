"""The sender: ended jobs into the outbox, and due deliveries out to their endpoints.

It runs beside the web app, in its own task (:func:`send_periodically`), so a receiver
that is slow or down never slows a solve or a request: each delivery has
:data:`TIMEOUT_SECONDS`, at most :data:`AT_ONCE` are in flight, and a failure only moves
the delivery to its next attempt (``shiftsched.service.store.webhooks.RETRY_DELAYS``).
Every delivery is signed the Standard Webhooks way (``webhook-id``, ``webhook-timestamp``
and ``webhook-signature``: HMAC-SHA256 over id, timestamp and body, with the endpoint's
secret), by the ``standardwebhooks`` library a receiver verifies with too.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from datetime import UTC, datetime
from typing import Any, Final

import httpx
from standardwebhooks.webhooks import Webhook

from shiftsched.service.settings import Settings
from shiftsched.service.store import Store
from shiftsched.service.store.webhooks import Delivery
from shiftsched.service.threads import in_thread
from shiftsched.service.webhooks.addresses import AddressPolicy, address_fault
from shiftsched.service.webhooks.events import job_event

TIMEOUT_SECONDS: Final = 10.0
AT_ONCE: Final = 8
USER_AGENT: Final = "shiftsched-webhooks/1"

logger = logging.getLogger(__name__)


def policy_of(settings: Settings) -> AddressPolicy:
    return AddressPolicy(settings.webhook_allow_loopback, settings.webhook_allow_private)


def signed_headers(delivery: Delivery, body: str, moment: datetime) -> dict[str, str]:
    """The headers of one attempt: what Standard Webhooks names, and the JSON type."""
    signature = Webhook(delivery.secret).sign(delivery.id, moment, body)
    return {
        "webhook-id": delivery.id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": signature,
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }


async def sweep(
    store: Store, settings: Settings, client: httpx.AsyncClient, moment: datetime | None = None
) -> int:
    """Announce the jobs that ended, then send what is due at ``moment`` (now); the
    number of deliveries attempted."""
    url = settings.public_url

    def describe(job: Any, charged: int) -> tuple[str, dict[str, Any]]:
        return job_event(url, job, charged)

    await in_thread(store.webhooks.announce_ended_jobs, describe, 100, moment)
    due = await in_thread(store.webhooks.take_due, AT_ONCE, moment)
    policy = policy_of(settings)
    await asyncio.gather(*(_send(store, client, policy, d, moment) for d in due))
    return len(due)


async def _send(
    store: Store,
    client: httpx.AsyncClient,
    policy: AddressPolicy,
    delivery: Delivery,
    moment: datetime | None,
) -> None:
    """One attempt of ``delivery``, recorded whatever happens."""
    body = json.dumps(delivery.payload, separators=(",", ":"))
    started = time.monotonic()
    status: int | None = None
    error = await in_thread(address_fault, delivery.url, policy)  # resolved again now
    if error is None:
        try:
            headers = signed_headers(delivery, body, datetime.now(UTC))
            response = await client.post(delivery.url, content=body, headers=headers)
            status = response.status_code
        except httpx.HTTPError as failure:
            error = f"{type(failure).__name__}: {failure}"[:500]
    milliseconds = int((time.monotonic() - started) * 1000)
    await in_thread(
        lambda: store.webhooks.record_attempt(
            delivery, status=status, error=error, milliseconds=milliseconds, moment=moment
        )
    )


async def send_periodically(store: Store, settings: Settings) -> None:
    """Sweep every ``settings.webhook_every_seconds`` (at once again after a busy one),
    until cancelled; a failing sweep is retried on the next beat."""
    pause = settings.webhook_every_seconds
    assert pause is not None
    async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, follow_redirects=False) as client:
        while True:
            try:
                busy = await sweep(store, settings, client) >= AT_ONCE
            except Exception:  # the store away: the outbox keeps everything for later
                logger.warning(
                    "webhook sweep failed; the outbox keeps its deliveries", exc_info=True
                )
                busy = False
            if not busy:
                await asyncio.sleep(pause)
