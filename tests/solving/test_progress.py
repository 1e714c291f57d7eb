"""The search trace of a solve: each roster's objective and the best bound over time.

Every roster is checked by the independent auditor and its metrics compared with the
audit. What CP-SAT guarantees and these tests rely on: a solution callback fires only
for a strictly better roster (in a minimization, each objective is lower than the one
before, with one worker or several); the bound only rises (the trace keeps the best one
so far); no bound exceeds the optimum, so none exceeds any roster's objective.
"""

from __future__ import annotations

import copy
import itertools
import time
from collections.abc import Sequence
from typing import Any

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import (
    ProgressPoint,
    SolveLimits,
    SolveOutcome,
    solve_problem,
    to_response,
)
from tests.audited import BACKSTOP_SECONDS
from tests.factories import demand, employee_dict, full_request_dict, minimal_request_dict

# Every solve here ends proven optimal (or infeasible) long before the limit, so a busy
# machine changes no trace: with one worker and the fixed seed, not even its length.
TIME_LIMIT_SECONDS = BACKSTOP_SECONDS
Json = dict[str, Any]


def _crowded_request() -> Json:
    """Eight employees, two shifts of 2..3 heads, day-off wishes, a fairness group and a
    cap of 3 consecutive days: enough for several improving rosters without a hint."""
    data = minimal_request_dict()
    data["duties"] = []
    data["employees"] = [
        employee_dict(f"e{i}", preferences=[{"type": "day_off", "date": f"2026-03-0{2 + i % 7}"}])
        for i in range(8)
    ]
    for shift in data["shifts"]:
        shift["staffing_demand"] = demand(2, 3)
    data["constraints"] = {
        "fairness_groups": [{"target_shift_ids": ["night"], "policy": "equal"}],
        "max_consecutive_working_days": 3,
    }
    return data


def _infeasible_request() -> Json:
    """e1 is fixed on a holiday: no roster exists."""
    data = minimal_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-04"]
    data["employees"][0]["fixed_assignments"] = [{"date": "2026-03-04", "shift_id": "day"}]
    return data


REQUESTS = {
    "minimal": minimal_request_dict,
    "full": full_request_dict,
    "crowded": _crowded_request,
}


def _solve(data: Json, *, workers: int, warm_start: bool = True) -> SolveOutcome:
    """Solve through the engine entry point; a roster must pass the audit."""
    request = parse_request(data)
    limits = SolveLimits(
        time_limit_seconds=TIME_LIMIT_SECONDS, num_workers=workers, warm_start=warm_start
    )
    outcome = solve_problem(from_request(request), limits)
    if outcome.has_solution:
        solution = to_response(outcome, "progress-test").solution
        assert solution is not None
        report = audit(request, solution.assignments)
        assert report.hard_violations == []
        assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    return outcome


def _objectives(progress: Sequence[ProgressPoint]) -> list[float]:
    return [p.objective for p in progress if p.objective is not None]


# Two workers give a different trace from run to run: the tests of two-worker solves
# assert only what holds for any trace (the module docstring), hence the marker.
MULTI_WORKER = pytest.mark.multi_worker
CASES = [
    pytest.param(
        name,
        workers,
        warm_start,
        id=f"{name}-w{workers}-{'hint' if warm_start else 'cold'}",
        marks=[MULTI_WORKER] if workers > 1 else [],
    )
    for name in REQUESTS
    for workers in (1, 2)
    for warm_start in (True, False)
]
WORKERS = [1, pytest.param(2, marks=MULTI_WORKER)]

Outcomes = dict[tuple[str, int, bool], SolveOutcome]


@pytest.fixture(scope="module")
def outcomes() -> Outcomes:
    """One solve per case, shared by the tests of this module (each takes milliseconds).
    Each is solved by the first test that asks for it, under that test's markers."""
    return {}


def _outcome(outcomes: Outcomes, name: str, workers: int, warm: bool) -> SolveOutcome:
    if (name, workers, warm) not in outcomes:
        outcomes[name, workers, warm] = _solve(REQUESTS[name](), workers=workers, warm_start=warm)
    outcome = outcomes[name, workers, warm]
    assert outcome.has_solution, outcome.message
    return outcome


@pytest.mark.parametrize(("name", "workers", "warm_start"), CASES)
def test_a_roster_leaves_a_trace_with_one_point_per_roster(
    outcomes: Outcomes, name: str, workers: int, warm_start: bool
) -> None:
    outcome = _outcome(outcomes, name, workers, warm_start)
    assert outcome.progress
    assert len(_objectives(outcome.progress)) == outcome.solver.solutions_found >= 1


@pytest.mark.parametrize(("name", "workers", "warm_start"), CASES)
def test_seconds_are_non_negative_and_ordered_per_source(
    outcomes: Outcomes, name: str, workers: int, warm_start: bool
) -> None:
    # Each source on its own is ordered (and the merged trace too, tested below).
    outcome = _outcome(outcomes, name, workers, warm_start)
    assert all(p.seconds >= 0 for p in outcome.progress)
    assert all(p.seconds <= outcome.runtime_seconds for p in outcome.progress)
    for points in (
        [p.seconds for p in outcome.progress if p.objective is not None],
        [p.seconds for p in outcome.progress if p.objective is None],
    ):
        assert points == sorted(points)


