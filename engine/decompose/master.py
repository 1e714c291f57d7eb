"""The master LP: a convex combination of rosters per employee, against the cover rows.

Columns are rosters (:class:`engine.decompose.pricing.Column`), one convexity row per
employee says each employee works one roster (a mix, in the LP), and each cover row
counts the heads of the rosters chosen, with a slack on each side priced as the row's
cost (:class:`engine.decompose.rows.CoverRow`), so the master is always feasible. Its
duals on the cover rows are the prices the next round of pricing sees.

Solved with GLOP, OR-Tools' simplex, through ``pywraplp``: the solver keeps the model
between rounds and adding columns re-optimises from the last basis. (The HiGHS shipped
inside OR-Tools returned wrong duals through the same wrapper, and the separate ``highspy``
wheel clashes with the HiGHS symbols inside OR-Tools' library when both are loaded.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ortools.linear_solver import pywraplp

from engine.decompose.pricing import Column
from engine.decompose.rows import CoverRow, Member


@dataclass(frozen=True, slots=True)
class MasterSolution:
    value: float  # the LP optimum over the columns so far
    row_prices: list[float]  # per cover row: the dual, what one more head is worth there
    employee_prices: list[float]  # per employee: the convexity row's dual


class Master:
    """The restricted master LP over the columns added so far."""

    def __init__(self, employees: int, rows: Sequence[CoverRow]) -> None:
        solver = pywraplp.Solver.CreateSolver("GLOP")
        if solver is None:  # pragma: no cover - GLOP ships with every OR-Tools wheel
            raise RuntimeError("OR-Tools has no GLOP solver")
        infinity = solver.infinity()
        self._solver = solver
        self._objective = solver.Objective()
        self._objective.SetMinimization()
        self.convexity = [solver.Constraint(1.0, 1.0) for _ in range(employees)]
        self.cover = []
        self.rows_of: dict[Member, list[int]] = {}
        for r, row in enumerate(rows):
            high = infinity if row.high is None else float(row.high)
            constraint = solver.Constraint(float(row.low), high)
            self.cover.append(constraint)
            for member in row.members:
                self.rows_of.setdefault(member, []).append(r)
            if row.low > 0:  # missing heads, at the row's price
                under = solver.NumVar(0.0, float(row.low), "")
                constraint.SetCoefficient(under, 1.0)
                self._objective.SetCoefficient(under, float(row.under_weight))
            if row.high is not None:  # heads over the cap
                over = solver.NumVar(0.0, infinity, "")
                constraint.SetCoefficient(over, -1.0)
                self._objective.SetCoefficient(over, float(row.over_weight))
        self.columns: list[Column] = []
        self._seen: set[tuple[int, tuple[object, ...]]] = set()

    def add(self, column: Column) -> bool:
        """Add a roster unless it is already a column; whether it was added."""
        key = (column.employee, column.cells)
        if key in self._seen:
            return False
        self._seen.add(key)
        solver = self._solver
        z = solver.NumVar(0.0, solver.infinity(), "")
        self._objective.SetCoefficient(z, float(column.cost))
        self.convexity[column.employee].SetCoefficient(z, 1.0)
        counts: dict[int, int] = {}
        for member in column.members():
            for r in self.rows_of.get(member, ()):
                counts[r] = counts.get(r, 0) + 1
        for r, count in counts.items():
            self.cover[r].SetCoefficient(z, float(count))
        self.columns.append(column)
        return True

    def solve(self) -> MasterSolution:
        """Re-optimise from the last basis; every employee must have a column by now."""
        status = self._solver.Solve()
        if status != pywraplp.Solver.OPTIMAL:
            raise RuntimeError(f"the master LP ended with status {status}")
        return MasterSolution(
            self._objective.Value(),
            [c.dual_value() for c in self.cover],
            [c.dual_value() for c in self.convexity],
        )

    def reduced_cost(self, column: Column, solution: MasterSolution) -> float:
        """The column's cost less what the duals pay for it (negative: it improves)."""
        paid = solution.employee_prices[column.employee]
        for member in column.members():
            for r in self.rows_of.get(member, ()):
                paid += solution.row_prices[r]
        return column.cost - paid
