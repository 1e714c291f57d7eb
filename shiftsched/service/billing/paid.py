"""POST /solve without an account: the 402 offer, and one solve paid by x402 or mpp.

The offer (no credential at all): 402 problem+json whose ``accepts[]`` lists every
configured scheme, priced for *this* request (its units, docs/semantics.md "Size and
units", x the configured unit price; 1 unit when the body is not a valid request), with
one ``WWW-Authenticate`` field per scheme (``Bearer``, ``X402``, ``Payment``) and, with
x402 on, the protocol's own ``PAYMENT-REQUIRED`` header.

A paid request walks this order, and stops at the first fault:

1. the scheme is configured (else 401) and its credential decodes (else 401);
2. a Bearer key sent beside it must be valid (401), though it pays nothing;
3. the body is a valid request (422), small (422 tier-limit-exceeded: a payment buys no
   queued solve) and asks for at most 30 s (501);
4. the payment requirements can be built from the settings (else 503);
5. the payment pays this price (401), and is claimed in the database: a payment used
   before, or in flight in a concurrent request, is refused (401). A claim is held on a
   lease (``PAYMENT_CLAIM_LEASE_SECONDS``): one left in flight by a request that died
   is taken over once its lease has run out (``shiftsched.service.store.payments``); one it left
   while settling is given back if the provider shows no money moved (mpp);
6. the facilitator/provider verifies it (401 when it refuses, 503 when unreachable);
7. the solve runs; a roster (or a diagnosed infeasibility, as on the key path) is
   *delivered* and the payment settled; otherwise the claim is given back unsettled, so
   the payer loses nothing and can retry with the same payment;
8. settlement decides what is delivered (``X-Service-Settle-Status`` names a failure):

   * ``failed``: the facilitator/provider refused outright (``success: false``, a
     refused capture), so no money moved. The result is withheld: 401 naming the scheme,
     with the header, and the claim is given back. One payment never buys a result it
     did not pay for, whatever the reason (a nonce already used elsewhere included);
   * ``facilitator_error``, ``internal_error``: no verdict, so the money may have moved.
     The result is delivered with the header, and the claim is *held*
     (``settle_failed``, with what settling needs): the payment cannot buy a second
     solve, and its settlement is tried again from that durable record
     (``shiftsched.service.billing.payments.resettle``) until the facilitator or provider answers.
     The payer never pays for nothing, and the service is paid once it can be.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from mpp import Credential

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.errors import InvalidRequest
from shiftsched.service.billing.admission import Admission
from shiftsched.service.billing.call import PaidCall, PaymentHeader, Run, Settled, run_held
from shiftsched.service.billing.payments.config import PaymentMisconfigured
from shiftsched.service.billing.payments.mpp_gateway import MppGateway
from shiftsched.service.billing.payments.outcomes import (
    PaymentRejected,
    PaymentUnavailable,
    Settlement,
)
from shiftsched.service.billing.payments.resettle import settle_held_quietly, settle_with
from shiftsched.service.billing.payments.x402_gateway import Payload, Requirements, X402Gateway
from shiftsched.service.errors import (
    REALM,
    RETRY_AFTER_UNAVAILABLE,
    PaymentRefused,
    PaymentRequired,
    ServiceUnavailable,
    Unauthorized,
)
from shiftsched.service.solving.outcome import Outcome
from shiftsched.service.store import PaymentState, Store, StoreUnavailable
from shiftsched.service.store.payments import PaidKey
from shiftsched.service.threads import in_thread

logger = logging.getLogger(__name__)

PAYMENT_REQUIRED_HEADER = "PAYMENT-REQUIRED"
SETTLE_STATUS_HEADER = "X-Service-Settle-Status"
UNITS_CONSUMED_HEADER = "X-Units-Consumed"
ALREADY_USED = "this payment was already used (or is in use by another request)"
LEASE_LOST = (
    "this payment's claim ran out while the solve ran and another request took it over; "
    "it was not settled here"
)
API_KEY_ENTRY = {
    "scheme": "api_key",
    "description": "Authorization: Bearer <API key>, issued in the account dashboard "
    "(/dashboard/); each solve consumes max(1, ceil(size / 10,000)) units of its account",
}


# ---------------------------------------------------------------------------- the offer


def payment_required(call: PaidCall, data: Any) -> PaymentRequired:
    """402: every configured way to pay for this request. Raises ServiceUnavailable (503)
    when one cannot be built."""
    units = _units_or_one(data)
    x402, mpp, docs = call.x402, call.mpp, call.docs_url
    accepts: list[dict[str, Any]] = [{**API_KEY_ENTRY, "docs": docs}]
    headers: list[tuple[str, str]] = [("WWW-Authenticate", f"Bearer {REALM}")]
    try:
        if x402 is not None:
            x402.settings.checked()
            accepts.append(x402.accepts_entry(units, docs))
            headers.append(("WWW-Authenticate", f"X402 {REALM}"))
            required = x402.payment_required_header(units, call.resource_url, None)
            headers.append((PAYMENT_REQUIRED_HEADER, required))
        if mpp is not None:
            mpp.settings.checked()
            accepts.append(mpp.accepts_entry(units, docs))
            headers.append(("WWW-Authenticate", mpp.www_authenticate(units)))
    except PaymentMisconfigured as error:
        raise _misconfigured(error) from None
    headers.append(("Cache-Control", "no-store"))
    return PaymentRequired(
        f"this solve costs {units} unit(s): send an API key or pay with one of accepts[]",
        headers=headers,
        accepts=accepts,
    )


# ---------------------------------------------------------------------------- paid solve


async def paying_with(call: PaidCall, data: Any, header: PaymentHeader) -> PaymentPayer:
    """The payer of ``header``: steps 1 and 2 of the module docstring."""
    payment = _decoded(call, data, header)
    await _check_bearer_beside(call)
    return PaymentPayer(call, payment, header)


@dataclass
class PaymentPayer:
    """A decoded payment that has yet to pay for an admitted solve."""

    call: PaidCall
    payment: _Payment
    header: PaymentHeader
    may_queue: bool = False
    why_not: str = "; a payment buys a synchronous solve"
    keyed: PaidKey | None = None  # the call's Idempotency-Key, claimed with the payment

    def claim_key(self) -> str:
        """The key the payment is claimed by (what makes it unique); 503 when the
        settings cannot name it."""
        try:
            return self.payment.claim_key()
        except PaymentMisconfigured as error:
            raise _misconfigured(error) from None

    async def pay(
        self,
        purpose: str,
        admission: Admission,
        run: Run,
        *,
        solves: bool,
        data: object,
        name: Callable[[], str] | None = None,
    ) -> Settled:
        """Steps 4-8: claim and verify the payment (:meth:`hold`), run the solve, and
        settle the payment of a delivered answer; anything else gives the claim back."""
        bill = await self.hold(purpose, admission, solves=solves, data=data, name=name)
        return await bill.settle(await run_held(bill, run))

    async def hold(
        self,
        purpose: str,
        admission: Admission,
        *,
        solves: bool,
        data: object,
        name: Callable[[], str] | None = None,
    ) -> PaymentBill:
        """Steps 4-6: price the payment for the admission's units, claim it, verify it.
        A payment has no account, so nothing is kept as a job."""
        call, payment, units = self.call, self.payment, admission.units
        try:
            key, amount = payment.price(units)
        except PaymentMisconfigured as error:
            raise _misconfigured(error) from None
        except PaymentRejected as rejected:
            raise payment.refused(str(rejected), units) from None
        store = call.store
        holder = call.request_id or uuid.uuid4().hex  # names the claim's holder
        lease = payment.lease_seconds
        scheme = self.header.scheme
        claims = store.payments.claim_payment
        claim = partial(claims, key, scheme, amount, holder, lease, self.keyed)
        claimed = await in_thread(claim)
        if not claimed and await _given_back_after_death(store, payment, key):
            claimed = await in_thread(claim)
        if not claimed:
            raise payment.refused(ALREADY_USED, units)
        settle_with_ = settle_with(self.header.value, units, call.resource_url)
        bill = PaymentBill(store, _Claim(key, holder, lease, settle_with_), payment, units)
        try:
            await payment.verify()
        except PaymentRejected as rejected:
            await bill.release()
            raise payment.refused(str(rejected), units) from None
        except PaymentUnavailable as error:
            await bill.release()
            raise _unavailable(str(error)) from None
        return bill


@dataclass(frozen=True)
class _Claim:
    """A payment claim held by this request: its key, holder (the request id) and
    lease, so that each later step changes the claim only while it is still ours."""

    key: str
    holder: str
    lease_seconds: float
    settle_with: str


class _Payment(Protocol):
    """One decoded payment, whatever its scheme."""

    @property
    def gateway(self) -> X402Gateway | MppGateway:
        """The scheme's gateway, which settles held payments too."""

    @property
    def lease_seconds(self) -> float:
        """How long this request may hold the payment's claim in flight."""

    def refused(self, message: str, units: int) -> PaymentRefused:
        """401 naming the scheme, with a fresh challenge priced for ``units``."""

    def claim_key(self) -> str:
        """The replay key the payment is claimed by; PaymentMisconfigured."""

    def price(self, units: int) -> tuple[str, str]:
        """(replay key, amount) once the payment is checked against the price of
        ``units``; PaymentRejected or PaymentMisconfigured when it cannot pay it."""

    async def verify(self) -> None:
        """Ask the facilitator/provider; PaymentRejected or PaymentUnavailable."""

    async def settle(self) -> tuple[Settlement, dict[str, str]]:
        """Settle after delivery: the outcome and the headers proving it. Never raises."""

    async def money_moved(self) -> bool | None:
        """Whether this payment's money has moved, as the facilitator/provider tells;
        None when it cannot tell. Never raises."""


