"""Property: any roster the engine returns passes the independent audit, to the unit.

Random small requests touching every family are solved; the auditor (plain Python, no
CP-SAT) must find no hard violation, and its recomputed penalties, objective and
shortage markers must equal what the solver reported.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.solving.solve import solve
from tests.audited import failed_for_a_reason, work_limited
from tests.strategies import requests

# Most requests are proven optimal or infeasible at once, but a few tiny ones take
# minutes to prove: each solve stops after a fixed amount of deterministic work, so the
# outcome of every example is the same however busy the machine.
LIMITS = replace(work_limited(2.0), diagnosis_budget_seconds=0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_solutions_pass_the_audit(data: dict[str, Any]) -> None:
    request = parse_request(data)
    response = solve(request, LIMITS)
    if failed_for_a_reason(response):
        return
    assert response.solution is not None
    report = audit(request, response.solution.assignments)
    assert report.hard_violations == []
    metrics = response.solution.metrics
    assert compare_with_metrics(report, metrics) == []
    assert metrics.objective_value == sum(v.penalty for v in metrics.soft_constraint_violations)
    assert metrics.objective_value == report.objective_value
    assert response.solution.shortages == report.shortages
