"""Column generation with a Lagrangian bound at every round.

For any prices ``p`` on the cover rows (scaled to integers, ``scale x`` the request's
costs), every roster costs at least

    L(p) = sum over rows of  min over c of (scale x cost_r(c) + p_r x c)
         + sum over employees of  (a lower bound on  min scale x own_e - p . cells_e)

divided by ``scale``: split the objective into the employees' own terms and the rows'
costs, and let each part pick its own best count. It holds for every ``p``, whether or
not the LP has converged and whether or not a pricing solve finished (its proven bound is
enough), which is why the bound is reported at every round. The prices come from the
master LP's duals (:mod:`shiftsched.solving.decompose.master`), smoothed towards the prices of the
best bound so far (Wentges smoothing) so they do not swing from round to round; a round
that finds no column the LP wants is repeated at the LP's own duals. The loop ends when
the bound meets the LP optimum (no better bound exists at the root), when the caller
stops it, or at its deadline.

The first round prices every head at its under-cover weight, which makes every
employee's first roster as full as the employee's rules allow: the master starts with
columns that cover demand, and the first bound is already the capacity argument per
employee. When a roster is in the master before the first round (the search's), the
first prices are its LP's duals instead.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from shiftsched.solving.decompose.capacity import capacity_bound
from shiftsched.solving.decompose.labelling import ExactWithUsage, LabellingPricer, supports
from shiftsched.solving.decompose.master import Master, MasterSolution
from shiftsched.solving.decompose.pricing import (
    Cell,
    Column,
    EmployeePricer,
    Priced,
    Pricer,
    cell_key,
)
from shiftsched.solving.decompose.rows import CoverRow, Member, cover_rows
from shiftsched.solving.problem import Problem
from shiftsched.solving.search.stopping import requested

SCALE = 1000  # prices are integers in thousandths of a cost unit
SMOOTHING = 0.5  # weight of the best-bound prices in the next round's prices
# A missing head's price while heading in (Master.cap_shortage): on generated requests
# of 40,000-280,000 the bound converged in 20-40 % less time at 150-300 than uncapped.
SHORTAGE_CAP: float | None = 150.0
PRICING_WORK = 1.0  # deterministic seconds per employee and round
Pricing = Literal["paths_then_exact", "paths", "exact"]


@dataclass
class Generation:
    """What the loop produced: its best bound, and the columns and rounds behind it."""

    bound: int | None = None  # the best proven bound (None: no round finished)
    capacity: int = 0  # the bound from capacity alone
    lp_value: float | None = None  # the last master LP optimum
    rounds: int = 0
    columns: int = 0
    converged: bool = False  # the bound met the LP optimum
    infeasible: bool = False  # an employee has no roster that keeps their hard rules


@dataclass
class _Prices:
    """The prices of the next round (a price per cover row, then a multiplier per limit
    of each employee) and the smoothing that drew them.

    The smoothing centre: the prices, among those drawn from duals, that proved the best
    bound. The first round's prices are not duals and stay out: pulling later prices
    towards a head's full price kept every price above half of it, and on Curtois 12 the
    bound then took 14 rounds to pass the first round's.
    """

    prices: list[int]
    capped: bool  # missing heads priced at the cap (Master.cap_shortage)
    center: list[int] | None = None
    center_bound: float = -math.inf
    from_duals: bool = False
    smoothing: float = 0.0


class ColumnGeneration:
    """The decomposition of one problem: a pricer per employee (paths built at once,
    CP-SAT ones on first use) and one master."""

    def __init__(
        self,
        problem: Problem,
        *,
        pricing_work: float = PRICING_WORK,
        pricing: Pricing = "paths_then_exact",
        shortage_cap: float | None = SHORTAGE_CAP,
    ) -> None:
        """``pricing``: ``paths`` prices by paths over the days
        (:mod:`shiftsched.solving.decompose.labelling`) every employee whose rules allow it, and
        CP-SAT the others; ``exact`` prices every employee by CP-SAT;
        ``paths_then_exact`` starts with paths, which reach their bound in a fraction of
        the time, and switches to CP-SAT when they have (its bound is the stronger)."""
        self.problem = problem
        self.rows: list[CoverRow] = cover_rows(problem)
        self.pricing_work = pricing_work
        self.pricing = pricing
        self.shortage_cap = shortage_cap
        self._pricers: dict[int, Pricer] = {
            e: LabellingPricer(problem, e, SCALE)
            for e in range(len(problem.employees))
            if pricing != "exact" and supports(problem, e)
        }
        self._mixed: set[int] = set()  # exact now, with path columns still in the master
        self._switched = False
        self.limits = [
            self._pricers[e].limits if e in self._pricers else ()
            for e in range(len(problem.employees))
        ]
        self.master = Master(len(problem.employees), self.rows, self.limits)
        self.solution: MasterSolution | None = None  # the last master LP's
        # Per employee, the last row turned into a column, and the column (columns_of).
        self._rows_priced: dict[int, tuple[tuple[Cell, ...], Column | None]] = {}
        self._limit_offsets: list[int] = []
        offset = len(self.rows)
        for own in self.limits:
            self._limit_offsets.append(offset)
            offset += len(own)

    def add_roster(self, roster: Mapping[tuple[int, int, int], int | None]) -> int:
        """Add each employee's row of a roster (the greedy start, the incumbent) as a
        column, where it keeps the employee's own rules; how many were new.

        Rows of a good roster give the master a basis that covers demand from the first
        round, so its first duals are already meaningful."""
        return sum(self.master.add(c) for c in self.columns_of(roster) if c is not None)

    def columns_of(self, roster: Mapping[tuple[int, int, int], int | None]) -> list[Column | None]:
        """Each employee's row of a roster as a column, or None where the row breaks one
        of the employee's own rules. A row met before is not priced again: a search
        step changes a few rows, and a year-long row takes tens of milliseconds."""
        cells: dict[int, list[tuple[int, int, int | None]]] = {}
        for (e, d, s), k in roster.items():
            cells.setdefault(e, []).append((d, s, k))
        columns: list[Column | None] = []
        for e in range(len(self.problem.employees)):
            row = tuple(sorted(cells.get(e, []), key=cell_key))
            known = self._rows_priced.get(e)
            if known is None or known[0] != row:
                known = self._rows_priced[e] = (row, self._pricer(e).column_of(row))
            columns.append(known[1])
        return columns

    def gains(self, columns: Sequence[Column | None]) -> list[float] | None:
        """Per employee, the reduced cost of their column at the last LP's duals: what
        the row costs beyond the best mix of rosters for them at those prices (a row
        that breaks one of their rules: the dearest of the others, doubled). None
        before the first LP."""
        solution = self.solution
        if solution is None:
            return None
        known = [
            max(0.0, self.master.reduced_cost(c, solution)) if c is not None else None
            for c in columns
        ]
        dearest = 2 * max([1.0, *(g for g in known if g is not None)])
        return [dearest if g is None else g for g in known]

    def capacity_bound(self) -> int:
        return capacity_bound(self.problem, self.rows)

    def run(
        self,
        *,
        max_rounds: int | None = None,
        deadline: float | None = None,
        stop: threading.Event | None = None,
        on_bound: Callable[[int], None] | None = None,
        before_round: Callable[[], None] | None = None,
    ) -> Generation:
        """Generate columns until convergence, ``max_rounds``, ``deadline`` (a
        ``time.perf_counter`` instant) or ``stop`` (set from another thread, it also
        ends a pricing solve under way); ``on_bound`` hears each better bound as it is
        proven; ``before_round`` runs before each round (to add columns from outside,
        say the search's incumbent: :meth:`add_roster`)."""
        result = Generation(capacity=self.capacity_bound())
        state = self._first_prices()

        def out_of_time() -> bool:
            return requested(stop) or (deadline is not None and time.perf_counter() >= deadline)

        while not out_of_time() and (max_rounds is None or result.rounds < max_rounds):
            if before_round is not None:
                before_round()
            if result.rounds == 0 and self._every_employee_has_a_column():
                # A roster is in already (the search's): its LP's duals beat full prices.
                self.solution = self.master.solve()
                state.prices = self._next_prices(self.solution, None, 0.0)
                state.from_duals = True
            answers = self._price_round(state.prices, deadline, stop, out_of_time)
            if answers is None:
                return result
            if any(a.infeasible for a in answers):
                result.infeasible = True
                return result
            result.rounds += 1
            added = self._record_round(result, state, answers, on_bound)
            if len(self.master.columns) == 0 or not self._every_employee_has_a_column():
                continue
            if self._after_lp(result, state, answers, added):
                return result
        return result

    def _first_prices(self) -> _Prices:
        """The first round's: every head at its under-cover weight (at most the cap while
        heading in), every multiplier at zero."""
        cap = self.shortage_cap if self.shortage_cap is not None else math.inf
        capped = any(row.under_weight > cap for row in self.rows)
        self.master.cap_shortage(cap if capped else None)
        prices = [
            round(min(row.under_weight, cap) * SCALE) if row.low > 0 else 0 for row in self.rows
        ]
        prices += [0] * sum(len(own) for own in self.limits)
        return _Prices(prices, capped)

    def _price_round(
        self,
        prices: list[int],
        deadline: float | None,
        stop: threading.Event | None,
        out_of_time: Callable[[], bool],
    ) -> list[Priced] | None:
        """Each employee's best roster at ``prices``; None when time ran out midway."""
        member_prices = self._member_prices(prices)
        answers: list[Priced] = []
        for e in range(len(self.problem.employees)):
            if out_of_time():
                return None
            left = math.inf if deadline is None else deadline - time.perf_counter()
            start = self._limit_offsets[e]
            multipliers = prices[start : start + len(self.limits[e])]
            priced = self._pricer(e).price(
                member_prices, self.pricing_work, left, stop, multipliers=multipliers
            )
            answers.append(priced)
        return answers

    def _record_round(
        self,
        result: Generation,
        state: _Prices,
        answers: list[Priced],
        on_bound: Callable[[int], None] | None,
    ) -> int:
        """Take a priced round's bound and columns; how many columns were new."""
        bound = self._bound(state.prices, answers)
        if bound is not None and (result.bound is None or bound > result.bound):
            result.bound = bound
            if on_bound is not None:
                on_bound(bound)
        if state.from_duals and bound is not None and bound > state.center_bound:
            state.center, state.center_bound = state.prices, bound
        added = sum(self.master.add(a.column) for a in answers if a.column is not None)
        result.columns += added
        self._mixed = {e for e in self._mixed if not self.master.retire(e)}
        return added

    def _after_lp(
        self, result: Generation, state: _Prices, answers: list[Priced], added: int
    ) -> bool:
        """Solve the master LP and set the next round's prices; whether the loop ends
        (converged, or stalled with nothing left to switch to)."""
        solution = self.solution = self.master.solve()
        result.lp_value = solution.value
        converged = result.bound is not None and result.bound >= math.ceil(solution.value - 1e-6)
        improving = any(
            a.column is not None and self.master.reduced_cost(a.column, solution) < -1e-6
            for a in answers
        )
        # Pricing found nothing at the LP's own duals: stalled.
        stalled = (
            not improving and state.smoothing == 0.0 and state.center is not None and added == 0
        )
        # Converged with missing heads priced at the cap: at their weight now. Else,
        # the paths have given what they can: CP-SAT from the LP's duals on.
        lifted = (converged or stalled) and state.capped
        if lifted:
            state.capped = False
            self.master.cap_shortage(None)
            solution = self.solution = self.master.solve()
        if lifted or ((converged or stalled) and self._to_exact()):
            state.center, state.center_bound, state.smoothing = None, -math.inf, 0.0
            state.prices = self._next_prices(solution, None, 0.0)
            return False
        if converged:
            result.converged = True
            return True
        if stalled:
            return True
        state.smoothing = SMOOTHING if improving or added else 0.0
        state.prices = self._next_prices(solution, state.center, state.smoothing)
        state.from_duals = True
        return False

    @property
    def by_paths(self) -> bool:
        """Whether some employee is priced by paths (so the loop will need them compiled)."""
        return any(isinstance(p, LabellingPricer) for p in self._pricers.values())

    @property
    def exact(self) -> bool:
        """Whether CP-SAT has taken over the pricing from paths."""
        return self._switched

    def _to_exact(self) -> bool:
        """Price every path-priced employee by CP-SAT from now on; whether any was."""
        if self.pricing != "paths_then_exact":
            return False
        switched = False
        for e, pricer in list(self._pricers.items()):
            if isinstance(pricer, LabellingPricer):
                exact = EmployeePricer(self.problem, e, SCALE)
                self._pricers[e] = ExactWithUsage(exact, pricer)
                self._mixed.add(e)
                switched = True
        self._switched = self._switched or switched
        return switched

    def _pricer(self, e: int) -> Pricer:
        pricer = self._pricers.get(e)
        if pricer is None:
            pricer = self._pricers[e] = EmployeePricer(self.problem, e, SCALE)
        return pricer

    def _every_employee_has_a_column(self) -> bool:
        return len({c.employee for c in self.master.columns}) == len(self.problem.employees)

    def _member_prices(self, prices: list[int]) -> dict[Member, int]:
        """What a literal earns: the sum of the prices of the rows that count it."""
        member_prices: dict[Member, int] = {}
        for row, price in zip(self.rows, prices, strict=False):
            if price:
                for member in row.members:
                    member_prices[member] = member_prices.get(member, 0) + price
        return member_prices

    def _bound(self, prices: list[int], answers: list[Priced]) -> int | None:
        """L(prices), rounded up to the integer it proves (every objective is an
        integer); None when some employee's bound is unknown."""
        employees = [a.lower_bound for a in answers]
        if not all(math.isfinite(b) for b in employees):
            return None
        total = sum(int(b) for b in employees)
        total += sum(row.floor(p, SCALE) for row, p in zip(self.rows, prices, strict=False))
        return -(-total // SCALE)

    def _next_prices(
        self, solution: MasterSolution, center: list[int] | None, smoothing: float
    ) -> list[int]:
        duals = list(solution.row_prices)
        for own, limit_duals in zip(self.limits, solution.limit_prices, strict=True):
            # A limit's multiplier: how much the LP gains per unit the limit gives way,
            # never negative (so the pricing's bound stays a bound).
            # A soft limit's is at most its weight (the pricer caps it there too).
            duals += [
                min(max(0.0, -limit.sign * d), limit.weight or math.inf)
                for limit, d in zip(own, limit_duals, strict=True)
            ]
        if center is None or smoothing == 0.0:
            return [round(SCALE * d) for d in duals]
        return [
            round(smoothing * c + (1 - smoothing) * SCALE * d)
            for c, d in zip(center, duals, strict=True)
        ]
