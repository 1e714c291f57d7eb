"""A greedy starting roster, given to CP-SAT as a solution hint.

On large instances the solver's own first solutions leave hundreds of heads missing and
its local search needs far longer than a synchronous request allows to fill them. This
heuristic fills demand day by day, scarcest duty first, choosing among the employees
who may work the shift the one who has worked least, and it keeps the hard rules that
can be checked looking backwards: one shift per date, fixed assignments, consecutive-day
cap (period-wide and per employee), monthly maximum, hard weekly hours, total-minutes
maximum, shift count maxima, worked-weekend maximum, minimum days-off runs, hard
forbidden transitions and exclude pairings. Weighted cover targets count as demand.
Rules it cannot see (forward-looking requirements, minimums) are left to the solver,
which repairs or improves the hint; the hint never changes what is optimal, only where
the search starts.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from engine.problem import EmployeeSpec, Problem

SATURDAY = 5
Roster = dict[tuple[int, int, int], int | None]  # (employee, day, shift) -> duty or None


@dataclass
class _State:
    problem: Problem
    roster: Roster = field(default_factory=dict)
    shift_on: dict[tuple[int, int], int] = field(default_factory=dict)  # (e, d) -> shift
    days_worked: list[int] = field(default_factory=list)
    month_count: dict[tuple[int, str], int] = field(default_factory=lambda: defaultdict(int))
    week_minutes: dict[tuple[int, str], int] = field(default_factory=lambda: defaultdict(int))
    total_minutes: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    weekends: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    shift_count: dict[tuple[int, int], int] = field(default_factory=lambda: defaultdict(int))
    on_shift: dict[tuple[int, int], set[int]] = field(default_factory=lambda: defaultdict(set))
    month_of: list[str] = field(default_factory=list)
    week_of: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        horizon = self.problem.horizon
        self.days_worked = [0] * len(self.problem.employees)
        self.month_of = [""] * horizon.num_days
        self.week_of = [""] * horizon.num_days
        for month in horizon.months:
            for d in month.days:
                self.month_of[d] = month.key
        for week in horizon.weeks:
            for d in week.days:
                self.week_of[d] = week.key

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

    def run_before(self, e: int, d: int) -> int:
        run = 0
        while d - run - 1 >= 0 and (e, d - run - 1) in self.shift_on:
            run += 1
        return run

    def can_take(self, e: int, d: int, s: int) -> bool:
        """Whether placing e on shift s of day d keeps every backward-checkable hard rule."""
        problem = self.problem
        employee = problem.employees[e]
        if (e, d) in self.shift_on or s not in employee.day_options[d]:
            return False
        run = self.run_before(e, d)
        after = 0
        while (e, d + after + 1) in self.shift_on:
            after += 1
        caps = [problem.max_consecutive_days]
        if employee.consecutive_shifts is not None:
            caps.append(employee.consecutive_shifts[1])
        if any(cap is not None and run + 1 + after > cap for cap in caps):
            return False
        if not self._keeps_benchmark_rules(e, d, s):
            return False
        if (
            employee.days_per_month
            and self.month_count[e, self.month_of[d]] >= employee.days_per_month[1]
        ):
            return False
        if employee.weekly_hours and employee.weekly_hours[1]:
            minutes = self.week_minutes[e, self.week_of[d]] + (problem.shifts[s].minutes or 0)
            if minutes > 60 * employee.weekly_hours[0]:
                return False
        for limit in employee.count_limits:
            if limit.shift == s and limit.max is not None and self.shift_count[e, s] >= limit.max:
                return False
        previous = self.shift_on.get((e, d - 1))
        following = self.shift_on.get((e, d + 1))
        for t in problem.transitions:
            if not (t.hard and t.forbid):
                continue
            if previous == t.from_shift and s == t.to_shift:
                return False
            if s == t.from_shift and following == t.to_shift:
                return False
        for pairing in problem.pairings:
            if (
                pairing.exclude
                and e in pairing.employees
                and any(o in self.on_shift[d, s] for o in pairing.employees if o != e)
            ):
                return False
        return True

    def _keeps_benchmark_rules(self, e: int, d: int, s: int) -> bool:
        """Total minutes and weekend maxima, and no too-short run of days off created."""
        problem = self.problem
        employee = problem.employees[e]
        if employee.total_minutes is not None:
            minutes = self.total_minutes[e] + (problem.shifts[s].minutes or 0)
            if minutes > employee.total_minutes[1]:
                return False
        if (
            employee.max_weekends is not None
            and problem.horizon.weekdays[d] >= SATURDAY
            and self.week_of[d] not in self.weekends[e]
            and len(self.weekends[e]) >= employee.max_weekends
        ):
            return False
        k = employee.min_days_off_run
        for step in (-1, 1):  # a worked day within k days, past a day off, would close it
            if (e, d + step) in self.shift_on:
                continue
            for gap in range(1, k):
                if (e, d + step * (gap + 1)) in self.shift_on:
                    return False
        return True

    def below_minimum(self, e: int, s: int) -> bool:
        return any(
            limit.shift == s and limit.min is not None and self.shift_count[e, s] < limit.min
            for limit in self.problem.employees[e].count_limits
        )

    def preference_cost(self, e: int, d: int, s: int) -> int:
        cost = 0
        for pref in self.problem.employees[e].preferences:
            if pref.day != d:
                continue
            if pref.kind == "day_off" or (pref.kind == "avoided_shift" and pref.shift == s):
                cost += 1
        return cost


def greedy_roster(problem: Problem) -> Roster:
    """A roster that meets as much minimum demand as a single forward pass can."""
    state = _State(problem)
    for e, employee in enumerate(problem.employees):
        for fixed in employee.fixed:  # a fixed shift breaking a hard rule is left to the solver
            if state.can_take(e, fixed.day, fixed.shift):
                allowed = employee.duty_options.get(fixed.shift, ())
                duty = fixed.duty if fixed.duty in allowed else None
                state.place(e, fixed.day, fixed.shift, duty)
    for d in range(problem.num_days):
        for s in _shifts_by_scarcity(problem, d):
            _fill_shift(state, d, s)
    _meet_count_minimums(state)
    return state.roster


def _meet_count_minimums(state: _State) -> None:
    """Top up shift count minimums on free days (an extra head costs little).

    A roster that misses a hard minimum cannot be completed into a full hint
    (engine.solve.complete_hint), and the search then starts from scratch.
    """
    problem = state.problem
    for e, employee in enumerate(problem.employees):
        for limit in employee.count_limits:
            if limit.min is None:
                continue
            for d in range(problem.num_days):
                if state.shift_count[e, limit.shift] >= limit.min:
                    break
                if state.can_take(e, d, limit.shift):
                    state.place(e, d, limit.shift, _any_duty(employee, limit.shift))


def _any_duty(employee: EmployeeSpec, s: int) -> int | None:
    """A duty the employee may hold on the shift, when the shift has duties."""
    duties = employee.duty_options.get(s, ())
    return duties[0] if duties else None


def _shifts_by_scarcity(problem: Problem, d: int) -> list[int]:
    """Shifts with the fewest candidates per required head first."""

    def candidates_per_head(s: int) -> float:
        need = _need(problem, d, s)
        pool = sum(1 for employee in problem.employees if s in employee.day_options[d])
        return pool / need if need else float("inf")

    return sorted(range(len(problem.shifts)), key=candidates_per_head)


def _need(problem: Problem, d: int, s: int) -> int:
    """Heads wanted on a shift: the staffing minimum plus any weighted cover target."""
    target = sum(c.target for c in problem.cover if c.day == d and c.shift == s)
    return problem.shifts[s].staffing.mins[d] + target


def _pick(state: _State, d: int, s: int, wanted: list[int]) -> int | None:
    """The best candidate among ``wanted``: below a count minimum of this shift first,
    then no unmet wish, then fewest days worked so far."""
    ok = [e for e in wanted if state.can_take(e, d, s)]
    if not ok:
        return None
    return min(
        ok,
        key=lambda e: (
            not state.below_minimum(e, s),
            state.preference_cost(e, d, s),
            state.days_worked[e],
            e,
        ),
    )


def _fill_shift(state: _State, d: int, s: int) -> None:
    problem = state.problem
    employees = problem.employees
    duties_here = [
        (k, duty.demand[s].mins[d]) for k, duty in enumerate(problem.duties) if s in duty.demand
    ]
    # Scarcest duty first: fewest possible holders.
    duties_here.sort(key=lambda kd: sum(1 for e in employees if kd[0] in e.duty_options.get(s, ())))
    for k, need in duties_here:
        held = sum(1 for e in state.on_shift[d, s] if state.roster[e, d, s] == k)
        for _ in range(need - held):
            holders = [e for e, emp in enumerate(employees) if k in emp.duty_options.get(s, ())]
            e = _pick(state, d, s, holders)
            if e is None:
                break
            state.place(e, d, s, k)
    shift = problem.shifts[s]
    if shift.managers is not None:
        managers = sum(1 for e in state.on_shift[d, s] if employees[e].is_manager)
        for _ in range(shift.managers.mins[d] - managers):
            e = _pick(state, d, s, [e for e, emp in enumerate(employees) if emp.is_manager])
            if e is None:
                break
            state.place(e, d, s, None)
    for _ in range(_need(problem, d, s) - len(state.on_shift[d, s])):
        e = _pick(state, d, s, list(range(len(employees))))
        if e is None:
            break
        state.place(e, d, s, None)
