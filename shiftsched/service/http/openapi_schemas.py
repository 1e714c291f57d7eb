"""The component schemas of the OpenAPI document: the contract's models and the 402 body.

Schemas come from the same pydantic models that validate requests, so the document can
never drift from what the server accepts. The 402 body (``PaymentRequiredProblem``) is
ProblemDetails with a required ``accepts[]``, written here because no model answers it.
"""

from __future__ import annotations

from copy import deepcopy
from functools import cache
from typing import Any, Final

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from shiftsched.contract.v1 import (
    ProblemDetails,
    SolveRequest,
    SolveResponse,
    UsageResponse,
    ValidateResponse,
)
from shiftsched.service.http.operations import OPERATIONS
from shiftsched.service.http.schemas import beside_v1_schemas
from shiftsched.service.solving.job_control import JobProgress

REF = "#/components/schemas/{model}"


def ref(name: str) -> dict[str, str]:
    """A reference to the component schema ``name``."""
    return {"$ref": REF.format(model=name)}


V1_MODELS: Final = (SolveRequest, SolveResponse, ValidateResponse)
POSITIVE_INTEGER_STRING = {"type": "string", "pattern": "^[1-9][0-9]*$"}


@cache
def component_schemas() -> dict[str, Any]:
    """The document's ``components.schemas``: the contract's models, the 402 body and its
    entries, then the bodies and answers of the operations beside v1 (built once)."""
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (SolveRequest, "validation"),
        (SolveResponse, "serialization"),
        (ValidateResponse, "serialization"),
        (UsageResponse, "serialization"),
        (JobProgress, "serialization"),
        (ProblemDetails, "serialization"),
    ]
    _, top = models_json_schema(models, ref_template=REF)
    schemas = dict(top.get("$defs", {}))
    schemas.update(_payment_schemas(schemas["ProblemDetails"]))
    bodies = [op.body for op in OPERATIONS if op.body not in V1_MODELS]
    answers = [op.answer for op in OPERATIONS if op.answer not in V1_MODELS]
    for name, schema in beside_v1_schemas(bodies, answers).items():
        schemas.setdefault(name, schema)  # v1's own where they share one
    return schemas


def _accept(scheme: str, fields: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """One ``accepts[]`` entry of the 402 body, discriminated by ``scheme``."""
    return {
        "type": "object",
        "properties": {
            "scheme": {"type": "string", "const": scheme},
            **fields,
            "description": {"type": "string"},
            "docs": {"type": "string", "description": "where this API is described"},
        },
        "required": ["scheme", *required, "description"],
        "additionalProperties": False,
    }


def _payment_schemas(problem_details: dict[str, Any]) -> dict[str, Any]:
    """The 402 body (ProblemDetails with a required ``accepts[]``) and its three entries."""
    entries = {
        "ApiKeyAccept": _accept("api_key", {}, []),
        "X402Accept": _accept(
            "x402",
            {
                "version": {"type": "integer", "description": "x402 protocol version"},
                "x402_scheme": {"type": "string", "description": "x402 payment scheme"},
                "network": {"type": "string"},
                "pay_to": {"type": "string"},
                "asset": {"type": "string"},
                "max_amount_required": {
                    **POSITIVE_INTEGER_STRING,
                    "description": "price of this solve in the asset's atomic units",
                },
                "max_timeout_seconds": {"type": "integer", "exclusiveMinimum": 0},
            },
            [
                "version",
                "x402_scheme",
                "network",
                "pay_to",
                "asset",
                "max_amount_required",
                "max_timeout_seconds",
            ],
        ),
        "MppAccept": _accept(
            "mpp",
            {
                "profile": {"type": "string", "description": "payments-link"},
                "payments_account": {"type": "string"},
                "amount_minor": {
                    **POSITIVE_INTEGER_STRING,
                    "description": "price of this solve in minor units of the currency",
                },
                "currency": {"type": "string", "pattern": "^[a-z]{3}$"},
            },
            ["profile", "payments_account", "amount_minor", "currency"],
        ),
    }
    body = deepcopy(problem_details)
    body["title"] = "PaymentRequiredProblem"
    body["properties"]["status"] = {"type": "integer", "const": 402, "title": "Status"}
    body["properties"]["accepts"] = {
        "type": "array",
        "minItems": 1,
        "items": {
            "oneOf": [ref(name) for name in entries],
            "discriminator": {
                "propertyName": "scheme",
                "mapping": {
                    "api_key": REF.format(model="ApiKeyAccept"),
                    "x402": REF.format(model="X402Accept"),
                    "mpp": REF.format(model="MppAccept"),
                },
            },
        },
        "title": "Accepts",
    }
    body["required"] = [*body.get("required", []), "accepts"]
    return {**entries, "PaymentRequiredProblem": body}
