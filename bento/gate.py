"""The gate every request walks before any work, shared by the key and payment paths.

Content type (415), size while reading (413), JSON (400): :func:`json_body`. Contract
faults (422) go through :func:`validation_problem`, so both paths word them alike. A
check that stops a request raises :class:`Rejected` with its problem+json response.
"""

from __future__ import annotations

import json
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from bento.problems import problem
from engine.errors import InvalidRequest

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


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
