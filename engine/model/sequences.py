"""Sequences over consecutive dates: run lengths and shift transitions.

Consecutive working days, cap N (``max_consecutive_working_days``, default 6):
- hard: every window of N+1 consecutive dates has at most N worked dates (one group per
  employee, field ``constraints.max_consecutive_working_days``);
- soft (N >= 2): every window of N consecutive dates all worked costs CONSECUTIVE_DAYS
  under ``consecutive_days:<employee>``, i.e. a preferred cap of N-1.
Windows containing a date the employee cannot work are skipped: they cannot violate.
A problem with no cap (``max_consecutive_days`` None) gets neither.

Shift transitions on dates d, d+1 (a shift belongs to its start date):
- forbid: an occurrence is ``from`` on d and ``to`` on d+1;
- require: an occurrence is ``from`` on d without ``to`` on d+1 (the last date of the
  period has no successor and never counts).
Hard transitions are a group per (transition, employee); soft ones cost SHIFT_TRANSITION
per occurrence under ``shift_transition:<rule>:<from>:<to>:<employee>``.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from engine.model import weights
from engine.model.build import ModelContext, Var
from engine.model.terms import Expr
from engine.problem import TransitionSpec

CONSECUTIVE_FAMILY = "max_consecutive_days"
TRANSITION_FAMILY = "shift_transition"


def add_consecutive_days(ctx: ModelContext) -> None:
    problem, model = ctx.problem, ctx.model
    cap = problem.max_consecutive_days
    if cap is None:  # no period-wide cap (benchmark problems): neither hard nor soft
        return
    for e, employee in enumerate(problem.employees):
        works = [ctx.works(e, d) for d in range(problem.num_days)]
        hard_windows = _full_windows(works, cap + 1)
        if hard_windows:
            literal = ctx.hard_group(
                CONSECUTIVE_FAMILY, "constraints.max_consecutive_working_days", employee.id
            )
            for window in hard_windows:
                model.add(cp_model.LinearExpr.sum(window) <= cap).only_enforce_if(literal)
        if cap < 2:
            continue
        violations: list[Var] = []
        for window in _full_windows(works, cap):
            # v is forced to 1 when every date of the window is worked.
            v = model.new_bool_var("")
            model.add_bool_or([*(~w for w in window), v])
            violations.append(ctx.define(v, cp_model.LinearExpr.sum(window) - (len(window) - 1)))
        if violations:
            ctx.penalize(
                f"consecutive_days:{employee.id}",
                "consecutive_days",
                weights.CONSECUTIVE_DAYS,
                cp_model.LinearExpr.sum(violations),
                "window",
            )


def _full_windows(works: list[Var | None], length: int) -> list[list[Var]]:
    """Windows of ``length`` consecutive days on which every day is workable."""
    windows = []
    run_start = 0
    for d, w in enumerate(works):
        if w is None:
            run_start = d + 1
        elif d - run_start + 1 >= length:
            windows.append([v for v in works[d - length + 1 : d + 1] if v is not None])
    return windows


def add_shift_transitions(ctx: ModelContext) -> None:
    for transition in ctx.problem.transitions:
        for e in range(len(ctx.problem.employees)):
            _add_transition(ctx, transition, e)


def _add_transition(ctx: ModelContext, t: TransitionSpec, e: int) -> None:
    model, problem = ctx.model, ctx.problem
    employee = problem.employees[e]
    pairs = [
        (ctx.shift_var(e, d, t.from_shift), ctx.shift_var(e, d + 1, t.to_shift))
        for d in range(problem.num_days - 1)
    ]
    # Only pairs where an occurrence is possible matter.
    live: list[tuple[Var, Var | None]] = [
        (a, b) for a, b in pairs if a is not None and (b is not None or not t.forbid)
    ]
    if not live:
        return
    if t.hard:
        literal = ctx.hard_group(
            TRANSITION_FAMILY, f"constraints.shift_transitions[{t.index}]", employee.id
        )
        for a, b in live:
            if b is None:
                model.add_bool_or([~a]).only_enforce_if(literal)
            elif t.forbid:
                model.add_bool_or([~a, ~b]).only_enforce_if(literal)
            else:
                model.add_implication(a, b).only_enforce_if(literal)
        return
    occurrences: list[Expr] = []
    for a, b in live:
        if b is None:  # require with no possible successor: the occurrence is a itself
            occurrences.append(a)
            continue
        v = model.new_bool_var("")
        model.add_bool_or([~a, ~b if t.forbid else b, v])
        occurrences.append(ctx.define(v, a + b - 1 if t.forbid else a - b))
    ctx.penalize(
        f"{t.name}:{employee.id}",
        TRANSITION_FAMILY,
        weights.SHIFT_TRANSITION,
        cp_model.LinearExpr.sum(occurrences),
        "occurrence",
    )
