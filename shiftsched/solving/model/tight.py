"""Price a roster exactly from its decisions, whatever the search left in the slack.

A roster the search stopped on (time limit, a stopped job, an overrun) may carry slack
that is not yet tight: a shortage of 1 where every head is assigned, a penalty that
should be 0. Each family declares, beside the rows it posts, the least value of every
auxiliary it adds (:class:`shiftsched.solving.model.terms.SlackDefinition`). Setting each one to
that value, in the order they were declared, gives the cheapest completion of the roster's
decisions; reading the penalty terms and shortage slots from it prices the roster
exactly. This is pure arithmetic over the model's rows, so it cannot run out of time.
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.model.terms import Expr, SlackDefinition


def evaluate(expression: Expr, values: Sequence[int]) -> int:
    """The value of a linear expression under an assignment indexed like the model."""
    if not isinstance(expression, cp_model.LinearExpr):
        return int(expression)  # a constant term (a preference that cannot be met)
    flat = cp_model.FlatIntExpr(expression)
    total: int = flat.offset
    for var, coefficient in zip(flat.vars, flat.coeffs, strict=True):
        total += coefficient * values[var.index]
    return total


def least_value(definition: SlackDefinition, values: Sequence[int]) -> int:
    """``max(0, ceil(lower / divisor))`` over the definition's lower bounds."""
    divisor = definition.divisor
    return max(0, *(-(-evaluate(lower, values) // divisor) for lower in definition.lowers))


def tight_values(compiled: CompiledModel, solution: Sequence[int]) -> list[int]:
    """``solution`` with every defined auxiliary lowered to its least value.

    Only the shift and duty decisions are read from ``solution``; every auxiliary a
    penalty term or a shortage reads (the ``works`` literals included) is recomputed.
    """
    values = list(solution)
    for definition in compiled.definitions:
        values[definition.var.index] = least_value(definition, values)
    return values
