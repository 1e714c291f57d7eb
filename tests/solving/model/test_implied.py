"""Redundant rows (ImpliedRow) remove no roster the hard rules allow and change no price.

Each implied row is checked against the model built without implied rows: CP-SAT
minimises the row over every roster the hard rules allow (the auxiliaries free to take
their least values), and the minimum must not be negative. A row that cut off a single
allowed roster would fail here, and would otherwise turn a wrong "optimal" into a
report. The optimum of small requests is then proven both ways and must be equal.

All solves run on one worker with a fixed seed and end on their own (tiny models).
"""

from __future__ import annotations

from typing import Any

import pytest
from ortools.sat.python import cp_model

from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveRequest
from shiftsched.data.synthetic import synthetic_request
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.problem import Problem, from_request
from tests.factories import minimal_request_dict

pytestmark = pytest.mark.slow  # solves each instance with and without the implied rows

BACKSTOP_SECONDS = 120.0  # never reached: each model here is solved in under a second


def _problem(employees: int, shifts: int, days: int, seed: int, cap: int | None = None) -> Problem:
    body: dict[str, Any] = synthetic_request(employees, shifts, 0, days, seed=seed)
    if cap is not None:
        body.setdefault("constraints", {})["max_consecutive_working_days"] = cap
    return from_request(SolveRequest.model_validate(body))


def _enforced(problem: Problem, *, implied_rows: bool) -> CompiledModel:
    compiled = build(problem, implied_rows=implied_rows)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    return compiled


def _solver() -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = BACKSTOP_SECONDS
    return solver


CASES = [
    pytest.param(5, 3, 14, 0, None, id="5x3x14-s0"),
    pytest.param(5, 3, 14, 1, None, id="5x3x14-s1"),
    pytest.param(4, 2, 14, 2, None, id="4x2x14-s2"),
    pytest.param(4, 3, 14, 3, 2, id="4x3x14-s3-cap2"),
    pytest.param(3, 1, 14, 4, 3, id="3x1x14-s4-cap3"),
    pytest.param(4, 2, 10, 6, 3, id="4x2x10-s6-cap3"),
]
# Small enough for CP-SAT to prove the optimum at once, with and without the rows.
OPTIMUM_CASES = [
    pytest.param(4, 2, 14, 2, None, id="4x2x14-s2"),
    pytest.param(3, 1, 14, 4, 3, id="3x1x14-s4-cap3"),
    pytest.param(3, 2, 10, 5, 2, id="3x2x10-s5-cap2"),
    pytest.param(4, 3, 7, 3, 2, id="4x3x7-s3-cap2"),
    pytest.param(3, 3, 10, 1, None, id="3x3x10-s1"),
    pytest.param(4, 2, 10, 6, 3, id="4x2x10-s6-cap3"),
]


@pytest.mark.parametrize(("employees", "shifts", "days", "seed", "cap"), CASES)
def test_every_implied_row_holds_for_every_allowed_roster(
    employees: int, shifts: int, days: int, seed: int, cap: int | None
) -> None:
    problem = _problem(employees, shifts, days, seed, cap)
    with_rows = build(problem)
    assert with_rows.implied, "the case should post implied rows"
    for row in with_rows.implied:
        plain = _enforced(problem, implied_rows=False)
        # No new variables: the row's variables mean the same in the plain model.
        assert len(plain.model.proto.variables) == len(with_rows.model.proto.variables)
        plain.model.minimize(row.row)
        solver = _solver()
        status = solver.solve(plain.model)
        assert status == cp_model.OPTIMAL
        assert solver.objective_value >= 0, "an implied row cuts off an allowed roster"


@pytest.mark.parametrize(("employees", "shifts", "days", "seed", "cap"), OPTIMUM_CASES)
def test_same_optimum_with_and_without_implied_rows(
    employees: int, shifts: int, days: int, seed: int, cap: int | None
) -> None:
    problem = _problem(employees, shifts, days, seed, cap)
    optima = []
    for implied_rows in (True, False):
        solver = _solver()
        assert solver.solve(_enforced(problem, implied_rows=implied_rows).model) == (
            cp_model.OPTIMAL
        )
        optima.append(solver.objective_value)
    assert optima[0] == optima[1]


def test_rows_follow_the_cap_and_skip_without_it() -> None:
    """One row per night date that leaves a full cap-plus-one window in the period."""
    problem = _problem(3, 1, 14, 4, cap=3)
    compiled = build(problem)
    night = len(problem.shifts) - 1
    expected = sum(
        1
        for e in range(len(problem.employees))
        for d in range(problem.num_days - 3)
        if (e, d, night) in compiled.x
    )
    assert len(compiled.implied) == expected
    assert build(problem, implied_rows=False).implied == []
    uncapped = build(problem, skip=("max_consecutive_working_days",))
    assert uncapped.implied == [], "no cap posted: nothing to rest the rows on"


def test_a_family_name_that_does_not_exist_is_refused() -> None:
    problem = from_request(parse_request(minimal_request_dict()))
    with pytest.raises(ValueError, match="consecutive_dayz"):
        build(problem, skip=("consecutive_dayz",))
