"""The decomposition's bound is a proof: never above a roster anyone can find.

Checked against what CP-SAT finds on small random requests (every family, rules that
tie employees together included): the optimum when it is proven, else the roster's
cost. Checked too on Curtois & Qu instances whose optima the literature proves.

Every run here is deterministic: pricing stops on CP-SAT's deterministic work with one
worker, the LP is GLOP's simplex, and no deadline is set.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from shiftsched.contract.parse import parse_request
from shiftsched.formats import curtois
from shiftsched.solving.decompose import ColumnGeneration
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import solve
from tests.audited import work_limited
from tests.strategies import requests

pytestmark = pytest.mark.slow  # runs the decomposition until its bound converges

LIMITS = replace(work_limited(2.0), diagnosis_budget_seconds=0)

# Optimal values from the benchmark's own table (proven by branch and price).
OPTIMUM = {1: 607, 2: 828, 4: 1716, 13: 1348}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_the_bound_never_exceeds_a_proven_optimum(data: dict[str, Any]) -> None:
    request = parse_request(data)
    # Most of these requests are proven optimal at once; the few that take minutes stop
    # on deterministic work, and their roster's cost is then the ceiling instead.
    response = solve(request, LIMITS)
    generation = ColumnGeneration(from_request(request))
    result = generation.run(max_rounds=25)
    if response.solution is None:  # no roster (none exists, or none within the work)
        return
    ceiling = response.solution.metrics.objective_value  # the optimum when proven
    assert ceiling is not None
    assert not result.infeasible  # a roster exists, so every employee has a row
    assert result.capacity <= ceiling
    assert result.bound is not None and result.bound <= ceiling
    if result.converged:  # the bound met the LP, which no roster beats either
        # CP-SAT's bound, once it has taken over from paths, may pass the LP: the LP
        # still mixes paths that keep a weekly or monthly rule only on average.
        assert result.lp_value is not None
        assert math.ceil(result.lp_value - 1e-6) <= result.bound <= ceiling


@pytest.mark.parametrize("number", [1, 2, 4])
def test_on_curtois_the_bound_converges_below_the_proven_optimum(number: int) -> None:
    generation = ColumnGeneration(curtois.to_problem(curtois.load(number)))
    bounds: list[int] = []
    result = generation.run(on_bound=bounds.append)
    assert result.converged and result.bound is not None
    assert result.bound <= OPTIMUM[number]
    # The column-generation bound is within a few per cent on these instances (the
    # LP's own gap), where CP-SAT's full model proves much less in the same time.
    assert result.bound >= 0.9 * OPTIMUM[number]
    assert bounds == sorted(bounds) and bounds[-1] == result.bound  # each one better


def test_staff_capacity_alone_proves_instance_13_loses_three_heads() -> None:
    # Demand asks 941,160 minutes of a staff who can work 939,000: at least
    # ceil(2,160 / 720) = 3 heads go uncovered, at 100 each, before any search.
    generation = ColumnGeneration(curtois.to_problem(curtois.load(13)))
    assert generation.capacity_bound() == 300 <= OPTIMUM[13]


def test_an_employee_without_any_row_makes_the_problem_infeasible() -> None:
    from tests.factories import START_DATE, minimal_request_dict

    data = minimal_request_dict()
    # e1 is fixed on all seven days of the period, and no one may work more than six
    # in a row: e1 has no row that keeps the hard rules, so no roster exists.
    days = [f"2026-03-0{d}" for d in range(2, 9)]
    assert days[0] == START_DATE
    data["employees"][0]["fixed_assignments"] = [{"date": d, "shift_id": "day"} for d in days]
    data["constraints"] = {"max_consecutive_working_days": 6}
    request = parse_request(data)
    assert solve(request, LIMITS).solution is None
    assert ColumnGeneration(from_request(request)).run(max_rounds=3).infeasible
