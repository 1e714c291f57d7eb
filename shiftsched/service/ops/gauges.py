"""Gauges read when ``/metrics`` is scraped: tasks waiting in the job queue, and job
records by state.

Why at scrape time: these are facts of the shared database and queue, not of one process.
Counted from the source, every replica reports the same true value, whatever process
enqueued or finished a job (a separate consumer included) and across restarts; a gauge
kept up to date in memory would be each process's own partial view. Reading costs a
GROUP BY on the jobs table and a queue length, so the text is kept a few seconds
(:data:`CACHE_SECONDS`): scrapers polling several times a second cost one read.

BentoML appends the text to its ``/metrics`` answer through the service's
``__metrics__`` (``shiftsched.service.app``). A source that cannot be read leaves its gauge out of
that scrape (an absent series, not a false zero); nothing here raises.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

from shiftsched.service.store import Store

CACHE_SECONDS: Final = 5.0
JOB_STATES: Final = ("running", "completed", "failed")

log = logging.getLogger(__name__)


def job_counts(store: Store) -> dict[str, int]:
    """Job records by state, every state present (0 when none); completed synchronous
    solves are kept as jobs too, for as long as finished jobs are."""
    found = store.jobs.count_by_status()
    return {state: found.get(state, 0) for state in JOB_STATES}


def queue_depth(huey: Any) -> int:
    """Tasks waiting in the queue for a consumer (scheduled retries and checks not yet due
    are not waiting)."""
    return int(huey.pending_count())


class _Snapshot:
    """A collector yielding the gauge families it was given, once."""

    def __init__(self, families: list[Metric]) -> None:
        self._families = families

    def collect(self) -> Iterator[Metric]:
        yield from self._families


def render(counts: dict[str, int] | None, depth: int | None) -> str:
    """The gauges in Prometheus text format; a None source is left out."""
    families: list[Metric] = []
    if depth is not None:
        families.append(
            GaugeMetricFamily(
                "shiftsched_queue_depth", "Queued solve tasks waiting for a consumer.", depth
            )
        )
    if counts is not None:
        by_state = GaugeMetricFamily(
            "shiftsched_jobs",
            "Job records by state (running, completed, failed).",
            labels=["state"],
        )
        for state, count in counts.items():
            by_state.add_metric([state], count)
        families.append(by_state)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Snapshot(families))
    return generate_latest(registry).decode()


class StateGauges:
    """The gauges' text for the store and queue ``sources`` returns, kept ``ttl`` seconds.

    ``sources`` may raise (e.g. before the app's lifespan has opened them): both gauges
    are then left out."""

    def __init__(
        self,
        sources: Callable[[], tuple[Store, Any]],
        *,
        ttl: float = CACHE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sources = sources
        self._ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._last: tuple[float, str] | None = None

    def text(self) -> str:
        with self._lock:  # one read at a time; the others take its text
            if self._last is not None and self._clock() - self._last[0] < self._ttl:
                return self._last[1]
            text = self._read()
            self._last = (self._clock(), text)
            return text

    def _read(self) -> str:
        try:
            store, huey = self._sources()
        except Exception:
            return ""
        return render(_or_none(job_counts, store), _or_none(queue_depth, huey))


def _or_none(read: Callable[[Any], Any], source: Any) -> Any:
    try:
        return read(source)
    except Exception as exc:
        log.warning("metrics: %s not read: %s", read.__name__, exc)
        return None
