"""A Lagrangian bound by subgradient: the decomposition's bound without the master LP.

On year-long requests the master LP is nearly all of each column-generation round and
its first useful duals come late (Curtois & Qu 22: no bound above zero in 300 s). The
bound itself needs no LP: for any prices ``p`` on the cover rows and any multipliers
``m >= 0`` on the employees' windowed limits (at most a soft limit's weight),

    L(p, m) = sum over rows of  min over c of (scale x cost_r(c) + p_r x c)
            + sum over employees of  (a lower bound on  min scale x own_e - p . cells_e)

is a lower bound on every roster (the argument of :mod:`shiftsched.solving.decompose.generation`:
each row's count is copied and the copy priced; the families pricing leaves out cost
nothing at best). So this loop prices every employee at ``(p, m)`` with the pricers the
column generation uses (the compiled paths where an employee's rules allow, else CP-SAT's
proven bound), keeps the best ``L`` and moves ``(p, m)`` along a deflected subgradient:
per row, the count the row's cost wants less the heads the rosters cover; per limit, how
far the roster goes past it. The step is Polyak's towards a target a share above the best
bound, halved (from the best prices) when the bound has not improved for a while. Every
iteration's value is a proof, whether or not the loop converges; at best it meets the
master LP's optimum (the same relaxation).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from shiftsched.solving.decompose.generation import PRICING_WORK, SCALE
from shiftsched.solving.decompose.labelling import LabellingPricer, supports
from shiftsched.solving.decompose.pricing import (
    Cell,
    Column,
    EmployeePricer,
    Limit,
    Priced,
    Pricer,
)
from shiftsched.solving.decompose.rows import CoverRow, Member, cover_rows
from shiftsched.solving.problem import Problem
from shiftsched.solving.search.stopping import requested

# Chosen on Curtois & Qu 22 (60 s runs, benchmarks/docs/lagrangian.md): with the plain
# subgradient the bound was still far below zero after a minute; deflected, with these,
# it passed 80 % of the best known.
STEP = 2.0  # Polyak's step factor at the start (Held and Karp's 2)
PATIENCE = 20  # iterations without a better bound before the step halves, from the best
SMALLEST_STEP = 1e-3  # the step factor never falls below this
# The step's target: the best bound plus this share of the larger of its size and the
# first bound's. The optimum is unknown; an incumbent's objective as the target made the
# steps too long from far below, and the bound stalled.
TARGET_SHARE = 0.5
DEFLECTION = 0.3  # the new subgradient's weight in the direction, the rest the last one's


@dataclass
class Lagrange:
    """What the loop proved: its best bound and how it got there."""

    bound: int | None = None  # the best proven bound (None: no iteration finished)
    bounds: list[int | None] = field(default_factory=list)  # each iteration's
    iterations: int = 0
    infeasible: bool = False  # an employee has no roster that keeps their hard rules


class _Prices(Mapping[Member, int]):
    """What each literal earns (the sum of its rows' prices), read by the pricers; an
    array behind an index, so a year-long request needs no dictionary per iteration."""

    def __init__(self, index: Mapping[Member, int], values: list[int]) -> None:
        self._index = index
        self._values = values

    def __getitem__(self, member: Member) -> int:
        return self._values[self._index[member]]

    def get(self, member: Member, default: object = None) -> int | None:  # type: ignore[override]
        i = self._index.get(member)
        return default if i is None else self._values[i]  # type: ignore[return-value]

    def __iter__(self) -> Iterator[Member]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


class Lagrangian:
    """The subgradient loop of one problem: a pricer per employee, and the prices."""

    def __init__(
        self,
        problem: Problem,
        *,
        pricing_work: float = PRICING_WORK,
        rows: Sequence[CoverRow] | None = None,
    ) -> None:
        self.problem = problem
        self.rows = list(cover_rows(problem) if rows is None else rows)
        self.pricing_work = pricing_work
        self.pricers: list[Pricer] = [
            LabellingPricer(problem, e, SCALE) if supports(problem, e) else _Lazy(problem, e)
            for e in range(len(problem.employees))
        ]
        self._incidence()
        self._row_arrays()
        # Each limit's sign, bound, unit and largest multiplier, per employee.
        self.limits: list[tuple[Limit, ...]] = [p.limits for p in self.pricers]
        self._caps = [
            [math.floor(SCALE * lim.weight) if lim.weight else math.inf for lim in own]
            for own in self.limits
        ]
        # The start: every head at its under-cover weight, every multiplier at zero, as
        # the column generation's first round (rosters as full as the rules allow).
        self.prices = np.where(self._low > 0, self._upper, 0).astype(np.int64)
        self._direction: npt.NDArray[np.float64] | None = None
        self._limit_direction: list[list[float]] = [[0.0] * len(own) for own in self.limits]
        self.multipliers: list[list[int]] = [[0] * len(own) for own in self.limits]
        self._best_prices = self.prices.copy()
        self._best_multipliers = [list(m) for m in self.multipliers]
        self.step = STEP
        self._since_best = 0
        self._first: float | None = None
        self.result = Lagrange()

    def _incidence(self) -> None:
        """Each literal's rows, as one flat array: the rows of literal ``i`` are
        ``_row_of[_start[i] : _start[i + 1]]``."""
        by_member: dict[Member, list[int]] = {}
        for r, row in enumerate(self.rows):
            for member in row.members:
                by_member.setdefault(member, []).append(r)
        self.members: list[Member] = list(by_member)
        self._index: dict[Member, int] = {m: i for i, m in enumerate(self.members)}
        lengths = np.fromiter((len(v) for v in by_member.values()), np.int64, len(by_member))
        self._start = np.concatenate(([0], np.cumsum(lengths)))
        self._row_of = np.fromiter(
            (r for v in by_member.values() for r in v), np.int64, int(self._start[-1])
        )

    def _row_arrays(self) -> None:
        """Each row's breakpoints and weights, and the box its price keeps to: between
        the slopes of its cost (past them a price only loses, and the LP's duals stay
        inside)."""
        rows = self.rows
        self._top = np.array([len(r.members) for r in rows], np.int64)
        self._low = np.array([r.low for r in rows], np.int64)
        high = [len(r.members) if r.high is None else r.high for r in rows]
        self._high = np.array(high, np.int64)
        self._under = np.array([r.under_weight for r in rows], np.int64)
        self._over = np.array([r.over_weight for r in rows], np.int64)
        self._upper = np.where(self._low > 0, SCALE * self._under, 0)
        capped = np.array([r.high is not None for r in rows], np.bool_)
        self._lower = np.where(capped, -SCALE * self._over, 0)

    # ------------------------------------------------------------------ the bound

    def _row_floors(
        self, prices: npt.NDArray[np.int64]
    ) -> tuple[int, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The rows' share of ``L`` (exact, scaled) and, per row, the least and most
        counts that reach it (the cost is convex: its minimisers are an interval)."""
        top = self._top
        points = np.stack(
            [np.zeros_like(top), np.minimum(top, self._low), np.minimum(top, self._high), top]
        )
        cost = self._under * np.maximum(0, self._low - points)
        cost += self._over * np.maximum(0, points - self._high)
        value = SCALE * cost + prices * points
        least = value.min(axis=0)
        at = value == least
        lo = np.where(at, points, np.iinfo(np.int64).max).min(axis=0)
        hi = np.where(at, points, -1).max(axis=0)
        return int(least.sum()), lo, hi

    def _member_prices(self, prices: npt.NDArray[np.int64]) -> _Prices:
        if not self.members:
            return _Prices(self._index, [])
        summed = np.add.reduceat(prices[self._row_of], self._start[:-1])
        return _Prices(self._index, summed.tolist())

    def _price(self, deadline: float | None, stop: threading.Event | None) -> list[Priced] | None:
        """Every employee's answer at the current prices; None when time ran out."""
        member_prices = self._member_prices(self.prices)
        answers: list[Priced] = []
        for pricer, multipliers in zip(self.pricers, self.multipliers, strict=True):
            if requested(stop) or (deadline is not None and time.perf_counter() >= deadline):
                return None
            left = math.inf if deadline is None else deadline - time.perf_counter()
            answers.append(
                pricer.price(member_prices, self.pricing_work, left, stop, multipliers=multipliers)
            )
        return answers

    # ------------------------------------------------------------------ the loop

    def iterate(
        self,
        *,
        deadline: float | None = None,
        stop: threading.Event | None = None,
    ) -> int | None:
        """One iteration: price, prove ``L``, step. Its bound (None: unknown, or time
        ran out midway)."""
        answers = self._price(deadline, stop)
        if answers is None:
            return None
        result = self.result
        result.iterations += 1
        if any(a.infeasible for a in answers):
            result.infeasible = True
            return None
        rows_part, lo, hi = self._row_floors(self.prices)
        employees = [a.lower_bound for a in answers]
        bound: int | None = None
        total = float(rows_part)
        if all(math.isfinite(b) for b in employees):
            scaled = rows_part + sum(int(b) for b in employees)
            total = float(scaled)
            bound = -(-scaled // SCALE)
        result.bounds.append(bound)
        if bound is not None and (result.bound is None or bound > result.bound):
            result.bound = bound
            self._best_prices = self.prices.copy()
            self._best_multipliers = [list(m) for m in self.multipliers]
            self._since_best = 0
        else:
            self._since_best += 1
            if self._since_best >= PATIENCE:  # lost: a smaller step from the best prices
                self.step = max(SMALLEST_STEP, self.step / 2)
                self._since_best = 0
                self.prices = self._best_prices.copy()
                self.multipliers = [list(m) for m in self._best_multipliers]
                return bound
        self._move(answers, total, lo, hi)
        return bound

    def _move(
        self,
        answers: Sequence[Priced],
        total: float,
        lo: npt.NDArray[np.int64],
        hi: npt.NDArray[np.int64],
    ) -> None:
        """Polyak's step along the subgradient, kept inside the prices' box."""
        heads = np.zeros(len(self.rows), np.int64)
        picked: list[int] = []
        index = self._index
        for a in answers:
            if a.column is not None:
                picked.extend(index[m] for m in a.column.members() if m in index)
        if picked:
            at = np.asarray(picked, np.int64)
            counts = self._start[at + 1] - self._start[at]
            rows = self._row_of[np.repeat(self._start[at], counts) + _ranges(counts)]
            heads = np.bincount(rows, minlength=len(self.rows)).astype(np.int64)
        # The count each row's cost wants, as near the heads as its minimisers allow: the
        # shortest subgradient of the rows' part.
        row_grad = (np.clip(heads, lo, hi) - heads).astype(np.float64)
        deflect = self._direction is not None
        if self._direction is not None:
            row_grad = DEFLECTION * row_grad + (1 - DEFLECTION) * self._direction
        self._direction = row_grad
        limit_grads: list[list[float]] = []
        norm = float(row_grad @ row_grad)
        for e, (a, own) in enumerate(zip(answers, self.limits, strict=True)):
            usage = a.column.usage if a.column is not None and a.column.usage else ()
            grads = [
                lim.sign * (u - lim.bound) / lim.unit for lim, u in zip(own, usage, strict=True)
            ]
            grads += [0.0] * (len(own) - len(grads))
            if deflect:
                last = self._limit_direction[e]
                grads = [
                    DEFLECTION * g + (1 - DEFLECTION) * h for g, h in zip(grads, last, strict=True)
                ]
            self._limit_direction[e] = grads
            limit_grads.append(grads)
            norm += sum(g * g for g in grads)
        if norm == 0.0:
            return  # the rosters meet every row and limit: nothing to move
        best = self.result.bound if self.result.bound is not None else total / SCALE
        if self._first is None:
            self._first = abs(best)
        share = TARGET_SHARE * max(1.0, abs(best), self._first)
        gap = max(SCALE * (best + share) - total, SCALE * share / 10)
        t = self.step * gap / norm
        moved = self.prices + np.rint(t * row_grad).astype(np.int64)
        self.prices = np.clip(moved, self._lower, self._upper)
        for e, (own, grads) in enumerate(zip(self.limits, limit_grads, strict=True)):
            self.multipliers[e] = [
                int(min(cap, max(0, round(m + t * g / lim.unit))))
                for lim, m, g, cap in zip(
                    own, self.multipliers[e], grads, self._caps[e], strict=True
                )
            ]

    def run(
        self,
        *,
        iterations: int | None = None,
        deadline: float | None = None,
        stop: threading.Event | None = None,
        on_bound: Callable[[int], None] | None = None,
    ) -> Lagrange:
        """Iterate until ``iterations``, ``deadline`` (a ``time.perf_counter`` instant)
        or ``stop``; ``on_bound`` hears each better bound as it is proven."""
        result = self.result
        while iterations is None or result.iterations < iterations:
            if requested(stop) or (deadline is not None and time.perf_counter() >= deadline):
                break
            before = result.bound
            self.iterate(deadline=deadline, stop=stop)
            if result.infeasible:
                break
            if on_bound is not None and result.bound is not None and result.bound != before:
                on_bound(result.bound)
        return result


def _ranges(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``0 .. n - 1`` for each ``n`` of ``counts``, end to end."""
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - counts, counts)


class _Lazy:
    """A CP-SAT pricer built on first use (building one takes a while on long horizons)."""

    limits: tuple[Limit, ...] = ()

    def __init__(self, problem: Problem, e: int) -> None:
        self.problem = problem
        self.employee = e
        self._pricer: EmployeePricer | None = None

    def _get(self) -> EmployeePricer:
        if self._pricer is None:
            self._pricer = EmployeePricer(self.problem, self.employee, SCALE)
        return self._pricer

    def column_of(self, cells: Sequence[Cell]) -> Column | None:
        return self._get().column_of(cells)

    def price(
        self,
        prices: Mapping[Member, int],
        work: float,
        seconds: float,
        stop: threading.Event | None = None,
        multipliers: Sequence[int] = (),
    ) -> Priced:
        return self._get().price(prices, work, seconds, stop)
