"""Checks shared by the path-pricer tests: the path pricer against CP-SAT's
one-employee model, and the decomposition's bound against a proven optimum."""

from __future__ import annotations

import random

from shiftsched.solving.decompose import ColumnGeneration
from shiftsched.solving.decompose.labelling import LabellingPricer
from shiftsched.solving.decompose.pricing import Cell, Column, EmployeePricer
from shiftsched.solving.decompose.rows import Member, cover_rows
from shiftsched.solving.problem import Problem
from shiftsched.solving.solve import SolveLimits, solve_problem

SCALE = 1000


def random_prices(problem: Problem, seed: int, most: int = 150) -> dict[Member, int]:
    """A price per cover row, scaled, spread over the literals the row counts."""
    rng = random.Random(seed)
    prices: dict[Member, int] = {}
    for row in cover_rows(problem):
        price = rng.randint(-20, most) * SCALE
        for member in row.members:
            prices[member] = prices.get(member, 0) + price
    return prices


def reduced(column: Column, prices: dict[Member, int]) -> int:
    """A column's reduced cost at ``prices``, scaled."""
    return SCALE * column.cost - sum(prices.get(m, 0) for m in column.members())


def assert_rows_agree(problem: Problem, seed: int, duties: bool = False) -> None:
    """Each employee: the path pricer takes a row exactly when CP-SAT's model does, at
    the same cost (the priced path's row, then random rows, mostly broken)."""
    rng = random.Random(seed)
    days, shifts = problem.num_days, len(problem.shifts)
    holds = [None, *range(len(problem.duties))] if duties else [None]
    for e in range(len(problem.employees)):
        paths = LabellingPricer(problem, e, SCALE)
        exact = EmployeePricer(problem, e, SCALE)
        found = paths.price(random_prices(problem, seed)).column
        rows: list[list[Cell]] = [[] if found is None else list(found.cells)]
        for _ in range(4):
            density = rng.random()
            rows.append(
                [
                    (d, rng.randrange(shifts), rng.choice(holds))
                    for d in range(days)
                    if rng.random() < density
                ]
            )
        for cells in rows:
            mine, reference = paths.column_of(cells), exact.column_of(cells)
            assert (mine is None) == (reference is None), (cells, problem.employees[e])
            if mine is not None and reference is not None:
                assert mine.kept and mine.cost == reference.cost
                assert mine.cells == reference.cells


def assert_bound_below_optimum(problem: Problem, limits: SolveLimits, rounds: int) -> None:
    """Where the whole problem is proven optimal within ``limits``, the decomposition's
    bound (paths, and paths then CP-SAT) is never above that optimum."""
    outcome = solve_problem(problem, limits)
    if outcome.status != "optimal":
        return  # infeasible (or unproven within the work): no optimum to compare with
    assert outcome.objective_value is not None
    for pricing in ("paths", "paths_then_exact"):
        result = ColumnGeneration(problem, pricing=pricing).run(max_rounds=rounds)
        assert not result.infeasible
        assert result.bound is not None and result.bound <= outcome.objective_value
