"""A greedy starting roster, given to CP-SAT as a solution hint.

On large instances the solver's own first solutions leave hundreds of heads missing and
its local search needs far longer than a synchronous request allows to fill them. This
heuristic fills demand day by day, scarcest duty first, choosing among the employees
who may work the shift the one who has worked least, and it keeps the hard rules that
can be checked looking backwards: one shift per date, fixed assignments, consecutive-day
cap (period-wide and per employee), monthly maximum, hard weekly hours, total-minutes
maximum, shift count maxima, worked-weekend maximum, minimum days-off runs, hard
forbidden transitions and exclude pairings. Weighted cover targets count as demand (a
duty's target as that duty's: holders are placed up to the larger of minimum and target).

Among candidates equal on those keys, a second pass prefers the one whose pick costs
least in the soft terms the roster so far decides: a soft transition from yesterday,
a beginner without a senior (or a senior joining one), require pairings, the weekly
soft maxima. It can spend a scarce manager or duty holder the plain pass kept, so
both passes run and the one leaving less demand unmet is kept (:func:`greedy_roster`).

Minimums it cannot see looking backwards get passes of their own. Shift count minimums
are topped up on free days, and where those are not enough (a month's maximum reached)
by trading worked days of other shifts. Under a minimum run of worked days, an employee
whose run is still too short is picked first, and so is one continuing a run (fewer,
longer runs leave room for work between the days-off minimums); a run that still ends
too short is lengthened or dropped, and total-minutes minimums are topped up by
lengthening runs or adding runs of the minimum length. A benchmark row (shiftsched.formats:
only per-employee hard rules) that still breaks a minimum is replanned alone by the
model's own encoding of that employee's rules (shiftsched.solving.model.build on a one-employee
problem), the other rows fixed; its search stops on CP-SAT's deterministic work, so the
whole roster is the same on any machine. A hint breaking no hard rule is completed into
a first solution at once (shiftsched.solving.solve.complete_hint). What is left is
left to the solver, which repairs or improves the hint; the hint never changes what is
optimal, only where the search starts.

Large benchmark instances (a year, 150 staff, 32 shift types) ask millions of questions
of the state, so the problem's lookups are built once (_State) and the two passes that
rescanned everything per placed head (filling a shift, extending runs) keep their
candidates ranked instead; both choose exactly what the rescans chose.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from shiftsched.contract.horizon import SATURDAY
from shiftsched.contract.v1 import Assignment
from shiftsched.solving import weights
from shiftsched.solving.decompose.rows import CoverRow, Member, cover_rows
from shiftsched.solving.model.build import build
from shiftsched.solving.model.registry import FAMILIES
from shiftsched.solving.model.teams import BEGINNER_LEVELS, SENIOR_LEVELS
from shiftsched.solving.problem import (
    CoverSpec,
    EmployeeSpec,
    PreferenceSpec,
    Problem,
    one_employee,
)

Roster = dict[tuple[int, int, int], int | None]  # (employee, day, shift) -> duty or None


@dataclass
class _State:
    problem: Problem
    priced: bool = False  # picks weigh the soft costs they can see (soft_cost)
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
        self.days_worked = [0] * len(self.problem.employees)
        self.month_of = [""] * horizon.num_days
        self.week_of = [""] * horizon.num_days
        for month in horizon.months:
            for d in month.days:
                self.month_of[d] = month.key
        for week in horizon.weeks:
            self.week_days[week.key] = tuple(week.days)
            for d in week.days:
                self.week_of[d] = week.key
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

    def can_take(self, e: int, d: int, s: int) -> bool:
        """Whether placing e on shift s of day d keeps every backward-checkable hard rule."""
        problem = self.problem
        employee = problem.employees[e]
        shift_on = self.shift_on
        if (e, d) in shift_on or s not in employee.day_options[d]:
            return False
        cap = self.run_cap[e]
        if cap is not None:
            run = self.run_before(e, d)
            after = 0
            while (e, d + after + 1) in shift_on:
                after += 1
            if run + 1 + after > cap:
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
        most = self.count_max.get((e, s))
        if most is not None and self.shift_count[e, s] >= most:
            return False
        if self.forbidden:
            previous = shift_on.get((e, d - 1)) if d else employee.seam.last_shift
            following = shift_on.get((e, d + 1))
            if (previous, s) in self.forbidden or (s, following) in self.forbidden:
                return False
        for employees in self.excluded.get(e, ()):
            if any(o in self.on_shift[d, s] for o in employees if o != e):
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

    def continues_run(self, e: int, d: int) -> bool:
        """Whether e worked the day before, under a rule on runs (long runs leave long
        rests: fewer, longer runs fit more work between the days-off minimums)."""
        employee = self.problem.employees[e]
        return (e, d - 1) in self.shift_on and (
            employee.consecutive_shifts is not None or employee.min_days_off_run > 1
        )

    def below_minimum(self, e: int, s: int) -> bool:
        return any(
            limit.shift == s and limit.min is not None and self.shift_count[e, s] < limit.min
            for limit in self.problem.employees[e].count_limits
        )

    def soft_cost(self, e: int, d: int, s: int, duty: int | None = None) -> int:
        """What placing e on shift s of day d (holding ``duty``) adds to the soft terms
        the roster so far already decides, against e staying off: a soft transition
        from yesterday, skill support, require pairings, and the weekly soft maxima
        (the forward pass cannot see what later days will add)."""
        if not self.priced:
            return 0
        employee = self.problem.employees[e]
        cost = 0
        if self.step_cost:
            previous = self.shift_on.get((e, d - 1))
            if previous is not None:
                cost += self.step_cost.get((previous, s), 0)
        if self.problem.skill_support is not None:
            cost += self._support_cost(e, d, s, duty)
        for members in self.partners.get(e, ()):
            present = sum(1 for o in members if o != e and o in self.on_shift[d, s])
            cost += weights.PAIRING_REQUIRE * (len(members) - 1 - 2 * present)
        if employee.weekly_hours is not None and not employee.weekly_hours[1]:
            limit = 60 * employee.weekly_hours[0]
            before = self.week_minutes[e, self.week_of[d]]
            after = before + (self.problem.shifts[s].minutes or 0)
            hours = -(-max(0, after - limit) // 60) + (max(0, before - limit) // -60)
            cost += weights.WEEKLY_HOURS * hours
        if employee.days_per_week is not None:
            days = self.week_days[self.week_of[d]]
            if sum(1 for o in days if (e, o) in self.shift_on) >= employee.days_per_week[1]:
                cost += weights.DAYS_PER_WEEK
        return cost

    def _support_cost(self, e: int, d: int, s: int, duty: int | None) -> int:
        """A beginner who would be the group's first, with no senior on it, leaves it
        unsupported; a senior who would be its first supports it."""
        problem = self.problem
        if problem.skill_support is not None and problem.skill_support.by_duty:
            if duty is None:
                return 0
            level = problem.employees[e].skills.get(duty)
            levels = [
                problem.employees[o].skills.get(duty)
                for o in self.on_shift[d, s]
                if self.roster[o, d, s] == duty
            ]
        else:
            level = self.level[e]
            levels = [self.level[o] for o in self.on_shift[d, s]]
        beginners = any(v in BEGINNER_LEVELS for v in levels)
        if any(v in SENIOR_LEVELS for v in levels):
            return 0
        if level in BEGINNER_LEVELS and not beginners:
            return weights.SKILL_SUPPORT
        if level in SENIOR_LEVELS and beginners:
            return -weights.SKILL_SUPPORT
        return 0

    def preference_cost(self, e: int, d: int, s: int) -> int:
        cost = 0
        for pref in self.preferences_on.get((e, d), ()):
            if pref.kind == "day_off" or (pref.kind == "avoided_shift" and pref.shift == s):
                cost += 1
        return cost


def greedy_roster(problem: Problem) -> Roster:
    """A roster that meets as much minimum demand as a single forward pass can.

    Where the request has soft rules a pick can price (:meth:`_State.soft_cost`), two
    passes are made, one picking by those costs and one without, and the roster that
    leaves less demand unmet is kept, the priced one on a tie. Picking by soft costs took
    the first roster of generated requests of 40,000-280,000 from 15,500-39,440 to
    5,070-16,325 (mostly skill support and soft transitions), but on smaller ones it
    used scarce managers and duty holders where the plain pass kept them, and left
    more heads missing (a missing head costs more than any soft term a pick prices).
    """
    plain = _greedy(problem, priced=False)
    if not _prices_soft_terms(problem):
        return plain
    priced = _greedy(problem, priced=True)
    rows = cover_rows(problem)
    return priced if _unmet(rows, priced) <= _unmet(rows, plain) else plain


def _prices_soft_terms(problem: Problem) -> bool:
    """Whether the request has a soft rule that :meth:`_State.soft_cost` prices."""
    return (
        any(not t.hard for t in problem.transitions)
        or any(not pairing.exclude for pairing in problem.pairings)
        or problem.skill_support is not None
        or any(
            employee.days_per_week is not None
            or (employee.weekly_hours is not None and not employee.weekly_hours[1])
            for employee in problem.employees
        )
    )


def _unmet(rows: list[CoverRow], roster: Roster) -> int:
    """What the demand rows (staffing, managers, duties, cross-shift, cover targets)
    charge a roster for the heads it leaves missing."""
    worked: set[Member] = set()
    for (e, d, s), k in roster.items():
        worked.add((e, d, s, None))
        if k is not None:
            worked.add((e, d, s, k))
    return sum(
        row.under_weight * max(0, row.low - sum(1 for m in row.members if m in worked))
        for row in rows
    )


def _greedy(problem: Problem, *, priced: bool) -> Roster:
    state = _State(problem, priced=priced)
    for e, employee in enumerate(problem.employees):
        for fixed in employee.fixed:  # a fixed shift breaking a hard rule is left to the solver
            if state.can_take(e, fixed.day, fixed.shift):
                allowed = employee.duty_options.get(fixed.shift, ())
                duty = fixed.duty if fixed.duty in allowed else None
                state.place(e, fixed.day, fixed.shift, duty)
    for d in range(problem.num_days):
        for s in _shifts_by_scarcity(state, d):
            _fill_shift(state, d, s)
    _meet_count_minimums(state)
    _repair_short_runs(state)
    _meet_minute_minimums(state)
    for e in range(len(problem.employees)):
        if _replannable(problem, e) and _row_breaks(state, e):
            _replan_row(state, e)
    return state.roster


def _replannable(problem: Problem, e: int) -> bool:
    """Whether every hard rule on e's row is one of its own and :func:`_replan_row` posts
    it: benchmark rows (shiftsched.formats), free of the v1 rules that tie rows together."""
    employee = problem.employees[e]
    benchmark = (
        employee.total_minutes is not None
        or employee.consecutive_shifts is not None
        or employee.min_days_off_run > 1
        or employee.max_weekends is not None
    )
    return (
        benchmark
        and not employee.fixed
        and employee.days_per_month is None
        and employee.days_per_week is None
        and employee.weekly_hours is None
        and not any(e in pairing.employees for pairing in problem.pairings)
    )


def _row_breaks(state: _State, e: int) -> bool:
    """Whether e's row breaks a minimum the forward pass cannot see: total minutes,
    shift counts or an inner run of worked days."""
    problem = state.problem
    employee = problem.employees[e]
    if employee.total_minutes and state.total_minutes[e] < employee.total_minutes[0]:
        return True
    if any(
        limit.min is not None and state.shift_count[e, limit.shift] < limit.min
        for limit in employee.count_limits
    ):
        return True
    low, last, d = _min_run(employee), problem.num_days - 1, 0
    while d <= last:
        if (e, d) not in state.shift_on:
            d += 1
            continue
        start = d
        while (e, d + 1) in state.shift_on:
            d += 1
        if start > 0 and d < last and d - start + 1 < low:
            return True
        d += 1
    return False


# A row's search stops on CP-SAT's deterministic work, not on the clock, so the greedy
# roster is the same on any machine and under any load.
REPLAN_WORK = 0.1  # a replanned row improves its value for this much work
REPLAN_FIRST_WORK = 2.0  # and when that found no row, this much more looks for a first one
REPLAN_BACKSTOP_SECONDS = 60.0  # wall clock, only against a runaway search


def _replan_row(state: _State, e: int) -> None:
    """Replace e's row by one keeping all of e's hard rules, with the others' rows fixed:
    the model's own encoding of e alone (shiftsched.solving.model.build on a one-employee problem,
    only the families that can forbid a roster), worth most where heads are still wanted.
    The search improves the row for REPLAN_WORK; when that found none, it looks for a
    first row for REPLAN_FIRST_WORK more, hinted towards the row's ideal (then unhinted),
    and the row is left as it is without one."""
    problem = state.problem
    employee = problem.employees[e]
    days = problem.num_days
    compiled = build(one_employee(problem, e), skip=_ROW_SKIPPED)
    model = compiled.model
    for group in compiled.hard_groups:
        model.add_bool_and([group.literal])
    x = {(d, s): v for (_, d, s), v in compiled.x.items()}
    cap, rest = state.run_cap[e], employee.min_days_off_run
    if cap is not None and rest > 1:
        # Not a rule but a redundant row for the LP: a run is at most ``cap`` long and
        # two runs are ``rest`` days apart, so any ``cap + rest`` days hold at most
        # ``cap`` worked ones. Rows near their minutes minimum are dense, and this is
        # what packs them.
        worked = [
            cp_model.LinearExpr.sum([v for (day, _), v in x.items() if day == d])
            for d in range(days)
        ]
        for start in range(days - cap - rest + 1):
            model.add(cp_model.LinearExpr.sum(worked[start : start + cap + rest]) <= cap)
    model.clear_objective()  # type: ignore[no-untyped-call]
    values = {(d, s): _row_value(state, e, d, s) for (d, s) in x}
    model.maximize(cp_model.LinearExpr.weighted_sum(list(x.values()), list(values.values())))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = REPLAN_BACKSTOP_SECONDS
    solver.parameters.max_deterministic_time = REPLAN_WORK
    # The LP at its strongest: a row near its total-minutes minimum is a tight packing of
    # runs, which the default search seldom fills in time. A light presolve: on a year
    # of 32 shift types the full one alone takes over a second.
    solver.parameters.linearization_level = 2
    solver.parameters.symmetry_level = 0
    solver.parameters.cp_model_probing_level = 0
    solver.parameters.max_presolve_iterations = 1
    found = (cp_model.OPTIMAL, cp_model.FEASIBLE)
    if solver.solve(model) not in found:
        # The row taken is then the search's first, only as good as where the search
        # looks first: hint the ideal row (each day's most valuable shift, where it is
        # worth anything), which no rule limits. Unhinted, first rows of a year were
        # thousands below the best row (Curtois 22: 39 of its 40 rows replanned so).
        # A row the hint leads astray (Curtois 24 has one) is looked for again unhinted.
        _hint_ideal_row(model, x, values)
        solver.parameters.max_deterministic_time = REPLAN_FIRST_WORK
        solver.parameters.stop_after_first_solution = True
        if solver.solve(model) not in found:
            model.clear_hints()  # type: ignore[no-untyped-call]
            if solver.solve(model) not in found:
                return
    for d in range(days):
        if (e, d) in state.shift_on:
            state.unplace(e, d)
    for (d, s), v in x.items():
        if solver.boolean_value(v):
            state.place(e, d, s, _any_duty(employee, s))


def _hint_ideal_row(
    model: cp_model.CpModel,
    x: dict[tuple[int, int], cp_model.IntVar],
    values: dict[tuple[int, int], int],
) -> None:
    """Hint on each day the shift worth most (the first on a tie), when it is worth
    anything, and every other shift of the row off."""
    best: dict[int, int] = {}
    for (d, s), value in values.items():
        if value > 0 and value > values.get((d, best.get(d, -1)), 0):
            best[d] = s
    for (d, s), v in x.items():
        model.add_hint(v, best.get(d) == s)


# Rules that tie rows together or only price a roster stay out of a row's model: the
# other rows are fixed, and _replannable admits only rows whose hard rules are their own.
_ROW_SKIPPED = tuple(family.name for family in FAMILIES if not family.hard)


def _row_value(state: _State, e: int, d: int, s: int) -> int:
    """What e working shift s on day d is worth, the other rows as they are (e's own
    head not counted): a wanted head gains, a head over every target costs."""
    problem = state.problem
    others = len(state.on_shift[d, s] - {e})
    value = 0
    if others < problem.shifts[s].staffing.mins[d]:
        value += 100
    for c in state.cover_at.get((d, s), ()):
        value += c.under_weight if others < c.target else -c.over_weight
    for pref in state.preferences_on.get((e, d), ()):
        if pref.kind == "preferred_shift" and pref.shift == s:
            value += pref.weight
        elif pref.kind == "day_off" or (pref.kind == "avoided_shift" and pref.shift == s):
            value -= pref.weight
    return value


def _min_run(employee: EmployeeSpec) -> int:
    return employee.consecutive_shifts[0] if employee.consecutive_shifts else 0


def _best_shift(state: _State, e: int, d: int) -> int | None:
    """The shift of day d that e can take, where most heads are still wanted."""
    options = [s for s in state.problem.employees[e].day_options[d] if state.can_take(e, d, s)]
    if not options:
        return None
    return max(
        options,
        key=lambda s: (
            state.need[d, s] - len(state.on_shift[d, s]),
            -state.preference_cost(e, d, s),
            -s,
        ),
    )


def _add_day(state: _State, e: int, d: int) -> bool:
    if not 0 <= d < state.problem.num_days:
        return False
    s = _best_shift(state, e, d)
    if s is None:
        return False
    state.place(e, d, s, _any_duty(state.problem.employees[e], s))
    return True


def _repair_short_runs(state: _State) -> None:
    """Lengthen each run of worked days shorter than the employee's minimum, or drop it.

    Only runs with a day off on both sides inside the period count, as in the model.
    """
    problem = state.problem
    last = problem.num_days - 1
    for e, employee in enumerate(problem.employees):
        low = _min_run(employee)
        if low < 2:
            continue
        d = 0
        while d <= last:
            if (e, d) not in state.shift_on:
                d += 1
                continue
            start = d
            while (e, d + 1) in state.shift_on:
                d += 1
            end = d
            if start > 0 and end < last and end - start + 1 < low:
                start, end = _lengthen(state, e, start, end, low)
                if start > 0 and end < last and end - start + 1 < low:
                    for day in range(start, end + 1):
                        state.unplace(e, day)
            d = end + 1


def _lengthen(state: _State, e: int, start: int, end: int, low: int) -> tuple[int, int]:
    """Add days after, then before, the run [start, end] until it is ``low`` long or
    touches an edge of the period; undo the additions, and return the run as it was,
    when it cannot."""
    last = state.problem.num_days - 1
    first, final = start, end
    added: list[int] = []
    while end - start + 1 < low and start > 0 and end < last:
        if _add_day(state, e, end + 1):
            end += 1
            added.append(end)
        elif _add_day(state, e, start - 1):
            start -= 1
            added.append(start)
        else:
            break
        while (e, end + 1) in state.shift_on:  # it may have joined the next run
            end += 1
        while (e, start - 1) in state.shift_on:
            start -= 1
    if start > 0 and end < last and end - start + 1 < low:
        for day in added:
            state.unplace(e, day)
        return first, final
    return start, end


def _meet_minute_minimums(state: _State) -> None:
    """Top up total-minutes minimums: first by lengthening runs (no new short run), then
    with new runs of the minimum length, on days where every checked rule still holds."""
    problem = state.problem
    for e, employee in enumerate(problem.employees):
        if employee.total_minutes is None:
            continue
        low = max(1, _min_run(employee))
        extensions = _Extensions(state, e)
        while state.total_minutes[e] < employee.total_minutes[0]:
            if extensions.extend():
                continue
            if not _new_run(state, e, low):
                break
            extensions = _Extensions(state, e)


class _Extensions:
    """One employee's extensions of a run: work one more day next to a worked day, where
    most heads are still wanted (the earliest such day on a tie).

    The candidates sit in a heap instead of being rescanned after each added day. While
    days are only added to this row, a day's best extension can only get worse (totals
    and counts grow, every other row stands still), except on the two days next to the
    day added, which are rescored; so the top of the heap, rescored and unchanged, is
    the best extension of a full scan.
    """

    def __init__(self, state: _State, e: int) -> None:
        self.state, self.e = state, e
        self.heap: list[tuple[int, int, int]] = []  # (-gap, day, shift)
        for d in range(state.problem.num_days):
            self._push(d)

    def _best(self, d: int) -> tuple[int, int] | None:
        """(gap, shift) of the best extension on day d, or None."""
        state, e = self.state, self.e
        if not 0 <= d < state.problem.num_days or (e, d) in state.shift_on:
            return None
        if (e, d - 1) not in state.shift_on and (e, d + 1) not in state.shift_on:
            return None
        s = _best_shift(state, e, d)
        if s is None:
            return None
        return state.need[d, s] - len(state.on_shift[d, s]), s

    def _push(self, d: int) -> None:
        best = self._best(d)
        if best is not None:
            heapq.heappush(self.heap, (-best[0], d, best[1]))

    def extend(self) -> bool:
        state, e = self.state, self.e
        while self.heap:
            negative_gap, d, s = heapq.heappop(self.heap)
            now = self._best(d)
            if now is None:
                continue
            if now != (-negative_gap, s):
                heapq.heappush(self.heap, (-now[0], d, now[1]))
                continue
            state.place(e, d, s, _any_duty(state.problem.employees[e], s))
            self._push(d - 1)
            self._push(d + 1)
            return True
        return False


def _new_run(state: _State, e: int, low: int) -> bool:
    """Work a new run of ``low`` days between days off, where it fits."""
    last = state.problem.num_days - 1
    for start in range(last + 1):
        if (e, start - 1) in state.shift_on:
            continue
        added: list[int] = []
        for d in range(start, start + low):
            if d > last or not _add_day(state, e, d):
                break
            added.append(d)
        end = start + len(added) - 1
        while (e, end + 1) in state.shift_on:
            end += 1
        if added and (len(added) == low or end == last or end - start + 1 >= low):
            return True
        for d in added:
            state.unplace(e, d)
    return False


def _meet_count_minimums(state: _State) -> None:
    """Top up shift count minimums on free days (an extra head costs little).

    A roster that misses a hard minimum cannot be completed into a full hint
    (shiftsched.solving.solve.complete_hint), and the search then starts from scratch.
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
            if state.shift_count[e, limit.shift] < limit.min:
                _trade_into(state, e, limit.shift, limit.min)


