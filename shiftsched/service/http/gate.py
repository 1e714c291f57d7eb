"""The gate every request walks before any work, shared by the key and payment paths.

What the request sends to pay with, its API key and its payment header, is read once:
:func:`credential_of`. Content type (415), size while reading (413), JSON (400):
:func:`json_body`. JSON also
means at most :data:`MAX_JSON_DEPTH` nested arrays and objects: the deepest request of the
contract nests under ten levels, and a body of ten thousand brackets must get the 400 any
other unreadable body gets, never a parser's recursion error (a 500). Contract
faults (422) are :class:`~shiftsched.service.errors.ValidationFailed` on both paths, so both
word them alike; which solves may run, and what they cost, is
:mod:`shiftsched.service.billing.admission`. A check that stops a request raises its
:class:`~shiftsched.service.errors.ServiceError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from pydantic_core import from_json
from starlette.requests import Request

from shiftsched.service.billing.call import PaymentHeader
from shiftsched.service.errors import REALM as REALM
from shiftsched.service.errors import RETRY_AFTER_UNAVAILABLE as RETRY_AFTER_UNAVAILABLE
from shiftsched.service.errors import (
    InvalidJson,
    PayloadTooLarge,
    UnsupportedMediaType,
)
from shiftsched.service.threads import in_thread

MAX_BODY_BYTES: Final = 1024 * 1024  # the contract's 1 MB hard cap
MAX_JSON_DEPTH: Final = 64  # nested arrays and objects (docs/semantics.md)
INLINE_PARSE_BYTES: Final = 64 * 1024  # parsed on the loop up to here (well under 1 ms)
X402_HEADERS: Final = ("x-payment", "payment-signature")  # an x402 payment, in either version


@dataclass(frozen=True)
class Credential:
    """What a request sends to pay with: its Bearer API key, its payment header."""

    key: str | None
    payment: PaymentHeader | None


def credential_of(request: Request) -> Credential:
    """The request's API key and payment credential, each None when it sends none."""
    return Credential(bearer(request), payment_header(request))


async def json_body(request: Request) -> Any:
    """The parsed body; UnsupportedMediaType, PayloadTooLarge or InvalidJson."""
    body = await raw_body(request)
    if len(body) > INLINE_PARSE_BYTES:  # a large body is parsed off the event loop
        return await in_thread(parse_json, body)
    return parse_json(body)


async def raw_body(request: Request) -> bytes:
    """The body's bytes, unparsed; UnsupportedMediaType or PayloadTooLarge."""
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
    return bytes(body)


async def discard_body(request: Request) -> None:
    """Read and drop the body (up to the cap), so that a refusal sent before reading it
    (a rate limit) reaches a client still writing it, instead of a reset connection."""
    seen = 0
    async for chunk in request.stream():
        seen += len(chunk)
        if seen > MAX_BODY_BYTES:
            return


def parse_json(body: bytes | str) -> Any:
    """``body`` parsed; InvalidJson when it is not JSON or nests deeper than
    :data:`MAX_JSON_DEPTH`.

    Parsed by pydantic-core's JSON reader, which builds the same Python values as the
    standard library's, in well under half its time on a 1 MB body (the part of a
    refusal that cannot be skipped). A lone surrogate escape (``"\\ud800"``), which no
    Unicode text holds, is not JSON to it: 400, like any other unreadable body."""
    try:
        data = from_json(body)
    except ValueError as exc:
        if "recursion limit" in str(exc):  # the reader's own limit, far above ours
            raise _too_deep() from None
        raise InvalidJson(str(exc)) from None
    if text_depth(body.encode() if isinstance(body, str) else body) > MAX_JSON_DEPTH:
        raise _too_deep()
    return data


def _too_deep() -> InvalidJson:
    return InvalidJson(f"arrays and objects nest deeper than {MAX_JSON_DEPTH} levels")


_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_QUOTE, _OPEN_ARRAY, _OPEN_OBJECT = ord('"'), ord("["), ord("{")


def text_depth(body: bytes) -> int:
    """How deep arrays and objects nest in ``body``, text that parsed as JSON, read off
    the text itself: a walk of the parsed value costs a Python step per item (over
    100 ms for a 1 MB body), this a few vectorised passes (about 15 ms).

    Escaped backslashes and quotes are dropped first, so every quote left opens or
    closes a string; a bracket is structure when an even number of quotes precede it."""
    plain = body.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    chars = np.frombuffer(plain, dtype=np.uint8)
    quotes = chars == _QUOTE
    brackets = chars[(np.cumsum(quotes) % 2 == 0) & ~quotes]
    if brackets.size == 0:
        return 0
    opening = (brackets == _OPEN_ARRAY) | (brackets == _OPEN_OBJECT)
    return int(np.cumsum(np.where(opening, 1, -1)).max())


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def payment_header(request: Request) -> PaymentHeader | None:
    """The payment credential of the request, if it carries one."""
    for name in X402_HEADERS:
        if name in request.headers:
            return PaymentHeader("x402", request.headers[name])
    authorization = request.headers.get("authorization", "")
    if authorization[:8].lower() == "payment ":
        return PaymentHeader("mpp", authorization)
    if "payment-authorization" in request.headers:
        return PaymentHeader("mpp", request.headers["payment-authorization"])
    return None
