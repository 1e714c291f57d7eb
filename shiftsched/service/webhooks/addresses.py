"""Which webhook addresses the service sends to: a guard against request forgery.

A webhook makes the service send requests to an address a client chose, so an address
that reaches inside the service's own network (a private, link-local or loopback
address: a cloud's metadata service, a database) is refused, unless the operator allows
it. An endpoint must use https, except on loopback where the operator allows loopback
(development). The name is resolved when the endpoint is registered and again before each
delivery, so a name that later points inside is refused then too.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2000


@dataclass(frozen=True)
class AddressPolicy:
    """What the operator allows (``Settings.webhook_allow_loopback`` and ``_private``)."""

    allow_loopback: bool = False
    allow_private: bool = False


def address_fault(url: str, policy: AddressPolicy) -> str | None:
    """Why the service will not send to ``url``; None when it will."""
    if len(url) > MAX_URL_LENGTH:
        return f"the address is longer than {MAX_URL_LENGTH} characters"
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "the address must be an absolute https URL"
    if parts.username or parts.password:
        return "the address must not carry a user name or password"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (OSError, ValueError) as error:
        return f"the address's host does not resolve ({error})"
    addresses = {ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found}
    loopback = all(address.is_loopback for address in addresses)
    if loopback and policy.allow_loopback:
        return None
    if parts.scheme != "https":
        return "the address must use https (http only on loopback, where the operator allows it)"
    inside = [a for a in addresses if not a.is_global or a.is_multicast]
    if inside and not policy.allow_private:
        return (
            f"the address's host resolves to {inside[0]}, a private, loopback or link-local "
            "address the service does not send to"
        )
    return None
