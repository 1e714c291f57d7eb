"""The gate every request walks before any work, shared by the key and payment paths.

Content type (415), size while reading (413), JSON (400): :func:`json_body`. JSON also
means at most :data:`MAX_JSON_DEPTH` nested arrays and objects: the deepest request of the
contract nests under ten levels, and the standard parser recurses once per level, so a
body of ten thousand brackets would otherwise end in a RecursionError (a 500) instead of
the 400 any other unreadable body gets. Contract
faults (422) are :class:`~bento.http.errors.ValidationFailed` on both paths, so both word them
alike; which solves may run, and what they cost, is :mod:`bento.billing.admission`. A check that
stops a request raises its :class:`~bento.http.errors.ServiceError`.
"""

from __future__ import annotations

import json
from typing import Any, Final

from starlette.requests import Request

from bento.http.errors import (
    InvalidJson,
    PayloadTooLarge,
    UnsupportedMediaType,
)

MAX_BODY_BYTES: Final = 1024 * 1024  # the contract's 1 MB hard cap
MAX_JSON_DEPTH: Final = 64  # nested arrays and objects (docs/semantics.md)
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
    return parse_json(bytes(body))


def parse_json(body: bytes | str) -> Any:
    """``body`` parsed; InvalidJson when it is not JSON or nests deeper than
    :data:`MAX_JSON_DEPTH`."""
    too_deep = InvalidJson(f"arrays and objects nest deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(body)
    except RecursionError:  # the parser's own limit, far above ours: the same fault
        raise too_deep from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidJson(str(exc)) from None
    if json_depth(data) > MAX_JSON_DEPTH:
        raise too_deep
    return data


def json_depth(data: Any) -> int:
    """How many arrays and objects nest in ``data`` (0 for a scalar), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((item, depth + 1) for item in value if isinstance(item, (dict, list)))
    return deepest


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