def _decoded(call: PaidCall, data: Any, header: PaymentHeader) -> _Payment:
    """The payment of the header; PaymentRefused (401) when its scheme is off or it is
    malformed."""
    if header.scheme == "x402":
        x402 = call.x402
        if x402 is None:
            raise _x402_refused(call.resource_url, None, "x402 is not configured here")
        try:
            return _X402Payment(call.resource_url, x402, x402.decode(header.value))
        except PaymentRejected as rejected:
            message, units = str(rejected), _units_or_one(data)
            raise _x402_refused(call.resource_url, x402, message, units) from None
    mpp = call.mpp
    if mpp is None:
        raise _mpp_refused(None, "mpp is not configured here")
    try:
        return _MppPayment(mpp, mpp.parse(header.value))
    except PaymentRejected as rejected:
        raise _mpp_refused(mpp, str(rejected), _units_or_one(data)) from None


class _X402Payment:
    def __init__(self, resource_url: str, gateway: X402Gateway, payload: Payload) -> None:
        self.resource_url, self.gateway, self.payload = resource_url, gateway, payload
        self.requirements: Requirements | None = None

    @property
    def lease_seconds(self) -> float:
        return self.gateway.settings.claim_lease_seconds

    def refused(self, message: str, units: int) -> PaymentRefused:
        return _x402_refused(self.resource_url, self.gateway, message, units)

    def claim_key(self) -> str:
        self.gateway.settings.checked()
        return self.gateway.replay_key(self.payload)

    def price(self, units: int) -> tuple[str, str]:
        self.gateway.settings.checked()
        resource = self.resource_url
        self.requirements = self.gateway.requirements(units, resource, self.payload.x402_version)
        self.gateway.check(self.payload, self.requirements)
        return self.gateway.replay_key(self.payload), self.requirements.get_amount()

    async def verify(self) -> None:
        assert self.requirements is not None, "price() comes first"
        await self.gateway.verify(self.payload, self.requirements)

    async def settle(self) -> tuple[Settlement, dict[str, str]]:
        assert self.requirements is not None, "price() comes first"
        settlement = await self.gateway.settle(self.payload, self.requirements)
        headers: dict[str, str] = {}
        if settlement.header is not None:
            headers["X-PAYMENT-RESPONSE"] = settlement.header
            if self.payload.x402_version == 2:
                headers["PAYMENT-RESPONSE"] = settlement.header
        return settlement, headers

    async def money_moved(self) -> bool | None:
        return None  # a facilitator answers no such question: the chain would


