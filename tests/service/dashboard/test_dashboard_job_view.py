"""What the job page says about each way a job can stand or end, from the records alone:
the units are the ledger hold's, a stop is claimed only when one was asked of a queued
job, and a synchronous solve has no Stop."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from shiftsched.contract.v1 import DEFAULT_SOLVER_TIMEOUT_SECONDS
from shiftsched.service.dashboard.job_view import Units, job_view, time_limit_of, units_of
from shiftsched.service.store import Job, Reservation

MOMENT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def job(status: str = "running", **fields: Any) -> Job:
    values: dict[str, Any] = {
        "id": "j1",
        "account_id": "a1",
        "status": status,
        "units_reserved": 4,
        "reservation_id": "job-r",
        "request_json": {"request": {"employees": [{}, {}], "schedule_period": {}}},
        "response_json": None,
        "error_code": None,
        "created_at": MOMENT,
        "updated_at": MOMENT,
        "size": 1200,
        **fields,
    }
    return Job(**values)


def hold(state: str) -> Reservation:
    return Reservation("job-r", "a1", 4, 4, 0, state)  # type: ignore[arg-type]


def answered(status: str) -> dict[str, Any]:
    metrics = {"solver_runtime_seconds": 2.0, "objective_value": 30.0, "status": status}
    return {
        "job_id": "j1",
        "status": "completed",
        "solution": {"assignments": [], "metrics": metrics},
    }


@pytest.mark.parametrize(
    ("record", "reservation", "phrase"),
    [
        (
            job("completed", stop_requested_at=MOMENT, response_json=answered("feasible")),
            hold("captured"),
            "Stopped at your request. The best roster found before the stop (not proven "
            "the best possible) was kept; 4 units charged.",
        ),
        (
            job("failed", error_code="cancelled", progress={"elapsed_seconds": 1.0}),
            hold("released"),
            "Stopped at your request before any roster. No roster was kept; nothing was "
            "charged (the 4 units held were released).",
        ),
        (
            job("completed", response_json=answered("optimal")),
            hold("captured"),
            "Completed with a roster; 4 units charged.",
        ),
        (
            job(
                "failed",
                kind="sync",
                reservation_id=None,
                error_code="no_solution",
                response_json={
                    "error": {
                        "code": "no_solution",
                        "message": "no roster exists",
                        "diagnosis": {"causes": []},
                    }
                },
            ),
            None,
            "Ended without a roster (no roster exists); 4 units charged.",
        ),
    ],
)
def test_an_ended_job_says_how_it_ended_and_what_it_cost(
    record: Job, reservation: Reservation | None, phrase: str
) -> None:
    view = job_view(record, reservation)
    assert (view.phase, view.outcome, view.stoppable) == ("finished", phrase, False)


def test_a_running_job_holds_its_units_and_only_a_queued_one_can_be_stopped() -> None:
    queued = job_view(job(), hold("reserved"))
    assert (queued.phase, queued.stoppable, queued.outcome) == ("queued", True, "")
    assert queued.units == Units(held=4, charged=0, released=0)
    assert queued.request_summary == "size 1,200, 2 employees"
    stopping = job_view(job(stop_requested_at=MOMENT, progress={}), hold("reserved"))
    assert (stopping.phase, stopping.stoppable) == ("stopping", False)
    # A synchronous solve asked to stop over the API goes on to deliver: no claim of a stop.
    sync = job_view(job(kind="sync", stop_requested_at=MOMENT), hold("reserved"))
    assert (sync.phase, sync.stoppable, sync.stopped) == ("solving", False, False)
    kept = job("completed", kind="sync", reservation_id=None, response_json=answered("optimal"))
    assert units_of(kept, None) == Units(held=0, charged=4, released=0)


def test_a_stopped_job_is_named_by_the_contracts_status_with_the_stop_beside_it() -> None:
    kept = job_view(
        job("completed", stop_requested_at=MOMENT, response_json=answered("feasible")),
        hold("captured"),
    )
    assert kept.status_text == "completed, stopped at your request"
    cancelled = job_view(job("failed", error_code="cancelled"), hold("released"))
    assert cancelled.status_text == "failed (cancelled), stopped at your request"
    ended = job_view(job("completed", response_json=answered("optimal")), hold("captured"))
    assert ended.status_text == "completed"
    sync = job(
        "completed", kind="sync", stop_requested_at=MOMENT, response_json=answered("optimal")
    )
    assert job_view(sync, None).status_text == "completed"  # a synchronous solve heeds no stop


def test_the_page_shows_the_time_limit_and_the_last_progress_and_no_gap_at_bound_zero() -> None:
    later = datetime(2026, 3, 2, 9, 0, 7, tzinfo=UTC)
    record = {"elapsed_seconds": 7.0, "best_objective": 90.0, "best_bound": 0.0}
    running = job(progress=record, progress_at=later)
    view = job_view(running, hold("reserved"))
    assert view.last_updated == later  # not the record's creation
    assert view.time_limit_seconds is None  # the body names no shifts: not a request read
    assert view.figures.gap is None and view.figures.bound == 0.0
    request = {"shifts": [], "options": {"solver_timeout_seconds": 120}}
    assert time_limit_of(job(request_json={"request": request})) == 120
    assert time_limit_of(job(request_json={"shifts": []})) == DEFAULT_SOLVER_TIMEOUT_SECONDS
