"""mpp: one solve paid through the HTTP ``Payment`` authentication scheme.

Challenges, credentials and receipts are ``pympp``'s (the Payment scheme of the
Machine Payments Protocol): a 402 carries ``WWW-Authenticate: Payment id=..., realm=...,
method="payments-link", intent="charge", request=..., expires=...``, whose id is an
HMAC over its parameters, so the service keeps no state per challenge. The client pays
and answers with ``Authorization: Payment <credential>`` (or ``Payment-Authorization``
when ``Authorization`` already holds a Bearer key); the credential echoes the challenge
and carries ``{"payment_id": ...}``.

The payment method is the *payments-link profile*: the payer completes a payment link
(checkout) at the payment provider for ``amount`` minor units of ``currency`` to the
service's ``payments_account``; the provider holds an authorized payment until the
service captures it. The provider API this module speaks:

* ``GET {provider}/payments/{id}`` -> ``{id, status, amount_minor, currency, account,
  payer?}``; a payment can pay a solve while ``status`` is ``authorized``;
* ``POST {provider}/payments/{id}/capture`` -> 200 ``{id, status: "captured", ...}``,
  or 4xx when the provider refuses to capture.

Both send ``Authorization: Bearer <MPP_PROVIDER_KEY>``. pympp checks the challenge
(issued here, unexpired, for this price); ``validate`` asks the provider before solving;
``broadcast`` captures after the roster is delivered, and its receipt goes out as
``Payment-Receipt``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from secrets import token_hex
from typing import Any, Final, Literal

import httpx
from mpp import Challenge, Credential, Receipt
from mpp._validation import Validation
from mpp.errors import PaymentError, VerificationFailedError
from mpp.methods import Method
from mpp.server.method import ServerMethod, VerifyContext
from mpp.server.mpp import Mpp
from pydantic import BaseModel, ConfigDict, Field

from shiftsched.service.billing.payments.config import MppSettings
from shiftsched.service.billing.payments.outbound import OutboundHttp
from shiftsched.service.billing.payments.outcomes import (
    PaymentRejected,
    PaymentUnavailable,
    Settlement,
)

METHOD_NAME: Final = "payments-link"
PROFILE: Final = "payments-link"
INTENT: Final = "charge"
PAYABLE_STATUS: Final = "authorized"


class LinkRequest(BaseModel):
    """What a challenge asks for: an amount in minor units, to the service's account."""

    model_config = ConfigDict(extra="forbid")

    amount: str = Field(pattern=r"^[1-9][0-9]*$")
    currency: str = Field(pattern=r"^[a-z]{3}$")
    recipient: str = Field(min_length=1)
    profile: Literal["payments-link"] = PROFILE
    checkout: str | None = None


class LinkPayload(BaseModel):
    """What a credential proves: the provider's id of the authorized payment."""

    payment_id: str = Field(min_length=1, max_length=160, pattern=r"^[A-Za-z0-9_.:-]+$")


PAYMENTS_LINK: Final = Method(
    name=METHOD_NAME, intent=INTENT, request_model=LinkRequest, payload_model=LinkPayload
)


