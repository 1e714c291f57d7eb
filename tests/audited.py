"""Solve a request and insist that the independent audit agrees with the roster.

Every roster a test gets from the engine goes through here (or an equivalent check):
no hard violation, and the reported objective, violations and shortages are the audit's.

Limits that no load can change: a test's solve ends on its own, either proven optimal
(:data:`EXACT`, for small instances) or after a fixed amount of CP-SAT's deterministic
work (:func:`work_limited`, for instances too large to prove), always with one worker and
a fixed seed. The wall-clock limit is then a backstop that only a broken solve reaches,
so a busy machine makes a test slower, never different.
"""

from __future__ import annotations

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.v1 import Solution, SolveRequest, SolveResponse
from shiftsched.solving.solve import SolveLimits, solve

BACKSTOP_SECONDS = 120.0

EXACT = SolveLimits(
    time_limit_seconds=BACKSTOP_SECONDS,
    num_workers=1,
    random_seed=0,
    diagnosis_budget_seconds=BACKSTOP_SECONDS,
)


def work_limited(deterministic_seconds: float) -> SolveLimits:
    """One worker, a fixed seed, and CP-SAT's ``max_deterministic_time`` as the limit:
    the same roster (often a time-limited, unproven one) on any machine under any load."""
    return SolveLimits(
        time_limit_seconds=BACKSTOP_SECONDS,
        num_workers=1,
        random_seed=0,
        diagnosis_budget_seconds=BACKSTOP_SECONDS,
        parameters={"max_deterministic_time": deterministic_seconds},
    )


def solved_and_audited(request: SolveRequest, limits: SolveLimits = EXACT) -> Solution:
    response = solve(request, limits)
    assert response.status == "completed", response.error
    assert response.solution is not None
    solution = response.solution
    report = audit(request, solution.assignments)
    assert report.hard_violations == []
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    return solution


def failed_for_a_reason(response: SolveResponse) -> bool:
    """Whether a work-limited solve came back without a roster, for one of the two
    reasons that may happen to a random request: a proof of infeasibility, or no roster
    within the work. Any other failure fails the test."""
    if response.status != "failed":
        return False
    assert response.error is not None
    assert (response.error.code, response.error.solver_status) in {
        ("no_solution", "INFEASIBLE"),
        ("solver_timeout", "UNKNOWN"),
    }, response.error
    return True
