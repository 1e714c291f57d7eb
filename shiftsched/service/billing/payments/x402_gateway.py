"""x402: one solve paid with a signed transfer authorization, checked by a facilitator.

The wire forms are the ``x402`` package's own models: a client sends ``X-PAYMENT``
(protocol version 1) or ``PAYMENT-SIGNATURE`` (version 2), each a base64 JSON payment
payload. The service builds the payment requirements for *this* request (price = units
of the problem x ``X402_PRICE_PER_UNIT``), checks that the payload pays them (scheme,
network, recipient, asset, amount), asks the facilitator to ``/verify`` it before
solving and to ``/settle`` it after the roster is delivered.

Outcomes and what the caller sees:

* undecodable payload, wrong network/recipient/asset, amount below the price, or the
  facilitator answers ``isValid: false``: :class:`PaymentRejected` (401, ``X402``);
* facilitator unreachable, too slow, or answering something that is not a verdict at
  verification: :class:`PaymentUnavailable` (503 with Retry-After);
* settlement: ``settled`` (the base64 settle response goes out as
  ``X-PAYMENT-RESPONSE``), ``failed`` (``success: false``), ``facilitator_error``
  (unreachable or no valid answer) or ``internal_error`` (anything else); the roster is
  delivered in every case and ``X-Service-Settle-Status`` carries the failure.
"""

from __future__ import annotations

import binascii
import hashlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final

import httpx
from pydantic import ValidationError
from x402.http import FacilitatorConfig, HTTPFacilitatorClient
from x402.http.facilitator_client_base import FacilitatorResponseError
from x402.http.utils import (
    decode_payment_signature_header,
    encode_payment_required_header,
    encode_payment_response_header,
)
from x402.schemas import (
    PaymentPayload,
    PaymentRequired,
    PaymentRequirements,
    ResourceInfo,
)
from x402.schemas.v1 import PaymentPayloadV1, PaymentRequiredV1, PaymentRequirementsV1

from shiftsched.service.billing.payments.config import X402Settings
from shiftsched.service.billing.payments.outbound import OutboundHttp
from shiftsched.service.billing.payments.outcomes import (
    PaymentRejected,
    PaymentUnavailable,
    Settlement,
)

Payload = PaymentPayload | PaymentPayloadV1
Requirements = PaymentRequirements | PaymentRequirementsV1

MIME_TYPE: Final = "application/json"


