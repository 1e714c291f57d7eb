"""Pricing: one employee's cheapest roster against the prices of the cover rows.

Each employee's model is the engine's own encoding of that employee alone
(:func:`shiftsched.solving.model.build.build` on a one-employee problem) with every family that ties
employees together left out (:data:`COUPLING`): the demand rows, which the prices stand
for, and pairings, skill support and fairness, which a relaxation may drop (leaving a
rule out only lowers the minimum, so every bound stays a bound). The model is built once;
each round only replaces its objective, ``scale x own cost - sum of prices of the cells
worked``.

The solve is CP-SAT with one worker, stopped on deterministic work, so a round prices the
same on any machine. Its proven bound is a valid lower bound on the employee's minimum
even when the search is cut short: that is all the Lagrangian bound needs.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ortools.sat.python import cp_model

from shiftsched.solving.decompose.rows import Member
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.model.tight import evaluate, tight_values
from shiftsched.solving.problem import Problem, one_employee
from shiftsched.solving.search.stopping import stopping

# Families that couple employees: priced through the cover rows, or relaxed away.
COUPLING = (
    "staffing_demand",
    "manager_demand",
    "duty_demand",
    "cross_shift_demands",
    "cover",
    "employee_pairings",
    "skill_support",
    "fairness_groups",
)

Cell = tuple[int, int, int | None]  # (day, shift, duty or None)


@dataclass(frozen=True, slots=True)
class Column:
    """One employee's roster: the cells worked and what the employee's own rules charge.

    A path pricer (:mod:`shiftsched.solving.decompose.labelling`) also returns rosters that break a
    rule over the whole period (``kept`` False): the master LP holds those rules as rows
    over ``usage``, so such a roster may be part of a mix but is never a roster itself.
    """

    employee: int
    cells: tuple[Cell, ...]
    cost: int  # the employee's own penalty terms, priced exactly (every slack tight)
    usage: tuple[int, ...] = ()  # per limit of the employee's pricer (Pricer.limits)
    kept: bool = True  # keeps every rule of the employee

    def members(self) -> list[Member]:
        """The cover-row literals this roster sets: each shift worked, and its duty."""
        found: list[Member] = []
        for d, s, k in self.cells:
            found.append((self.employee, d, s, None))
            if k is not None:
                found.append((self.employee, d, s, k))
        return found


@dataclass(frozen=True, slots=True)
class Limit:
    """A rule of one employee over a stretch of days that the master holds as a row:
    ``usage . mix <= bound`` (``sign`` +1) or ``>= bound`` (``sign`` -1), where each
    column carries its ``usage``. Its multiplier, from the row's dual, prices it in.

    A soft rule has a ``weight``: what a unit of usage beyond the bound costs. The
    master then prices the row's slack at it, and a column's cost in the LP leaves that
    part out (:meth:`lp_cost`)."""

    bound: int
    sign: int
    unit: int = 1  # the most one day adds to the usage (a shift's minutes, say)
    weight: float = 0.0  # soft: the cost of a unit beyond the bound; 0: hard

    def beyond(self, used: int) -> int:
        """How far a usage goes past the bound (0 when it keeps it)."""
        return max(0, self.sign * (used - self.bound))


def lp_cost(column: Column, limits: Sequence[Limit]) -> float:
    """A column's cost in the master LP: its exact cost less what its soft limits' slacks
    charge there. At a whole roster the two agree; the exact cost is never less (a soft
    rule rounded up by the hour, say)."""
    cost = float(column.cost)
    for limit, used in zip(limits, column.usage, strict=True):
        if limit.weight:
            cost -= limit.weight * limit.beyond(used)
    return cost


@dataclass(frozen=True, slots=True)
class Priced:
    """A pricing answer, in scaled units (``scale x`` the request's costs)."""

    column: Column | None  # the best roster found (None: none within the work)
    lower_bound: float  # proven: no roster of this employee prices lower (-inf: none)
    infeasible: bool = False  # no roster keeps this employee's hard rules


class Pricer(Protocol):
    """What the loop asks of a pricer: one employee's cheapest roster at given prices."""

    employee: int
    limits: tuple[Limit, ...]

    def column_of(self, cells: Sequence[Cell]) -> Column | None: ...

    def price(
        self,
        prices: Mapping[Member, int],
        work: float,
        seconds: float,
        stop: threading.Event | None = None,
        multipliers: Sequence[int] = (),
    ) -> Priced: ...


class EmployeePricer:
    """One employee's model, re-priced each round. It holds every rule itself, so it
    has no limits for the master to hold."""

    limits: tuple[Limit, ...] = ()

    def __init__(self, problem: Problem, e: int, scale: int) -> None:
        self.employee = e
        self.scale = scale
        compiled = build(one_employee(problem, e), skip=COUPLING)
        for group in compiled.hard_groups:
            compiled.model.add_bool_and([group.literal])
        self.compiled: CompiledModel = compiled
        self._own = cp_model.LinearExpr.weighted_sum(
            [t.magnitude for t in compiled.terms], [t.weight * scale for t in compiled.terms]
        )
        # The literals the cover rows count, keyed as the full problem's members.
        self.literals: dict[Member, cp_model.IntVar] = {
            (e, d, s, None): x for (_, d, s), x in compiled.x.items()
        }
        for (_, d, s, k), y in compiled.y.items():
            self.literals[e, d, s, k] = y

    def column_of(self, cells: Sequence[Cell]) -> Column | None:
        """A given row of this employee (a roster's, say) as a column, priced exactly;
        None when it breaks one of the employee's own hard rules."""
        worked = {(d, s): k for d, s, k in cells}
        e = self.employee
        if len(worked) < len(cells) or any((e, d, s, k) not in self.literals for d, s, k in cells):
            return None  # a cell twice, or one the employee has no option for
        model = self.compiled.model.clone()
        model.clear_objective()  # type: ignore[no-untyped-call]
        for (_, d, s), x in self.compiled.x.items():
            model.add(x == int((d, s) in worked))
        for (_, d, s, k), y in self.compiled.y.items():
            model.add(y == int(worked.get((d, s), -1) == k))
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        if solver.solve(model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        ordered = tuple(sorted(cells, key=cell_key))
        return Column(self.employee, ordered, self.own_cost(list(solver.response_proto.solution)))

    def own_cost(self, values: Sequence[int]) -> int:
        """The employee's own terms for a solution of this model, every slack tight."""
        tight = tight_values(self.compiled, values)
        return sum(t.weight * evaluate(t.magnitude, tight) for t in self.compiled.terms)

    def price(
        self,
        prices: Mapping[Member, int],
        work: float,
        seconds: float,
        stop: threading.Event | None = None,
        multipliers: Sequence[int] = (),
    ) -> Priced:
        """The cheapest roster against ``prices`` (scaled, per literal), within ``work``
        deterministic seconds (``seconds`` of wall clock only as a backstop, and ``stop``
        ends it early: its proven bound still holds). There are no limits, so no
        ``multipliers``."""
        model = self.compiled.model
        priced = [(v, prices[m]) for m, v in self.literals.items() if prices.get(m)]
        model.minimize(
            self._own
            - cp_model.LinearExpr.weighted_sum([v for v, _ in priced], [p for _, p in priced])
        )
        solver = deterministic_solver(work, seconds)
        with stopping(stop, solver.stop_search):
            status = solver.solve(model)
        if status == cp_model.INFEASIBLE:
            return Priced(None, math.inf, infeasible=True)
        floor = self.day_floor(prices)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return Priced(None, max(floor, _as_integer_bound(solver.best_objective_bound)))
        values = list(solver.response_proto.solution)
        cells: list[Cell] = []
        duty_of = {(d, s): k for (_, d, s, k), y in self.compiled.y.items() if values[y.index]}
        for (_, d, s), x in self.compiled.x.items():
            if values[x.index]:
                cells.append((d, s, duty_of.get((d, s))))
        column = Column(self.employee, tuple(sorted(cells, key=cell_key)), self.own_cost(values))
        bound = (
            solver.objective_value if status == cp_model.OPTIMAL else solver.best_objective_bound
        )
        return Priced(column, max(floor, _as_integer_bound(bound)))

    def day_floor(self, prices: Mapping[Member, int]) -> float:
        """A bound that needs no search: the own terms cost nothing at best (every
        penalty is a weight times a non-negative magnitude), and each day gains at most
        its best-priced shift with that shift's best-priced duty."""
        gain: dict[tuple[int, int], int] = {}
        duty_gain: dict[tuple[int, int], int] = {}
        for member in self.literals:
            _, d, s, k = member
            price = prices.get(member, 0)
            if k is None:
                gain[d, s] = gain.get((d, s), 0) + price
            else:
                duty_gain[d, s] = max(duty_gain.get((d, s), 0), price)
        best_day: dict[int, int] = {}
        for (d, s), value in gain.items():
            best_day[d] = max(best_day.get(d, 0), value + duty_gain.get((d, s), 0))
        return float(-sum(best_day.values()))


def deterministic_solver(work: float, seconds: float) -> cp_model.CpSolver:
    """One worker, a fixed seed, stopped on ``work`` deterministic seconds: the same
    answer on any machine, with ``seconds`` of wall clock only as a backstop."""
    solver = cp_model.CpSolver()
    p = solver.parameters
    p.num_workers = 1
    p.random_seed = 0
    p.symmetry_level = 0
    p.max_deterministic_time = work
    p.max_time_in_seconds = max(0.05, seconds)
    return solver


def cell_key(cell: Cell) -> tuple[int, int, int]:
    d, s, k = cell
    return d, s, -1 if k is None else k


def _as_integer_bound(value: float) -> float:
    """A bound on an integer objective, rounded up to the next integer it proves.

    CP-SAT reports an integer objective's bound as a float; a value within 1e-6 of an
    integer is that integer (rounding 41.9999999 up to 42 is right, and 42.0000001 up
    to 43 would not be).
    """
    if not math.isfinite(value):
        return -math.inf if value < 0 else math.inf
    nearest = round(value)
    return float(nearest) if abs(value - nearest) < 1e-6 else float(math.ceil(value))
