"""The master LP: a convex combination of rosters per employee, against the cover rows.

Columns are rosters (:class:`shiftsched.solving.decompose.pricing.Column`), one convexity row per
employee says each employee works one roster (a mix, in the LP), and each cover row
counts the heads of the rosters chosen, with a slack on each side priced as the row's
cost (:class:`shiftsched.solving.decompose.rows.CoverRow`), so the master is always feasible. Its
duals on the cover rows are the prices the next round of pricing sees.

Solved with GLOP, OR-Tools' simplex, through MathOpt, re-optimised each round from the
last optimal basis with the new columns at zero. GLOP does not keep its basis when a
model gains columns (through ``pywraplp`` or MathOpt alike, it restarted from scratch:
about 3,500 iterations and 0.45 s a round on a 40,000-size request, against about 600
and 0.12 s from the basis), so the basis is handed over explicitly, with presolve off
(presolve rewrites the LP, and GLOP then ignored the basis). (The HiGHS shipped
inside OR-Tools returned wrong duals through ``pywraplp``, and the separate ``highspy``
wheel clashes with the HiGHS symbols inside OR-Tools' library when both are loaded.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ortools.math_opt.python import mathopt

from shiftsched.solving.decompose.pricing import Column, Limit, lp_cost
from shiftsched.solving.decompose.rows import CoverRow, Member

# What a day's worth of usage beyond a limit costs in the master, times the dearest row
# weight: high enough that the LP keeps every limit once it has the columns to, finite
# so that the master stays feasible before it has them (the first rounds' rosters are
# as full as the day-by-day rules allow).
LIMIT_PENALTY = 100

# Presolve would rewrite the LP each round, and GLOP then ignores the basis handed in
# (on Curtois & Qu 13, as many iterations as from scratch).
_GLOP = mathopt.SolveParameters(presolve=mathopt.Emphasis.OFF)


@dataclass(frozen=True, slots=True)
class MasterSolution:
    value: float  # the LP optimum over the columns so far
    row_prices: list[float]  # per cover row: the dual, what one more head is worth there
    employee_prices: list[float]  # per employee: the convexity row's dual
    limit_prices: list[list[float]]  # per employee and limit: the row's dual
    iterations: int = 0  # simplex iterations this solve took


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
        model = mathopt.Model(name="master")
        self._model = model
        objective = model.objective
        objective.is_maximize = False
        self.convexity = [model.add_linear_constraint(lb=1.0, ub=1.0) for _ in range(employees)]
        self.cover: list[mathopt.LinearConstraint] = []
        self._under: list[tuple[mathopt.Variable, float]] = []  # and each one's weight
        self.rows_of: dict[Member, list[int]] = {}
        for r, row in enumerate(rows):
            high = math.inf if row.high is None else float(row.high)
            constraint = model.add_linear_constraint(lb=float(row.low), ub=high)
            self.cover.append(constraint)
            for member in row.members:
                self.rows_of.setdefault(member, []).append(r)
            if row.low > 0:  # missing heads, at the row's price
                under = model.add_variable(lb=0.0, ub=float(row.low))
                constraint.set_coefficient(under, 1.0)
                objective.set_linear_coefficient(under, float(row.under_weight))
                self._under.append((under, float(row.under_weight)))
            if row.high is not None:  # heads over the cap
                over = model.add_variable(lb=0.0)
                constraint.set_coefficient(over, -1.0)
                objective.set_linear_coefficient(over, float(row.over_weight))
        self._dearest = float(max([1, *(max(row.under_weight, row.over_weight) for row in rows)]))
        penalty = LIMIT_PENALTY * self._dearest
        self._hard: list[tuple[mathopt.Variable, int]] = []  # hard limits' slacks, per unit
        self.limits: list[list[mathopt.LinearConstraint]] = []
        for own in [*limits, *([()] * (employees - len(limits)))]:
            held = []
            for limit in own:
                if limit.sign > 0:
                    constraint = model.add_linear_constraint(ub=float(limit.bound))
                else:
                    constraint = model.add_linear_constraint(lb=float(limit.bound))
                beyond = model.add_variable(lb=0.0)
                constraint.set_coefficient(beyond, -float(limit.sign))
                # A soft rule's slack at its weight; a hard one's at the penalty.
                objective.set_linear_coefficient(beyond, limit.weight or penalty / limit.unit)
                if not limit.weight:
                    self._hard.append((beyond, limit.unit))
                held.append(constraint)
            self.limits.append(held)
        self._limits = [tuple(own) for own in limits] + [()] * (employees - len(limits))
        self.columns: list[Column] = []
        self._variables: list[mathopt.Variable] = []
        self._seen: set[tuple[int, tuple[object, ...]]] = set()
        self._solver = mathopt.IncrementalSolver(model, mathopt.SolverType.GLOP)
        self._basis: mathopt.Basis | None = None  # the last optimal basis

    def add(self, column: Column) -> bool:
        """Add a roster unless it is already a column; whether it was added."""
        key = (column.employee, column.cells)
        if key in self._seen:
            return False
        self._seen.add(key)
        z = self._model.add_variable(lb=0.0)
        self._model.objective.set_linear_coefficient(z, self.cost(column))
        self.convexity[column.employee].set_coefficient(z, 1.0)
        counts: dict[int, int] = {}
        for member in column.members():
            for r in self.rows_of.get(member, ()):
                counts[r] = counts.get(r, 0) + 1
        for r, count in counts.items():
            self.cover[r].set_coefficient(z, float(count))
        for constraint, used in zip(self.limits[column.employee], column.usage, strict=True):
            if used:
                constraint.set_coefficient(z, float(used))
        self.columns.append(column)
        self._variables.append(z)
        if self._basis is not None:  # a new column starts out of the basis, at zero
            self._basis.variable_status[z] = mathopt.BasisStatus.AT_LOWER_BOUND
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
                z.upper_bound = 0.0
        return True

    def cap_shortage(self, cap: float | None) -> None:
        """Price a missing head at most ``cap`` (None: at its real weight again).

        A box on the duals: while the columns cannot yet cover the demand, a missing
        head's dual is its full weight, every employee then prices as if each head were
        worth that much, and the bound sits far below zero for dozens of rounds. Any
        prices give a valid bound, so the loop may head in on the capped LP and lift the
        cap once it has converged there. A hard limit's slack, priced off the dearest
        head, is capped with it."""
        objective = self._model.objective
        for under, weight in self._under:
            objective.set_linear_coefficient(under, weight if cap is None else min(weight, cap))
        dearest = self._dearest if cap is None else min(self._dearest, cap)
        for beyond, unit in self._hard:
            objective.set_linear_coefficient(beyond, LIMIT_PENALTY * dearest / unit)

    def solve(self) -> MasterSolution:
        """Re-optimise from the last basis; every employee must have a column by now."""
        result = None
        if self._basis is not None:
            try:
                result = self._solve(self._basis)
            except (RuntimeError, ValueError):  # a basis GLOP will not take
                result = None
        if result is None or result.termination.reason != mathopt.TerminationReason.OPTIMAL:
            result = self._solve(None)  # from scratch
        if result.termination.reason != mathopt.TerminationReason.OPTIMAL:
            raise RuntimeError(f"the master LP ended with {result.termination.reason.name}")
        self._basis = result.solutions[0].basis if result.has_basis() else None
        return MasterSolution(
            result.objective_value(),
            list(result.dual_values(self.cover)),
            list(result.dual_values(self.convexity)),
            [list(result.dual_values(held)) for held in self.limits],
            result.solve_stats.simplex_iterations,
        )

    def _solve(self, basis: mathopt.Basis | None) -> mathopt.SolveResult:
        nothing: mathopt.SparseVectorFilter[mathopt.Variable] = mathopt.SparseVectorFilter(
            filtered_items=set()
        )  # only duals and the basis are read: parsing every value took a third
        parameters = mathopt.ModelSolveParameters(
            initial_basis=basis, variable_values_filter=nothing, reduced_costs_filter=nothing
        )
        return self._solver.solve(params=_GLOP, model_params=parameters)

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
