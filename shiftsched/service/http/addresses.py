"""Which client a request comes from, as the service's own proxies saw it.

The rate limits of the API (``shiftsched.service.http.rate_limits``) and the dashboard's sign-in and
sign-up limits (``shiftsched.service.dashboard.security``) all count per client address, so they
share this one reading of ``X-Forwarded-For``.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request


def client_address(peer: str | None, forwarded_for: Sequence[str], trusted_hops: int) -> str:
    """The address the limits count for a request.

    ``peer`` is the address the HTTP server reports (the socket's peer, or what the server
    itself took from ``X-Forwarded-For`` for a proxy it trusts); ``forwarded_for`` are the
    request's ``X-Forwarded-For`` headers; ``trusted_hops`` is how many proxies of ours
    stand in front of the service (``TRUSTED_PROXY_HOPS``).

    Each proxy appends the address it saw to ``X-Forwarded-For``, and whatever a client
    sent comes first, so only the last ``trusted_hops`` entries were written by us: the
    entry ``trusted_hops`` from the right is the address our outermost proxy saw. The
    leftmost entry is the client's own text and would let anyone pick a fresh address for
    each try. With no proxy (``trusted_hops`` 0) or no header, the peer is used.
    """
    peer = peer or "unknown"
    if trusted_hops <= 0:
        return peer
    entries = [item.strip() for header in forwarded_for for item in header.split(",")]
    entries = [item for item in entries if item]
    if not entries:
        return peer
    # Fewer entries than proxies: the request passed fewer proxies than configured (it
    # came in behind the outermost one), so all of them were written by ours.
    return entries[-trusted_hops] if len(entries) >= trusted_hops else entries[0]


def request_address(request: Request, trusted_hops: int) -> str:
    """:func:`client_address` of a Starlette request."""
    peer = request.client.host if request.client else None
    return client_address(peer, request.headers.getlist("x-forwarded-for"), trusted_hops)
