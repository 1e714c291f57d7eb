"""Queued solves (the 202 path) on the huey job queue.

Why a queue: a pro key may ask for up to 300 s of solving, far longer than an HTTP
request should wait, so ``POST /solve`` only reserves the units, records the job as
running and enqueues ``run_solve_job(job_id)``; the caller polls ``GET /solve/jobs/{id}``.

Queue backend, chosen by configuration (the same code runs on both):

- embedded (default): ``SqliteHuey`` on ``jobs.db`` beside the SQLite database, or under
  ``var/`` (``JOBS_DB_PATH`` names another file). One host.
- ``JOBS_REDIS_URL`` set: ``RedisHuey`` on that server (needs the ``redis`` client
  package), so several hosts can share one queue.

Consumers: by default the service runs one inside its own process (worker threads, started
in the app's lifespan and stopped at shutdown), so ``make serve`` alone runs everything;
``JOBS_WORKERS`` jobs are solved at once (default: SOLVE_PROCESSES - 1, at least 1, so a
process of the solve pool stays free for synchronous solves). To scale out, set
``JOBS_CONSUMER=external`` on the service and run consumer processes with the same
environment (DATABASE_URL, JOBS_REDIS_URL or JOBS_DB_PATH, SOLVE_PROCESSES)::

    huey_consumer bento.jobs.huey --workers 2 --worker-type thread   # or: make consumer

Each task solves through the same capped worker processes (``SolvePool``) as the
synchronous route, with the request's ``solver_timeout_seconds`` (at most 300 s) as the
time limit, and ends the job with ``Store.finish_job``, which settles the reservation in
the same transaction, exactly once.

Billing (docs/semantics.md, "When a solve is charged"): a completed job captures its
units; a failed job releases them, whatever the reason. That includes ``no_solution``
with a diagnosis: the synchronous route charges for a diagnosed infeasibility (422), but
a failed job costs nothing, and a queued infeasible request *is* a failed job.

Progress and stopping: each solve is given its job (``JobLink``), so the solver process
records the job's progress in the job store and heeds a stop its client asked for
(``bento.job_watch``); a stopped job ends like any other, through ``finish_job``. A job
stopped while it waits for a solver process ends ``cancelled`` without solving.

Restart rule: at startup the service fails (``error.code`` ``interrupted``, units
released) every job still ``running`` whose task is neither waiting in the queue nor being
solved by a live consumer. A consumer marks each job it takes in the queue's key-value
store with a deadline (time limit + diagnosis budget + grace); a mark past its
deadline counts as dead, and a fresh one gets a check scheduled for its deadline, so no
job stays running forever. At shutdown the embedded consumer fails its unfinished jobs the
same way. A task that finds its job already ended does nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import cache
from typing import Any, Final

from huey import Huey
from huey.consumer import Consumer

from bento.runtime import Runtime, open_queue, open_runtime
from bento.settings import Settings
from bento.store import Job, Store
from bento.workers import DEADLINE_GRACE_SECONDS, JobLink, SolveFailed, SolverBusy
from engine.rules import parse_request

RETRY_AFTER_SECONDS: Final = 15
"""Polling hint sent with a running job (the contract recommends about 15 s)."""
MAX_TIME_LIMIT_SECONDS: Final = 300
POLL_SECONDS: Final = 1.0
"""Longest pause of an idle consumer between queue reads: a new job starts within it."""
SHUTDOWN_SECONDS: Final = 2.0
CONSUMER_START_SECONDS: Final = 10.0
"""Start-up waits this long at most for the consumer's worker threads to exist."""
MARK_MARGIN_SECONDS: Final = 60.0
"""Slack past the solve's own deadline before a consumer's mark counts as dead."""
STORE_RETRIES: Final = 2
STORE_RETRY_DELAY_SECONDS: Final = 30

log = logging.getLogger(__name__)


JobContext = Runtime
"""What a task needs (the store, the solve pool and the settings): the runtime."""
create_huey = open_queue  # the queue's backend, opened as the composition root opens it


def failed_response(job_id: str, code: str, message: str) -> dict[str, Any]:
    """A failed job's SolveResponse when the solver produced none."""
    return {
        "job_id": job_id,
        "status": "failed",
        "solution": None,
        "error": {"code": code, "message": message},
    }


def _mark(job_id: str) -> str:
    return f"executing:{job_id}"


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


