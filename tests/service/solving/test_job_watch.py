"""The solving process's side of a job: throttled progress records and the stop request.

A real SQLite store and a clock the test moves by hand (never the wall clock), so the
write schedule is exact on any machine.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from shiftsched.service.solving.job_watch import (
    HEARTBEAT_SECONDS,
    IMPROVEMENTS_KEPT,
    MIN_WRITE_SECONDS,
    TRACE_KEPT,
    JobWatch,
)
from shiftsched.service.store import Jobs, Store
from shiftsched.service.store.rows import now
from shiftsched.solving.search.progress import ProgressPoint

TICK = 0.25  # the watch thread's period (shiftsched.service.solving.job_watch.POLL_SECONDS)


class CountingJobs(Jobs):
    """The real job records, counting the progress records written."""

    writes = 0

    def record_progress(self, job_id: str, progress: Any, attempt: int | None = None) -> bool:
        self.writes += 1
        return super().record_progress(job_id, progress, attempt)


class CountingStore(Store):
    """The real store, with job records that count the progress written."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.jobs: CountingJobs = CountingJobs(self.db)

    @property
    def writes(self) -> int:
        return self.jobs.writes


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _running_job(tmp_path: Path) -> tuple[CountingStore, str, str]:
    store = CountingStore(f"sqlite:///{tmp_path / 'store.db'}")
    store.db.migrate()
    account = store.accounts.create_account("Acme", tier="pro", free_quota=10)
    assert store.ledger.reserve(account.id, 2, "job-r") is not None
    job = store.jobs.create_job(account.id, {}, units_reserved=2, reservation_id="job-r")
    return store, account.id, job.id


def test_records_are_written_at_once_then_throttled(tmp_path: Path) -> None:
    store, account_id, job_id = _running_job(tmp_path)
    clock = Clock()
    watch = JobWatch(store, job_id, clock)
    watch.tick()
    assert store.writes == 1
    first = store.jobs.get_job(account_id, job_id)
    assert first is not None and first.progress == {
        "elapsed_seconds": 0.0,
        "best_objective": None,
        "best_bound": None,
        "solutions": 0,
        "improvements": [],
        "trace": [],
    }

    objective = 1000.0
    for _ in range(int(10 / TICK)):  # ten seconds, improving rosters all the time
        for _ in range(5):
            objective -= 1
            watch.on_progress(ProgressPoint(0.0, objective, 10.0))
        clock.now += TICK
        watch.tick()
    assert store.writes <= 1 + 10 / MIN_WRITE_SECONDS
    record = store.jobs.get_job(account_id, job_id)
    assert record is not None and isinstance(record.progress, dict)
    assert record.progress["solutions"] == 200
    assert record.progress["best_objective"] == objective
    assert record.progress["best_bound"] == 10.0
    assert record.progress["elapsed_seconds"] == 10.0
    improvements = record.progress["improvements"]
    assert len(improvements) == IMPROVEMENTS_KEPT
    assert improvements[-1] == {"elapsed_seconds": 9.75, "objective": objective}

    quiet = store.writes
    for _ in range(int(10 / TICK)):  # ten quiet seconds: a heartbeat keeps time moving
        clock.now += TICK
        watch.tick()
    assert store.writes - quiet == int(10 / HEARTBEAT_SECONDS)
    record = store.jobs.get_job(account_id, job_id)
    assert record is not None and record.progress["elapsed_seconds"] == 20.0


def test_the_trace_keeps_the_whole_solve_in_view_thinned(tmp_path: Path) -> None:
    """The dashboard's chart reads the trace: each point is the best objective and bound
    at that moment, a bound that does not move adds nothing, and a long solve is
    thinned, never cut, so its first and last points stay."""
    store, _, job_id = _running_job(tmp_path)
    clock = Clock()
    watch = JobWatch(store, job_id, clock)
    watch.on_progress(ProgressPoint(0.0, None, 5.0))
    watch.on_progress(ProgressPoint(0.0, None, 5.0))  # the same bound: no point
    clock.now += 1
    watch.on_progress(ProgressPoint(0.0, 90.0, 5.0))
    assert watch.record()["trace"] == [
        {"elapsed_seconds": 0.0, "objective": None, "bound": 5.0},
        {"elapsed_seconds": 1.0, "objective": 90.0, "bound": 5.0},
    ]
    for step in range(10 * TRACE_KEPT):
        clock.now += 1
        watch.on_progress(ProgressPoint(0.0, 89.0 - step / 1000, 5.0))
    trace = watch.record()["trace"]
    assert TRACE_KEPT <= len(trace) <= 2 * TRACE_KEPT
    assert trace[0]["elapsed_seconds"] == 0.0
    assert trace[-1] == {
        "elapsed_seconds": 1.0 + 10 * TRACE_KEPT,
        "objective": 89.0 - (10 * TRACE_KEPT - 1) / 1000,
        "bound": 5.0,
    }
    times = [point["elapsed_seconds"] for point in trace]
    assert times == sorted(times)


def test_the_stop_request_sets_the_engines_event(tmp_path: Path) -> None:
    store, account_id, job_id = _running_job(tmp_path)
    watch = JobWatch(store, job_id, Clock())
    watch.tick()
    assert not watch.stop.is_set()
    stopped = store.jobs.stop_job(account_id, job_id, {"status": "failed"})
    assert stopped is not None and stopped[1] == "stopping"
    watch.tick()
    assert watch.stop.is_set()


def test_a_job_that_ended_meanwhile_stops_its_solve(tmp_path: Path) -> None:
    store, _, job_id = _running_job(tmp_path)
    watch = JobWatch(store, job_id, Clock())
    assert store.jobs.finish_job(job_id, "failed", error_code="interrupted")
    watch.tick()
    assert watch.stop.is_set()


def test_a_watch_whose_consumer_is_gone_stops_the_solve_and_falls_silent(tmp_path: Path) -> None:
    """A consumer killed outright leaves its solver process behind: the heartbeat must stop,
    or the job would look alive to the consumers that run dead jobs again."""
    store, _, job_id = _running_job(tmp_path)
    consumer = {"alive": True}
    clock = Clock()
    watch = JobWatch(store, job_id, clock, attempt=1, consumer_alive=lambda: consumer["alive"])
    watch.tick()
    assert store.writes == 1 and not watch.stop.is_set()
    consumer["alive"] = False
    for _ in range(8):
        clock.now += HEARTBEAT_SECONDS
        watch.tick()
    watch.write()  # the last record, as the block ends
    assert watch.stop.is_set() and store.writes == 1


def test_a_run_handed_to_another_stops_and_writes_nothing(tmp_path: Path) -> None:
    store, account_id, job_id = _running_job(tmp_path)
    watch = JobWatch(store, job_id, Clock(), attempt=1)
    watch.tick()
    silent = now() + timedelta(seconds=1)  # as if its heartbeat had stopped
    handed_on = store.jobs.settle_orphan(
        job_id, 1, max_attempts=2, failed_response=lambda code: None, silent_since=silent
    )
    assert handed_on == "rerun"
    watch.tick()
    assert watch.stop.is_set()
    watch.write()
    job = store.jobs.get_job(account_id, job_id)
    assert job is not None and (job.attempt, job.progress) == (2, None)  # nothing overwritten
