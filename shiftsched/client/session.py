"""What the client needs of an HTTP session and of its answers, as protocols.

Why protocols and not ``httpx.Client``: the client makes an ``httpx.Client`` of its own,
but a caller may hand it any session with the same calls: Starlette's ``TestClient``
(the app in-process, a ``httpx2.Client``), or a session with its own proxies, pool or
certificates. A transport error of either library is one the call may have run through.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Protocol

import httpx


class Answer(Protocol):
    """An HTTP answer, as httpx (or httpx2) gives it."""

    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def is_error(self) -> bool: ...
    @property
    def reason_phrase(self) -> str: ...
    @property
    def text(self) -> str: ...
    def json(self) -> Any: ...


class Session(Protocol):
    """An HTTP session: ``httpx.Client``, or anything that sends requests as it does."""

    def request(
        self, method: str, url: str, *, json: Any = None, headers: dict[str, str] | None = None
    ) -> Any: ...

    def close(self) -> None: ...


@cache
def transport_errors() -> tuple[type[Exception], ...]:
    """The exceptions of a request that failed on the way (it may or may not have run):
    httpx's, and httpx2's where it is installed."""
    found: list[type[Exception]] = [httpx.TransportError]
    try:
        import httpx2
    except ImportError:
        pass
    else:
        found.append(httpx2.TransportError)
    return tuple(found)


__all__ = ["Answer", "Session", "transport_errors"]
