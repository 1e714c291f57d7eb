"""Solve a request and insist that the independent audit agrees with the roster.

Every roster a test gets from the engine goes through here (or an equivalent check):
no hard violation, and the reported objective, violations and shortages are the audit's.
"""

from __future__ import annotations

from engine.audit import audit, compare_with_metrics
from engine.contract import Solution, SolveRequest
from engine.solve import SolveLimits, solve


def solved_and_audited(request: SolveRequest, limits: SolveLimits) -> Solution:
    response = solve(request, limits)
    assert response.status == "completed", response.error
    assert response.solution is not None
    solution = response.solution
    report = audit(request, solution.assignments)
    assert report.hard_violations == []
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    return solution