class _MppPayment:
    def __init__(self, gateway: MppGateway, credential: Credential) -> None:
        self.gateway, self.credential = gateway, credential
        self.units = 1

    @property
    def lease_seconds(self) -> float:
        return self.gateway.settings.claim_lease_seconds

    def refused(self, message: str, units: int) -> PaymentRefused:
        return _mpp_refused(self.gateway, message, units)

    def claim_key(self) -> str:
        return self.gateway.replay_key(self.credential)

    def price(self, units: int) -> tuple[str, str]:
        self.gateway.settings.checked()
        self.units = units
        return self.gateway.replay_key(self.credential), self.gateway.settings.price(units)

    async def verify(self) -> None:
        await self.gateway.verify(self.credential, self.units)

    async def settle(self) -> tuple[Settlement, dict[str, str]]:
        settlement = await self.gateway.settle(self.credential, self.units)
        if settlement.header is None:
            return settlement, {}
        return settlement, {"Payment-Receipt": settlement.header}

    async def money_moved(self) -> bool | None:
        return await self.gateway.captured(self.credential)


@dataclass
class PaymentBill:
    """A verified payment claimed for one solve, until :meth:`settle` or :meth:`release`."""

    store: Store
    claim: _Claim
    payment: _Payment
    units: int
    on_start: Callable[[], None] | None = None
    nothing_charged: str = "the payment was not settled"
    undelivered_note: str = "; the payment was not settled"

    async def release(self) -> None:
        """Nothing was delivered: give the claim back, unsettled, so the payer can retry."""
        await _release(self.store, self.claim)

    async def settle(self, outcome: Outcome) -> Settled:
        """Settle the payment of a delivered answer (step 8): a settlement refused
        outright withholds it."""
        store, claim, payment, units = self.store, self.claim, self.payment, self.units
        if not await _start_settling(store, claim):
            raise payment.refused(LEASE_LOST, units)
        settlement, headers = await payment.settle()
        if settlement.status == "failed":
            await _release(store, claim, settling=True)
            refused = payment.refused(
                f"the payment could not be settled ({settlement.detail or 'refused'}); the "
                "result is withheld and nothing was charged",
                units,
            )
            refused.headers.append((SETTLE_STATUS_HEADER, settlement.status))
            raise refused
        headers[UNITS_CONSUMED_HEADER] = "0"  # the payment paid; no account units were used
        if settlement.status != "settled":
            headers[SETTLE_STATUS_HEADER] = settlement.status
            await _mark(store, claim.key, "settle_failed", settlement.detail)  # held
            return Settled(outcome, headers, 0)
        await _mark(store, claim.key, "settled", None)
        # The facilitator/provider answers again: settlements held earlier get another try.
        return Settled(
            outcome, headers, 0, after=partial(settle_held_quietly, store, payment.gateway)
        )


