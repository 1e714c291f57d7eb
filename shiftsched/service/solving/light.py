"""Work that solves nothing runs in a pool of its own, under a deadline.

Validation, the audit, the comparison of two rosters and the recommendation run no
solver, but on a large body they are real work: seconds of CPU and hundreds of MB. Run
in the web worker they would hold its interpreter (a thread of pure Python starves the
event loop that answers every other request) and could not be stopped. So they run
here:

- in processes apart from the solvers' (``LIGHT_PROCESSES``, one by default), so free
  work can never take a process a paid solve is waiting for, nor the web worker's loop;
- one task a process at a time, and at most ``LIGHT_QUEUE_LENGTH`` waiting for one, a
  few seconds at most (:data:`LIGHT_WAIT_SECONDS`); past that the answer is 503 with
  Retry-After (:class:`~shiftsched.service.failures.SolverBusy`), nothing charged;
- each under a deadline: a task still running at its deadline has its process stopped
  (a fresh one replaces it) and raises
  :class:`~shiftsched.service.failures.DeadlineMissed`, answered 504, nothing charged. The
  deadline of a charged task is shorter than the lease of its units, so no hold is ever
  released while its work still runs.

The pool starts on first use, or at the service's start when ``LIGHT_PRESTART`` (the
served default): a service built in code (most tests) never pays for its process unless
it is asked for free work.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, Final

import anyio

from shiftsched.service.failures import SolverBusy, SolverLost
from shiftsched.service.solving.workers import STOPPING_RETRY_AFTER_SECONDS, SolvePool

LIGHT_WAIT_SECONDS: Final = 5.0
"""How long a task may wait for a free process before it is refused (503)."""
LIGHT_RETRY_AFTER_SECONDS: Final = 2
"""Retry-After of a refusal: a light task takes a second or two, far less than its
deadline, so the deadline would tell a client to wait far too long."""
LIGHT_NICENESS: Final = 10
"""How much lower the light processes' CPU priority is than the solvers': on a machine
with few cores, free work then runs on what paid solves leave."""
LIGHT_MEMORY_MB: Final = 2048
"""Address-space cap of a light process: a 1 MB body's audit needs a few hundred MB."""
log = logging.getLogger(__name__)
WARM: Final = (
    "shiftsched.questions.validation",
    "shiftsched.questions.review",
    "shiftsched.questions.recommend",
    "shiftsched.service.http.free_work",
)
"""Imported once per process, so a task pays only for its own work."""


def _warm_up(_: object) -> bool:
    """A task whose only work is to be run: the imports of its process are then done."""
    from pydantic_core import from_json

    from shiftsched.contract.parse import parse_request

    with contextlib.suppress(Exception):  # a body of faults: the reading code runs
        parse_request(from_json(b'{"schedule_period": {}, "shifts": [], "employees": []}'))
    return True


WARM_UP: Final = ("shiftsched.service.solving.light:_warm_up", None)


def run_named(call: str, ask: Any) -> Any:
    """``module:function`` applied to ``ask``, in a light process. Named, not passed, so
    the web worker hands over only the parsed input."""
    import importlib

    module, name = call.split(":")
    return getattr(importlib.import_module(module), name)(ask)


class LightPool:
    """The processes that run work which solves nothing; see the module docstring."""

    def __init__(self, processes: int, queue_length: int) -> None:
        self.processes = max(1, processes)
        self._line = anyio.CapacityLimiter(self.processes + max(0, queue_length))
        self._pool: SolvePool | None = None
        self._lock = threading.Lock()
        self._starting = threading.Event()
        self._closed = False

    async def run(
        self,
        function: Callable[..., Any],
        args: tuple[Any, ...],
        deadline_seconds: float,
        on_start: Callable[[], None] | None = None,
    ) -> Any:
        """``function(*args)`` on a light process (a module-level function, so it can be
        named to the process), stopped at ``deadline_seconds`` from its start;
        ``on_start`` is called once a process is taken. SolverBusy when the line is full
        or no process came free in time, DeadlineMissed past the deadline, SolveFailed on
        any other failure (SolverLost when the process was lost)."""
        if self._line.available_tokens < 1:
            raise self._busy()
        task = partial(self._run, function, args, deadline_seconds, on_start)
        return await anyio.to_thread.run_sync(task, limiter=self._line)

    def _run(
        self,
        function: Callable[..., Any],
        args: tuple[Any, ...],
        deadline_seconds: float,
        on_start: Callable[[], None] | None,
    ) -> Any:
        pool = self._started()
        try:
            return pool.run(
                function,
                args,
                deadline_seconds,
                wait_seconds=LIGHT_WAIT_SECONDS,
                on_start=on_start,
                grace=0.0,
            )
        except SolverLost:
            raise
        except SolverBusy:  # light tasks end long before their deadline: soon, not then
            raise self._busy() from None

    def prestart(self) -> None:
        """Start the processes now, in the background, so the first task does not wait
        for them (a process spawns and imports the engine in a second or two); the
        service reads not ready (:attr:`starting`) until they are up."""
        self._starting.set()
        threading.Thread(target=self._warm, name="light-pool-start", daemon=True).start()

    @property
    def starting(self) -> bool:
        """Whether :meth:`prestart` is still starting the processes."""
        return self._starting.is_set()

    def _warm(self) -> None:
        try:  # a first task waits for each process's imports, then reads one body
            pool = self._started()
            for _ in range(self.processes):
                pool.run(run_named, WARM_UP, LIGHT_WAIT_SECONDS * 10, grace=0.0)
        except Exception:  # closed before it started, or it failed: the first task retries
            log.exception("the light processes did not start ahead of use")
        finally:
            self._starting.clear()

    def _started(self) -> SolvePool:
        with self._lock:
            if self._closed:
                raise SolverLost(
                    "the service is stopping", STOPPING_RETRY_AFTER_SECONDS, stopping=True
                )
            if self._pool is None:
                self._pool = SolvePool(
                    self.processes, LIGHT_MEMORY_MB, 1, warm=WARM, niceness=LIGHT_NICENESS
                )
            return self._pool

    def _busy(self) -> SolverBusy:
        return SolverBusy(LIGHT_RETRY_AFTER_SECONDS)

    def close(self) -> None:
        """Stop the processes, if they were started; running tasks fail at once."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
