"""Stopping a solve from another thread (``SolveLimits.stop``).

A stop after the first roster gives that roster or a better one, as a normal completed
answer whose metrics the independent audit confirms; a stop before any roster gives the
``cancelled`` failure. The solves here have a long limit they never reach: the stop ends
them, so nothing depends on how fast the machine is.
"""

from __future__ import annotations

import threading

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.data.synthetic import synthetic_request
from shiftsched.solving.solve import ProgressPoint, SolveLimits, solve
from tests.audited import BACKSTOP_SECONDS, EXACT
from tests.factories import minimal_request_dict

pytestmark = pytest.mark.slow  # solves stopped mid-search


def _medium_request() -> dict[str, object]:
    """Far too large to prove optimal within the backstop: only the stop ends it."""
    return synthetic_request(40, 3, 2, 28, seed=3)


# Where a stop lands depends on timing, so these assert only what holds for any roster;
# with two workers they also hold for the portfolio.
@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.multi_worker)])
def test_a_stop_after_the_first_roster_returns_an_audited_roster(workers: int) -> None:
    request = parse_request(_medium_request())
    stop = threading.Event()

    def on_progress(point: ProgressPoint) -> None:
        if point.objective is not None:
            stop.set()

    limits = SolveLimits(
        time_limit_seconds=BACKSTOP_SECONDS,
        num_workers=workers,
        diagnosis_budget_seconds=0,
        on_progress=on_progress,
        stop=stop,
    )
    response = solve(request, limits)
    assert stop.is_set()
    assert response.status == "completed", response.error
    assert response.solution is not None
    metrics = response.solution.metrics
    assert metrics.status in ("feasible", "optimal")
    assert metrics.solver is not None and metrics.solver.solutions_found >= 1
    assert metrics.solver.stopped_on_request is True  # the answer says it was stopped
    report = audit(request, response.solution.assignments)
    assert report.hard_violations == []
    assert compare_with_metrics(report, metrics, response.solution.shortages) == []


@pytest.mark.parametrize("warm_start", [True, False])
def test_a_stop_before_the_search_gives_cancelled(warm_start: bool) -> None:
    stop = threading.Event()
    stop.set()
    limits = SolveLimits(
        time_limit_seconds=BACKSTOP_SECONDS, num_workers=1, warm_start=warm_start, stop=stop
    )
    response = solve(parse_request(_medium_request()), limits)
    assert (response.status, response.solution) == ("failed", None)
    assert response.error is not None and response.error.code == "cancelled"
    assert response.error.diagnosis is None


def test_a_solve_nobody_stopped_says_nothing_of_a_stop() -> None:
    response = solve(parse_request(minimal_request_dict()), EXACT)
    assert response.solution is not None and response.solution.metrics.solver is not None
    assert response.solution.metrics.solver.stopped_on_request is None
    assert "stopped_on_request" not in response.model_dump_json(exclude_none=True)