@dataclass
class X402Gateway:
    """The x402 offer of this service and its conversations with the facilitator."""

    settings: X402Settings
    description: str = "One solve of the shift-scheduling engine"
    http: OutboundHttp = field(init=False)

    def __post_init__(self) -> None:
        self.http = OutboundHttp(self.settings.facilitator_timeout_seconds)

    # Offer ----------------------------------------------------------------------------

    def requirements(self, units: int, resource: str, version: int) -> Requirements:
        """What a payment for a solve of ``units`` units must satisfy, in that version."""
        s = self.settings
        amount = s.price(units)
        extra = {"name": s.asset_name, "version": s.asset_version}
        if version == 1:
            return PaymentRequirementsV1(
                scheme=s.scheme,
                network=s.network_for(1),
                max_amount_required=amount,
                resource=resource,
                description=self.description,
                mime_type=MIME_TYPE,
                pay_to=s.pay_to,
                max_timeout_seconds=s.max_timeout_seconds,
                asset=s.asset,
                extra=extra,
            )
        return PaymentRequirements(
            scheme=s.scheme,
            network=s.network_for(2),
            asset=s.asset,
            amount=amount,
            pay_to=s.pay_to,
            max_timeout_seconds=s.max_timeout_seconds,
            extra=extra,
        )

    def payment_required_header(self, units: int, resource: str, error: str | None) -> str:
        """The protocol's own challenge: base64 ``PaymentRequired`` (``PAYMENT-REQUIRED``)."""
        version = self.settings.version
        requirements = self.requirements(units, resource, version)
        required: PaymentRequired | PaymentRequiredV1
        if isinstance(requirements, PaymentRequirementsV1):
            required = PaymentRequiredV1(error=error, accepts=[requirements])
        else:
            info = ResourceInfo(url=resource, description=self.description, mime_type=MIME_TYPE)
            required = PaymentRequired(error=error, resource=info, accepts=[requirements])
        return encode_payment_required_header(required)

    def accepts_entry(self, units: int, docs: str) -> dict[str, Any]:
        """The ``accepts[]`` entry of the 402 body, in the contract's own field names."""
        s = self.settings
        return {
            "scheme": "x402",
            "version": s.version,
            "x402_scheme": s.scheme,
            "network": s.network,
            "pay_to": s.pay_to,
            "asset": s.asset,
            "max_amount_required": s.price(units),
            "max_timeout_seconds": s.max_timeout_seconds,
            "description": f"{self.description}: {units} unit(s) at {s.price_per_unit} atomic "
            f"units of the asset each; send X-PAYMENT (version 1) or PAYMENT-SIGNATURE "
            f"(version 2)",
            "docs": docs,
        }

    # Payment --------------------------------------------------------------------------

    @staticmethod
    def decode(header: str) -> Payload:
        """The payload of an ``X-PAYMENT``/``PAYMENT-SIGNATURE`` value; PaymentRejected if
        it is not base64 JSON of a version 1 or 2 payload."""
        try:
            return decode_payment_signature_header(header.strip())
        except (binascii.Error, ValueError, ValidationError, AttributeError, TypeError) as error:
            raise PaymentRejected(
                "invalid_payload", f"the payment header is not a base64 x402 payload: {error}"
            ) from None

    def check(self, payload: Payload, requirements: Requirements) -> None:
        """Refuse, before any network call, a payload that cannot pay these requirements."""
        expected_amount = int(requirements.get_amount())
        if isinstance(payload, PaymentPayloadV1):
            scheme, network = payload.scheme, payload.network
            pay_to, asset, amount = None, None, None
        else:
            accepted = payload.accepted
            scheme, network = accepted.scheme, accepted.network
            pay_to, asset, amount = accepted.pay_to, accepted.asset, _int(accepted.amount)
        authorization = payload.payload.get("authorization")
        if isinstance(authorization, dict):  # what the signature actually grants
            if isinstance(authorization.get("to"), str):
                pay_to = authorization["to"]
            if authorization.get("value") is not None:
                amount = _int(authorization["value"])
        if scheme != requirements.scheme or network != requirements.network:
            raise PaymentRejected(
                "unsupported_scheme",
                f"this service takes {requirements.scheme} payments on "
                f"{requirements.network}, not {scheme} on {network}",
            )
        if pay_to is not None and pay_to.lower() != requirements.pay_to.lower():
            raise PaymentRejected("invalid_recipient", "the payment is not to this service")
        if asset is not None and asset.lower() != requirements.asset.lower():
            raise PaymentRejected("invalid_asset", "the payment is in another asset")
        if amount is None or amount < expected_amount:
            raise PaymentRejected(
                "insufficient_amount",
                f"this solve costs {expected_amount} atomic units; the payment authorizes "
                f"{amount if amount is not None else 'no amount'}",
            )

    def replay_key(self, payload: Payload) -> str:
        """What makes a payment unique, the same whichever version carried it: the
        chain (CAIP-2, from this offer's settings, which the payload was checked to pay),
        the asset, the payer and the authorization nonce. Without a nonce, a digest of
        the signed payload stands for the last two.

        Why not the payload's own network field: version 1 names the chain
        (``base-sepolia``) where version 2 gives its CAIP-2 id (``eip155:84532``), and
        one authorization sent both ways must still buy one solve.
        """
        s = self.settings
        authorization = payload.payload.get("authorization")
        if isinstance(authorization, dict) and authorization.get("nonce"):
            payer = str(authorization.get("from") or "")
            parts = [s.chain, s.asset, payer, str(authorization["nonce"])]
            key = ("x402:" + ":".join(parts)).lower()
            if len(key) <= 200:
                return key
            digest = hashlib.sha256(":".join(parts[1:]).lower().encode()).hexdigest()
            return f"x402:{s.chain}:sha256:{digest}"[:200]
        canonical = json.dumps(payload.payload, sort_keys=True, separators=(",", ":"))
        return "x402:sha256:" + hashlib.sha256(canonical.encode()).hexdigest()

    async def verify(self, payload: Payload, requirements: Requirements) -> None:
        """Ask the facilitator; PaymentRejected when invalid, PaymentUnavailable when
        there is no verdict."""
        try:
            async with self._client() as client:
                answer = await client.verify(payload, requirements)
        except (httpx.HTTPError, FacilitatorResponseError, ValueError) as error:
            raise PaymentUnavailable(f"the x402 facilitator gave no verdict: {error}") from None
        if not answer.is_valid:
            reason = answer.invalid_reason or "invalid_payment"
            raise PaymentRejected(reason, answer.invalid_message or f"payment refused: {reason}")

    async def settle(self, payload: Payload, requirements: Requirements) -> Settlement:
        """Settle after delivery; never raises: the outcome says what went wrong."""
        try:
            async with self._client() as client:
                answer = await client.settle(payload, requirements)
        except (httpx.HTTPError, FacilitatorResponseError, ValueError) as error:
            return Settlement("facilitator_error", detail=str(error))
        except Exception as error:  # a fault on this side must not lose the roster
            return Settlement("internal_error", detail=f"{type(error).__name__}: {error}")
        if not answer.success:
            return Settlement("failed", detail=answer.error_reason or answer.error_message)
        try:
            return Settlement("settled", header=encode_payment_response_header(answer))
        except Exception as error:
            return Settlement("internal_error", detail=f"{type(error).__name__}: {error}")

    @asynccontextmanager
    async def _client(self) -> AsyncIterator[HTTPFacilitatorClient]:
        s = self.settings
        async with self.http.client() as http:
            yield HTTPFacilitatorClient(
                FacilitatorConfig(
                    url=s.facilitator_url, timeout=s.facilitator_timeout_seconds, http_client=http
                )
            )


def _int(value: Any) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None
