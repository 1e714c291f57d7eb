"""Pricing by a path over the days: one employee's cheapest roster in milliseconds.

CP-SAT prices one employee of a year-long benchmark row in about 0.75 s, and one of a
generated request with every rule family in tenths of a second, so a round of the
decomposition takes from seconds to most of a minute. Most of an employee's own rules
are about neighbouring days, which a shortest path over the days holds exactly
(:func:`shiftsched.solving.decompose.paths.cheapest_path`): transitions, runs of work and of rest,
the consecutive-days cap (hard, and soft from the cap on), fixed days. Duties cost the
employee nothing, so each worked cell takes the duty that pays best.

The rest count over a stretch of days: total minutes, shifts of each type and worked
weekends over the period; worked days and minutes per week or month. Those become rows
of the master LP (:class:`shiftsched.solving.decompose.pricing.Limit`), and their duals multipliers
``m >= 0`` here. A hard rule ``g(x) <= 0`` only makes a roster that keeps it cheaper by
``m g(x)``; a soft one costing ``w max(0, g(x))`` costs at least ``m g(x)`` when
``m <= w``. So the cheapest path under any such multipliers is a lower bound on the
cheapest roster, and the Lagrangian bound of each round stays a bound.

The price of the speed is strength: at convergence the bound is the LP over mixes of
paths that keep the windowed rules on average, not path by path. The loop therefore
switches an employee to CP-SAT (:mod:`shiftsched.solving.decompose.pricing`) once the paths have
converged, when there is time left (:mod:`shiftsched.solving.decompose.generation`).

A path that breaks a hard windowed rule is still a column (``kept`` False): the master
may mix it, the restricted integer master never picks it. Every column's cost is exact:
the employee's own terms as ``docs/semantics.md`` prices them.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from shiftsched.contract.horizon import SATURDAY
from shiftsched.solving import weights
from shiftsched.solving.decompose.paths import cheapest_path
from shiftsched.solving.decompose.pricing import Cell, Column, EmployeePricer, Limit, Priced
from shiftsched.solving.decompose.rows import Member
from shiftsched.solving.problem import Problem

OFF = 0  # the index of a day off in the transition table (shift s is s + 1)


def supports(problem: Problem, e: int) -> bool:
    """Whether every rule of employee ``e`` is one the path or a multiplier holds: all
    but the gates a diagnosis opens on options the request rules out, and the soft
    benchmark rules of runs, weekends and totals (shiftsched.solving.model.runs,
    shiftsched.solving.model.counts) and a required duty, which CP-SAT prices instead."""
    employee = problem.employees[e]
    benchmark_soft = (
        employee.work_runs is not None
        or employee.off_runs is not None
        or bool(employee.shift_runs)
        or bool(employee.complete_weekends)
        or employee.total_days is not None
        or employee.weekend_cap is not None
    )
    return (
        not employee.day_gates
        and not employee.duty_gates
        and not benchmark_soft
        and not problem.duty_required
    )


@dataclass(frozen=True, slots=True)
class _Count:
    """What a limit counts on a path: ``per_shift[s]`` for each day of shift ``s`` among
    ``days`` (None: the whole period), or worked weekends. A soft limit costs ``soft``
    per unit of magnitude, a unit being ``per`` of the usage beyond the bound, rounded
    up (60 minutes make an hour)."""

    per_shift: npt.NDArray[np.int64]
    days: npt.NDArray[np.bool_] | None = None
    weekends: bool = False
    soft: int = 0
    per: int = 1


class LabellingPricer:
    """One employee's cheapest roster by a path over the days, the windowed rules held
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
        self.duties_on = {s: tuple(ks) for s, ks in employee.duty_options.items()}
        self.must_work = np.zeros(days, np.bool_)
        self.fixed_duty = np.full(days, -1, np.int64)  # the duty a fixed day must hold
        self.impossible = not self._fix(problem, e)
        self.step = self._transitions(problem)
        low, high = employee.consecutive_shifts or (0, None)
        cap = problem.max_consecutive_days
        self.low, self.high = low, high or 0
        if cap is not None:
            self.high = cap if self.high == 0 else min(self.high, cap)
        self.run_cost = np.zeros(max(self.high, 1) + 1, np.float64)
        if cap is not None and cap >= 2:  # the soft cap: each day of a run from N on
            self.run_cost[cap:] = weights.CONSECUTIVE_DAYS
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
        cells = [(d, s) for d in range(days) for s in range(shifts) if self.allowed[d, s]]
        self.members: dict[Member, tuple[int, int]] = {(e, d, s, None): (d, s) for d, s in cells}
        self.duty_members: dict[Member, tuple[int, int, int]] = {
            (e, d, s, k): (d, s, k) for d, s in cells for k in self.duties_on.get(s, ())
        }
        counts, limits = self._limits(problem, e)
        self._counts: tuple[_Count, ...] = counts
        self.limits: tuple[Limit, ...] = limits
        # The most a multiplier may be: a soft limit's weight per unit of usage.
        self._caps = [
            math.floor(scale * limit.weight) if limit.weight else None for limit in limits
        ]

    def _fix(self, problem: Problem, e: int) -> bool:
        """Restrict each fixed day to its shift (and duty); False when the fixed
        assignments cannot all hold (two on a day, or one the options rule out)."""
        shift_of: dict[int, int] = {}
        for fixed in problem.employees[e].fixed:
            d, s, k = fixed.day, fixed.shift, fixed.duty
            if shift_of.setdefault(d, s) != s or not self.allowed[d, s]:
                return False
            if k is not None:
                if k not in self.duties_on.get(s, ()) or self.fixed_duty[d] not in (-1, k):
                    return False
                self.fixed_duty[d] = k
        for d, s in shift_of.items():
            self.allowed[d, :] = False
            self.allowed[d, s] = True
            self.must_work[d] = True
        return True

    @staticmethod
    def _transitions(problem: Problem) -> npt.NDArray[np.float64]:
        """``step[a, b]``: what ``b`` costs the day after ``a`` (0 off, ``s + 1`` shift
        ``s``): a forbid charges the pair, a require every successor but its own; hard
        ones are ``inf``."""
        shifts = len(problem.shifts)
        step = np.zeros((shifts + 1, shifts + 1), np.float64)
        for t in problem.transitions:
            a, b = t.from_shift + 1, t.to_shift + 1
            successors = [b] if t.forbid else [x for x in range(shifts + 1) if x != b]
            for x in successors:
                step[a, x] = math.inf if t.hard else step[a, x] + weights.SHIFT_TRANSITION
        return step

    def _limits(self, problem: Problem, e: int) -> tuple[tuple[_Count, ...], tuple[Limit, ...]]:
        """The rules over a stretch of days that can bind or cost, each as what it
        counts and its bound."""
        employee = problem.employees[e]
        shifts = len(problem.shifts)
        workable = self.allowed.sum(axis=0)
        minutes = np.array([s.minutes or 0 for s in problem.shifts], np.int64)
        longest = max(1, int(minutes.max(initial=0)))
        ones = np.ones(shifts, np.int64)
        found: list[tuple[_Count, Limit]] = []

        def add(count: _Count, bound: int, sign: int, unit: int = 1) -> None:
            weight = count.soft / count.per if count.soft else 0.0
            found.append((count, Limit(bound, sign, unit, weight)))

        if employee.total_minutes is not None:
            low, high = employee.total_minutes
            if low > 0:
                add(_Count(minutes), low, -1, longest)
            if high < int((workable * minutes).sum()):
                add(_Count(minutes), high, +1, longest)
        for limit in employee.count_limits:
            one = np.zeros(shifts, np.int64)
            one[limit.shift] = 1
            if limit.min:
                add(_Count(one), limit.min, -1)
            if limit.max is not None and limit.max < workable[limit.shift]:
                add(_Count(one), limit.max, +1)
        most = employee.max_weekends
        if most is not None and most < int(self.weekend_start.sum()):
            add(_Count(np.zeros(shifts, np.int64), weekends=True), most, +1)
        works: npt.NDArray[np.bool_] = np.asarray(self.allowed.any(axis=1))
        if employee.days_per_month is not None:
            minimum, maximum = employee.days_per_month
            for month in problem.horizon.months:
                mask = self._mask(month.days)
                if int(works[mask].sum()) > maximum:
                    add(_Count(ones, mask), maximum, +1)
                target = employee.owed(month, minimum)
                if target > 0:
                    add(_Count(ones, mask, soft=weights.DAYS_PER_MONTH_MIN), target, -1)
        if employee.days_per_week is not None:
            minimum, maximum = employee.days_per_week
            for week in problem.horizon.weeks:
                mask = self._mask(week.days)
                target = employee.owed(week, minimum)
                if target > 0:
                    add(_Count(ones, mask, soft=weights.DAYS_PER_WEEK), target, -1)
                if int(works[mask].sum()) > maximum:
                    add(_Count(ones, mask, soft=weights.DAYS_PER_WEEK), maximum, +1)
        if employee.weekly_hours is not None:
            hours, hard = employee.weekly_hours
            most_minutes = np.where(self.allowed, minutes[np.newaxis, :], 0).max(axis=1)
            soft = 0 if hard else weights.WEEKLY_HOURS
            for week in problem.horizon.weeks:
                mask = self._mask(week.days)
                if int(most_minutes[mask].sum()) > 60 * hours:
                    add(_Count(minutes, mask, soft=soft, per=60), 60 * hours, +1, longest)
        return tuple(c for c, _ in found), tuple(limit for _, limit in found)

    def _mask(self, days: Sequence[int]) -> npt.NDArray[np.bool_]:
        mask = np.zeros(self.allowed.shape[0], np.bool_)
        mask[list(days)] = True
        return mask

    # ------------------------------------------------------------------ columns

    def column_of(self, cells: Sequence[Cell]) -> Column | None:
        """A given row (a roster's, say) as a column, priced exactly; None when it
        breaks one of the employee's rules."""
        days = self.allowed.shape[0]
        choices = np.full(days, -1, np.int64)
        duties = np.full(days, -1, np.int64)
        for d, s, k in cells:
            if choices[d] != -1 or not self.allowed[d, s]:
                return None
            if k is not None and k not in self.duties_on.get(s, ()):
                return None
            if self.fixed_duty[d] >= 0 and k != self.fixed_duty[d]:
                return None
            choices[d] = s
            duties[d] = -1 if k is None else k
        if self.impossible or not self._path_ok(choices):
            return None
        column = self._column(choices, duties)
        return column if column.kept else None

    def _column(self, choices: npt.NDArray[np.int64], duties: npt.NDArray[np.int64]) -> Column:
        """A path as a column: its cells, own cost and usage of each limit."""
        cells = tuple(
            (d, int(s), None if duties[d] < 0 else int(duties[d]))
            for d, s in enumerate(choices)
            if s >= 0
        )
        usage = tuple(self._usage(count, choices) for count in self._counts)
        kept = True
        cost = self.own_cost(choices)
        for count, limit, used in zip(self._counts, self.limits, usage, strict=True):
            beyond = max(0, limit.sign * (used - limit.bound))
            if count.soft:
                cost += count.soft * -(-beyond // count.per)
            elif beyond:
                kept = False
        return Column(self.employee, cells, cost, usage, kept)

    def own_cost(self, choices: npt.NDArray[np.int64]) -> int:
        """What the path itself charges: preferences, soft transitions and the soft
        consecutive-days cap (the windowed soft rules are added by the limits)."""
        worked = np.flatnonzero(choices >= 0)
        cost = self.own_base + int(self.own[worked, choices[worked]].sum())
        cost += int(self.step[choices[:-1] + 1, choices[1:] + 1].sum())
        run, last = 0, len(self.run_cost) - 1
        for s in choices:
            run = run + 1 if s >= 0 else 0
            if run:
                cost += int(self.run_cost[min(run, last)])
        return cost

    def _usage(self, count: _Count, choices: npt.NDArray[np.int64]) -> int:
        worked = choices >= 0
        if count.weekends:
            before = np.concatenate(([False], worked[:-1]))
            first = worked & self.weekend_start
            second = worked & self.weekend_second & ~before
            return int(first.sum() + second.sum())
        if count.days is not None:
            worked = worked & count.days
        return int(count.per_shift[choices[worked]].sum())

    def _path_ok(self, choices: npt.NDArray[np.int64]) -> bool:
        """The rules the path holds, checked on a given row (days: -1 off, else the
        shift): fixed days, transitions, and runs of work and of rest."""
        days = len(choices)
        if (choices[self.must_work] < 0).any():
            return False
        if not np.isfinite(self.step[choices[:-1] + 1, choices[1:] + 1]).all():
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
        ``multipliers`` (scaled, each >= 0; a soft limit's is taken at most at its
        weight; none: all 0). The bound is exact: every cost is an integer. ``work``,
        ``seconds`` and ``stop`` are the pricing protocol's; one compiled pass takes
        milliseconds."""
        if self.impossible:
            return Priced(None, math.inf, infeasible=True)
        cost = self.scale * self.own.astype(np.float64)
        for member, (d, s) in self.members.items():
            price = prices.get(member)
            if price:
                cost[d, s] -= price
        duties = self._best_duties(prices, cost)
        constant = float(self.scale * self.own_base)
        weekend_price = 0.0
        for count, limit, m, cap in zip(
            self._counts, self.limits, multipliers, self._caps, strict=False
        ):
            if m < 0:
                raise ValueError("a limit's multiplier is never negative")
            if cap is not None:
                m = min(m, cap)
            if not m:
                continue
            if count.weekends:
                weekend_price += limit.sign * m
            elif count.days is None:
                cost += limit.sign * m * count.per_shift[np.newaxis, :]
            else:
                cost[count.days] += limit.sign * m * count.per_shift[np.newaxis, :]
            constant -= limit.sign * m * limit.bound
        value, choices = cheapest_path(
            cost,
            self.allowed,
            self.must_work,
            self.scale * self.step,
            self.scale * self.run_cost,
            self.low,
            self.high,
            self.rest,
            self.weekend_start,
            self.weekend_second,
            weekend_price,
        )
        if not math.isfinite(value):
            return Priced(None, math.inf, infeasible=True)
        chosen = np.array([duties[d, s] if s >= 0 else -1 for d, s in enumerate(choices)])
        return Priced(self._column(choices, chosen), float(round(value + constant)))

    def _best_duties(
        self, prices: Mapping[Member, int], cost: npt.NDArray[np.float64]
    ) -> npt.NDArray[np.int64]:
        """Each cell's duty: the fixed one, else the one that pays best if any pays
        (a duty costs the employee nothing); its price comes off ``cost``."""
        duty = np.full(cost.shape, -1, np.int64)
        gain = np.zeros(cost.shape, np.float64)
        fixed = self.fixed_duty
        for member, (d, s, k) in self.duty_members.items():
            price = prices.get(member, 0)
            if fixed[d] == k or (fixed[d] < 0 and price > gain[d, s]):
                gain[d, s] = price
                duty[d, s] = k
        cost -= gain
        return duty


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