@dataclass
class MppGateway:
    """The mpp offer of this service, built on one ``pympp`` server."""

    settings: MppSettings
    description: str = "One solve of the shift-scheduling engine"
    server: Mpp = field(init=False)
    http: OutboundHttp = field(init=False)

    def __post_init__(self) -> None:
        self.http = OutboundHttp(self.settings.provider_timeout_seconds)
        method = ServerMethod(
            method=PAYMENTS_LINK, validate=self._validate, broadcast=self._capture
        )
        self.server = Mpp(
            methods=method, realm=self.settings.realm, secret_key=self.settings.secret_key
        )

    # Offer ----------------------------------------------------------------------------

    def route_input(self, units: int) -> dict[str, Any]:
        s = self.settings
        return {
            "amount": s.price(units),
            "currency": s.currency,
            "recipient": s.payments_account,
            "profile": PROFILE,
            **({"checkout": s.checkout_url} if s.checkout_url else {}),
        }

    def challenge(self, units: int) -> Challenge:
        """A fresh challenge for a solve of ``units`` units (unique per call)."""
        expires = datetime.now(UTC) + timedelta(seconds=self.settings.challenge_ttl_seconds)
        return Challenge.create(
            secret_key=self.settings.secret_key,
            realm=self.settings.realm,
            method=METHOD_NAME,
            intent=INTENT,
            request=PAYMENTS_LINK.normalize_request(self.route_input(units)),
            expires=expires.isoformat(timespec="seconds").replace("+00:00", "Z"),
            description=f"{self.description}: {units} unit(s)",
            meta={"_mpp_nonce": token_hex(16)},
        )

    def www_authenticate(self, units: int) -> str:
        """The ``Payment`` challenge header, with the profile named beside the draft's
        parameters."""
        header = self.challenge(units).to_www_authenticate(self.settings.realm)
        return f'{header}, profile="{PROFILE}"'

    def accepts_entry(self, units: int, docs: str) -> dict[str, Any]:
        s = self.settings
        return {
            "scheme": "mpp",
            "profile": PROFILE,
            "payments_account": s.payments_account,
            "amount_minor": s.price(units),
            "currency": s.currency,
            "description": f"{self.description}: {units} unit(s) at {s.price_per_unit_minor} "
            f"minor unit(s) of {s.currency} each; pay the WWW-Authenticate Payment challenge "
            "and send Authorization: Payment <credential>",
            "docs": docs,
        }

    # Payment --------------------------------------------------------------------------

    @staticmethod
    def parse(header: str) -> Credential:
        """The credential of an ``Authorization: Payment ...`` value; PaymentRejected if
        it cannot be read."""
        try:
            credential = Credential.from_authorization(header.strip())
        except Exception as error:  # pympp raises several parse errors
            raise PaymentRejected(
                "malformed_credential", f"unreadable credential: {error}"
            ) from None
        payment_id = credential.payload.get("payment_id") if credential.payload else None
        if not isinstance(payment_id, str) or not payment_id:
            raise PaymentRejected("malformed_credential", "the credential names no payment_id")
        return credential

    @staticmethod
    def replay_key(credential: Credential) -> str:
        return f"mpp:{credential.payload['payment_id']}"[:200]

    async def verify(self, credential: Credential, units: int) -> None:
        """The credential answers our challenge for this price and the provider holds an
        authorized payment for it; else PaymentRejected or PaymentUnavailable."""
        try:
            await self.server.validate_credential(
                credential, intent=INTENT, request=self.route_input(units)
            )
        except PaymentError as error:
            raise PaymentRejected(_slug(error), str(error)) from None

    async def settle(self, credential: Credential, units: int) -> Settlement:
        """Capture after delivery; the receipt (``Payment-Receipt``) when settled. Never
        raises: the outcome says what went wrong."""
        try:
            receipt = await self.server.broadcast_credential(
                credential, intent=INTENT, request=self.route_input(units)
            )
            header = receipt.to_payment_receipt()
        except PaymentUnavailable as error:
            return Settlement("facilitator_error", detail=str(error))
        except PaymentError as error:
            return Settlement("failed", detail=str(error))
        except Exception as error:
            return Settlement("internal_error", detail=f"{type(error).__name__}: {error}")
        return Settlement("settled", header=header)

    async def captured(self, credential: Credential) -> bool | None:
        """Whether the provider shows the payment captured (True) or still only
        authorized (False); None when it cannot tell (unreachable, another status)."""
        payment_id = str(credential.payload["payment_id"])
        try:
            payment = await self._provider("GET", f"/payments/{payment_id}")
        except PaymentUnavailable:
            return None
        status = payment.get("status") if payment is not None else None
        return {"captured": True, PAYABLE_STATUS: False}.get(str(status))

    async def settle_again(self, credential: Credential) -> Settlement:
        """Try again a capture that got no verdict, straight with the provider (the
        challenge may have expired since). A payment the provider already shows as
        captured was captured by the earlier try. Never raises."""
        payment_id = str(credential.payload["payment_id"])
        try:
            payment = await self._provider("GET", f"/payments/{payment_id}")
            if payment is not None and payment.get("status") == "captured":
                return Settlement("settled", detail="captured by an earlier try")
            captured = await self._provider("POST", f"/payments/{payment_id}/capture")
        except PaymentUnavailable as error:
            return Settlement("facilitator_error", detail=str(error))
        except Exception as error:
            return Settlement("internal_error", detail=f"{type(error).__name__}: {error}")
        if captured is None or captured.get("status") != "captured":
            return Settlement("failed", detail="the payment provider refused the capture")
        return Settlement("settled")

    # pympp hooks ----------------------------------------------------------------------

    async def _validate(self, context: VerifyContext) -> Validation:
        payload = _payload(context)
        payment = await self._provider("GET", f"/payments/{payload.payment_id}")
        if payment is None:
            raise VerificationFailedError("the payment provider knows no such payment")
        _check_payment(payment, context.request)
        return Validation(
            credential=context.credential,
            details=payment,
            intent=INTENT,
            request=context.request,
            payer=payment.get("payer") if isinstance(payment.get("payer"), str) else None,
        )

    async def _capture(self, context: VerifyContext) -> Receipt:
        payload = _payload(context)
        captured = await self._provider("POST", f"/payments/{payload.payment_id}/capture")
        if captured is None or captured.get("status") != "captured":
            raise VerificationFailedError("the payment provider refused the capture")
        return Receipt.success(
            reference=str(captured.get("id", payload.payment_id)),
            method=METHOD_NAME,
            external_id=str(captured["capture_id"]) if captured.get("capture_id") else None,
        )

    async def _provider(self, verb: str, path: str) -> dict[str, Any] | None:
        """The provider's JSON answer; None for a 4xx refusal; PaymentUnavailable else."""
        s = self.settings
        headers = {"Authorization": f"Bearer {s.provider_key}"} if s.provider_key else {}
        try:
            async with self.http.client() as client:
                response = await client.request(
                    verb, s.provider_url.rstrip("/") + path, headers=headers
                )
        except httpx.HTTPError as error:
            raise PaymentUnavailable(f"the payment provider is unreachable: {error}") from None
        if 400 <= response.status_code < 500:
            return None
        if response.status_code != 200:
            raise PaymentUnavailable(f"the payment provider answered {response.status_code}")
        try:
            answer = response.json()
        except ValueError:
            raise PaymentUnavailable("the payment provider answered no JSON") from None
        if not isinstance(answer, dict):
            raise PaymentUnavailable("the payment provider answered no JSON object")
        return answer


def _payload(context: VerifyContext) -> LinkPayload:
    """The credential payload, which pympp has already parsed with ``LinkPayload``."""
    payload: Any = context.credential.payload
    return payload if isinstance(payload, LinkPayload) else LinkPayload.model_validate(payload)


def _check_payment(payment: dict[str, Any], request: dict[str, Any]) -> None:
    if payment.get("status") != PAYABLE_STATUS:
        raise VerificationFailedError(f"the payment is {payment.get('status')!r}, not authorized")
    if payment.get("account") != request["recipient"]:
        raise VerificationFailedError("the payment is to another account")
    if payment.get("currency") != request["currency"]:
        raise VerificationFailedError(f"the payment is not in {request['currency']}")
    try:
        amount = int(str(payment.get("amount_minor")))
    except ValueError:
        raise VerificationFailedError("the payment states no amount") from None
    if amount < int(request["amount"]):
        raise VerificationFailedError(
            f"the payment is {amount} minor units; this solve costs {request['amount']}"
        )


def _slug(error: PaymentError) -> str:
    return str(error.type).rsplit("/", 1)[-1].replace("-", "_")
