"""Deterministic solves (``SolveLimits.deterministic``): limited by work, not the clock.

The same request and seed give the same roster, the answer says that work (or a proof)
ended the search, and the roster's metrics are the audit's. The budget here is small
and the request mid-sized, so the work limit, not a proof, usually ends it; either way
the assertions hold, and nothing depends on how fast the machine is (the wall-clock
safety net is three times the budget and at least a minute, far beyond what the work
takes even on a busy machine).
"""

from __future__ import annotations

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.data.synthetic import synthetic_request
from shiftsched.solving.search.deterministic import clock_net, work_limits
from shiftsched.solving.solve import SolveLimits, solve

pytestmark = pytest.mark.slow  # two solves with the local search's compile

BUDGET_SECONDS = 4.0  # the work budget (about 4 s on a quiet core); the clock's net is 60 s


def test_the_same_request_gives_the_same_roster_and_says_work_stopped_it() -> None:
    request = parse_request(synthetic_request(12, 3, 1, 28, seed=5))
    limits = SolveLimits(time_limit_seconds=BUDGET_SECONDS, deterministic=True, random_seed=3)
    first, second = solve(request, limits), solve(request, limits)
    assert first.solution is not None and second.solution is not None
    assert first.solution.assignments == second.solution.assignments
    metrics = first.solution.metrics
    assert metrics.objective_value == second.solution.metrics.objective_value
    assert metrics.solver is not None
    assert metrics.solver.deterministic is True
    assert metrics.solver.num_workers == 1
    assert metrics.solver.stopped_by in ("work_limit", "proof")
    report = audit(request, first.solution.assignments)
    assert not report.hard_violations
    assert compare_with_metrics(report, metrics) == []


def test_a_one_worker_solve_proven_optimal_says_a_proof_stopped_it() -> None:
    request = parse_request(synthetic_request(4, 2, 0, 7, seed=1))
    response = solve(request, SolveLimits(time_limit_seconds=60, num_workers=1))
    assert response.solution is not None
    solver = response.solution.metrics.solver
    assert response.solution.metrics.status == "optimal"
    assert solver is not None and solver.stopped_by == "proof"
    assert solver.deterministic is None  # only a deterministic solve says so


def test_the_clock_net_is_a_minute_at_least_and_three_budgets_past_twenty_seconds() -> None:
    assert clock_net(4.0) == 60.0  # so a loaded machine does not cut a small budget short
    assert clock_net(30.0) == 90.0


def test_the_work_grows_with_the_budget() -> None:
    moves, work = work_limits(10.0)
    more_moves, more_work = work_limits(20.0)
    assert moves > 0 and work > 0
    assert more_moves == 2 * moves and more_work == pytest.approx(2 * work)