# ------------------------------------------------------------------------------ helpers


def _units_or_one(data: Any) -> int:
    try:
        return units_for(request_size(parse_request(data)))
    except InvalidRequest:
        return 1


async def _check_bearer_beside(call: PaidCall) -> None:
    """A key sent with a payment pays nothing, but a wrong one is still refused."""
    key = call.bearer
    if key is None:
        return
    if await in_thread(call.store.accounts.authenticate, key) is None:
        raise Unauthorized(
            "the API key sent beside the payment is unknown or disabled",
            headers={"WWW-Authenticate": f'Bearer {REALM}, error="invalid_token"'},
        )


async def _given_back_after_death(store: Store, payment: _Payment, key: str) -> bool:
    """A claim its request left in ``settling`` when it died (past the lease): where
    the provider can tell, give it back when no money moved (True: the payment can pay
    this request), or record it settled when money did (the result may not have gone
    out: the claim's detail says so, for an operator to refund)."""
    lease = payment.lease_seconds
    if not await in_thread(store.payments.stale_settling, key, lease):
        return False
    moved = await payment.money_moved()
    if moved is None:
        return False
    detail = "captured, but its request died while settling: the result may not have gone out"
    resolved = await in_thread(store.payments.resolve_stale_settling, key, moved, detail, lease)
    return resolved and not moved


async def _start_settling(store: Store, claim: _Claim) -> bool:
    """Move our claim to ``settling``; False when it is no longer ours (its lease ran
    out and another request took it over), so this request must not settle. A store
    outage here must not withhold the result the payment was verified for: a request
    that later takes the claim over verifies the payment afresh, and the facilitator or
    provider refuses one that was settled."""
    try:
        return await in_thread(
            store.payments.start_settling,
            claim.key,
            claim.holder,
            claim.lease_seconds,
            claim.settle_with,
        )
    except StoreUnavailable:
        logger.warning("payment %s: could not record state settling (store unavailable)", claim.key)
        return True


async def _mark(store: Store, key: str, state: PaymentState, detail: str | None) -> None:
    """Record how settlement went; a store outage here must not withhold the roster the
    payment was verified for (the claim stays taken, so it cannot be replayed)."""
    try:
        await in_thread(store.payments.mark_payment, key, state, detail)
    except StoreUnavailable:
        logger.warning("payment %s: could not record state %s (store unavailable)", key, state)


async def _release(store: Store, claim: _Claim, *, settling: bool = False) -> None:
    await in_thread(store.payments.release_payment, claim.key, claim.holder, settling=settling)


def _x402_refused(
    resource_url: str, gateway: X402Gateway | None, message: str, units: int = 1
) -> PaymentRefused:
    headers = [("WWW-Authenticate", f'X402 {REALM}, error="invalid_payment"')]
    if gateway is not None:
        try:
            gateway.settings.checked()
            required = gateway.payment_required_header(units, resource_url, message)
            headers.append((PAYMENT_REQUIRED_HEADER, required))
        except PaymentMisconfigured:
            pass
    return PaymentRefused(message, headers=headers)


def _mpp_refused(gateway: MppGateway | None, message: str, units: int = 1) -> PaymentRefused:
    challenge = f'Bearer {REALM}, error="invalid_request"'
    if gateway is not None:
        try:
            gateway.settings.checked()
            challenge = gateway.www_authenticate(units)
        except PaymentMisconfigured:
            pass
    return PaymentRefused(message, headers={"WWW-Authenticate": challenge})


def _misconfigured(error: PaymentMisconfigured) -> ServiceUnavailable:
    return ServiceUnavailable(
        f"payments are misconfigured on this server: {error}",
        retry_after=RETRY_AFTER_UNAVAILABLE,
    )


def _unavailable(message: str) -> ServiceUnavailable:
    return ServiceUnavailable(
        f"{message}; nothing was charged", retry_after=RETRY_AFTER_UNAVAILABLE
    )
