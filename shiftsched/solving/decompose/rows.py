"""The rows that tie employees together: every demand a roster covers, with its prices.

A cover row counts heads, the shift or duty literals of several employees, and prices
the count ``c`` as a convex, piecewise-linear cost: ``under_weight`` per head below
``low`` and ``over_weight`` per head above ``high``. Staffing, manager, duty and
cross-shift demand (``shiftsched.solving.model.coverage``: SHORTAGE per missing head, DEMAND_EXCESS
per head over a maximum) and weighted cover targets (``shiftsched.solving.model.cover``) are all of
this shape, so one declaration serves the master LP, the Lagrangian bound and the
capacity bounds. The rows mirror what those families post; a test prices rosters both
ways (here and with the audit) and requires the same objective.
"""

from __future__ import annotations

from dataclasses import dataclass

from shiftsched.solving import weights
from shiftsched.solving.problem import Problem

Member = tuple[int, int, int, int | None]  # (employee, day, shift, duty or None)


@dataclass(frozen=True, slots=True)
class CoverRow:
    """One demand: the literals it counts and the price of their count."""

    name: str
    members: tuple[Member, ...]
    low: int  # heads wanted; each missing one costs under_weight
    high: int | None  # heads allowed; each extra one costs over_weight (None: no cap)
    under_weight: int
    over_weight: int

    def cost(self, count: int) -> int:
        """What ``count`` heads cost on this row."""
        cost = self.under_weight * max(0, self.low - count)
        if self.high is not None:
            cost += self.over_weight * max(0, count - self.high)
        return cost

    def floor(self, price: int, scale: int) -> int:
        """``min over c in [0, members] of scale x cost(c) + price x c``, exactly.

        The cost is convex and piecewise linear in ``c``, so the minimum sits at a
        breakpoint or an end; this is the row's share of the Lagrangian bound.
        """
        top = len(self.members)
        points = {0, top, min(top, self.low)}
        if self.high is not None:
            points.add(min(top, self.high))
        return min(scale * self.cost(c) + price * c for c in points)


def cover_rows(problem: Problem) -> list[CoverRow]:
    """Every row the coverage and cover families post, in a stable order."""
    employees = problem.employees
    staff: dict[tuple[int, int], list[Member]] = {}
    holders: dict[tuple[int, int, int], list[Member]] = {}
    for e, employee in enumerate(employees):
        for d, options in enumerate(employee.day_options):
            for s in options:
                staff.setdefault((d, s), []).append((e, d, s, None))
                for k in employee.duty_options.get(s, ()):
                    holders.setdefault((d, s, k), []).append((e, d, s, k))
    rows: list[CoverRow] = []

    def demand(name: str, members: list[Member], low: int, high: int | None) -> None:
        # As shiftsched.solving.model.coverage._bound: nothing is posted when neither side can bind.
        if low <= 0 and (high is None or len(members) <= high):
            return
        rows.append(
            CoverRow(
                name, tuple(members), max(0, low), high, weights.SHORTAGE, weights.DEMAND_EXCESS
            )
        )

    for s, shift in enumerate(problem.shifts):
        for d in range(problem.num_days):
            heads = staff.get((d, s), [])
            key = f"{shift.id}:{problem.date_key(d)}"
            demand(f"staffing:{key}", heads, shift.staffing.mins[d], shift.staffing.maxs[d])
            if shift.managers is not None:
                managers = [m for m in heads if employees[m[0]].is_manager]
                demand(f"manager:{key}", managers, shift.managers.mins[d], shift.managers.maxs[d])
    for k, duty in enumerate(problem.duties):
        for s, need in duty.demand.items():
            for d in range(problem.num_days):
                key = f"{duty.id}:{problem.shifts[s].id}:{problem.date_key(d)}"
                demand(f"duty:{key}", holders.get((d, s, k), []), need.mins[d], need.maxs[d])
    for cross in problem.cross_shift:
        heads = []
        for s in cross.shifts:
            pool = (
                staff.get((cross.day, s), [])
                if cross.duty is None
                else holders.get((cross.day, s, cross.duty), [])
            )
            heads.extend(m for m in pool if not cross.managers_only or employees[m[0]].is_manager)
        demand(f"cross_shift:{cross.index}", heads, cross.min, cross.max)
    for c in problem.cover:
        if c.duty is None:
            heads = staff.get((c.day, c.shift), [])
            key = f"{problem.shifts[c.shift].id}:{problem.date_key(c.day)}"
        else:
            heads = holders.get((c.day, c.shift, c.duty), [])
            where = f"{problem.shifts[c.shift].id}:{problem.duties[c.duty].id}"
            key = f"{where}:{problem.date_key(c.day)}"
        rows.append(
            CoverRow(
                f"cover:{key}",
                tuple(heads),
                c.target if c.under_weight > 0 else 0,
                c.target if c.over_weight > 0 else None,
                c.under_weight,
                c.over_weight,
            )
        )
    return rows
