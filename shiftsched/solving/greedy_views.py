"""What the greedy roster reads of the problem, built once.

Large benchmark instances (a year, 150 staff, 32 shift types) ask millions of questions
of the greedy's state, so the problem's lookups are made once, before the first pick:
heads wanted, cover targets, hard successions, preferences, caps per employee, what a
pick can price, and the month and week of each day.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shiftsched.solving import weights
from shiftsched.solving.problem import Problem
from shiftsched.solving.specs import CoverSpec, EmployeeSpec, PreferenceSpec

Roster = dict[tuple[int, int, int], int | None]  # (employee, day, shift) -> duty or None


@dataclass
class Views:
    """The problem and its read-only lookups (the greedy's state builds on them)."""

    problem: Problem
    month_of: list[str] = field(default_factory=list)
    week_of: list[str] = field(default_factory=list)
    # Read-only views of the problem, built once (large benchmark problems ask millions
    # of times): heads wanted per (day, shift), weighted cover targets per (day, shift),
    # hard forbidden successions as (from shift, to shift), preferences per (employee, day).
    need: dict[tuple[int, int], int] = field(default_factory=dict)
    cover_at: dict[tuple[int, int], list[CoverSpec]] = field(default_factory=dict)
    duty_target: dict[tuple[int, int, int], int] = field(default_factory=dict)  # (d, s, duty)
    forbidden: set[tuple[int, int]] = field(default_factory=set)
    preferences_on: dict[tuple[int, int], list[PreferenceSpec]] = field(default_factory=dict)
    # Per employee: the tightest cap on a run of worked days (None: none), the tightest
    # maximum per shift type, and the exclude pairings they belong to.
    run_cap: list[int | None] = field(default_factory=list)
    count_max: dict[tuple[int, int], int] = field(default_factory=dict)
    excluded: dict[int, list[tuple[int, ...]]] = field(default_factory=dict)
    # What a pick can price from the roster so far (soft_cost): shift s after shift p
    # yesterday, against a day off (soft transitions); each employee's require
    # pairings; each employee's level for skill support by shift; each week's days.
    step_cost: dict[tuple[int, int], int] = field(default_factory=dict)
    partners: dict[int, list[tuple[int, ...]]] = field(default_factory=dict)
    level: list[int | None] = field(default_factory=list)
    week_days: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problem = self.problem
        for e, employee in enumerate(problem.employees):
            caps = [problem.max_consecutive_days]
            if employee.consecutive_shifts is not None:
                caps.append(employee.consecutive_shifts[1])
            present = [cap for cap in caps if cap is not None]
            self.run_cap.append(min(present) if present else None)
            for limit in employee.count_limits:
                if limit.max is not None:
                    key = (e, limit.shift)
                    self.count_max[key] = min(limit.max, self.count_max.get(key, limit.max))
        for pairing in problem.pairings:
            pairs = self.excluded if pairing.exclude else self.partners
            for e in pairing.employees:
                pairs.setdefault(e, []).append(pairing.employees)
        for t in problem.transitions:
            if not t.hard:
                # A forbid charges its pair; a require charges every other successor,
                # a day off included, so against a day off its own successor gains.
                key = (t.from_shift, t.to_shift)
                change = weights.SHIFT_TRANSITION if t.forbid else -weights.SHIFT_TRANSITION
                self.step_cost[key] = self.step_cost.get(key, 0) + change
        support = problem.skill_support
        self.level = [
            None if support is None or support.by_duty else employee.top_level()
            for employee in problem.employees
        ]
        for c in problem.cover:
            if c.duty is None:
                self.cover_at.setdefault((c.day, c.shift), []).append(c)
            else:
                at = (c.day, c.shift, c.duty)
                self.duty_target[at] = self.duty_target.get(at, 0) + c.target
        for s, shift in enumerate(problem.shifts):
            for d in range(problem.num_days):
                targets = sum(c.target for c in self.cover_at.get((d, s), ()))
                self.need[d, s] = shift.staffing.mins[d] + targets
        self.forbidden = {
            (t.from_shift, t.to_shift) for t in problem.transitions if t.hard and t.forbid
        }
        for e, employee in enumerate(problem.employees):
            for pref in employee.preferences:
                self.preferences_on.setdefault((e, pref.day), []).append(pref)
        horizon = self.problem.horizon
        self.month_of = [""] * horizon.num_days
        self.week_of = [""] * horizon.num_days
        for month in horizon.months:
            for d in month.days:
                self.month_of[d] = month.key
        for week in horizon.weeks:
            self.week_days[week.key] = tuple(week.days)
            for d in week.days:
                self.week_of[d] = week.key


def min_run(employee: EmployeeSpec) -> int:
    """The shortest run of worked days the employee may work (0: no minimum)."""
    return employee.consecutive_shifts[0] if employee.consecutive_shifts else 0


def any_duty(employee: EmployeeSpec, s: int) -> int | None:
    """A duty the employee may hold on the shift, when the shift has duties."""
    duties = employee.duty_options.get(s, ())
    return duties[0] if duties else None