@pytest.mark.parametrize(("name", "workers", "warm_start"), CASES)
def test_objectives_strictly_improve_and_bounds_only_rise(
    outcomes: Outcomes, name: str, workers: int, warm_start: bool
) -> None:
    outcome = _outcome(outcomes, name, workers, warm_start)
    objectives = _objectives(outcome.progress)
    assert all(later < earlier for earlier, later in itertools.pairwise(objectives))
    bounds = [p.bound for p in outcome.progress]
    assert bounds == sorted(bounds)


@pytest.mark.parametrize(("name", "workers", "warm_start"), CASES)
def test_the_trace_brackets_the_final_objective(
    outcomes: Outcomes, name: str, workers: int, warm_start: bool
) -> None:
    outcome = _outcome(outcomes, name, workers, warm_start)
    assert outcome.objective_value is not None and outcome.best_bound is not None
    # Polishing only tightens slack, so it can lower the last roster's objective, never raise it.
    assert _objectives(outcome.progress)[-1] >= outcome.objective_value
    assert outcome.best_bound <= outcome.objective_value
    # No bound recorded on the way exceeds the final bound or any roster found.
    assert all(p.bound <= outcome.best_bound for p in outcome.progress)
    assert all(p.bound <= outcome.objective_value for p in outcome.progress)
    # The trace ends on the final bound, so a chart shows the gap the solve ended with.
    assert outcome.progress[-1].bound == outcome.best_bound


@pytest.mark.parametrize(("name", "workers", "warm_start"), CASES)
def test_a_proven_optimum_is_the_last_roster_of_the_trace(
    outcomes: Outcomes, name: str, workers: int, warm_start: bool
) -> None:
    # At the optimum no slack is loose, so CP-SAT's last value is the exact price.
    outcome = _outcome(outcomes, name, workers, warm_start)
    assert outcome.status == "optimal"
    assert _objectives(outcome.progress)[-1] == outcome.objective_value


def test_without_a_hint_the_search_improves_several_times(outcomes: Outcomes) -> None:
    # The crowded instance from scratch: the first roster is far from the last one, so the
    # ordering assertions above are not vacuous.
    objectives = _objectives(_outcome(outcomes, "crowded", 1, False).progress)
    assert len(objectives) >= 3
    assert objectives[0] > objectives[-1]


def test_the_request_is_not_changed_by_solving() -> None:
    data = _crowded_request()
    before = copy.deepcopy(data)
    _solve(data, workers=1)
    assert data == before


@pytest.mark.parametrize("workers", WORKERS)
def test_an_infeasible_request_has_an_empty_trace(workers: int) -> None:
    outcome = _solve(_infeasible_request(), workers=workers)
    assert outcome.status == "infeasible"
    assert not outcome.has_solution
    assert outcome.progress == []


REPEATS = 60


@pytest.mark.slow
def test_the_merged_trace_is_ordered_in_time() -> None:
    # Rosters and bounds interleave closely on this instance, so several solves.
    data = full_request_dict()
    for _ in range(REPEATS):
        seconds = [p.seconds for p in _solve(data, workers=1).progress]
        assert seconds == sorted(seconds), seconds


@pytest.mark.parametrize("workers", WORKERS)
def test_a_listener_sees_every_point_of_the_trace_as_it_is_recorded(workers: int) -> None:
    seen: list[ProgressPoint] = []
    request = parse_request(full_request_dict())
    limits = SolveLimits(
        time_limit_seconds=TIME_LIMIT_SECONDS, num_workers=workers, on_progress=seen.append
    )
    outcome = solve_problem(from_request(request), limits)
    assert outcome.has_solution
    assert seen == outcome.progress


def test_a_listener_that_fails_fails_the_solve_loudly() -> None:
    def broken(_: ProgressPoint) -> None:
        raise ValueError("listener")

    request = parse_request(full_request_dict())
    limits = SolveLimits(time_limit_seconds=TIME_LIMIT_SECONDS, num_workers=1, on_progress=broken)
    with pytest.raises(ValueError, match="listener"):
        solve_problem(from_request(request), limits)


SLOW_STEP_SECONDS = 0.2  # a delay sleep guarantees, however busy the machine


def test_the_first_roster_counts_from_the_start_of_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``time_to_first_solution_seconds`` counts from the call's start (the contract): the
    request's conversion and the model build are time the caller waited. Both are made
    slower by a sleep here, a lower bound no load can lower, then run for real."""
    import importlib

    from shiftsched.solving.solve import solve

    solving = importlib.import_module("shiftsched.solving.solve")  # the module, not the function

    def slowly(step: Any) -> Any:
        def delayed(*args: Any, **kwargs: Any) -> Any:
            time.sleep(SLOW_STEP_SECONDS)
            return step(*args, **kwargs)

        return delayed

    monkeypatch.setattr(solving, "from_request", slowly(solving.from_request))
    monkeypatch.setattr(solving, "build", slowly(solving.build))
    limits = SolveLimits(time_limit_seconds=TIME_LIMIT_SECONDS, num_workers=1)
    response = solve(parse_request(full_request_dict()), limits)
    assert response.solution is not None and response.solution.metrics.solver is not None
    metrics = response.solution.metrics
    first = metrics.solver.time_to_first_solution_seconds
    assert first is not None
    assert 2 * SLOW_STEP_SECONDS <= first <= metrics.solver_runtime_seconds
