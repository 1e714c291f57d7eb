"""A graceful stop: SIGTERM turns the replica not ready, refuses new solves, lets running
ones finish within a grace, cuts off the rest with 503, then lets the server stop.

Why not the server's own stop: uvicorn (which BentoML runs in its worker) answers
SIGTERM by closing the listening socket at once and then waiting, without a bound, for
running requests; its optional bound cancels them, and a cancelled request gets no
answer at all. A load balancer still sending traffic meets a closed port, and a client
whose solve is cut off learns nothing. So the service takes SIGTERM first:

1. ``/readyz`` answers 503 (``shiftsched.service.ops.health``), so the load balancer takes
   the replica out, while it still answers everything else;
2. the solver pool starts no new solve: a solve asked for now is answered 503 with
   Retry-After, nothing charged (``shiftsched.service.solving.workers.SolverLost``); the embedded
   job consumer takes no new job (queued jobs wait in the queue for the next start, or for
   another consumer);
3. running solves, synchronous and queued, get up to ``SHUTDOWN_GRACE_SECONDS`` to end;
4. whatever still runs is then cut off: a synchronous solve is answered 503 with
   Retry-After (nothing charged), a queued job ends ``interrupted`` (units released);
5. the server's own SIGTERM handler runs: it stops accepting, waits for the answers
   above to go out, and runs the app's shutdown (``shiftsched.service.http.api``).

A second SIGTERM cuts the grace short. BentoML's supervisor passes its SIGTERM on to the
web worker and to each of the worker's children, the solver processes; those leave it
to the pool (``shiftsched.service.solving.lifeline``), so a solve is never killed by the stop it is
allowed to outlast.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, Final

from shiftsched.service.solving.workers import SolvePool

POLL_SECONDS: Final = 0.1
"""How often the drain looks whether the running solves have ended."""

log = logging.getLogger(__name__)


class GracefulStop:
    """The steps of a graceful stop (module docstring) for one pool and job queue."""

    def __init__(
        self, pool: SolvePool, stop_taking_jobs: Callable[[], None], grace_seconds: float
    ) -> None:
        self.pool = pool
        self.grace_seconds = grace_seconds
        self._stop_taking_jobs = stop_taking_jobs
        self._lock = threading.Lock()
        self._deadline: float | None = None

    @property
    def begun(self) -> bool:
        """Whether the stop has begun: not ready, no new solve."""
        return self._deadline is not None

    def begin(self) -> bool:
        """Steps 1 and 2; True the first time. A later call ends the grace now."""
        with self._lock:
            if self._deadline is not None:
                self._deadline = time.monotonic()
                return False
            self._deadline = time.monotonic() + self.grace_seconds
        self.pool.refuse_new_solves()
        try:
            self._stop_taking_jobs()
        except Exception:  # the drain must go on whatever the queue says
            log.exception("the job consumer could not be told to stop taking jobs")
        log.warning(
            "stopping: not ready, no new solve; %d running, %g s to end",
            self.pool.running_count(),
            self.grace_seconds,
        )
        return True

    async def drain(self) -> None:
        """Steps 3 and 4: wait for the running solves within the grace, then cut off the
        rest (its callers answer at once)."""
        while self.pool.running_count() > 0:
            with self._lock:
                deadline = self._deadline
            if deadline is None or time.monotonic() >= deadline:
                break
            await asyncio.sleep(POLL_SECONDS)
        left = self.pool.running_count()
        if left:
            log.warning("stopping: %d solve(s) cut off at the end of the grace", left)
        self.pool.stop_solving()


def take_sigterm(stop: GracefulStop) -> bool:
    """Put the graceful stop in front of the current SIGTERM handler (the server's): on
    SIGTERM, begin the stop, drain on the running event loop, then hand the signal to
    the server's handler. Only from the main thread with the server's loop running (a
    test client runs the app elsewhere, with no signal to take): False otherwise."""
    if threading.current_thread() is not threading.main_thread():
        return False
    loop = asyncio.get_running_loop()
    server_handler = signal.getsignal(signal.SIGTERM)
    tasks: set[asyncio.Task[None]] = set()

    async def drain_then_stop(signum: int) -> None:
        await stop.drain()
        _pass_on(server_handler, signum)

    def begin(signum: int) -> None:
        if stop.begin():
            task = loop.create_task(drain_then_stop(signum))
            tasks.add(task)  # keep a reference: the loop holds tasks weakly
            task.add_done_callback(tasks.discard)

    def on_sigterm(signum: int, _frame: FrameType | None) -> None:
        # Only a hand-over: the handler interrupts the main thread anywhere, perhaps while
        # it holds a lock that beginning the stop takes; the loop runs it in the clear.
        loop.call_soon_threadsafe(begin, signum)

    signal.signal(signal.SIGTERM, on_sigterm)
    return True


def _pass_on(handler: Any, signum: int) -> None:
    """Run the handler that was there before ours, as the signal would have."""
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
