"""The gate every request walks before any work, shared by the key and payment paths.

Content type (415), size while reading (413), JSON (400): :func:`json_body`. Contract
faults (422) are :class:`~bento.errors.ValidationFailed` on both paths, so both word them
alike. Which solves may run, and how (:func:`admit`), is one policy for both. A check that
stops a request raises its :class:`~bento.errors.ServiceError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from starlette.requests import Request

from bento.errors import (
    InvalidJson,
    LongSolveNotImplemented,
    PayloadTooLarge,
    TierLimitExceeded,
    UnsupportedMediaType,
)
from engine.contract import SolveRequest
from engine.size import LARGE_SIZE_THRESHOLD, request_size, size_class

MAX_BODY_BYTES: Final = 1024 * 1024  # the contract's 1 MB hard cap
SYNC_TIME_LIMIT_SECONDS: Final = 30
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


@dataclass(frozen=True)
class Admission:
    """How an admitted solve runs: its size, its time limit, and whether it is queued."""

    size: int
    time_limit: float
    queued: bool  # large, or longer than a synchronous solve may run


def admit(solve_request: SolveRequest, *, may_queue: bool, why_not: str = "") -> Admission:
    """The tier/size/time policy: a large or long solve needs the queued path, which only
    a pro key may use (``may_queue``); anything else runs at once. Refused:
    TierLimitExceeded (large) or LongSolveNotImplemented (long), with ``why_not`` added."""
    size = request_size(solve_request)
    timeout = solve_request.options.solver_timeout_seconds
    large = size_class(size) == "large"
    queued = large or timeout > SYNC_TIME_LIMIT_SECONDS
    if queued and not may_queue:
        if large:
            detail = (
                f"size {size:,} exceeds {LARGE_SIZE_THRESHOLD:,}; large problems need a pro key"
            )
            raise TierLimitExceeded(detail + why_not)
        detail = (
            f"solver_timeout_seconds {timeout} exceeds {SYNC_TIME_LIMIT_SECONDS}: "
            "the asynchronous path needs a pro key"
        )
        raise LongSolveNotImplemented(detail + why_not)
    return Admission(size, float(timeout), queued)


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
