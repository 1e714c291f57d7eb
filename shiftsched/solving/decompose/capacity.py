"""Bounds that need no search: demand that the staff cannot cover, whatever the roster.

Two arguments, each a proof:

- **per row**: a demand wanting more heads than anyone could fill leaves the rest
  missing (holidays, skills and assignable shifts decide who could);
- **in total**: the minutes the staff can work at most (a total-minutes maximum, else one
  shift a day at its longest) against the minutes the single-shift demands ask for; each
  head left uncovered saves at most the longest shift, so the excess fixes how many go
  missing at least, each at the cheapest price of a missing head.

The heads counted by the first argument are taken out of the second, so the two add up.
"""

from __future__ import annotations

from collections.abc import Sequence

from shiftsched.solving.decompose.rows import CoverRow
from shiftsched.solving.problem import Problem


def capacity_bound(problem: Problem, rows: Sequence[CoverRow]) -> int:
    """A lower bound on any roster's objective from staff capacity alone."""
    bound = sum(row.under_weight * max(0, row.low - len(row.members)) for row in rows)
    # The single-shift rows (staffing and cover targets): the most demanding row per cell.
    cells: dict[tuple[int, int], CoverRow] = {}
    for row in rows:
        if row.low <= 0 or not row.name.startswith(("staffing:", "cover:")):
            continue
        if not row.members:
            continue
        _, d, s, _ = row.members[0]
        held = cells.get((d, s))
        if held is None or (row.low, -row.under_weight) > (held.low, -held.under_weight):
            cells[d, s] = row
    if not cells:
        return bound
    minutes = [shift.minutes for shift in problem.shifts]
    if any(minutes[s] is None or minutes[s] <= 0 for _, s in cells):  # type: ignore[operator]
        return bound
    asked = sum(min(row.low, len(row.members)) * (minutes[s] or 0) for (_, s), row in cells.items())
    available = sum(_most_minutes(problem, e) for e in range(len(problem.employees)))
    excess = asked - available
    if excess <= 0:
        return bound
    longest = max(minutes[s] or 0 for _, s in cells)
    cheapest = min(row.under_weight for row in cells.values())
    heads = -(-excess // longest)
    return bound + heads * cheapest


def _most_minutes(problem: Problem, e: int) -> int:
    """The most minutes employee e can work: one shift a day at its longest, within a
    total-minutes maximum."""
    employee = problem.employees[e]
    most = 0
    for options in employee.day_options:
        if options:
            most += max(problem.shifts[s].minutes or 0 for s in options)
    if employee.total_minutes is not None:
        most = min(most, employee.total_minutes[1])
    return most
