"""Solves run in worker processes, admitted one per free process, each with its own deadline.

A solve never runs in the web worker: a crash, a memory blow-up or a CP-SAT overrun (it
can exceed its own time limit, e.g. in presolve) fails that request only. The processes
live in a ``pebble`` pool, which enforces a per-task timeout by stopping the one process
that runs the task and starting a fresh one: a solve that overruns never takes the solves
of other requests down with it.

Admission: a solve first takes a *slot*, one per process, so it starts at once on a free
process and its deadline counts from when solving starts, never from when it queued. A
synchronous request waits a bounded time for a slot and is then refused
(:class:`SolverBusy`, answered 503 with Retry-After); queued jobs wait as long as needed.
Each process caps its address space (RLIMIT_AS) and imports the engine once.

A solve whose process was lost (killed by the out-of-memory killer or an operator) or
cut off because the service is stopping raises :class:`SolverLost`: like a busy pool it
is answered 503 with Retry-After, nothing charged, for another try is likely to work.

The processes live and die with the process that owns the pool
(``shiftsched.service.solving.lifeline``): a SIGTERM sent to the whole service (its supervisor
passes one to every child of the web worker) is left to the owner, which lets running solves finish
within the grace of a graceful stop (``shiftsched.service.solving.stopping``) and then stops them
itself; a process whose owner died exits within a moment instead of solving on for nobody.

A queued job's solve is given its job (:class:`JobLink`): the worker process then records
the job's progress and heeds a stop its client asked for, through the job store
(``shiftsched.service.solving.job_watch``).
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import resource
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any, Final, NamedTuple

from pebble import ProcessExpired, ProcessFuture, ProcessPool

from shiftsched.service.failures import DeadlineMissed, SolveFailed, SolverBusy, SolverLost
from shiftsched.service.solving import lifeline

DEADLINE_GRACE_SECONDS = 10.0  # CP-SAT may overrun its limit; past this the process is stopped
LOST_RETRY_AFTER_SECONDS = 5  # a fresh process replaces a lost one within seconds
STOPPING_RETRY_AFTER_SECONDS = 30
"""Retry-After of a solve refused or cut off by a stop: another replica takes it at once
(the load balancer has taken this one out); this is for a client of a single replica,
which is back after a restart."""


class JobLink(NamedTuple):
    """Which job a solve is for, and the database its record lives in."""

    database_url: str  # with its password: it only travels to the pool's own processes
    job_id: str
    attempt: int = (
        1  # which run of the job (shiftsched.service.solving.jobs runs a dead consumer's again)
    )


def _init_worker(
    memory_mb: int,
    owner: int,
    warm: tuple[str, ...] = ("shiftsched.solving.solve",),
    niceness: int = 0,
) -> None:
    import importlib

    lifeline.bind_to_owner(owner)
    if niceness > 0:
        os.nice(niceness)
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for module in warm:  # import once per worker, not per task
        importlib.import_module(module)


SOLVE: Final = "shiftsched.solving.solve:solve"
"""The engine's solve, named for a pool process to import (module:function); any call of
the same shape runs the same way (the re-plan: ``shiftsched.periods.replan:replan``)."""


def _run_engine(
    call: str,
    ask: Any,
    time_limit: float,
    cp_sat_workers: int,
    diagnosis: float,
    job: JobLink | None = None,
) -> Any:
    """``call(ask, limits)`` in a pool process: the engine's typed answer, pickled back.
    Named, not passed, so the web worker never imports the solver to hand it over."""
    import importlib
    from dataclasses import replace

    from shiftsched.solving.solve import SolveLimits

    module, name = call.split(":")
    engine_call = getattr(importlib.import_module(module), name)
    limits = SolveLimits(
        time_limit_seconds=time_limit,
        num_workers=cp_sat_workers,
        diagnosis_budget_seconds=diagnosis,
    )
    if job is None:
        return engine_call(ask, limits)
    from shiftsched.service.solving.job_watch import watching

    with watching(job.database_url, job.job_id, job.attempt) as watch:
        limits = replace(limits, on_progress=watch.on_progress, stop=watch.stop)
        return engine_call(ask, limits)


class SolvePool:
    """A fixed number of solver processes shared by every request and job of a process."""

    def __init__(
        self,
        processes: int,
        memory_mb: int,
        cp_sat_workers: int,
        warm: tuple[str, ...] = ("shiftsched.solving.solve",),
        niceness: int = 0,
    ) -> None:
        self.processes = processes
        self.memory_mb = memory_mb
        self.cp_sat_workers = cp_sat_workers
        self._slots = threading.Semaphore(processes)
        self._lock = threading.Lock()
        self._running: dict[int, float] = {}  # slot holder -> when it is expected to end
        self._futures: dict[int, ProcessFuture[Any]] = {}
        self._tickets = itertools.count(1)
        self._stopping = False
        self._pool = ProcessPool(
            max_workers=processes,
            initializer=_init_worker,
            initargs=(memory_mb, os.getpid(), warm, niceness),
            context=multiprocessing.get_context("spawn"),
        )
        if not self._pool.active:  # starts the processes now, not on the first solve
            raise RuntimeError("the solver pool did not start")

    def solve(
        self,
        ask: Any,
        time_limit: float,
        diagnosis_budget: float,
        wait_seconds: float | None = None,
        on_start: Callable[[], None] | None = None,
        job: JobLink | None = None,
        call: str = SOLVE,
    ) -> Any:
        """The engine's answer to ``ask`` (a parsed SolveRequest, or the input of
        ``call``), typed as the engine returns it.

        ``wait_seconds`` bounds the wait for a free process (None: as long as it takes);
        ``on_start`` is called once one is taken, just before solving starts; ``job``:
        the queued job this solve is for (its progress is recorded, a stop heeded).
        Raises SolverBusy when none came free in time, SolverLost when the process was
        lost or the service is stopping, SolveFailed on any other crash or a missed
        deadline (``time_limit + diagnosis_budget`` plus a grace, counted from the start).
        """
        args = (call, ask, time_limit, self.cp_sat_workers, diagnosis_budget, job)
        return self.run(_run_engine, args, time_limit + diagnosis_budget, wait_seconds, on_start)

    def run(
        self,
        function: Callable[..., Any],
        args: tuple[Any, ...],
        expected_seconds: float,
        wait_seconds: float | None = None,
        on_start: Callable[[], None] | None = None,
        grace: float = DEADLINE_GRACE_SECONDS,
    ) -> Any:
        """Run ``function(*args)`` on a free process, stopped past its expected time +
        ``grace`` (DeadlineMissed)."""
        if self._stopping:
            raise self._stopped()
        if not self._slots.acquire(timeout=wait_seconds):
            raise SolverBusy(self.retry_after_seconds())
        if self._stopping:  # stopped while this solve waited for a process
            self._slots.release()
            raise self._stopped()
        if on_start is not None:
            try:
                on_start()
            except BaseException:
                self._slots.release()
                raise
        with self._lock:
            ticket = next(self._tickets)
            self._running[ticket] = time.monotonic() + expected_seconds
        try:
            try:
                future = self._pool.schedule(function, args=args, timeout=expected_seconds + grace)
            except RuntimeError as exc:  # pebble: the pool is stopping or broken
                if self._stopping:
                    raise self._stopped() from None
                raise SolveFailed("the solver pool is not running") from exc
            with self._lock:
                self._futures[ticket] = future
                if self._stopping:  # stop_solving ran meanwhile, without this future
                    future.cancel()
            return future.result()
        except SolveFailed:
            raise
        except TimeoutError:
            raise DeadlineMissed("the solve missed its deadline and was stopped") from None
        except ProcessExpired as exc:
            if self._stopping:
                raise self._stopped() from None
            reason = f"the solver process was lost (exit code {exc.exitcode})"
            raise SolverLost(reason, LOST_RETRY_AFTER_SECONDS) from None
        except CancelledError:
            raise self._stopped() from None
        except MemoryError:
            raise SolveFailed("the solve ran out of memory") from None
        except Exception as exc:  # an exception raised inside the worker
            raise SolveFailed(f"the solve failed: {type(exc).__name__}") from exc
        finally:
            with self._lock:
                del self._running[ticket]
                self._futures.pop(ticket, None)
            self._slots.release()

    def running_count(self) -> int:
        """Solves holding a process now (started, or starting)."""
        with self._lock:
            return len(self._running)

    def retry_after_seconds(self) -> int:
        """When a process is expected to come free: the earliest running solve's end."""
        with self._lock:
            ends = list(self._running.values())
        if not ends:
            return 1
        return max(1, math.ceil(min(ends) - time.monotonic()))

    @property
    def stopping(self) -> bool:
        """Whether the pool was told to stop: no solve starts any more."""
        return self._stopping

    def refuse_new_solves(self) -> None:
        """Start no new solve (each is refused with :class:`SolverLost`, ``stopping``);
        running ones go on."""
        with self._lock:
            self._stopping = True

    def stop_solving(self) -> None:
        """Refuse every new solve, and cut off the running ones: each caller gets
        :class:`SolverLost` (``stopping``) at once, and its process is stopped."""
        with self._lock:
            self._stopping = True
            futures = list(self._futures.values())
        for future in futures:
            future.cancel()  # type: ignore[no-untyped-call]

    def _stopped(self) -> SolverLost:
        return SolverLost("the service is stopping", STOPPING_RETRY_AFTER_SECONDS, stopping=True)

    def close(self) -> None:
        """Stop every solver process; running solves fail, the caller never hangs.

        The pool's own stop ends the processes but leaves their futures unresolved, so
        each running solve is cancelled first (:meth:`stop_solving`): its caller gets
        SolverLost at once.
        """
        self.stop_solving()
        self._pool.stop()  # type: ignore[no-untyped-call]
        self._pool.join(timeout=DEADLINE_GRACE_SECONDS)
