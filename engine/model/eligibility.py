"""Eligibility: who may work which shift and duty on which day.

Assignability, available weekdays, holidays, skill level 0 and duties absent from a shift
are enforced by *absence*: the builder creates no variable for them (engine.problem
computes each employee's options), which is both exact and the cheapest encoding.

Fixed assignments are posted here, one hard group per item (field
``employees[i].fixed_assignments[j]``): the shift (and the duty, when named) must be
worked. A fixed assignment that eligibility rules out cannot hold, so its group literal
is forced false, which makes the conflict visible to diagnosis instead of silent.
"""

from __future__ import annotations

from engine.model.context import ModelContext

FAMILY = "fixed_assignment"


def add_fixed_assignments(ctx: ModelContext) -> None:
    model = ctx.model
    for e, employee in enumerate(ctx.problem.employees):
        for fixed in employee.fixed:
            literal = ctx.hard_group(FAMILY, fixed.field)
            x = ctx.x.get((e, fixed.day, fixed.shift))
            y = (
                ctx.y.get((e, fixed.day, fixed.shift, fixed.duty))
                if fixed.duty is not None
                else None
            )
            if x is None or (fixed.duty is not None and y is None):
                model.add_bool_or([~literal])
                continue
            model.add_implication(literal, x)
            if y is not None:
                model.add_implication(literal, y)
