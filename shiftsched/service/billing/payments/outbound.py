"""One pooled HTTP client for the calls the service makes to a facilitator or provider.

Building an ``httpx.AsyncClient`` loads the CA bundle, about 50 ms on the development
machine; a paid solve makes two to three outbound calls, so a client per call made a
paid solve about four times slower than a keyed one. The app's lifespan opens one
client per process (keep-alive included) and closes it; outside a lifespan (a gateway
used on its own) each call gets a short-lived client, as before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx


class OutboundHttp:
    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._client: httpx.AsyncClient | None = None

    async def open(self) -> None:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    @asynccontextmanager
    async def client(self) -> AsyncIterator[httpx.AsyncClient]:
        if self._client is not None:
            yield self._client
            return
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            yield client
