"""Minimum run of consecutive days off per employee (hard).

``EmployeeSpec.min_days_off_run = k``: no run of ``1..k-1`` days off *between two worked
days*: each pattern ``on, off x j, on`` (j < k) is a forbidden clause, one group per
employee (field ``<employee>.min_days_off_run``). Runs of days off touching the first or
last day of the period are exempt (as in the published Curtois & Qu model). A day without
options is a day off, so it counts inside a run like any other.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from shiftsched.solving.model.context import ModelContext
from shiftsched.solving.model.family import RuleFamily, benchmark_rule


def add_days_off_runs(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    days = problem.num_days
    for e, employee in enumerate(problem.employees):
        k = employee.min_days_off_run
        if k < 2:
            continue
        works = [ctx.works(e, d) for d in range(days)]
        clauses: list[list[cp_model.LiteralT]] = []
        for length in range(1, k):
            for before in range(days - length - 1):
                first, last = works[before], works[before + length + 1]
                if first is None or last is None:
                    continue  # an edge is off: the pattern cannot occur
                inner = works[before + 1 : before + length + 1]
                clauses.append([~first, ~last, *(w for w in inner if w is not None)])
        if not clauses:
            continue
        literal = ctx.hard_group(RULE.code, f"{employee.field}.min_days_off_run", employee.id)
        for clause in clauses:
            model.add_bool_or(clause).only_enforce_if(literal)


RULE = benchmark_rule("min_days_off_run", "every run of days off at least the instance's minimum")
MIN_DAYS_OFF_RUN = RuleFamily(
    "min_days_off_run",
    "every run of days off at least the instance's minimum (imported benchmarks)",
    add_days_off_runs,
    hard=True,
    hard_rules=(RULE,),
)
