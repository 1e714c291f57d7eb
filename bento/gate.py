"""The gate every request walks before any work, shared by the key and payment paths.

Content type (415), size while reading (413), JSON (400): :func:`json_body`. Contract
faults (422) are :class:`~bento.errors.ValidationFailed` on both paths, so both word them
alike; which solves may run, and what they cost, is :mod:`bento.admission`. A check that
stops a request raises its :class:`~bento.errors.ServiceError`.
"""

from __future__ import annotations

import json
from typing import Any, Final

from starlette.requests import Request

from bento.errors import (
    InvalidJson,
    PayloadTooLarge,
    UnsupportedMediaType,
)

MAX_BODY_BYTES: Final = 1024 * 1024  # the contract's 1 MB hard cap
RETRY_AFTER_UNAVAILABLE: Final = "30"
REALM: Final = 'realm="shiftsched"'


async def json_body(request: Request) -> Any:
    """The parsed body; UnsupportedMediaType, PayloadTooLarge or InvalidJson."""
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise UnsupportedMediaType(f"got {content_type!r}")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise PayloadTooLarge()
    body = bytearray()
    async for chunk in request.stream():  # counted while reading, before parsing
        body.extend(chunk)
        if len(body) > MAX_BODY_BYTES:
            raise PayloadTooLarge()
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidJson(str(exc)) from None


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
