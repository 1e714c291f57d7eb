"""The consumer embedded in the web process: huey's thread consumer, started in the app's
lifespan and stopped at shutdown, its unfinished jobs ended ``interrupted``
(``shiftsched.service.solving.jobs``, "Consumers" and "Restart rule").
"""

from __future__ import annotations

import threading
from typing import Any, Final

from huey import Huey
from huey.consumer import Consumer

from shiftsched.service.solving.job_records import INTERRUPTED_MESSAGE, failed_response
from shiftsched.service.solving.job_sweeps import mark
from shiftsched.service.store import Store

POLL_SECONDS: Final = 1.0
"""Longest pause of an idle consumer between queue reads: a new job starts within it."""
SHUTDOWN_SECONDS: Final = 2.0
CONSUMER_START_SECONDS: Final = 10.0
"""Start-up waits this long at most for the consumer's worker threads to exist."""


class _EmbeddedConsumer(Consumer):  # type: ignore[misc]
    """huey's thread consumer inside the web process."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.started = threading.Event()

    def start(self) -> None:
        """Start the worker threads, then say so: stopping before they exist would fail
        (huey joins threads that were never started), as a quick start-stop showed."""
        try:
            super().start()
        finally:
            self.started.set()

    def _set_signal_handlers(self) -> None:
        """Keep the server's handlers: it owns the process's signals and stops us itself."""


class EmbeddedConsumer:
    """A job queue's consumer in background threads of this process."""

    huey: Huey
    _lock: threading.Lock
    _in_flight: dict[str, int]
    _consumer: Any
    _consumer_thread: threading.Thread | None
    _sweep_stop: threading.Event
    _sweeper: threading.Thread | None

    def start_consumer(self, workers: int) -> None:
        """Run huey's consumer in background threads of this process."""
        consumer = _EmbeddedConsumer(
            self.huey,
            workers=workers,
            worker_type="thread",
            periodic=False,
            max_delay=POLL_SECONDS,
            shutdown_timeout=SHUTDOWN_SECONDS,
        )
        thread = threading.Thread(target=consumer.run, name="job-consumer", daemon=True)
        thread.start()
        consumer.started.wait(CONSUMER_START_SECONDS)
        self._consumer, self._consumer_thread = consumer, thread

    def stop_taking_jobs(self) -> None:
        """The first step of a graceful stop: the embedded consumer takes no new job, and
        those it is solving go on (:meth:`stop_consumer` ends what is left)."""
        if self._consumer is not None:
            self._consumer.stop_flag.set()

    def stop_consumer(self, store: Store) -> None:
        """Stop taking jobs; a job still solving after a short grace ends as interrupted."""
        if self._consumer is None or self._consumer_thread is None:
            return
        self._consumer.stop(graceful=True)
        self._consumer_thread.join(SHUTDOWN_SECONDS)
        self._sweep_stop.set()
        with self._lock:
            unfinished = sorted(self._in_flight.items())
            sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.join(SHUTDOWN_SECONDS)
        for job_id, attempt in unfinished:
            _interrupt(store, job_id, attempt)
            self.huey.delete(mark(job_id))
        self._consumer = self._consumer_thread = None


def _interrupt(store: Store, job_id: str, attempt: int) -> bool:
    return store.jobs.finish_job(
        job_id,
        "failed",
        response_json=failed_response(job_id, "interrupted", INTERRUPTED_MESSAGE),
        error_code="interrupted",
        attempt=attempt,
    )
