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
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import cache, partial
from typing import Any, Final

from huey import Huey
from huey.consumer import Consumer

from shiftsched.contract.v1 import ErrorInfo, SolveRequest, SolveResponse, Usage
from shiftsched.service import metrics
from shiftsched.service.failures import SolveFailed, SolverBusy, SolverLost
from shiftsched.service.settings import Settings
from shiftsched.service.solving.runtime import Runtime, open_queue, open_runtime
from shiftsched.service.solving.workers import DEADLINE_GRACE_SECONDS, SOLVE, JobLink
from shiftsched.service.store import Job, OrphanOutcome, Store
from shiftsched.service.store.reconcile import settle_stale_holds
from shiftsched.service.store.rows import now

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
MAX_ATTEMPTS: Final = 2
"""Runs a job gets: its first, and one more if the first one's consumer dies."""
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
INTERRUPTED_MESSAGE: Final = (
    "the service stopped before this job finished; nothing was charged, submit again"
)
STORE_RETRIES: Final = 2
STORE_RETRY_DELAY_SECONDS: Final = 30
SOLVE_PARSER: Final = "shiftsched.contract.parse:parse_request"
"""The parser of a job whose record names none: a v1 solve's."""
ENGINE: Final = "shiftsched."
"""A job record names functions of the engine only: a module of this prefix ..."""
SERVICE: Final = "shiftsched.service."
"""... outside the service's own package."""

log = logging.getLogger(__name__)


JobContext = Runtime
"""What a task needs (the store, the solve pool and the settings): the runtime."""
create_huey = open_queue  # the queue's backend, opened as the composition root opens it


def failed_answer(job_id: str, code: str, message: str) -> SolveResponse:
    """A failed job's SolveResponse when the solver produced none."""
    return SolveResponse(
        job_id=job_id, status="failed", solution=None, error=ErrorInfo(code=code, message=message)
    )


def stored(answer: SolveResponse) -> dict[str, Any]:
    """A job's answer as its record keeps it: the contract's body, with ``solution``
    null (the contract requires the field) when there is none."""
    body = answer.model_dump(mode="json", exclude_none=True)
    body.setdefault("solution", None)
    return body


def failed_response(job_id: str, code: str, message: str) -> dict[str, Any]:
    """A failed job's record when the solver produced no answer."""
    return stored(failed_answer(job_id, code, message))


def orphan_response(job_id: str, code: str) -> dict[str, Any]:
    """The answer of a job whose run died and that is not run again (``code``:
    interrupted or cancelled)."""
    if code == "cancelled":
        message = "the job was stopped and its consumer stopped with it; nothing was charged"
    else:
        message = (
            f"the job's consumer stopped before it finished, {MAX_ATTEMPTS} times; "
            "nothing was charged, submit again"
        )
    return failed_response(job_id, code, message)


def _mark(job_id: str) -> str:
    return f"executing:{job_id}"


# What a job runs ---------------------------------------------------------------------------


def engine_name(function: Callable[..., Any]) -> str:
    """The name (module:function) a job record keeps for ``function``; ValueError unless
    it is a module-level function of the engine, found again by that name."""
    module = getattr(function, "__module__", None)
    name = f"{module}:{getattr(function, '__qualname__', None)}"
    if engine_function(name) is not function:
        raise ValueError(f"{name} is not found again by its name")
    return name


def checked_name(name: str) -> str:
    """``name`` when it names a function of the engine (module:function); ValueError
    otherwise, so a record can make a consumer import nothing else."""
    module, _, function = name.partition(":")
    engine = module.startswith(ENGINE) and not module.startswith(SERVICE)
    if not engine or not function.isidentifier():
        raise ValueError(f"{name!r} names no function of the engine")
    return name


def engine_function(name: str) -> Callable[..., Any]:
    """The engine function named ``name`` (module:function), imported here."""
    module, _, function = checked_name(name).partition(":")
    found = getattr(importlib.import_module(module), function, None)
    if not callable(found):
        raise ValueError(f"{name!r} names no function of the engine")
    return found  # type: ignore[no-any-return]


def job_input(job: Job) -> Any:
    """The job's stored body read by its parser: what its engine function takes."""
    return engine_function(job.parse or SOLVE_PARSER)(job.request_json)


def solved_request(ask: Any) -> SolveRequest:
    """The v1 request a job's input solves: the input itself (a solve's), or the request
    it holds (a plan's)."""
    request = ask if isinstance(ask, SolveRequest) else getattr(ask, "request", None)
    if not isinstance(request, SolveRequest):
        raise TypeError(f"a {type(ask).__name__} holds no request to solve")
    return request


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
        self.huey.put(_mark(job_id), time.time() + MARK_MARGIN_SECONDS)
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
                self.huey.delete(_mark(job_id))

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
            self.huey.put(_mark(job.id), time.time() + solving + MARK_MARGIN_SECONDS)

        url = context.store.db.url.render_as_string(hide_password=False)
        link = JobLink(url, job.id, job.attempt)
        while True:  # wait for a free process, renewing the mark so we look alive
            self.huey.put(_mark(job.id), time.time() + MARK_MARGIN_SECONDS)
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

    # Restart rule ------------------------------------------------------------------------

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
        deadline = self.huey.get(_mark(job.id), peek=True)
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
            self.huey.delete(_mark(job.id))
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
        deadline = self.huey.get(_mark(job_id), peek=True)
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
            self.huey.delete(_mark(job_id))
        self._consumer = self._consumer_thread = None


def _interrupt(store: Store, job_id: str, attempt: int) -> bool:
    return store.jobs.finish_job(
        job_id,
        "failed",
        response_json=failed_response(job_id, "interrupted", INTERRUPTED_MESSAGE),
        error_code="interrupted",
        attempt=attempt,
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
