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

from engine.decompose.pricing import Column, Limit, lp_cost
from engine.decompose.rows import CoverRow, Member

# What a day's worth of usage beyond a limit costs in the master, times the dearest row
# weight: high enough that the LP keeps every limit once it has the columns to, finite
# so that the master stays feasible before it has them (the first rounds' rosters are
# as full as the day-by-day rules allow).
LIMIT_PENALTY = 100


@dataclass(frozen=True, slots=True)
class MasterSolution:
    value: float  # the LP optimum over the columns so far
    row_prices: list[float]  # per cover row: the dual, what one more head is worth there
    employee_prices: list[float]  # per employee: the convexity row's dual
    limit_prices: list[list[float]]  # per employee and limit: the row's dual


class Master:
    """The restricted master LP over the columns added so far."""

    def __init__(
        self,
        employees: int,
        rows: Sequence[CoverRow],
        limits: Sequence[Sequence[Limit]] = (),
    ) -> None:
        """``limits[e]``: employee ``e``'s rules held as rows (:class:`Limit`), in the
        order of each of their columns' ``usage``."""
        solver = pywraplp.Solver.CreateSolver("GLOP")
        if solver is None:  # pragma: no cover - GLOP ships with every OR-Tools wheel
            raise RuntimeError("OR-Tools has no GLOP solver")
        infinity = solver.infinity()
        self._solver = solver
        # Presolve would rebuild the LP each round and throw the last basis away.
        self._parameters = pywraplp.MPSolverParameters()
        self._parameters.SetIntegerParam(
            pywraplp.MPSolverParameters.PRESOLVE, pywraplp.MPSolverParameters.PRESOLVE_OFF
        )
        self._parameters.SetIntegerParam(
            pywraplp.MPSolverParameters.INCREMENTALITY,
            pywraplp.MPSolverParameters.INCREMENTALITY_ON,
        )
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
        penalty = LIMIT_PENALTY * max(
            [1, *(max(row.under_weight, row.over_weight) for row in rows)]
        )
        self.limits: list[list[pywraplp.Constraint]] = []
        for own in [*limits, *([()] * (employees - len(limits)))]:
            held = []
            for limit in own:
                if limit.sign > 0:
                    constraint = solver.Constraint(-infinity, float(limit.bound))
                else:
                    constraint = solver.Constraint(float(limit.bound), infinity)
                beyond = solver.NumVar(0.0, infinity, "")
                constraint.SetCoefficient(beyond, -float(limit.sign))
                # A soft rule's slack at its weight; a hard one's at the penalty.
                self._objective.SetCoefficient(beyond, limit.weight or penalty / limit.unit)
                held.append(constraint)
            self.limits.append(held)
        self._limits = [tuple(own) for own in limits] + [()] * (employees - len(limits))
        self.columns: list[Column] = []
        self._variables: list[pywraplp.Variable] = []
        self._seen: set[tuple[int, tuple[object, ...]]] = set()

    def add(self, column: Column) -> bool:
        """Add a roster unless it is already a column; whether it was added."""
        key = (column.employee, column.cells)
        if key in self._seen:
            return False
        self._seen.add(key)
        solver = self._solver
        z = solver.NumVar(0.0, solver.infinity(), "")
        self._objective.SetCoefficient(z, self.cost(column))
        self.convexity[column.employee].SetCoefficient(z, 1.0)
        counts: dict[int, int] = {}
        for member in column.members():
            for r in self.rows_of.get(member, ()):
                counts[r] = counts.get(r, 0) + 1
        for r, count in counts.items():
            self.cover[r].SetCoefficient(z, float(count))
        for constraint, used in zip(self.limits[column.employee], column.usage, strict=True):
            if used:
                constraint.SetCoefficient(z, float(used))
        self.columns.append(column)
        self._variables.append(z)
        return True

    def retire(self, employee: int) -> bool:
        """Take the employee's columns that break a rule of theirs out of the LP, once
        the employee has a column that keeps every rule (else the LP would have no
        roster for them); whether it was done."""
        mine = [
            (c, z)
            for c, z in zip(self.columns, self._variables, strict=True)
            if c.employee == employee
        ]
        if not any(c.kept for c, _ in mine):
            return False
        for column, z in mine:
            if not column.kept:
                z.SetUb(0.0)
        return True

    def solve(self) -> MasterSolution:
        """Re-optimise from the last basis; every employee must have a column by now."""
        status = self._solver.Solve(self._parameters)
        if status != pywraplp.Solver.OPTIMAL:
            raise RuntimeError(f"the master LP ended with status {status}")
        return MasterSolution(
            self._objective.Value(),
            [c.dual_value() for c in self.cover],
            [c.dual_value() for c in self.convexity],
            [[c.dual_value() for c in held] for held in self.limits],
        )

    def reduced_cost(self, column: Column, solution: MasterSolution) -> float:
        """The column's cost less what the duals pay for it (negative: it improves)."""
        paid = solution.employee_prices[column.employee]
        for dual, used in zip(solution.limit_prices[column.employee], column.usage, strict=True):
            paid += dual * used
        for member in column.members():
            for r in self.rows_of.get(member, ()):
                paid += solution.row_prices[r]
        return self.cost(column) - paid

    def cost(self, column: Column) -> float:
        """The column's cost in this LP (soft limits' charges are the slacks')."""
        return lp_cost(column, self._limits[column.employee])
