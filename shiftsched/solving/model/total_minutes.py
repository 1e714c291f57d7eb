"""Total worked minutes per employee over the whole period (hard).

``EmployeeSpec.total_minutes = (low, high)``: the minutes of the employee's worked
shifts, summed over the period, lie in ``[low, high]`` (one group per employee, field
``<employee>.total_minutes``). A linear sum over the shift literals: the tightest form,
and the one presolve reasons with directly.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from shiftsched.solving.model.context import ModelContext
from shiftsched.solving.model.family import RuleFamily, benchmark_rule


def add_total_minutes(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    minutes_of = [shift.minutes for shift in problem.shifts]
    for e, employee in enumerate(problem.employees):
        if employee.total_minutes is None:
            continue
        low, high = employee.total_minutes
        xs, lengths = [], []
        for d in range(problem.num_days):
            for s in ctx.shift_options(e, d):
                x = ctx.x.get((e, d, s))
                length = minutes_of[s]
                if x is not None and length:
                    xs.append(x)
                    lengths.append(length)
        literal = ctx.hard_group(RULE.code, f"{employee.field}.total_minutes", employee.id)
        minutes = cp_model.LinearExpr.weighted_sum(xs, lengths)
        if low > 0:
            model.add(minutes >= low).only_enforce_if(literal)
        if high < sum(lengths):
            model.add(minutes <= high).only_enforce_if(literal)


RULE = benchmark_rule("total_minutes", "worked minutes over the period within the instance's range")
TOTAL_MINUTES = RuleFamily(
    "total_minutes",
    "worked minutes over the period within the instance's range (imported benchmarks)",
    add_total_minutes,
    hard=True,
    hard_rules=(RULE,),
)
