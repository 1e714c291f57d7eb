"""How many requests one client may send in a short window, before any work is done.

Two limits, both moving windows of the ``limits`` library, written in its notation
(``"5/second;60/minute"``: every item must hold):

- per client address (as the service's trusted proxies saw it,
  ``shiftsched.service.http.addresses``)
  for everything that needs no credential: validation, audit and comparison, the pages
  of unknown paths, OAuth client registration. These are free, so without a limit one
  address could make the service work for nothing as fast as it can send.
- per API key for everything sent with one, far more generous: the units an account
  holds already bound what it can buy; this bounds how fast it can ask.

A refused request is 429 ``rate-limited`` with ``Retry-After`` (the seconds until the
window frees a place), checked before the body is read, so refusing costs no parsing.
The counts live in this process's memory, or in a shared ``limits`` storage
(``RATE_LIMIT_STORAGE``, e.g. ``redis://host:6379/2``) so that replicas count together.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter
from starlette.requests import Request

from shiftsched.service.errors import RateLimited
from shiftsched.service.http.addresses import request_address
from shiftsched.service.http.problems import render
from shiftsched.service.threads import in_thread


def limit_storage(storage_uri: str | None) -> Storage:
    """The ``limits`` storage named by ``storage_uri`` (``redis://host:6379/1``), so that
    every replica shares the counts; this process's memory without one."""
    if not storage_uri:
        return MemoryStorage()
    storage = storage_from_string(storage_uri)
    if not isinstance(storage, Storage):  # an async:// URI: the limiters here are sync
        raise ValueError("a limits storage must be synchronous (redis://), not async://")
    return storage


@dataclass
class RateLimits:
    """The two limits of the API; a limit of None lets everything through."""

    anonymous: str | None = None
    keyed: str | None = None
    storage_uri: str | None = None
    trusted_hops: int = 0
    _limiter: MovingWindowRateLimiter = field(init=False, repr=False)
    _anonymous: list[RateLimitItem] = field(init=False, repr=False)
    _keyed: list[RateLimitItem] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._limiter = MovingWindowRateLimiter(limit_storage(self.storage_uri))
        self._anonymous = parse_many(self.anonymous) if self.anonymous else []
        self._keyed = parse_many(self.keyed) if self.keyed else []

    async def check_address(self, request: Request, what: str) -> None:
        """Count one anonymous request of ``request``'s client address; RateLimited when
        the address is over its limit."""
        if not self._anonymous:
            return
        address = request_address(request, self.trusted_hops)
        wait = await in_thread(self._hit, self._anonymous, "address", address)
        if wait is not None:
            raise RateLimited(
                f"too many requests without a credential from this address ({what}); "
                f"the limit is {self.anonymous}",
                retry_after=wait,
            )

    async def check_key(self, key_id: str) -> None:
        """Count one request of the API key ``key_id``; RateLimited when it is over."""
        if not self._keyed:
            return
        wait = await in_thread(self._hit, self._keyed, "key", key_id)
        if wait is not None:
            raise RateLimited(
                f"too many requests with this API key; the limit is {self.keyed}",
                retry_after=wait,
            )

    def _hit(self, items: list[RateLimitItem], *keys: str) -> int | None:
        """None when every item takes one more hit (each is counted); else the seconds
        until the first full one frees a place."""
        for item in items:
            if not self._limiter.hit(item, *keys):
                reset_at = self._limiter.get_window_stats(item, *keys).reset_time
                return max(1, math.ceil(reset_at - time.time()))
        return None


def rate_limits_of(request: Request) -> RateLimits:
    """The API's limits (``create_app`` sets them); none for an app built without."""
    limits: RateLimits | None = getattr(request.app.state, "rate_limits", None)
    return limits if limits is not None else _NO_LIMITS


_NO_LIMITS = RateLimits()


class LimitedByAddress:
    """ASGI middleware: the requests of ``routes`` (method, path) count against the
    anonymous limit of ``limits_of()`` before the app sees them; over it, 429.

    For routes served by code that is not ours to change, such as the OAuth client
    registration of the MCP library (``POST /register``): every registration is free and
    writes a row, so it is limited like every other call without a credential."""

    def __init__(
        self,
        app: Any,
        limits_of: Callable[[], RateLimits | None],
        routes: frozenset[tuple[str, str]],
        what: str,
    ) -> None:
        self.app = app
        self.limits_of = limits_of
        self.routes = routes
        self.what = what

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and (scope["method"], scope["path"]) in self.routes:
            limits = self.limits_of()
            if limits is not None:
                request = Request(scope, receive)
                try:
                    await limits.check_address(request, self.what)
                except RateLimited as refused:
                    await render(request, refused)(scope, receive, send)
                    return
        await self.app(scope, receive, send)
