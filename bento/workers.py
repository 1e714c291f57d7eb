"""Solves run in worker processes with a hard deadline and a memory cap.

A solve never runs in the web worker: a crash, a memory blow-up or a CP-SAT overrun
(it can exceed its own time limit, e.g. in presolve) fails that request only. Each
worker process caps its address space (RLIMIT_AS) and imports the engine once; a solve
that outlives its deadline gets its pool terminated and replaced.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import resource
import signal
import threading
from typing import Any

DEADLINE_GRACE_SECONDS = 10.0
CLOSE_TIMEOUT_SECONDS = 5.0


class SolveFailed(Exception):
    """The worker died or missed its deadline; nothing was solved."""


def _init_worker(memory_mb: int) -> None:
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGTERM, _exit_idle_worker)
    # Threads started by the solver's native code inherit this mask, so SIGTERM always
    # reaches the main thread (and its handler) rather than one of them.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        import engine.solve  # noqa: F401  (import once per worker, not per solve)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def _exit_idle_worker(signum: int, frame: Any) -> None:
    """SIGTERM while waiting for a task: leave through Python, releasing the queue lock.

    An idle worker blocks on the pool's task queue while holding that queue's lock; killed
    there (a server stopping its process group sends SIGTERM), it would leave the lock taken
    and Pool.terminate in the web process would wait for it forever.
    """
    raise SystemExit(0)


def _solve(request_data: Any, time_limit: float, cp_sat_workers: int, diagnosis: float) -> Any:
    from engine.rules import parse_request
    from engine.solve import SolveLimits, solve

    limits = SolveLimits(
        time_limit_seconds=time_limit,
        num_workers=cp_sat_workers,
        diagnosis_budget_seconds=diagnosis,
    )
    # Busy, the worker holds no queue lock: SIGTERM kills at once, without waiting for
    # CP-SAT (a Python handler would only run when the solve returns).
    idle_handler = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        response = solve(parse_request(request_data), limits)
    finally:
        signal.signal(signal.SIGTERM, idle_handler)
    return response.model_dump(mode="json", exclude_none=True)


class SolvePool:
    """A fixed number of solver processes shared by all requests of a web worker."""

    def __init__(self, processes: int, memory_mb: int, cp_sat_workers: int) -> None:
        self.processes = processes
        self.memory_mb = memory_mb
        self.cp_sat_workers = cp_sat_workers
        self._lock = threading.Lock()
        self._closed = False
        self._pool = self._start()

    def _start(self) -> multiprocessing.pool.Pool:
        context = multiprocessing.get_context("spawn")
        return context.Pool(self.processes, _init_worker, (self.memory_mb,))

    def solve(self, request_data: Any, time_limit: float, diagnosis_budget: float) -> Any:
        """A SolveResponse as JSON data; raises SolveFailed on a crash or a missed deadline."""
        with self._lock:
            pool = self._pool
        pending = pool.apply_async(
            _solve, (request_data, time_limit, self.cp_sat_workers, diagnosis_budget)
        )
        try:
            return pending.get(timeout=time_limit + diagnosis_budget + DEADLINE_GRACE_SECONDS)
        except multiprocessing.TimeoutError:
            self._replace(pool)
            raise SolveFailed("the solve missed its deadline and was stopped") from None
        except MemoryError:
            raise SolveFailed("the solve ran out of memory") from None
        except Exception as exc:  # an exception raised inside the worker
            raise SolveFailed(f"the solve failed: {type(exc).__name__}") from exc

    def _replace(self, broken: multiprocessing.pool.Pool) -> None:
        with self._lock:
            if self._pool is broken and not self._closed:  # no new processes after close
                self._pool = self._start()
        broken.terminate()

    def close(self) -> None:
        """Stop every solver process; never hangs the caller (a stuck stop is killed)."""
        with self._lock:
            self._closed = True
            pool = self._pool
        stopper = threading.Thread(target=_terminate, args=(pool,), daemon=True)
        stopper.start()
        stopper.join(CLOSE_TIMEOUT_SECONDS)
        if stopper.is_alive():
            for process in list(getattr(pool, "_pool", [])):  # the pool's worker processes
                process.kill()
            stopper.join(CLOSE_TIMEOUT_SECONDS)


def _terminate(pool: multiprocessing.pool.Pool) -> None:
    pool.terminate()
    pool.join()
