"""Finding a queued job's dead run, at a restart and while consumers work, and applying
the retry policy to it (``shiftsched.service.solving.jobs``, "How a dead run is found").

A mixin of :class:`shiftsched.service.solving.jobs.JobQueue`: it reads the queue and the
consumers' marks, and hands a job on through the queue's own ``enqueue``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Final

from huey import Huey

from shiftsched.service.solving.job_records import MAX_ATTEMPTS, orphan_response
from shiftsched.service.solving.runtime import Runtime
from shiftsched.service.store import Job, OrphanOutcome, Store
from shiftsched.service.store.reconcile import settle_stale_holds
from shiftsched.service.store.rows import now

MARK_MARGIN_SECONDS: Final = 60.0
"""Slack past the solve's own deadline before a consumer's mark counts as dead."""
HEARTBEAT_SILENCE_SECONDS: Final = 15.0
"""How long a solving job's progress may go unwritten before its run counts as dead.

The solving process writes at least every second
(``shiftsched.service.solving.job_watch.HEARTBEAT_SECONDS``), so this is about fifteen missed beats:
more than a busy machine, a slow database write or a pause of the process (a garbage collection, a
stalled disk) ever costs, so a live solve is not run twice; yet a dead one runs again within seconds
rather than after its whole time limit. The beat is stamped by the solving host's clock and judged
by another's; the margin also absorbs clocks a few seconds apart (hosts are expected to keep time,
as the marks' deadlines already require)."""
ORPHAN_SWEEP_SECONDS: Final = 5.0
"""How often each consumer looks for jobs whose run died: a small fraction of the silence
above, for a few cheap queries (the running jobs, and the queue only when one has no
heartbeat)."""

log = logging.getLogger(__name__)


def mark(job_id: str) -> str:
    """The key of a consumer's mark on a job in the queue's key-value store."""
    return f"executing:{job_id}"


class DeadRuns:
    """The restart rule and the sweep for dead runs, on a job queue."""

    huey: Huey
    _context: Callable[[], Runtime]
    _lock: threading.Lock
    _sweep_stop: threading.Event
    _sweeper: threading.Thread | None
    _check_task: Any
    enqueue: Callable[[str, int], None]  # the queue's own: run ``attempt`` of the job

    def recover(self, store: Store) -> list[str]:
        """Settle the running jobs that no consumer will finish (the retry policy): those
        run again are logged; returns those failed (units released)."""
        queued = self._queued_job_ids()
        settled = [
            (job.id, self._settle_orphan(store, job, queued))
            for job in store.jobs.running_jobs(bodies=False)
        ]
        return [job_id for job_id, outcome in settled if outcome not in (None, "rerun")]

    def _settle_orphan(self, store: Store, job: Job, queued: set[str]) -> OrphanOutcome | None:
        if job.id in queued:
            return None
        deadline = self.huey.get(mark(job.id), peek=True)
        left = float(deadline) - time.time() if isinstance(deadline, int | float) else 0.0
        if left > 0:  # a live consumer elsewhere is solving it: look again at its deadline
            self._check_task.schedule(args=(job.id,), delay=left + 1)
            return None
        if job.progress_at is None:
            return self._orphaned(store, job)
        silent_since = now() - timedelta(seconds=HEARTBEAT_SILENCE_SECONDS)
        if job.progress_at > silent_since:
            return None  # its solver is heard from: the consumers' sweeps watch it
        return self._orphaned(store, job, silent_since)

    def _orphaned(
        self, store: Store, job: Job, silent_since: datetime | None = None
    ) -> OrphanOutcome | None:
        """Apply the retry policy to a job whose run is dead; enqueue the next run."""
        outcome = store.jobs.settle_orphan(
            job.id,
            job.attempt,
            max_attempts=MAX_ATTEMPTS,
            failed_response=partial(orphan_response, job.id),
            silent_since=silent_since,
        )
        if outcome == "rerun":
            self.enqueue(job.id, job.attempt + 1)
            log.warning(
                "job %s: run %d lost its consumer; queued again",
                job.id,
                job.attempt,
                extra={"job_id": job.id},
            )
        elif outcome is not None:
            self.huey.delete(mark(job.id))
            log.warning(
                "job %s: run %d lost its consumer; %s",
                job.id,
                job.attempt,
                outcome,
                extra={"job_id": job.id},
            )
        return outcome

    # Finding dead runs while consumers work ----------------------------------------------

    def sweep_orphans(self, store: Store) -> dict[str, OrphanOutcome]:
        """Apply the retry policy to every running job whose run is dead (module
        docstring): a solving one silent for :data:`HEARTBEAT_SILENCE_SECONDS`, or one not
        solving that is neither queued, nor marked, nor changed for
        :data:`MARK_MARGIN_SECONDS` (just accepted or just handed on, its task may still
        be on its way to the queue). Returns what became of each."""
        moment = now()
        silent_since = moment - timedelta(seconds=HEARTBEAT_SILENCE_SECONDS)
        quiet_since = moment - timedelta(seconds=MARK_MARGIN_SECONDS)
        queued: set[str] | None = None
        outcomes: dict[str, OrphanOutcome] = {}
        for job in store.jobs.running_jobs(bodies=False):
            if job.progress_at is not None:
                if job.progress_at > silent_since:
                    continue
                outcome = self._orphaned(store, job, silent_since)
            else:
                if job.updated_at > quiet_since:
                    continue
                if queued is None:  # the queue before the mark: a task leaves one, then marks
                    queued = self._queued_job_ids()
                if job.id in queued or self._marked(job.id):
                    continue
                outcome = self._orphaned(store, job)
            if outcome is not None:
                outcomes[job.id] = outcome
        return outcomes

    def start_sweeper(self) -> None:
        """Sweep every :data:`ORPHAN_SWEEP_SECONDS` in a thread of this process, once
        however many worker threads call it (huey runs it as each one starts)."""
        with self._lock:
            if self._sweeper is not None:
                return
            self._sweep_stop.clear()
            self._sweeper = threading.Thread(target=self._sweep, name="job-orphans", daemon=True)
            self._sweeper.start()

    def _sweep(self) -> None:
        while not self._sweep_stop.wait(ORPHAN_SWEEP_SECONDS):
            try:
                store = self._context().store
                self.sweep_orphans(store)
                # Holds past their lease too (shiftsched.service.store.reconcile): consumers run
                # beside web replicas that may be down, and settling is safe from any number.
                settle_stale_holds(store.db)
            except Exception:  # the store away, say: the next sweep tries again
                log.exception("the sweep for dead job runs failed")

    def _marked(self, job_id: str) -> bool:
        """Whether a consumer's mark on the job is before its deadline."""
        deadline = self.huey.get(mark(job_id), peek=True)
        return isinstance(deadline, int | float) and deadline > time.time()

    def _queued_job_ids(self) -> set[str]:
        """Jobs whose task is waiting: enqueued, or scheduled for a retry or a check.

        Consumers move tasks between the schedule and the queue while this reads (due ones
        to the queue, early ones back to the schedule), on other hosts too with Redis; the
        schedule is read before and after the queue, so a task caught moving either way
        is still seen once.
        """
        tasks = [*self.huey.scheduled(), *self.huey.pending(), *self.huey.scheduled()]
        return {str(task.args[0]) for task in tasks if task.args}
