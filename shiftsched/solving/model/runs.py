"""Soft bounds on runs of consecutive days, carried over from the seam (soft).

Three families of one shape, set only by importers (INRC-II, docs/inrc2.md):

- ``work_runs`` (``EmployeeSpec.work_runs``): runs of worked days; the seam's
  ``worked_run`` days lead the first one;
- ``off_runs`` (``EmployeeSpec.off_runs``): runs of days off, led by ``seam.off_run``; a
  day without options is a day off;
- ``shift_runs`` (``EmployeeSpec.shift_runs``): runs of one shift type, led by
  ``seam.shift_run`` when ``seam.last_shift`` is that shift.

With bounds ``(low, high, weight)``, a run costs, in days, priced ``weight`` each:

- every day of the period on which the run is longer than ``high`` (a run the seam
  leaves already longer pays only for the days inside the period);
- ``low - length`` when the run ends inside the period, i.e. the next day is of the
  other kind and lies in the period too; that includes the seam's run when day 0 ends
  it;
- a run still open on the last day is not checked against ``low``: the days that would
  complete it are not planned.

These are the competition's rules (shiftsched.formats.inrc2_eval.run_violations), so a
week priced here from the history the previous weeks left costs what the evaluator
charges that week. Encoding: for the maximum, each window of ``high + 1`` days ending
inside the period that could be all on has an indicator ``v >= on-days - high``; for
the minimum, each pattern "off, on x L, off" (L < low, the last off day inside the
period) has an indicator ``p >= its literals - (count - 1)`` priced ``low - L``. Both
are declared (``ctx.at_least``), so a roster is priced exactly from its decisions.
Terms: ``work_runs:<employee>``, ``off_runs:<employee>``,
``shift_runs:<shift>:<employee>``, in days.
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from shiftsched.solving.model.context import ModelContext, Var
from shiftsched.solving.model.family import RuleFamily
from shiftsched.solving.model.terms import Expr
from shiftsched.solving.specs import RunBounds

# A day's state in a run: a literal that is 1 when the day is "on", or a constant.
Day = Var | cp_model.LinearExpr | int


def _on(literal: Var | None) -> Day:
    return 0 if literal is None else literal


def _off(literal: Var | None) -> Day:
    return 1 if literal is None else 1 - literal


def run_cost(ctx: ModelContext, days: Sequence[Day], carried: int, bounds: RunBounds) -> Expr:
    """The days of violation of ``bounds`` by the runs of ``days``, ``carried`` on-days
    leading them (the seam), as an expression over declared indicators."""
    parts: list[Expr] = []
    parts += _over_maximum(ctx, days, carried, bounds.high)
    parts += _under_minimum(ctx, days, carried, bounds.low)
    return cp_model.LinearExpr.sum(parts) if parts else 0


def _over_maximum(ctx: ModelContext, days: Sequence[Day], carried: int, high: int) -> list[Expr]:
    """One indicator per day d that ends a window of ``high + 1`` on-days."""
    found: list[Expr] = []
    for d in range(len(days)):
        first = d - high  # the window is days first..d; days before 0 are the seam's
        if first < -carried:
            continue  # the day before the seam's run is off: the window cannot be all on
        window = [days[j] for j in range(max(0, first), d + 1)]
        if any(isinstance(v, int) and v == 0 for v in window):
            continue
        known = -min(0, first) + sum(1 for v in window if isinstance(v, int))
        literals = [v for v in window if not isinstance(v, int)]
        lower = cp_model.LinearExpr.sum(literals) + known - high
        found.append(ctx.at_least(lower, 0, 1, "run_over"))
    return found


def _under_minimum(ctx: ModelContext, days: Sequence[Day], carried: int, low: int) -> list[Expr]:
    """Each run that ends inside the period shorter than ``low``, priced ``low - L``."""
    found: list[Expr] = []
    n = len(days)
    for end in range(-1, n - 1):  # the run's last day; end + 1 (off) is in the period
        patterns: list[tuple[int, list[Day]]] = []
        if end == -1:
            if 0 < carried < low:
                patterns.append((carried, []))
        else:
            for length in range(1, low):
                start = end - length + 1
                if start > 0:
                    patterns.append((length, [_negate(days[start - 1])]))
                elif start == 0 and carried == 0:
                    patterns.append((length, []))
            if carried and end + 1 + carried < low:  # the seam's run, still going
                patterns.append((end + 1 + carried, []))
        for length, before in patterns:
            inside = [days[j] for j in range(max(0, end - length + 1), end + 1)]
            states = [*before, *inside, _negate(days[end + 1])]
            indicator = _all_of(ctx, states)
            if indicator is not None:
                found.append((low - length) * indicator)
    return found


def _negate(day: Day) -> Day:
    return 1 - day


def _all_of(ctx: ModelContext, states: list[Day]) -> Expr | None:
    """1 when every state is on: a constant, or a declared indicator; None when never."""
    if any(isinstance(v, int) and v == 0 for v in states):
        return None
    literals = [v for v in states if not isinstance(v, int)]
    if not literals:
        return 1
    lower = cp_model.LinearExpr.sum(literals) - (len(literals) - 1)
    return ctx.at_least(lower, 0, 1, "run_short")


def add_work_runs(ctx: ModelContext) -> None:
    problem = ctx.problem
    for e, employee in enumerate(problem.employees):
        if employee.work_runs is None:
            continue
        days = [_on(ctx.works(e, d)) for d in range(problem.num_days)]
        carried = employee.seam.worked_run
        cost = run_cost(ctx, days, carried, employee.work_runs)
        ctx.penalize(
            f"work_runs:{employee.id}", "work_runs", employee.work_runs.weight, cost, "day"
        )


def add_off_runs(ctx: ModelContext) -> None:
    problem = ctx.problem
    for e, employee in enumerate(problem.employees):
        if employee.off_runs is None:
            continue
        days = [_off(ctx.works(e, d)) for d in range(problem.num_days)]
        carried = employee.seam.off_run
        cost = run_cost(ctx, days, carried, employee.off_runs)
        ctx.penalize(f"off_runs:{employee.id}", "off_runs", employee.off_runs.weight, cost, "day")


def add_shift_runs(ctx: ModelContext) -> None:
    problem = ctx.problem
    for e, employee in enumerate(problem.employees):
        seam = employee.seam
        for s, bounds in employee.shift_runs:
            days = [_on(ctx.shift_var(e, d, s)) for d in range(problem.num_days)]
            carried = seam.shift_run if seam.last_shift == s else 0
            cost = run_cost(ctx, days, carried, bounds)
            name = f"shift_runs:{problem.shifts[s].id}:{employee.id}"
            ctx.penalize(name, "shift_runs", bounds.weight, cost, "day")


WORK_RUNS = RuleFamily(
    "work_runs",
    "soft bounds on runs of worked days (imported benchmarks)",
    add_work_runs,
    hard=False,
    soft_terms=("work_runs:",),
)
OFF_RUNS = RuleFamily(
    "off_runs",
    "soft bounds on runs of days off (imported benchmarks)",
    add_off_runs,
    hard=False,
    soft_terms=("off_runs:",),
)
SHIFT_RUNS = RuleFamily(
    "shift_runs",
    "soft bounds on runs of one shift type (imported benchmarks)",
    add_shift_runs,
    hard=False,
    soft_terms=("shift_runs:",),
)
