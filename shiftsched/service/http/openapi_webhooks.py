"""The webhook API's entries in the OpenAPI document (``shiftsched.service.http.webhook_routes``),
and the event an endpoint receives, under the document's ``webhooks`` (OpenAPI 3.1)."""

from __future__ import annotations

from typing import Any

from shiftsched.service.errors import (
    NotFound,
    ServiceUnavailable,
    TierLimitExceeded,
    Unauthorized,
    ValidationFailed,
)
from shiftsched.service.http.openapi_responses import RETRY_AFTER, problem_response
from shiftsched.service.http.openapi_schemas import ref

_TIMES = {"type": "string", "format": "date-time"}
ENDPOINT = {
    "type": "object",
    "title": "WebhookEndpoint",
    "properties": {
        "id": {"type": "string"},
        "url": {"type": "string"},
        "description": {"type": ["string", "null"]},
        "created_at": _TIMES,
        "secret": {
            "type": "string",
            "description": "whsec_ and base64: the signing secret, only when made or rotated",
        },
    },
    "required": ["id", "url", "created_at"],
}
_ID = {
    "name": "id",
    "in": "path",
    "required": True,
    "description": "the endpoint's id",
    "schema": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
}
_ERRORS = {
    **problem_response(Unauthorized, "API key required"),
    **problem_response(TierLimitExceeded, "webhooks need a pro key"),
    **problem_response(ServiceUnavailable, headers=RETRY_AFTER),
}
_MISSING = problem_response(NotFound, "no such endpoint for this account")


def _operation(
    operation_id: str, summary: str, answered: dict[str, Any], **more: Any
) -> dict[str, Any]:
    return {
        "operationId": operation_id,
        "summary": summary,
        "security": [{"apiKey": []}],
        **more,
        "responses": {**answered, **_ERRORS},
    }


def _json(description: str, schema: dict[str, Any], status: str = "200") -> dict[str, Any]:
    return {
        status: {"description": description, "content": {"application/json": {"schema": schema}}}
    }


def webhook_schemas() -> dict[str, Any]:
    """The webhook API's schemas, for the document's ``components.schemas``."""
    return {
        "WebhookEndpoint": ENDPOINT,
        "WebhookEndpointList": {
            "type": "object",
            "title": "WebhookEndpointList",
            "properties": {"endpoints": {"type": "array", "items": ref("WebhookEndpoint")}},
            "required": ["endpoints"],
        },
        "WebhookEndpointRequest": {
            "type": "object",
            "title": "WebhookEndpointRequest",
            "properties": {
                "url": {"type": "string", "description": "https, a public host"},
                "description": {"type": "string", "maxLength": 200},
            },
            "required": ["url"],
            "additionalProperties": False,
        },
        "WebhookDeliveryList": {
            "type": "object",
            "title": "WebhookDeliveryList",
            "properties": {"deliveries": {"type": "array", "items": {"type": "object"}}},
            "required": ["deliveries"],
        },
        "WebhookTestEvent": {
            "type": "object",
            "title": "WebhookTestEvent",
            "properties": {"event_id": {"type": "string"}},
            "required": ["event_id"],
        },
    }


def webhook_paths() -> dict[str, Any]:
    """The paths of the webhook API."""
    created = _json("the endpoint, with its secret", ref("WebhookEndpoint"), "201")
    listed = ref("WebhookEndpointList")
    body = {
        "required": True,
        "content": {"application/json": {"schema": ref("WebhookEndpointRequest")}},
    }
    refused = problem_response(ValidationFailed, "the address is refused or the body is wrong")
    deliveries = ref("WebhookDeliveryList")
    queued = ref("WebhookTestEvent")
    one = {"parameters": [_ID]}
    return {
        "/webhooks": {
            "post": _operation(
                "create_webhook_endpoint",
                "Register a webhook endpoint",
                {**created, **refused},
                requestBody=body,
            ),
            "get": _operation(
                "list_webhook_endpoints",
                "The account's webhook endpoints",
                _json("the endpoints, without secrets", listed),
            ),
        },
        "/webhooks/{id}": {
            "delete": _operation(
                "delete_webhook_endpoint",
                "Remove a webhook endpoint and its deliveries",
                {"204": {"description": "removed"}, **_MISSING},
                **one,
            ),
        },
        "/webhooks/{id}/rotate": {
            "post": _operation(
                "rotate_webhook_secret",
                "A new signing secret for an endpoint",
                {**_json("the endpoint, with its new secret", ref("WebhookEndpoint")), **_MISSING},
                **one,
            ),
        },
        "/webhooks/{id}/test": {
            "post": _operation(
                "send_webhook_test_event",
                "Send an endpoint a webhook.test event",
                {**_json("the event, in the outbox", queued, "202"), **_MISSING},
                **one,
            ),
        },
        "/webhooks/{id}/deliveries": {
            "get": _operation(
                "list_webhook_deliveries",
                "An endpoint's latest deliveries and every attempt",
                {**_json("newest first", deliveries), **_MISSING},
                **one,
            ),
        },
    }


def job_event_webhook() -> dict[str, Any]:
    """What an endpoint receives (the document's ``webhooks``)."""
    event = {
        "type": "object",
        "title": "JobEvent",
        "properties": {
            "type": {
                "type": "string",
                "enum": ["job.completed", "job.failed", "job.stopped", "webhook.test"],
            },
            "timestamp": _TIMES,
            "data": {"type": "object"},
        },
        "required": ["type", "timestamp", "data"],
    }
    return {
        "jobEnded": {
            "post": {
                "summary": "A queued job of the account ended",
                "description": "Signed with the Standard Webhooks headers webhook-id, "
                "webhook-timestamp and webhook-signature; answer 2xx within 10 s, else it "
                "is sent again (about 27 h in all).",
                "requestBody": {"content": {"application/json": {"schema": event}}},
                "responses": {"200": {"description": "taken"}},
            }
        }
    }
