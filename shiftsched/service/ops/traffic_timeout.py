"""BentoML's request timeout, without the timer it leaves behind for every request.

BentoML bounds each request with a timer (``traffic.timeout``: the service sets 900 s, so
that its plain 504 never pre-empts the service's own deadlines). Its middleware starts the
timer with ``loop.call_later`` and never cancels it, so every request, answered in a
millisecond or not, stays in the event loop for the whole 900 s with what the timer holds:
the request's future and a copy of its context (its trace span, its request id). About
5 KB each: 20,000 requests of any path grew a worker by 100 MB, and a client sending
requests fast enough could exhaust its memory before the first timer ran out.

:func:`install` replaces the middleware BentoML builds, a module attribute it reads when
a worker creates its app, with one that behaves the same and cancels its timer once the
request has ended.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.responses import JSONResponse


def install() -> None:
    """Use :func:`fixed_timeout_middleware` in every app BentoML builds from now on."""
    from bentoml._internal.server.http import traffic

    setattr(traffic, "TimeoutMiddleware", fixed_timeout_middleware(traffic.TimeoutMiddleware))  # noqa: B010


def fixed_timeout_middleware(base: Any) -> Any:
    """A subclass of BentoML's ``TimeoutMiddleware`` (``base``) that cancels its timer."""
    base = getattr(base, "shiftsched_base", base)  # made once, however often installed

    class CancellingTimeoutMiddleware(base):  # type: ignore[misc]
        shiftsched_base = base

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] not in ("http", "websocket"):
                await self.app(scope, receive, send)
                return
            loop = asyncio.get_running_loop()
            waiter = loop.create_future()
            timer = loop.call_later(self.timeout, self._set_timer_out, waiter)

            async def started(message: Any) -> None:
                if not waiter.done():
                    waiter.set_result(None)
                await send(message)

            answer = asyncio.ensure_future(self.app(scope, receive, started), loop=loop)
            try:
                await waiter
            except TimeoutError:
                if answer.cancel():
                    late = {"error": f"Not able to process the request in {self.timeout} seconds"}
                    await JSONResponse(late, status_code=504)(scope, receive, send)
            else:
                await answer
            finally:
                timer.cancel()

    return CancellingTimeoutMiddleware