def _trade_into(state: _State, e: int, s: int, minimum: int) -> None:
    """Trade e's worked days of other shifts for shift s until e works it ``minimum``
    times, when free days were not enough (a month's maximum reached, say): the days
    whose shift has most heads to spare first, never a fixed day, nor a shift another
    minimum of e's still needs. A head moved may leave demand short; a minimum missed
    leaves no start at all."""
    problem = state.problem
    employee = problem.employees[e]
    fixed = {f.day for f in employee.fixed}
    worked = [
        d for d in range(problem.num_days) if state.shift_on.get((e, d), s) != s and d not in fixed
    ]

    def spare(d: int) -> int:
        other = state.shift_on[e, d]
        return len(state.on_shift[d, other]) - state.need[d, other]

    for d in sorted(worked, key=spare, reverse=True):
        if state.shift_count[e, s] >= minimum:
            return
        other = state.shift_on[e, d]
        if any(
            limit.shift == other
            and limit.min is not None
            and state.shift_count[e, other] <= limit.min
            for limit in employee.count_limits
        ):
            continue
        duty = state.roster[e, d, other]
        state.unplace(e, d)
        if state.can_take(e, d, s):
            state.place(e, d, s, _any_duty(employee, s))
        else:
            state.place(e, d, other, duty)


