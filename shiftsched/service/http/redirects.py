"""Redirects that Starlette writes itself point to the configured public URL.

Starlette's routers answer a path missing its slash (``/dashboard``) with a 307 whose
``Location`` is absolute and built from the request's ``Host`` header, so any client
could have the service (or a cache in front of it) send others to a host of its
choosing. This outermost middleware (BentoML's ``add_asgi_middleware``) rewrites the
origin of such a ``Location``, when it is the request's own, to the root of
``Settings.public_url``; every other answer, and every other ``Location``, passes as it
is.
"""

from __future__ import annotations

from typing import Any

from starlette.datastructures import URL, State
from starlette.requests import Request

from shiftsched.service.http.problems import server_root, url_root


def _own_origin(scope: Any) -> str:
    """``scheme://host[:port]`` as the request names itself (its Host header)."""
    return url_root(str(URL(scope=scope)))


class PublicRedirects:
    """ASGI middleware: a redirect to the request's own origin goes to the configured
    one instead (``public_url``, else the value the API app recorded)."""

    def __init__(self, app: Any, public_url: str | None = None) -> None:
        self.app = app
        self.state = State({"public_url": public_url} if public_url else {})

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_public(message: Any) -> None:
            if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
                message["headers"] = self._public_headers(scope, message.get("headers") or [])
            await send(message)

        await self.app(scope, receive, send_public)

    def _public_headers(self, scope: Any, headers: list[Any]) -> list[Any]:
        own = _own_origin(scope)
        rewritten = []
        for name, value in headers:
            location = value.decode("latin-1") if name.lower() == b"location" else ""
            if location == own or location.startswith((own + "/", own + "?")):
                root = server_root(Request({**scope, "app": self}))
                value = (root + location[len(own) :]).encode("latin-1")
            rewritten.append((name, value))
        return rewritten
