"""Weighted cover targets (soft), as in the Curtois & Qu benchmark.

``Problem.cover``: for each (day, shift) target ``t`` with weights ``u`` and ``o``, the
heads on that shift ``n`` cost ``u x max(0, t - n)`` under ``cover_under:<shift>:<date>``
and ``o x max(0, n - t)`` under ``cover_over:<shift>:<date>``. Both slacks sit in one
equality ``n + under - over = t`` (minimization keeps one of them 0); a side with weight
0 or that cannot occur gets no variable. Missing heads are also shortage markers (kind
``staffing``), priced by ``u`` here instead of the v1 SHORTAGE weight.

A target with a duty (``CoverSpec.duty``) counts the holders of that duty on the shift,
named ``cover_under:<shift>:<duty>:<date>`` (and ``cover_over:...``); it adds no shortage
marker, since a duty's own minimum (shiftsched.solving.model.coverage) reports its shortage.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from shiftsched.solving.model.context import ModelContext
from shiftsched.solving.model.family import RuleFamily
from shiftsched.solving.model.terms import ShortageSlot


def add_cover(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    for c in problem.cover:
        if c.duty is None:
            heads = [v for _, v in ctx.staff.get((c.day, c.shift), [])]
            key = f"{problem.shifts[c.shift].id}:{problem.date_key(c.day)}"
        else:
            heads = [v for _, v in ctx.holders.get((c.day, c.shift, c.duty), [])]
            duty = problem.duties[c.duty].id
            key = f"{problem.shifts[c.shift].id}:{duty}:{problem.date_key(c.day)}"
        assigned = cp_model.LinearExpr.sum(heads)
        slacks: list[cp_model.IntVar] = []
        signs: list[int] = []
        under_possible = c.under_weight > 0 and c.target > 0
        over_possible = c.over_weight > 0 and len(heads) > c.target
        if under_possible:
            under = model.new_int_var(max(0, c.target - len(heads)), c.target, f"under[{key}]")
            ctx.define(under, c.target - assigned)
            slacks.append(under)
            signs.append(1)
            ctx.penalize(f"cover_under:{key}", "cover_under", c.under_weight, under, "head")
            if c.duty is None:
                ctx.shortages.append(
                    ShortageSlot(
                        "staffing", c.day, c.shift, None, None, 0, c.target, assigned, under
                    )
                )
        if over_possible:
            over = model.new_int_var(0, len(heads) - c.target, f"over[{key}]")
            ctx.define(over, assigned - c.target)
            slacks.append(over)
            signs.append(-1)
            ctx.penalize(f"cover_over:{key}", "cover_over", c.over_weight, over, "head")
        balance = cp_model.LinearExpr.weighted_sum([*heads, *slacks], [1] * len(heads) + signs)
        if under_possible and over_possible:
            model.add(balance == c.target)
        elif under_possible:
            model.add(balance >= c.target)
        elif over_possible:
            model.add(balance <= c.target)


COVER = RuleFamily(
    "cover",
    "weighted cover targets (imported benchmarks)",
    add_cover,
    hard=False,
    soft_terms=("cover_under:", "cover_over:"),
)
