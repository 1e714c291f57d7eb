"""The address the service really listens on, said once at start.

Why: BentoML's own start line says ``localhost`` when it is bound to every interface
(``0.0.0.0``), so a server reachable from the whole network read as one only this machine
could reach. The web worker holds the listening socket BentoML's supervisor bound, so it
reads the socket's own address from the operating system and says that, with what it
means: this machine only, or every interface.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

import psutil  # type: ignore[import-untyped]  # a dependency of BentoML


def listening_addresses(pid: int | None = None) -> list[tuple[str, int]]:
    """The (address, port) of every TCP socket the process ``pid`` (this one) listens on."""
    try:
        found = psutil.Process(pid).net_connections(kind="inet")
    except (psutil.Error, OSError):  # no /proc, or not allowed: nothing to say
        return []
    return sorted({(c.laddr.ip, c.laddr.port) for c in found if c.status == psutil.CONN_LISTEN})


def listening_words(addresses: Iterable[tuple[str, int]]) -> list[str]:
    """One line per socket: its URL and who can reach it."""
    lines = []
    for host, port in addresses:
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}"
        if _every_interface(host):
            reach = "every network interface: other machines can reach it"
        elif ipaddress.ip_address(host).is_loopback:
            reach = "this machine only; HOST=0.0.0.0 opens it to the network"
        else:
            reach = "this address only"
        lines.append(f"Listening on {url} ({reach})")
    return lines


def announce_listening() -> None:
    """Print where this worker listens (nothing when the system does not say)."""
    for line in listening_words(listening_addresses()):
        print(line, flush=True)


def _every_interface(host: str) -> bool:
    return ipaddress.ip_address(host).is_unspecified