class JobQueue:
    """One huey instance with the solve task registered on it, bound to a job context."""

    def __init__(self, huey: Huey, context: Callable[[], JobContext]) -> None:
        self.huey = huey
        self._context = context
        self._in_flight: set[str] = set()
        self._lock = threading.Lock()
        self._consumer: Any = None
        self._consumer_thread: threading.Thread | None = None
        task = huey.task(
            name="run_solve_job", retries=STORE_RETRIES, retry_delay=STORE_RETRY_DELAY_SECONDS
        )
        self._solve_task = task(self.run_solve_job)
        self._check_task = huey.task(name="check_solve_job")(self.check_solve_job)

    # Producer side -----------------------------------------------------------------------

    def enqueue(self, job_id: str) -> None:
        self._solve_task(job_id)

    # Tasks -------------------------------------------------------------------------------

    def run_solve_job(self, job_id: str) -> None:
        """Solve a queued job and end it; StoreUnavailable is left to huey's retries.

        The task has left the queue, so the job is marked at once, before the store and the
        pool open (seconds, in a fresh consumer process): a restart elsewhere meanwhile
        would otherwise find it neither queued nor marked and fail it. ``_solve`` then
        replaces the mark with the solve's own deadline.
        """
        self.huey.put(_mark(job_id), time.time() + MARK_MARGIN_SECONDS)
        with self._lock:
            self._in_flight.add(job_id)
        try:
            context = self._context()
            job = context.store.find_job(job_id)
            if job is None or job.status != "running":
                return  # interrupted at a restart, or already ended by an earlier delivery
            response = self._solve(context, job)
            if response["status"] == "completed":
                _, _, remaining = context.store.usage(job.account_id)  # units already held
                response["usage"] = {
                    "units_consumed": job.units_reserved,
                    "units_remaining": remaining,
                }
                context.store.finish_job(job_id, "completed", response_json=response)
            else:
                code = str(response.get("error", {}).get("code", "internal_error"))
                context.store.finish_job(job_id, "failed", response_json=response, error_code=code)
        finally:
            with self._lock:
                self._in_flight.discard(job_id)
            self.huey.delete(_mark(job_id))

    def check_solve_job(self, job_id: str) -> None:
        """Scheduled at a consumer's deadline: fail the job if that consumer is gone."""
        store = self._context().store
        job = store.find_job(job_id)
        if job is not None and job.status == "running":
            self._settle_orphan(store, job, self._queued_job_ids())

    def _solve(self, context: JobContext, job: Job) -> dict[str, Any]:
        settings = context.settings
        try:
            timeout = parse_request(job.request_json).options.solver_timeout_seconds
        except Exception:  # accepted once, so only a damaged record lands here
            log.exception("job %s: stored request no longer parses", job.id)
            return failed_response(job.id, "internal_error", "the stored request is unreadable")
        time_limit = float(min(timeout, MAX_TIME_LIMIT_SECONDS))
        solving = time_limit + settings.diagnosis_budget_seconds + DEADLINE_GRACE_SECONDS

        def started() -> None:  # the mark now covers the solve, from its start
            self.huey.put(_mark(job.id), time.time() + solving + MARK_MARGIN_SECONDS)

        link = JobLink(context.store.db.url.render_as_string(hide_password=False), job.id)
        while True:  # wait for a free process, renewing the mark so we look alive
            self.huey.put(_mark(job.id), time.time() + MARK_MARGIN_SECONDS)
            try:
                result = context.pool.solve(
                    job.request_json,
                    time_limit,
                    settings.diagnosis_budget_seconds,
                    wait_seconds=MARK_MARGIN_SECONDS / 2,
                    on_start=started,
                    job=link,
                )
                break
            except SolverBusy:
                if context.store.stop_requested(job.id):  # stopped while it waited
                    message = "the job was stopped before it started; nothing was charged"
                    return failed_response(job.id, "cancelled", message)
                continue
            except SolveFailed as exc:
                return failed_response(job.id, "internal_error", f"{exc}; nothing was charged")
        response: dict[str, Any] = dict(result)
        response["job_id"] = job.id
        response.setdefault("solution", None)  # the contract requires it, null when failed
        return response

    # Restart rule ------------------------------------------------------------------------

    def recover(self, store: Store) -> list[str]:
        """Fail (interrupted, units released) running jobs that no consumer will finish."""
        queued = self._queued_job_ids()
        return [job.id for job in store.running_jobs() if self._settle_orphan(store, job, queued)]

    def _settle_orphan(self, store: Store, job: Job, queued: set[str]) -> bool:
        if job.id in queued:
            return False
        deadline = self.huey.get(_mark(job.id), peek=True)
        left = float(deadline) - time.time() if isinstance(deadline, int | float) else 0.0
        if left > 0:  # a live consumer elsewhere is solving it: look again at its deadline
            self._check_task.schedule(args=(job.id,), delay=left + 1)
            return False
        self.huey.delete(_mark(job.id))
        return _interrupt(store, job.id)

    def _queued_job_ids(self) -> set[str]:
        """Jobs whose task is waiting: enqueued, or scheduled for a retry or a check.

        Consumers move tasks between the schedule and the queue while this reads (due ones
        to the queue, early ones back to the schedule), on other hosts too with Redis; the
        schedule is read before and after the queue, so a task caught moving either way
        is still seen once.
        """
        tasks = [*self.huey.scheduled(), *self.huey.pending(), *self.huey.scheduled()]
        return {str(task.args[0]) for task in tasks if task.args}

    # Embedded consumer -------------------------------------------------------------------

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

    def stop_consumer(self, store: Store) -> None:
        """Stop taking jobs; a job still solving after a short grace ends as interrupted."""
        if self._consumer is None or self._consumer_thread is None:
            return
        self._consumer.stop(graceful=True)
        self._consumer_thread.join(SHUTDOWN_SECONDS)
        with self._lock:
            unfinished = sorted(self._in_flight)
        for job_id in unfinished:
            _interrupt(store, job_id)
            self.huey.delete(_mark(job_id))
        self._consumer = self._consumer_thread = None


def _interrupt(store: Store, job_id: str) -> bool:
    message = "the service stopped before this job finished; nothing was charged, submit again"
    return store.finish_job(
        job_id,
        "failed",
        response_json=failed_response(job_id, "interrupted", message),
        error_code="interrupted",
    )


# Separate consumer processes -------------------------------------------------------------


class _LazyContext:
    """Opens the store and the solve pool on the first task, not when huey_consumer imports."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._context: JobContext | None = None

    def __call__(self) -> JobContext:
        with self._lock:
            if self._context is None:
                settings = self._settings
                self._context = open_runtime(settings)
            return self._context


@cache
def standalone_queue() -> JobQueue:
    """The queue named by the environment, for ``huey_consumer bento.jobs.huey``."""
    settings = Settings.from_env()
    return JobQueue(create_huey(settings), _LazyContext(settings))


def __getattr__(name: str) -> Any:
    """``bento.jobs.huey``: built on first access, so importing this module opens nothing."""
    if name == "huey":
        return standalone_queue().huey
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
