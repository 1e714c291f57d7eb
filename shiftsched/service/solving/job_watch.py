"""The link between a queued job's solve and the job store: progress out, stop in.

Why in the solving process: the solve runs in a worker process of the pool, on whatever
host runs the consumer, while the client polls any replica of the service. The database
is the one place they all share, so the process that solves writes the job's progress
record there and reads whether the client asked to stop, and no other channel between
processes is needed.

One thread per solving job does both, every :data:`POLL_SECONDS`: it reads the stop
request (and sets the engine's stop event, ``SolveLimits.stop``), and writes the record
when it is due. The record holds the latest figures, the last improvements (the API's
progress resource, ``shiftsched.service.solving.job_control``) and a thinned trace of the best
objective and bound over time (the dashboard's job page draws it). The solver's own
threads only update memory (``on_progress``): they must never wait for a database.
Writes are throttled: the first at once (the job shows as solving before any roster
exists), then an improvement at most every :data:`MIN_WRITE_SECONDS`, and otherwise a
heartbeat every :data:`HEARTBEAT_SECONDS` so the elapsed time moves; at most two writes
a second per job. A database that cannot be
reached costs the record and the stop, never the solve.

The records are also the job's heartbeat (``shiftsched.service.solving.jobs`` runs a job again when
they stop for long): they carry the run's attempt, so a run that was given up on writes
nothing over the next one, and they stop as soon as the consumer that started this
process is gone. A consumer killed outright does not take its solver processes with it
(they are its children, not killed with it); such a process would go on beating for a
job whose answer nobody will collect, so it stops the solve and falls silent at once,
and exits soon after (``shiftsched.service.solving.lifeline``).

The store opened here never creates the database: a SQLite file deleted under a running
service stays missing (``shiftsched.service.store.database``), so the watch records nothing rather
than write into a new, empty file.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, Final

from shiftsched.service.store import Store, StoreUnavailable
from shiftsched.solving.search.progress import ProgressPoint

POLL_SECONDS: Final = 0.25
MIN_WRITE_SECONDS: Final = 0.5
HEARTBEAT_SECONDS: Final = 1.0
IMPROVEMENTS_KEPT: Final = 10
TRACE_KEPT: Final = 64
"""Points of the objective and bound over time a record keeps (the dashboard's chart);
past twice as many, every other one is dropped, so the whole solve stays in view."""

log = logging.getLogger(__name__)


class JobWatch:
    """The progress of one job's solve, and the stop event its client may set."""

    def __init__(
        self,
        store: Store,
        job_id: str,
        clock: Callable[[], float] = time.monotonic,
        *,
        attempt: int | None = None,
        consumer_alive: Callable[[], bool] = lambda: True,
    ) -> None:
        self.store = store
        self.job_id = job_id
        self.attempt = attempt
        self.stop = threading.Event()
        self._consumer_alive = consumer_alive
        self._clock = clock
        self._started = clock()
        self._lock = threading.Lock()
        self._solutions = 0
        self._best: float | None = None
        self._bound: float | None = None
        self._improvements: deque[dict[str, float]] = deque(maxlen=IMPROVEMENTS_KEPT)
        self._trace: list[dict[str, float | None]] = []
        self._changed = True
        self._written = -math.inf

    def on_progress(self, point: ProgressPoint) -> None:
        """The engine's listener (``SolveLimits.on_progress``): memory only, quick."""
        with self._lock:
            moved = point.objective is not None
            if math.isfinite(point.bound) and point.bound != self._bound:
                self._bound = point.bound
                moved = True
            if point.objective is not None:
                self._solutions += 1
                self._best = point.objective
                self._improvements.append(
                    {"elapsed_seconds": round(self._elapsed(), 3), "objective": point.objective}
                )
            if moved:
                self._trace_point()
            self._changed = True

    def _trace_point(self) -> None:
        """The best objective and bound as they stand now, on the trace (lock held)."""
        elapsed = round(self._elapsed(), 3)
        self._trace.append(
            {"elapsed_seconds": elapsed, "objective": self._best, "bound": self._bound}
        )
        if len(self._trace) > 2 * TRACE_KEPT:
            self._trace = [*self._trace[:-1:2], self._trace[-1]]

    def record(self) -> dict[str, Any]:
        """The progress record as stored: JSON data."""
        with self._lock:
            return {
                "elapsed_seconds": round(self._elapsed(), 3),
                "best_objective": self._best,
                "best_bound": self._bound,
                "solutions": self._solutions,
                "improvements": list(self._improvements),
                "trace": list(self._trace),
            }

    def tick(self) -> None:
        """One round of the watch thread: read the stop request, write the record if due;
        with the consumer gone, stop the solve and write nothing more."""
        if not self._consumer_alive():
            self.stop.set()
            return
        try:
            if self.store.jobs.stop_requested(self.job_id, self.attempt):
                self.stop.set()
            since = self._clock() - self._written
            with self._lock:
                due = since >= HEARTBEAT_SECONDS or (self._changed and since >= MIN_WRITE_SECONDS)
            if due:
                self.write()
        except StoreUnavailable as exc:
            log.warning(
                "job %s: progress not recorded: %s", self.job_id, exc, extra={"job_id": self.job_id}
            )

    def write(self) -> None:
        """Write the record now (nothing once the consumer is gone)."""
        if not self._consumer_alive():
            return
        with self._lock:
            self._changed = False
        self._written = self._clock()
        self.store.jobs.record_progress(self.job_id, self.record(), self.attempt)

    def _elapsed(self) -> float:
        return self._clock() - self._started


@cache
def _store(database_url: str) -> Store:
    """One store per database for the life of the worker process (the service migrated
    it already)."""
    return Store(database_url)


@contextmanager
def watching(database_url: str, job_id: str, attempt: int | None = None) -> Iterator[JobWatch]:
    """Watch run ``attempt`` of the job for the block: its first record is written before
    the block starts, a last one when it ends (the solve's final elapsed time and best
    values). The consumer is this process's parent; once it is gone the process has
    another parent (whoever adopts orphans)."""
    parent = os.getppid()
    watch = JobWatch(
        _store(database_url),
        job_id,
        attempt=attempt,
        consumer_alive=lambda: os.getppid() == parent,
    )
    finished = threading.Event()

    def tick() -> None:
        try:
            watch.tick()
        except Exception:  # a fault here must not end the watch, nor the solve
            log.exception("job %s: watch failed", job_id, extra={"job_id": job_id})

    def run() -> None:
        while not finished.wait(POLL_SECONDS):
            tick()

    tick()

    thread = threading.Thread(target=run, name=f"job-watch-{job_id}", daemon=True)
    thread.start()
    try:
        yield watch
    finally:
        finished.set()
        thread.join()
        try:
            watch.write()
        except Exception:  # the solve's answer matters more than its last record
            log.exception("job %s: last progress not recorded", job_id, extra={"job_id": job_id})