def _any_duty(employee: EmployeeSpec, s: int) -> int | None:
    """A duty the employee may hold on the shift, when the shift has duties."""
    duties = employee.duty_options.get(s, ())
    return duties[0] if duties else None


def _shifts_by_scarcity(state: _State, d: int) -> list[int]:
    """Shifts with the fewest candidates per required head first (heads wanted: the
    staffing minimum plus any weighted cover target)."""
    problem = state.problem

    def candidates_per_head(s: int) -> float:
        need = state.need[d, s]
        pool = sum(1 for employee in problem.employees if s in employee.day_options[d])
        return pool / need if need else float("inf")

    return sorted(range(len(problem.shifts)), key=candidates_per_head)


def _pick(state: _State, d: int, s: int, wanted: list[int], duty: int | None = None) -> int | None:
    """The best candidate among ``wanted``: below a count minimum of this shift first,
    then no unmet wish, then least soft cost, then fewest days worked so far."""
    ranked = _ranked(state, d, s, wanted, duty)
    return ranked[0] if ranked else None


def _ranked(state: _State, d: int, s: int, wanted: list[int], duty: int | None = None) -> list[int]:
    """The candidates among ``wanted`` who can take the shift, best first (see _pick)."""
    ok = [e for e in wanted if state.can_take(e, d, s)]
    return sorted(
        ok,
        key=lambda e: (
            not state.below_minimum(e, s),
            not 0 < state.run_before(e, d) < _min_run(state.problem.employees[e]),
            not state.continues_run(e, d),
            state.preference_cost(e, d, s),
            state.soft_cost(e, d, s, duty),
            state.days_worked[e],
            e,
        ),
    )


