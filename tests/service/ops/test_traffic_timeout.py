"""BentoML's request timeout must not keep a timer per request for its whole length.

Its middleware started a 900 s timer for every request and never cancelled it, so each
request, however quick, held about 5 KB in the event loop for 15 minutes. The
replacement must behave the same (a request answered in time is passed through; one that
starts no answer within the timeout gets BentoML's 504) and cancel its timer.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
from bentoml._internal.server.http.traffic import TimeoutMiddleware
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from shiftsched.service.ops.traffic_timeout import fixed_timeout_middleware


class RecordingLoop(asyncio.SelectorEventLoop):
    """An event loop that keeps every timer it was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.timers: list[tuple[float, asyncio.TimerHandle]] = []

    def call_later(self, delay: float, callback: Any, *args: Any, context: Any = None) -> Any:
        handle = super().call_later(delay, callback, *args, context=context)
        self.timers.append((delay, handle))
        return handle


async def quick(_: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


async def slow(_: Request) -> PlainTextResponse:
    await asyncio.sleep(3600)  # never answers: the timeout must
    return PlainTextResponse("late")


def served(middleware: Any, timeout: float) -> Any:
    app = Starlette(routes=[Route("/quick", quick), Route("/slow", slow)])
    return middleware(app, timeout=timeout)


def run(loop: RecordingLoop, app: Any, path: str, times: int) -> list[int]:
    async def requests() -> list[int]:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://test") as client:
            return [(await client.get(path)).status_code for _ in range(times)]

    return loop.run_until_complete(requests())


def request_timers(loop: RecordingLoop, timeout: float) -> list[asyncio.TimerHandle]:
    return [handle for delay, handle in loop.timers if delay == timeout]


def test_every_request_timer_is_cancelled_once_the_request_has_ended() -> None:
    loop = RecordingLoop()
    try:
        app = served(fixed_timeout_middleware(TimeoutMiddleware), timeout=900)
        assert run(loop, app, "/quick", 50) == [200] * 50
        timers = request_timers(loop, 900)
        assert len(timers) == 50
        assert all(timer.cancelled() for timer in timers)
    finally:
        loop.close()


def test_bentomls_own_middleware_left_them_running() -> None:
    """The fault the replacement removes, shown on BentoML's class as shipped."""
    loop = RecordingLoop()
    try:
        app = served(TimeoutMiddleware.__dict__.get("shiftsched_base", TimeoutMiddleware), 900)
        assert run(loop, app, "/quick", 5) == [200] * 5
        assert not any(timer.cancelled() for timer in request_timers(loop, 900))
    finally:
        loop.close()


def test_a_request_with_no_answer_in_time_still_gets_the_504() -> None:
    loop = RecordingLoop()
    try:
        app = served(fixed_timeout_middleware(TimeoutMiddleware), timeout=0.05)
        assert run(loop, app, "/slow", 1) == [504]
        assert run(loop, app, "/quick", 1) == [200]
    finally:
        loop.close()
