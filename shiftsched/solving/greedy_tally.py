"""The greedy roster so far and what it counts per rule family, kept by each move.

Placing or removing a head updates every count a hard rule checks (days worked, per
month, minutes per week and in all, weekends, shifts of each type, heads per shift), so
no check rescans the roster.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from shiftsched.contract.horizon import SATURDAY
from shiftsched.solving.greedy_views import Roster, Views


@dataclass
class Tally(Views):
    """The roster so far, its counters, and the moves that keep them."""

    roster: Roster = field(default_factory=dict)
    shift_on: dict[tuple[int, int], int] = field(default_factory=dict)  # (e, d) -> shift
    days_worked: list[int] = field(default_factory=list)
    month_count: dict[tuple[int, str], int] = field(default_factory=lambda: defaultdict(int))
    week_minutes: dict[tuple[int, str], int] = field(default_factory=lambda: defaultdict(int))
    total_minutes: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    weekends: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    shift_count: dict[tuple[int, int], int] = field(default_factory=lambda: defaultdict(int))
    on_shift: dict[tuple[int, int], set[int]] = field(default_factory=lambda: defaultdict(set))

    def __post_init__(self) -> None:
        super().__post_init__()
        horizon = self.problem.horizon
        self.days_worked = [0] * len(self.problem.employees)
        if horizon.num_days:  # what the history left in the first week and month
            for e, employee in enumerate(self.problem.employees):
                self.month_count[e, self.month_of[0]] += employee.seam.month_days
                self.week_minutes[e, self.week_of[0]] += employee.seam.week_minutes

    def place(self, e: int, d: int, s: int, duty: int | None) -> None:
        self.roster[e, d, s] = duty
        self.shift_on[e, d] = s
        self.days_worked[e] += 1
        self.month_count[e, self.month_of[d]] += 1
        self.week_minutes[e, self.week_of[d]] += self.problem.shifts[s].minutes or 0
        self.total_minutes[e] += self.problem.shifts[s].minutes or 0
        if self.problem.horizon.weekdays[d] >= SATURDAY:
            self.weekends[e].add(self.week_of[d])
        self.shift_count[e, s] += 1
        self.on_shift[d, s].add(e)

    def unplace(self, e: int, d: int) -> None:
        s = self.shift_on.pop((e, d))
        del self.roster[e, d, s]
        minutes = self.problem.shifts[s].minutes or 0
        self.days_worked[e] -= 1
        self.month_count[e, self.month_of[d]] -= 1
        self.week_minutes[e, self.week_of[d]] -= minutes
        self.total_minutes[e] -= minutes
        week = self.week_of[d]
        weekdays = self.problem.horizon.weekdays
        if weekdays[d] >= SATURDAY and not any(
            (e, o) in self.shift_on and weekdays[o] >= SATURDAY and self.week_of[o] == week
            for o in (d - 1, d + 1)
            if 0 <= o < self.problem.num_days
        ):
            self.weekends[e].discard(week)
        self.shift_count[e, s] -= 1
        self.on_shift[d, s].discard(e)

    def run_before(self, e: int, d: int) -> int:
        run = 0
        while d - run - 1 >= 0 and (e, d - run - 1) in self.shift_on:
            run += 1
        if run == d:  # back to the start: the run the history left goes on
            run += self.problem.employees[e].seam.worked_run
        return run
