"""How many stops one keyed synchronous solve makes between the service's modules.

A keyed ``POST /v1/public/solve`` (``/solve`` of the API app, which the service mounts under
``/v1/public``) is traced from the entry of ``shiftsched.service.http.pipeline.serve`` to its
response. A *stop* is a call from a module of the package into another module of the
service; consecutive calls into the same module are one stop. Not stops: constructors
(building a value), the resumption of a coroutine or generator already entered, and the
foundation every layer may use (``errors``, ``failures``, ``threads``, ``metrics``); all of
``store`` is one module. Each hand-off is a place where the request's state is read again
or passed on, so a short walk keeps the path readable, and no billing module is entered
twice: the payer holds, runs and charges in one visit.

Only the request's own work is counted: its task and the threads it hands work to, which
carry its context (anyio copies it into each worker thread), so the service's
housekeeping threads (the reconciler, the job sweeps) never add stops, however a solve's
timing falls. The solver process is not traced; the lease is cut exactly once, when a
process is taken.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from types import FrameType
from typing import Any, Final

import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient

from shiftsched.service.http import pipeline
from shiftsched.service.http.api import Settings, create_app

DEMO_KEY: Final = "sk_test_" + "d" * 64
DATASET: Final = Path(__file__).parents[3] / "datasets" / "retail_weekdays.json"
SERVICE: Final = "shiftsched.service."
FOUNDATION: Final = frozenset({"errors", "failures", "threads", "metrics"})
CONSTRUCTORS: Final = frozenset({"__init__", "__new__", "__post_init__"})
RESUMABLE: Final = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, async generator flags
MAX_STOPS: Final = 15

_IN_REQUEST: ContextVar[bool] = ContextVar("in_request", default=False)


class Walk:
    """The service modules one request enters, in order, with who called each."""

    def __init__(self) -> None:
        self.entries: list[str] = []
        self._entered: set[int] = set()  # resumable frames already entered (kept alive below)
        self._frames: list[FrameType] = []

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        """Record an entry into a service module made on behalf of the request."""
        if event != "call" or not _IN_REQUEST.get():
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(SERVICE) or frame.f_code.co_name in CONSTRUCTORS:
            return
        if frame.f_code.co_flags & RESUMABLE:
            if id(frame) in self._entered:
                return  # resumed, not entered
            self._entered.add(id(frame))
            self._frames.append(frame)
        caller = frame.f_back
        called_from = caller.f_globals.get("__name__", "") if caller is not None else ""
        if called_from.startswith("shiftsched") and called_from != module:
            self.entries.append(_short(module))

    def stops(self) -> list[str]:
        """The modules entered, consecutive repeats merged, the foundation left out."""
        stops: list[str] = []
        for module in self.entries:
            if module not in FOUNDATION and (not stops or stops[-1] != module):
                stops.append(module)
        return stops


def _short(module: str) -> str:
    name = module.removeprefix(SERVICE)
    return "store" if name == "store" or name.startswith("store.") else name


@pytest.fixture
def walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Walk, Any]]:
    """One keyed solve of a small dataset, after a warm-up solve, and its walk."""
    walk = Walk()
    serve: Callable[[Any, Request], Awaitable[Response]] = pipeline.serve

    async def traced(operation: Any, request: Request) -> Response:
        token = _IN_REQUEST.set(True)
        try:
            return await serve(operation, request)
        finally:
            _IN_REQUEST.reset(token)

    monkeypatch.setattr(pipeline, "serve", traced)
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'service.db'}",
        demo_api_key=DEMO_KEY,
        solve_processes=1,
        cp_sat_workers=1,
    )
    body = DATASET.read_text(encoding="utf-8")
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {DEMO_KEY}"}
    threading.setprofile(walk.profile)  # before the client starts: its threads are traced
    try:
        with TestClient(create_app(settings)) as client:
            assert client.post("/solve", content=body, headers=headers).status_code == 200
            walk.entries.clear()
            yield walk, client.post("/solve", content=body, headers=headers)
    finally:
        threading.setprofile(None)  # type: ignore[arg-type]


def test_a_keyed_solve_makes_few_stops_and_enters_each_billing_module_once(
    walked: tuple[Walk, Any],
) -> None:
    walk, response = walked
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["status"] == "completed" and answer["solution"]["assignments"]
    stops = walk.stops()
    walked_through = " -> ".join(stops)
    assert len(stops) <= MAX_STOPS, walked_through
    billing = [stop for stop in stops if stop.startswith("billing.")]
    assert len(billing) == len(set(billing)), walked_through