def _fill_shift(state: _State, d: int, s: int) -> None:
    problem = state.problem
    employees = problem.employees
    duties_here = [
        (k, max(duty.demand[s].mins[d], state.duty_target.get((d, s, k), 0)))
        for k, duty in enumerate(problem.duties)
        if s in duty.demand
    ]
    # Scarcest duty first: fewest possible holders.
    duties_here.sort(key=lambda kd: sum(1 for e in employees if kd[0] in e.duty_options.get(s, ())))
    for k, need in duties_here:
        held = sum(1 for e in state.on_shift[d, s] if state.roster[e, d, s] == k)
        for _ in range(need - held):
            holders = [e for e, emp in enumerate(employees) if k in emp.duty_options.get(s, ())]
            e = _pick(state, d, s, holders, k)
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
    missing = state.need[d, s] - len(state.on_shift[d, s])
    if missing <= 0:
        return
    everyone = list(range(len(employees)))
    if state.priced and (problem.skill_support is not None or state.partners):
        # A senior placed supports the beginners after them, a partner placed makes
        # the other welcome: each head changes the others' keys, so pick head by head.
        for _ in range(missing):
            e = _pick(state, d, s, everyone)
            if e is None:
                break
            state.place(e, d, s, None)
        return
    # What _pick would choose head after head: placing one employee changes no other
    # employee's key, and can only rule others out (exclude pairings), so the picks are
    # the candidates in key order, each checked again when its turn comes.
    for e in _ranked(state, d, s, everyone):
        if missing <= 0:
            break
        if state.can_take(e, d, s):
            state.place(e, d, s, None)
            missing -= 1


def roster_assignments(problem: Problem, roster: Roster) -> list[Assignment]:
    """A greedy roster as v1 assignments, in the order the engine reports them."""
    assignments = [
        Assignment(
            employee_id=problem.employees[e].id,
            date=problem.horizon.dates[d],
            shift_id=problem.shifts[s].id,
            duty_id=problem.duties[k].id if k is not None else None,
        )
        for (e, d, s), k in roster.items()
    ]
    assignments.sort(key=lambda a: (a.date, a.shift_id, a.employee_id))
    return assignments
