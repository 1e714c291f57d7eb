"""Per-employee bounds on runs of consecutive worked days (hard).

``EmployeeSpec.consecutive_shifts = (low, high)``, one group per employee (field
``<employee>.consecutive_shifts``):

- ``high``: no run of more than ``high`` worked days: every window of ``high + 1``
  consecutive days has a day off (a clause over the window's work literals).
- ``low``: no run of ``1..low-1`` worked days *between two days off inside the period*:
  each such pattern ``off, on x k, off`` is a forbidden clause. A run touching the first
  or last day of the period is exempt, because the days beyond it are unknown; this is
  the published model of the Curtois & Qu benchmark (its constraint ranges over
  ``d = 1..h-(s+1)``), the one its best-known values were computed with.

A day without options is a day off: it closes runs and cannot be worked.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from shiftsched.solving.model.context import ModelContext
from shiftsched.solving.model.family import RuleFamily, benchmark_rule


def add_consecutive_shifts(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    days = problem.num_days
    for e, employee in enumerate(problem.employees):
        if employee.consecutive_shifts is None:
            continue
        low, high = employee.consecutive_shifts
        works = [ctx.works(e, d) for d in range(days)]
        clauses: list[list[cp_model.LiteralT]] = []
        if high is not None:
            for start in range(days - high):
                window = works[start : start + high + 1]
                if all(w is not None for w in window):
                    clauses.append([~w for w in window if w is not None])
        for length in range(1, low):
            for before in range(days - length - 1):
                inner = works[before + 1 : before + length + 1]
                if any(w is None for w in inner):
                    continue  # a day off inside: the run cannot be this one
                clause: list[cp_model.LiteralT] = [~w for w in inner if w is not None]
                for edge in (works[before], works[before + length + 1]):
                    if edge is not None:
                        clause.append(edge)
                clauses.append(clause)
        if not clauses:
            continue
        literal = ctx.hard_group(RULE.code, f"{employee.field}.consecutive_shifts", employee.id)
        for clause in clauses:
            model.add_bool_or(clause).only_enforce_if(literal)


RULE = benchmark_rule(
    "consecutive_shifts", "every run of worked days within the instance's length range"
)
CONSECUTIVE_SHIFTS = RuleFamily(
    "consecutive_shifts",
    "every run of worked days within the instance's length range (imported benchmarks)",
    add_consecutive_shifts,
    hard=True,
    hard_rules=(RULE,),
)
