"""The gate every request walks before any work, shared by the key and payment paths.

Content type (415), size while reading (413), JSON (400): :func:`json_body`. Contract
faults (422) go through :func:`validation_problem`, so both paths word them alike. Which
solves may run, and how (:func:`admit`), is one policy for both. A check that stops a
request raises :class:`Rejected` with its problem+json response.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from bento.problems import problem
from engine.contract import SolveRequest
from engine.errors import InvalidRequest
from engine.size import LARGE_SIZE_THRESHOLD, request_size, size_class

MAX_BODY_BYTES: Final = 1024 * 1024  # the contract's 1 MB hard cap
SYNC_TIME_LIMIT_SECONDS: Final = 30
RETRY_AFTER_UNAVAILABLE: Final = "30"
REALM: Final = 'realm="shiftsched"'


class Rejected(Exception):
    """A request stopped at the gate; carries its problem+json response."""

    def __init__(self, response: Response) -> None:
        self.response = response


async def json_body(request: Request) -> Any:
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise Rejected(problem(request, "unsupported-media-type", f"got {content_type!r}"))
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise Rejected(problem(request, "payload-too-large"))
    body = bytearray()
    async for chunk in request.stream():  # counted while reading, before parsing
        body.extend(chunk)
        if len(body) > MAX_BODY_BYTES:
            raise Rejected(problem(request, "payload-too-large"))
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Rejected(problem(request, "invalid-json", str(exc))) from None


def validation_problem(request: Request, exc: InvalidRequest) -> Response:
    return problem(
        request,
        "validation-error",
        f"{len(exc.errors)} error(s) in the request",
        errors=[e.as_dict() for e in exc.errors],
    )


@dataclass(frozen=True)
class Admission:
    """How an admitted solve runs: its size, its time limit, and whether it is queued."""

    size: int
    time_limit: float
    queued: bool  # large, or longer than a synchronous solve may run


def admit(
    request: Request, solve_request: SolveRequest, *, may_queue: bool, why_not: str = ""
) -> Admission:
    """The tier/size/time policy: a large or long solve needs the queued path, which only
    a pro key may use (``may_queue``); anything else runs at once. Refused: 422
    tier-limit-exceeded (large) or 501 not-implemented (long), with ``why_not`` added."""
    size = request_size(solve_request)
    timeout = solve_request.options.solver_timeout_seconds
    large = size_class(size) == "large"
    queued = large or timeout > SYNC_TIME_LIMIT_SECONDS
    if queued and not may_queue:
        if large:
            detail = (
                f"size {size:,} exceeds {LARGE_SIZE_THRESHOLD:,}; large problems need a pro key"
            )
            raise Rejected(problem(request, "tier-limit-exceeded", detail + why_not))
        detail = (
            f"solver_timeout_seconds {timeout} exceeds {SYNC_TIME_LIMIT_SECONDS}: "
            "the asynchronous path needs a pro key"
        )
        raise Rejected(problem(request, "not-implemented", detail + why_not))
    return Admission(size, float(timeout), queued)


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
