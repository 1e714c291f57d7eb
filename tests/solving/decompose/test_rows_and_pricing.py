"""The decomposition prices a roster exactly as the model and the audit do.

Split a roster by employee: each employee's own terms (the one-employee model,
shiftsched.solving.decompose.pricing) plus the cover rows' costs (shiftsched.solving.decompose.rows)
must be the audit's objective when the request has no rule that ties employees together, and never
more than it otherwise (those rules are left out of the decomposition, which only
lowers a bound). This is what makes the Lagrangian bound a bound.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.solving.decompose.pricing import EmployeePricer
from shiftsched.solving.decompose.rows import cover_rows
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import solve
from tests.audited import work_limited
from tests.strategies import requests

LIMITS = work_limited(1.0)


def _coupled(data: dict[str, Any]) -> bool:
    constraints = data.get("constraints", {})
    return bool(
        constraints.get("employee_pairings")
        or constraints.get("fairness_groups")
        or constraints.get("skill_support")
    )


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_employees_and_rows_price_a_roster_like_the_audit(data: dict[str, Any]) -> None:
    request = parse_request(data)
    response = solve(request, LIMITS)
    if response.solution is None:
        return
    problem = from_request(request)
    index = {employee.id: e for e, employee in enumerate(problem.employees)}
    shifts = {shift.id: s for s, shift in enumerate(problem.shifts)}
    duties = {duty.id: k for k, duty in enumerate(problem.duties)}
    days = {date: d for d, date in enumerate(problem.horizon.dates)}
    cells: dict[int, list[tuple[int, int, int | None]]] = {e: [] for e in index.values()}
    for a in response.solution.assignments:
        duty = None if a.duty_id is None else duties[a.duty_id]
        cells[index[a.employee_id]].append((days[a.date], shifts[a.shift_id], duty))
    own = 0
    counts: Counter[tuple[int, int, int, int | None]] = Counter()
    for e, row in cells.items():
        column = EmployeePricer(problem, e, scale=1).column_of(row)
        assert column is not None, f"{problem.employees[e].id}'s row breaks their own rules"
        own += column.cost
        counts.update(column.members())
    rows = sum(row.cost(sum(counts[m] for m in row.members)) for row in cover_rows(problem))
    objective = audit(request, response.solution.assignments).objective_value
    if _coupled(data):
        assert own + rows <= objective
    else:
        assert own + rows == objective


def test_a_row_costs_each_missing_and_each_extra_head() -> None:
    from shiftsched.solving.decompose.rows import CoverRow

    row = CoverRow("r", tuple((e, 0, 0, None) for e in range(5)), 2, 3, 100, 1)
    assert [row.cost(c) for c in range(6)] == [200, 100, 0, 0, 1, 2]
    # The row's share of the bound is the least of scale x cost + price x count.
    assert row.floor(price=50, scale=1) == 100  # 0 heads: 200; 1 head: 150; 2: 100
    assert row.floor(price=-2, scale=1) == -8  # 5 heads: 2 over the cap, less 10
    assert row.floor(price=0, scale=1) == 0
