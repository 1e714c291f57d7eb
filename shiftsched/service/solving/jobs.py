"""Queued solves (the 202 path) on the huey job queue.

Why a queue: a pro key may ask for up to 300 s of solving, far longer than an HTTP
request should wait, so a queued operation (``POST /solve``, ``POST /solve/plan``) only
reserves the units, records the job as running and enqueues ``run_solve_job(job_id)``;
the caller polls ``GET /solve/jobs/{id}``.

What a job runs is in its record, not in the task: the body as accepted, and the names
(module:function) of the engine's parser of that body and of the engine function that
solves it, both taken from the operation's declaration (``shiftsched.service.http.pipeline``). A
consumer reads the body with the parser and hands the typed input to the solver pool
with the function's name, so a plan's job runs ``shiftsched.periods.plan:plan`` on its plan body and
answers with its ledger, through the same task, retries and settlement as a solve's.
A record without names (written before plans queued) is a solve.

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

    # or: make consumer
    huey_consumer shiftsched.service.solving.jobs.huey --workers 2 --worker-type thread

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
(``shiftsched.service.solving.job_watch``); a stopped job ends like any other, through
``finish_job``. A job stopped while it waits for a solver process ends ``cancelled`` without
solving.

Retry policy: a job whose consumer died runs once more, on whichever consumer takes it,
with the same reservation; if that run's consumer dies too, the job fails (``error.code``
``interrupted``, units released; ``cancelled`` instead when its client had asked to stop
it). Why once: a consumer killed by an operator, a deploy or the out-of-memory killer is
common and says nothing about the job, so one re-run turns such a death into a delay; a
job whose runs keep dying may be what kills them (memory), and running it on and on would
take consumer after consumer down with it, so the second death ends it. Why the same
reservation: the client was told its units are held until the job ends; they stay held,
and are captured or released once, when the job ends, however many runs that took, so a
re-run is never charged twice (docs/semantics.md, "When a solve is charged").

The same sweep settles the ledger's holds past their lease (``shiftsched.service.store.reconcile``):
those of synchronous solves whose service died. A queued job's own hold has no lease, so
the sweep below alone decides its fate.

How a dead run is found (every consumer looks, every :data:`ORPHAN_SWEEP_SECONDS`):

- solving: the solving process writes the job's progress about every second, its
  heartbeat (``shiftsched.service.solving.job_watch``); a running job whose progress has not been
  written for :data:`HEARTBEAT_SILENCE_SECONDS` has lost its run. A consumer killed outright leaves
  its solver process behind, which notices and falls silent at once
  (``shiftsched.service.solving.job_watch``).
- taken but not solving yet (waiting for a solver process): the consumer keeps a mark on
  the job in the queue's key-value store with a deadline it renews; a job neither waiting
  in the queue, nor marked, nor heard from for :data:`MARK_MARGIN_SECONDS` has lost it.

Then :meth:`shiftsched.service.store.Store.settle_orphan` decides in one transaction holding the
job's row, so however many consumers and replicas notice the same death, one hands the job on
(its attempt number goes up and it is enqueued again) or fails it. Should the one that
handed it on die before enqueueing it, the job is found again the same way (neither
queued, nor marked, nor heard from) and, on its last run, fails: it is never lost. Every
write of a run is conditional on the job still being on that run's attempt: a consumer
that was frozen, not killed, and comes back finds its job handed on, and neither
overwrites the new run's progress nor ends the job a second time.

Restart rule: at startup the service applies the same policy to every job still
``running`` whose task is neither waiting in the queue, nor being solved by a live
consumer (a mark before its deadline, which is the time limit + diagnosis budget + grace
while solving, or a heartbeat), nor heard from. A live mark gets a check scheduled for its
deadline. At shutdown the embedded consumer fails its unfinished jobs ``interrupted``: it
is stopped on purpose, so nothing will run them; a graceful stop first lets them solve
on for the stop's grace (``shiftsched.service.solving.stopping``), and a solve it cuts off ends its
job ``interrupted`` too, never ``internal_error``. A task that finds its job already ended,
or handed to a later run, does nothing.

This module holds the queue and its task; what a record runs and says when it ends
without a roster is :mod:`shiftsched.service.solving.job_records`, the search for dead runs
:mod:`shiftsched.service.solving.job_sweeps`, the embedded consumer
:mod:`shiftsched.service.solving.job_consumer`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import cache
from typing import Any, Final

from huey import Huey

from shiftsched.contract.v1 import SolveResponse, Usage
from shiftsched.service import metrics
from shiftsched.service.failures import SolveFailed, SolverBusy, SolverLost
from shiftsched.service.settings import Settings
from shiftsched.service.solving.job_consumer import EmbeddedConsumer
from shiftsched.service.solving.job_records import (
    INTERRUPTED_MESSAGE,
    checked_name,
    failed_answer,
    job_input,
    solved_request,
    stored,
)
from shiftsched.service.solving.job_sweeps import MARK_MARGIN_SECONDS, DeadRuns, mark
from shiftsched.service.solving.runtime import Runtime, open_queue, open_runtime
from shiftsched.service.solving.workers import DEADLINE_GRACE_SECONDS, SOLVE, JobLink
from shiftsched.service.store import Job

RETRY_AFTER_SECONDS: Final = 15
"""Polling hint sent with a running job (the contract recommends about 15 s)."""
MAX_TIME_LIMIT_SECONDS: Final = 300
STORE_RETRIES: Final = 2
STORE_RETRY_DELAY_SECONDS: Final = 30

log = logging.getLogger(__name__)


JobContext = Runtime
"""What a task needs (the store, the solve pool and the settings): the runtime."""
create_huey = open_queue  # the queue's backend, opened as the composition root opens it


class JobQueue(DeadRuns, EmbeddedConsumer):
    """One huey instance with the solve task registered on it, bound to a job context."""

    def __init__(self, huey: Huey, context: Callable[[], JobContext]) -> None:
        self.huey = huey
        self._context = context
        self._in_flight: dict[str, int] = {}  # job id -> the attempt this process runs
        self._lock = threading.Lock()
        self._consumer: Any = None
        self._consumer_thread: threading.Thread | None = None
        self._sweep_stop = threading.Event()
        self._sweeper: threading.Thread | None = None
        task = huey.task(
            name="run_solve_job", retries=STORE_RETRIES, retry_delay=STORE_RETRY_DELAY_SECONDS
        )
        self._solve_task = task(self.run_solve_job)
        self._check_task = huey.task(name="check_solve_job")(self.check_solve_job)
        huey.on_startup(name="sweep_orphans")(self.start_sweeper)  # in every consumer

    # Producer side -----------------------------------------------------------------------

    def enqueue(self, job_id: str, attempt: int = 1) -> None:
        """Queue run ``attempt`` of the job (a first run carries no attempt: the task's
        arguments stay those of earlier releases)."""
        if attempt == 1:
            self._solve_task(job_id)
        else:
            self._solve_task(job_id, attempt=attempt)

    # Tasks -------------------------------------------------------------------------------

    def run_solve_job(self, job_id: str, attempt: int = 1) -> None:
        """Solve run ``attempt`` of a queued job and end it; StoreUnavailable is left to
        huey's retries.

        The task has left the queue, so the job is marked at once, before the store and the
        pool open (seconds, in a fresh consumer process): a restart elsewhere meanwhile
        would otherwise find it neither queued nor marked and fail it. ``_solve`` then
        replaces the mark with the solve's own deadline. A run that finds its job handed
        to a later one leaves the mark, which is that run's now.
        """
        self.huey.put(mark(job_id), time.time() + MARK_MARGIN_SECONDS)
        with self._lock:
            self._in_flight[job_id] = attempt
        handed_on = False
        try:
            context = self._context()
            job = context.store.jobs.find_job(job_id)
            if job is None or job.status != "running" or job.attempt != attempt:
                # interrupted at a restart, already ended by an earlier delivery, or given
                # up on (this consumer was taken for dead) and handed to another run
                handed_on = job is not None and job.attempt > attempt
                return
            with metrics.solving("queued", job_id) as seen:
                answer = seen(self._solve(context, job))
            if answer.status == "completed":
                _, _, remaining = context.store.ledger.usage(job.account_id)  # units already held
                usage = Usage(units_consumed=job.units_reserved, units_remaining=remaining)
                answer = answer.model_copy(update={"usage": usage})
                ended = context.store.jobs.finish_job(
                    job_id, "completed", response_json=stored(answer), attempt=attempt
                )
            else:
                code = answer.error.code if answer.error is not None else "internal_error"
                ended = context.store.jobs.finish_job(
                    job_id, "failed", response_json=stored(answer), error_code=code, attempt=attempt
                )
            if not ended:
                later = context.store.jobs.find_job(job_id)
                handed_on = later is not None and later.attempt > attempt
                log.warning(
                    "job %s: run %d ended after the job had moved on",
                    job_id,
                    attempt,
                    extra={"job_id": job_id},
                )
        finally:
            with self._lock:
                if self._in_flight.get(job_id) == attempt:
                    del self._in_flight[job_id]
            if not handed_on:
                self.huey.delete(mark(job_id))

    def check_solve_job(self, job_id: str) -> None:
        """Scheduled at a consumer's deadline: settle the job if that consumer is gone."""
        store = self._context().store
        job = store.jobs.find_job(job_id)
        if job is not None and job.status == "running":
            self._settle_orphan(store, job, self._queued_job_ids())

    def _solve(self, context: JobContext, job: Job) -> SolveResponse:
        """The job's answer: its stored body parsed once, here, by the parser its record
        names, and solved in the pool by the engine function it names."""
        settings = context.settings
        try:
            ask = job_input(job)
            request = solved_request(ask)
            call = checked_name(job.call or SOLVE)
        except Exception:  # accepted once, so only a damaged record lands here
            log.exception(
                "job %s: stored request no longer parses", job.id, extra={"job_id": job.id}
            )
            return failed_answer(job.id, "internal_error", "the stored request is unreadable")
        time_limit = float(min(request.options.solver_timeout_seconds, MAX_TIME_LIMIT_SECONDS))
        solving = time_limit + settings.diagnosis_budget_seconds + DEADLINE_GRACE_SECONDS

        def started() -> None:  # the mark now covers the solve, from its start
            self.huey.put(mark(job.id), time.time() + solving + MARK_MARGIN_SECONDS)

        url = context.store.db.url.render_as_string(hide_password=False)
        link = JobLink(url, job.id, job.attempt)
        while True:  # wait for a free process, renewing the mark so we look alive
            self.huey.put(mark(job.id), time.time() + MARK_MARGIN_SECONDS)
            try:
                answer: SolveResponse = context.pool.solve(
                    ask,
                    time_limit,
                    settings.diagnosis_budget_seconds,
                    wait_seconds=MARK_MARGIN_SECONDS / 2,
                    on_start=started,
                    job=link,
                    call=call,
                )
                break
            except SolverLost as lost:  # caught before SolverBusy, which it also is
                if lost.stopping:  # the service stops on purpose: nothing will finish it
                    return failed_answer(job.id, "interrupted", INTERRUPTED_MESSAGE)
                return failed_answer(job.id, "internal_error", f"{lost}; nothing was charged")
            except SolverBusy:
                if context.store.jobs.stop_requested(
                    job.id, job.attempt
                ):  # stopped while it waited
                    message = "the job was stopped before it started; nothing was charged"
                    return failed_answer(job.id, "cancelled", message)
                continue
            except SolveFailed as exc:
                return failed_answer(job.id, "internal_error", f"{exc}; nothing was charged")
        return answer.model_copy(update={"job_id": job.id})


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
    """The queue named by the environment, for
    ``huey_consumer shiftsched.service.solving.jobs.huey``."""
    settings = Settings.from_env()
    return JobQueue(create_huey(settings), _LazyContext(settings))


def __getattr__(name: str) -> Any:
    """``shiftsched.service.solving.jobs.huey``: built on first access, so importing this module
    opens nothing."""
    if name == "huey":
        return standalone_queue().huey
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
