"""Creates the decision variables and runs every constraint family over them.

Variables exist only where they can be 1: ``x[e, d, s]`` for each shift option of an
employee on a day (see :mod:`shiftsched.solving.problem`), ``y[e, d, s, k]`` for each duty the
employee may hold on that shift. Assignability, weekdays, holidays, skill level 0 and
duties missing from a shift are therefore enforced by absence, which also keeps the model
small. Two structural rules hold everywhere: at most one shift per employee and date, and
at most one duty per assignment.

``build(problem, prune=False)`` is the plain formulation the benchmarks compare against
(benchmarks/baselines.py): the full tensor of ``x`` for every employee, day and shift and
``y`` for every duty on every shift, with each option the problem rules out posted as an
explicit ``var == 0``. Families that iterate options ask the context
(:meth:`ModelContext.shift_options`), so they see the full tensor too. Same rules, same
objective, so the two optima are equal; only the encoding differs.
"""

from __future__ import annotations

from collections.abc import Iterable

from ortools.sat.python import cp_model

from shiftsched.solving.model.context import (
    CompiledModel,
    ModelContext,
    Var,
    bool_var_factory,
)
from shiftsched.solving.model.registry import FAMILIES, family_named
from shiftsched.solving.problem import Problem
from shiftsched.solving.specs import Gate

__all__ = ["CompiledModel", "ModelContext", "build"]


def build(
    problem: Problem,
    skip: Iterable[str] = (),
    *,
    prune: bool = True,
    implied_rows: bool = True,
) -> CompiledModel:
    """Build the full model; ``skip`` leaves out whole families by name
    (:data:`shiftsched.solving.model.registry.FAMILIES`), and a name that is no family is refused
    (ValueError).

    ``prune=False`` builds the plain full-tensor formulation (see the module docstring).
    ``implied_rows=False`` leaves out the redundant rows that only tighten the LP
    relaxation (:class:`shiftsched.solving.model.terms.ImpliedRow`); they add no variable, so the
    two models index their variables alike.
    """
    ctx = ModelContext(problem, prune=prune, implied_rows=implied_rows)
    if prune:
        _add_variables(ctx)
    else:
        _add_all_variables(ctx)
    skipped = {family_named(name).name for name in skip}  # a misspelt name is refused
    for family in FAMILIES:
        if family.post is not None and family.name not in skipped:
            family.post(ctx)
    ctx.model.minimize(
        cp_model.LinearExpr.weighted_sum(
            [t.magnitude for t in ctx.terms], [t.weight for t in ctx.terms]
        )
    )
    return CompiledModel(
        ctx.model,
        problem,
        ctx.x,
        ctx.y,
        ctx.hard_groups,
        ctx.terms,
        ctx.shortages,
        ctx.definitions,
        ctx.implied,
    )


def _add_variables(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    new_bool = bool_var_factory(model)
    x_of, staff, work = ctx.x, ctx.staff, ctx.work  # hot loop: one lookup each, not per var
    for e, employee in enumerate(problem.employees):
        duty_options, day_gates, eid = employee.duty_options, employee.day_gates, employee.id
        for d, options in enumerate(employee.day_options):
            if not options:
                continue
            day_vars = []
            for s in options:
                x = new_bool(f"x[{eid},{d},{s}]")
                x_of[e, d, s] = x
                staff[d, s].append((e, x))
                day_vars.append(x)
                if day_gates:
                    for gate in day_gates.get((d, s), ()):
                        _close(ctx, gate, eid, x)
                duties = duty_options.get(s, ())
                if duties:
                    ys = []
                    for k in duties:
                        y = new_bool("")
                        ctx.y[e, d, s, k] = y
                        ctx.holders[d, s, k].append((e, y))
                        ys.append(y)
                        duty_gate = employee.duty_gates.get((s, k))
                        if duty_gate is not None:
                            _close(ctx, duty_gate, eid, y)
                    # At most one duty per assignment, and only while assigned.
                    model.add(cp_model.LinearExpr.sum(ys) <= x)
            if len(day_vars) == 1:
                work[e, d] = day_vars[0]
            else:
                # works == sum of shift literals: at most one shift per date.
                w = new_bool(f"w[{eid},{d}]")
                model.add_exactly_one([*day_vars, ~w])
                work[e, d] = ctx.define(w, cp_model.LinearExpr.sum(day_vars))


def _add_all_variables(ctx: ModelContext) -> None:
    """The full tensor: options the problem rules out exist too, posted as ``var == 0``.

    Forbidden options are read off the problem's option sets, so every eligibility rule
    (assignability, weekdays, holidays, fixed-day shifts, skill level 0, duties absent
    from a shift, and any rule an importer folds into the options) becomes one explicit
    constraint per variable it forbids.
    """
    model, problem = ctx.model, ctx.problem
    new_bool = model.new_bool_var
    num_shifts, num_duties = len(problem.shifts), len(problem.duties)
    for e, employee in enumerate(problem.employees):
        for d, options in enumerate(employee.day_options):
            day_vars = []
            for s in range(num_shifts):
                x = new_bool(f"x[{employee.id},{d},{s}]")
                ctx.x[e, d, s] = x
                ctx.staff[d, s].append((e, x))
                day_vars.append(x)
                if s not in options:
                    model.add(x == 0)
                for gate in employee.day_gates.get((d, s), ()):
                    _close(ctx, gate, employee.id, x)
                if not num_duties:
                    continue
                allowed = employee.duty_options.get(s, ())
                ys = []
                for k in range(num_duties):
                    y = new_bool("")
                    ctx.y[e, d, s, k] = y
                    ctx.holders[d, s, k].append((e, y))
                    ys.append(y)
                    if k not in allowed:
                        model.add(y == 0)
                    duty_gate = employee.duty_gates.get((s, k))
                    if duty_gate is not None:
                        _close(ctx, duty_gate, employee.id, y)
                model.add(cp_model.LinearExpr.sum(ys) <= x)
            if len(day_vars) == 1:
                ctx.work[e, d] = day_vars[0]
            else:
                w = new_bool(f"w[{employee.id},{d}]")
                model.add_exactly_one([*day_vars, ~w])
                ctx.work[e, d] = ctx.define(w, cp_model.LinearExpr.sum(day_vars))


def _close(ctx: ModelContext, gate: Gate, employee_id: str, option: Var) -> None:
    """Diagnostic problems: an eligibility rule as a relaxable group that forbids the option."""
    subject = None if gate.family == "holiday" else employee_id
    literal = ctx.hard_group(gate.family, gate.field, subject)
    ctx.model.add_implication(literal, ~option)
