"""The machine-readable description (OpenAPI 3.1), generated from the contract models.

Assembled here from its parts: the component schemas (``openapi_schemas``, from the same
pydantic models that validate requests, so the document can never drift from what the
server accepts), the path operations (``openapi_paths``, on the response entries they
share, ``openapi_responses``) and the security schemes, described below.
"""

from __future__ import annotations

from typing import Any

from shiftsched.service.errors import error_types
from shiftsched.service.http.openapi_paths import all_paths
from shiftsched.service.http.openapi_schemas import component_schemas
from shiftsched.service.http.openapi_webhooks import (
    job_event_webhook,
    webhook_paths,
    webhook_schemas,
)

X402_DESCRIPTION = (
    "Pay per solve with x402: send a base64 JSON payment payload in X-PAYMENT (x402 "
    "protocol version 1) or PAYMENT-SIGNATURE (version 2). The service checks that it pays "
    "this request's requirements (scheme, network, pay_to, asset; price = units x the "
    "configured unit price, in the asset's atomic units), asks the facilitator to verify "
    "it before solving and to settle it after the roster is delivered. A payment is used "
    "once: one used before, or in use by a concurrent request, is refused (401); one "
    "authorization (payer, nonce) is one payment in either header. The "
    "requirements are in the 402 answer's accepts[] and PAYMENT-REQUIRED header."
)
MPP_DESCRIPTION = (
    "Pay per solve with mpp, the HTTP Payment authentication scheme, payments-link "
    "profile: the 402 answer carries the challenge in WWW-Authenticate (Payment ..., "
    'profile="payments-link"); pay it through the payment provider and send '
    "Authorization: Payment <credential> (or Payment-Authorization: Payment <credential> "
    "beside an Authorization: Bearer key). The provider's authorized payment is checked "
    "before solving and captured after the roster is delivered; the response then "
    "carries Payment-Receipt. A payment is used once (a replay is refused, 401)."
)


def openapi_document(server_url: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the v1 public API as served at ``server_url``."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Shift scheduling solver",
            "version": "v1",
            "description": (
                "Builds shift rosters with a constraint solver. Units per solve = "
                "max(1, ceil(employees x shifts x max(1, duties) x days / 10,000)). "
                "Errors are application/problem+json; error types: "
                + ", ".join(f"{cls.slug} ({cls.status})" for cls in error_types())
            ),
        },
        "servers": [{"url": server_url.rstrip("/")}],
        "paths": {**all_paths(), **webhook_paths()},
        "webhooks": job_event_webhook(),
        "components": {
            "schemas": {**component_schemas(), **webhook_schemas()},
            "securitySchemes": {
                "apiKey": {"type": "http", "scheme": "bearer"},
                "x402": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-PAYMENT",
                    "description": X402_DESCRIPTION,
                },
                "mpp": {"type": "http", "scheme": "Payment", "description": MPP_DESCRIPTION},
            },
        },
    }
