"""A benchmark row the greedy passes leave below a minimum, replanned alone.

The row is solved by the model's own encoding of that employee's rules
(shiftsched.solving.model.build on a one-employee problem), the other rows fixed; its search
stops on CP-SAT's deterministic work, so the whole roster is the same on any machine.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from shiftsched.solving.greedy_state import State
from shiftsched.solving.greedy_views import any_duty, min_run
from shiftsched.solving.model.build import build
from shiftsched.solving.model.registry import FAMILIES
from shiftsched.solving.problem import Problem, one_employee


def replannable(problem: Problem, e: int) -> bool:
    """Whether every hard rule on e's row is one of its own and :func:`replan_row` posts
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


def row_breaks(state: State, e: int) -> bool:
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
    low, last, d = min_run(employee), problem.num_days - 1, 0
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


def replan_row(state: State, e: int) -> None:
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
            state.place(e, d, s, any_duty(employee, s))


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
# other rows are fixed, and replannable admits only rows whose hard rules are their own.
_ROW_SKIPPED = tuple(family.name for family in FAMILIES if not family.hard)


def _row_value(state: State, e: int, d: int, s: int) -> int:
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
