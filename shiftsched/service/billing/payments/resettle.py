"""Held settlements tried again: delivered solves whose payment got no verdict.

Why: when the facilitator or provider gives no verdict at settlement (unreachable, too
slow, a fault on this side), the money may or may not have moved. The result is then
delivered flagged (``X-Service-Settle-Status``) and the claim is *held*: it stays in
``settle_failed`` with what settling needs (``settle_with``: the credential as sent,
the units and the resource it paid), so the payment can never buy a second solve and
its settlement survives a restart. :func:`settle_held` tries each due claim again, on a
lease of its own, so two processes never settle one claim at once:

* settled: the claim becomes ``settled`` (an mpp payment the provider already shows as
  captured was captured by the earlier try);
* refused outright: the claim stays ``settle_failed`` for good, with the reason; the
  result went out unpaid, and the record says so;
* still no verdict: the claim rests ``RETRY_SETTLE_AFTER_SECONDS`` and is tried again.

The paid path calls it in the background of every response whose own settlement of the
same scheme succeeded (the facilitator answers again), and every service process calls
it on a timer (:func:`resettle_periodically`), so a held settlement is tried again even
when no paid solve follows it.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Sequence
from typing import Any, Final

import anyio

from shiftsched.service.billing.payments.mpp_gateway import MppGateway
from shiftsched.service.billing.payments.outcomes import PaymentRejected, Settlement, SettleStatus
from shiftsched.service.billing.payments.x402_gateway import X402Gateway
from shiftsched.service.store import HeldSettlement, Store, StoreUnavailable
from shiftsched.service.threads import in_thread

logger = logging.getLogger(__name__)

RETRY_BATCH: Final = 5
"""Held claims tried per call: a response's background stays short."""
RETRY_LEASE_SECONDS: Final = 120.0
"""How long one try may hold a claim: two facilitator calls at their timeout, and more."""
RESETTLE_EVERY_SECONDS: Final = 60.0
"""How often a service process tries the due held settlements again on its own."""


def settle_with(header: str, units: int, resource: str) -> str:
    """What settling a payment needs again, as the claim keeps it."""
    return json.dumps({"header": header, "units": units, "resource": resource})


async def settle_held(
    store: Store, gateway: X402Gateway | MppGateway, *, limit: int = RETRY_BATCH
) -> dict[str, SettleStatus]:
    """Try again the due held settlements of ``gateway``'s scheme; each claim's outcome."""
    scheme = "x402" if isinstance(gateway, X402Gateway) else "mpp"
    holder = f"settle-again-{uuid.uuid4().hex}"
    outcomes: dict[str, SettleStatus] = {}
    for held in await in_thread(store.payments.held_settlements, scheme, limit):
        if not await in_thread(store.payments.take_held, held.key, holder, RETRY_LEASE_SECONDS):
            continue  # another process has it, or it was settled meanwhile
        settlement = await _settle_again(gateway, held)
        if settlement.status == "settled":
            await in_thread(
                store.payments.finish_held, held.key, holder, "settled", None, again=False
            )
        elif settlement.status == "failed":
            detail = f"refused when tried again: {settlement.detail}"
            await in_thread(
                store.payments.finish_held, held.key, holder, "settle_failed", detail, again=False
            )
        else:
            await in_thread(
                store.payments.finish_held,
                held.key,
                holder,
                "settle_failed",
                settlement.detail,
                again=True,
            )
        logger.info("payment %s: settlement tried again: %s", held.key, settlement.status)
        outcomes[held.key] = settlement.status
    return outcomes


async def settle_held_quietly(store: Store, gateway: X402Gateway | MppGateway) -> None:
    """:func:`settle_held` in a response's background: a store outage waits for the
    next call, logged, never raised."""
    try:
        await settle_held(store, gateway)
    except StoreUnavailable as error:
        logger.warning("held settlements not tried again: %s", error)


async def resettle_periodically(
    store: Store,
    gateways: Sequence[X402Gateway | MppGateway],
    every_seconds: float = RESETTLE_EVERY_SECONDS,
) -> None:
    """Try the due held settlements of every gateway again, every ``every_seconds``, until
    cancelled (the service's lifespan runs it). A try that fails is logged and waits for
    the next round: the claims stay held, so nothing is lost by waiting."""
    while True:
        await anyio.sleep(every_seconds)
        for gateway in gateways:
            try:
                await settle_held_quietly(store, gateway)
            except Exception:  # a fault of one round must not end the timer
                logger.exception("held settlements not tried again this round")


async def _settle_again(gateway: X402Gateway | MppGateway, held: HeldSettlement) -> Settlement:
    try:
        material: dict[str, Any] = json.loads(held.settle_with)
        header, units = str(material["header"]), int(material["units"])
        if isinstance(gateway, MppGateway):
            return await gateway.settle_again(gateway.parse(header))
        payload = gateway.decode(header)
        requirements = gateway.requirements(units, str(material["resource"]), payload.x402_version)
        return await gateway.settle(payload, requirements)
    except (ValueError, KeyError, TypeError, PaymentRejected) as error:
        return Settlement("failed", detail=f"what settling needs is unreadable: {error}")
