"""Rosters from the columns: the restricted master solved as an integer problem.

Column generation leaves, for each employee, a set of rosters that keep the employee's
own rules, chosen because the LP's prices made them attractive. Choosing exactly one per
employee so that the cover rows cost least is a small integer problem (CP-SAT, one
Boolean per column); its answer covers demand from the start, which is what the full
model's search struggles to find on long horizons. Rules that tie employees together
(pairings, skill support, fairness) are not seen here: the caller completes the choice
into the full model, which refuses a combination that breaks one.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ortools.sat.python import cp_model

from shiftsched.solving.decompose.pricing import Column, deterministic_solver
from shiftsched.solving.decompose.rows import CoverRow, Member
from shiftsched.solving.search.stopping import stopping


def best_combination(
    employees: int,
    rows: Sequence[CoverRow],
    columns: Sequence[Column],
    *,
    work: float,
    seconds: float,
    stop: threading.Event | None = None,
    hint: Sequence[Column] | None = None,
) -> tuple[list[Column], int] | None:
    """One column per employee with the least total cost, and that cost; None when no
    combination was found within ``work`` deterministic seconds (``seconds`` of wall
    clock as a backstop)."""
    model = cp_model.CpModel()
    chosen: list[list[tuple[cp_model.IntVar, Column]]] = [[] for _ in range(employees)]
    hinted = {(c.employee, c.cells) for c in hint or ()}
    heads: dict[Member, list[cp_model.IntVar]] = {}
    costs: list[tuple[cp_model.IntVar, int]] = []
    for column in columns:
        if not column.kept:
            continue  # a path that breaks a rule over the period: only the LP mixes it
        z = model.new_bool_var("")
        chosen[column.employee].append((z, column))
        if hint is not None:
            model.add_hint(z, (column.employee, column.cells) in hinted)
        for member in column.members():
            heads.setdefault(member, []).append(z)
        if column.cost:
            costs.append((z, column.cost))
    if any(not options for options in chosen):
        return None
    for options in chosen:
        model.add_exactly_one(z for z, _ in options)
    for row in rows:
        literals = [z for member in row.members for z in heads.get(member, ())]
        if not literals:
            if row.low:
                costs.append((model.new_constant(1), row.cost(0)))
            continue
        count = cp_model.LinearExpr.sum(literals)
        if row.low > 0:
            under = model.new_int_var(0, row.low, "")
            model.add(under >= row.low - count)
            costs.append((under, row.under_weight))
        if row.high is not None and len(literals) > row.high:
            over = model.new_int_var(0, len(literals) - row.high, "")
            model.add(over >= count - row.high)
            costs.append((over, row.over_weight))
    model.minimize(cp_model.LinearExpr.weighted_sum([v for v, _ in costs], [w for _, w in costs]))
    solver = deterministic_solver(work, seconds)
    with stopping(stop, solver.stop_search):
        status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    picked = [next(c for z, c in options if solver.boolean_value(z)) for options in chosen]
    return picked, round(solver.objective_value)
