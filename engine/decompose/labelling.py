"""Pricing by a path over the days: for long horizons, where CP-SAT per employee is slow.

On a year-long benchmark row CP-SAT prices one employee in about 0.75 s, so one round of
the decomposition takes most of a minute. The rules of the imported benchmarks are
mostly about neighbouring days, which a shortest path over the days holds exactly
(:func:`engine.decompose.paths.cheapest_path`). The rest count over the whole period:
total minutes, shifts of each type, worked weekends. Those become rows of the master LP
(:class:`engine.decompose.pricing.Limit`), and their duals multipliers ``m >= 0`` here:
a roster that keeps a rule ``g(x) <= 0`` only gets cheaper by ``m g(x)``, so the
cheapest path under any multipliers is still a lower bound on the cheapest roster that
keeps every rule, and the Lagrangian bound of each round stays a bound.

The price of the speed is strength: at convergence the bound is the LP over mixes of
paths that keep the period's rules on average, not path by path. The loop therefore
switches an employee to CP-SAT (:mod:`engine.decompose.pricing`) once the paths have
converged, when there is time left (:mod:`engine.decompose.generation`).

A path that breaks a period rule is still a column (``kept`` False): the master may mix
it, the restricted integer master never picks it. An employee is priced this way only
when every one of their rules is one the path or a limit holds (:func:`supports`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.decompose.paths import cheapest_path
from engine.decompose.pricing import Cell, Column, EmployeePricer, Limit, Priced
from engine.decompose.rows import Member
from engine.horizon import SATURDAY
from engine.problem import Problem


def supports(problem: Problem, e: int) -> bool:
    """Whether every rule of employee ``e`` is one the path or a multiplier holds.

    The path holds hard forbidden transitions, runs of work and of rest; multipliers
    hold total minutes, shift counts and worked weekends; preferences are costs per day.
    Duties, fixed assignments, weekly and monthly rules, soft or required transitions and
    the period-wide consecutive-days cap are not modelled here.
    """
    employee = problem.employees[e]
    return (
        problem.max_consecutive_days is None
        and all(t.hard and t.forbid for t in problem.transitions)
        and not problem.duties
        and not employee.fixed
        and employee.days_per_month is None
        and employee.days_per_week is None
        and employee.weekly_hours is None
        and not employee.day_gates
        and not employee.duty_gates
    )


@dataclass(frozen=True, slots=True)
class _Count:
    """What a limit counts on a path: ``per_shift[s]`` for each day of shift ``s``, or
    worked weekends."""

    per_shift: npt.NDArray[np.int64]
    weekends: bool = False


class LabellingPricer:
    """One employee's cheapest roster by a path over the days, the period's rules held
    by the master (:attr:`limits`) and priced in by their multipliers."""

    def __init__(self, problem: Problem, e: int, scale: int) -> None:
        if not supports(problem, e):
            raise ValueError(f"employee {e} has rules the path pricer does not hold")
        employee = problem.employees[e]
        self.employee = e
        self.scale = scale
        days, shifts = problem.num_days, len(problem.shifts)
        self.allowed = np.zeros((days, shifts), np.bool_)
        for d, options in enumerate(employee.day_options):
            for s in options:
                self.allowed[d, s] = True
        self.forbid = np.zeros((shifts, shifts), np.bool_)
        for t in problem.transitions:
            self.forbid[t.from_shift, t.to_shift] = True
        low, high = employee.consecutive_shifts or (0, None)
        self.low, self.high = low, high or 0
        self.rest = employee.min_days_off_run
        # Preferences: a cost per worked (day, shift) and a constant.
        self.own = np.zeros((days, shifts), np.int64)
        self.own_base = 0
        for pref in employee.preferences:
            if pref.kind == "day_off":
                self.own[pref.day, :] += pref.weight
            elif pref.kind == "avoided_shift":
                assert pref.shift is not None
                self.own[pref.day, pref.shift] += pref.weight
            else:
                assert pref.shift is not None
                self.own_base += pref.weight
                self.own[pref.day, pref.shift] -= pref.weight
        self.weekend_start = np.zeros(days, np.bool_)
        self.weekend_second = np.zeros(days, np.bool_)
        for week in problem.horizon.weeks:
            weekend = [d for d in week.days if problem.horizon.weekdays[d] >= SATURDAY]
            if weekend:
                self.weekend_start[weekend[0]] = True
            if len(weekend) == 2:
                self.weekend_second[weekend[1]] = True
        self.members: dict[Member, tuple[int, int]] = {
            (e, d, s, None): (d, s)
            for d in range(days)
            for s in range(shifts)
            if self.allowed[d, s]
        }
        counts, limits = self._limits(problem, e)
        self._counts: tuple[_Count, ...] = counts
        self.limits: tuple[Limit, ...] = limits

    def _limits(self, problem: Problem, e: int) -> tuple[tuple[_Count, ...], tuple[Limit, ...]]:
        """The rules over the whole period that can bind, each as what it counts and
        its bound."""
        employee = problem.employees[e]
        shifts = len(problem.shifts)
        workable = self.allowed.sum(axis=0)
        found: list[tuple[_Count, Limit]] = []
        if employee.total_minutes is not None:
            low, high = employee.total_minutes
            minutes = _Count(np.array([s.minutes or 0 for s in problem.shifts], np.int64))
            unit = max(1, int(minutes.per_shift.max()))
            if low > 0:
                found.append((minutes, Limit(low, -1, unit)))
            if high < int((workable * minutes.per_shift).sum()):
                found.append((minutes, Limit(high, +1, unit)))
        for limit in employee.count_limits:
            one = np.zeros(shifts, np.int64)
            one[limit.shift] = 1
            if limit.min:
                found.append((_Count(one), Limit(limit.min, -1)))
            if limit.max is not None and limit.max < workable[limit.shift]:
                found.append((_Count(one), Limit(limit.max, +1)))
        most = employee.max_weekends
        if most is not None and most < int(self.weekend_start.sum()):
            weekends = _Count(np.zeros(shifts, np.int64), weekends=True)
            found.append((weekends, Limit(most, +1)))
        return tuple(c for c, _ in found), tuple(limit for _, limit in found)

    # ------------------------------------------------------------------ columns

    def column_of(self, cells: Sequence[Cell]) -> Column | None:
        """A given row (a roster's, say) as a column, priced exactly; None when it
        breaks one of the employee's rules."""
        choices = np.full(self.allowed.shape[0], -1, np.int64)
        for d, s, k in cells:
            if k is not None or choices[d] != -1 or not self.allowed[d, s]:
                return None
            choices[d] = s
        column = self._column(choices)
        return column if column.kept and self._path_ok(choices) else None

    def _column(self, choices: npt.NDArray[np.int64]) -> Column:
        """A path as a column: its cells, own cost and usage of each limit."""
        cells = tuple((d, int(s), None) for d, s in enumerate(choices) if s >= 0)
        usage = tuple(self._usage(count, choices) for count in self._counts)
        kept = all(
            limit.sign * (used - limit.bound) <= 0
            for limit, used in zip(self.limits, usage, strict=True)
        )
        return Column(self.employee, cells, self.own_cost(choices), usage, kept)

    def own_cost(self, choices: npt.NDArray[np.int64]) -> int:
        worked = np.flatnonzero(choices >= 0)
        return self.own_base + int(self.own[worked, choices[worked]].sum())

    def _usage(self, count: _Count, choices: npt.NDArray[np.int64]) -> int:
        worked = choices >= 0
        if count.weekends:
            before = np.concatenate(([False], worked[:-1]))
            first = worked & self.weekend_start
            second = worked & self.weekend_second & ~before
            return int(first.sum() + second.sum())
        return int(count.per_shift[choices[worked]].sum())

    def _path_ok(self, choices: npt.NDArray[np.int64]) -> bool:
        """The rules the path holds, checked on a given row (days: -1 off, else the
        shift): transitions, and runs of work and of rest."""
        days = len(choices)
        for d in range(1, days):
            a, b = choices[d - 1], choices[d]
            if a >= 0 and b >= 0 and self.forbid[a, b]:
                return False
        for worked, shortest, longest in ((True, self.low, self.high), (False, self.rest, 0)):
            start = 0
            while start < days:
                if (choices[start] >= 0) != worked:
                    start += 1
                    continue
                end = start
                while end + 1 < days and (choices[end + 1] >= 0) == worked:
                    end += 1
                length = end - start + 1
                if longest and length > longest:
                    return False
                if start > 0 and end < days - 1 and length < shortest:
                    return False
                start = end + 1
        return True

    # ------------------------------------------------------------------ pricing

    def price(
        self,
        prices: Mapping[Member, int],
        work: float = 0.0,
        seconds: float = math.inf,
        stop: threading.Event | None = None,
        multipliers: Sequence[int] = (),
    ) -> Priced:
        """The cheapest path against ``prices`` (scaled, per literal) and the limits'
        ``multipliers`` (scaled, each >= 0; none: all 0). The bound is exact: every cost
        is an integer. ``work``, ``seconds`` and ``stop`` are the pricing protocol's; one
        compiled pass takes milliseconds."""
        cost = self.scale * self.own.astype(np.float64)
        for member, (d, s) in self.members.items():
            price = prices.get(member)
            if price:
                cost[d, s] -= price
        constant = float(self.scale * self.own_base)
        weekend_price = 0.0
        for count, limit, m in zip(self._counts, self.limits, multipliers, strict=False):
            if m < 0:
                raise ValueError("a limit's multiplier is never negative")
            if not m:
                continue
            if count.weekends:
                weekend_price += limit.sign * m
            else:
                cost += limit.sign * m * count.per_shift[np.newaxis, :]
            constant -= limit.sign * m * limit.bound
        value, choices = cheapest_path(
            cost,
            self.allowed,
            self.forbid,
            self.low,
            self.high,
            self.rest,
            self.weekend_start,
            self.weekend_second,
            weekend_price,
        )
        if not math.isfinite(value):
            return Priced(None, math.inf, infeasible=True)
        return Priced(self._column(choices), float(round(value + constant)))


class ExactWithUsage:
    """CP-SAT pricing for an employee whose columns so far came from paths: each
    roster it finds is re-expressed by the path pricer, so it carries its usage of the
    limits the master holds for the employee. Its bound needs no multipliers (CP-SAT
    holds every rule itself)."""

    def __init__(self, exact: EmployeePricer, paths: LabellingPricer) -> None:
        self.exact = exact
        self.paths = paths
        self.employee = paths.employee
        self.limits = paths.limits

    def column_of(self, cells: Sequence[Cell]) -> Column | None:
        return self.paths.column_of(cells)

    def price(
        self,
        prices: Mapping[Member, int],
        work: float,
        seconds: float,
        stop: threading.Event | None = None,
        multipliers: Sequence[int] = (),
    ) -> Priced:
        priced = self.exact.price(prices, work, seconds, stop)
        if priced.column is None:
            return priced
        return Priced(self.paths.column_of(priced.column.cells), priced.lower_bound)
