"""Maximum worked weekends per employee (hard).

``EmployeeSpec.max_weekends = n``: a weekend (the Saturday and Sunday of one ISO week,
or the part of it inside the period) is worked when either day is worked; at most ``n``
weekends are worked (one group per employee, field ``<employee>.max_weekends``). One
literal per weekend, implied by each of its work literals: only an upper bound is
posted, so nothing forces it up, and a one-day weekend uses that day's literal itself.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from engine.horizon import SATURDAY
from engine.model.context import ModelContext, Var
from engine.model.family import RuleFamily, benchmark_rule


def add_max_weekends(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    weekends: dict[str, list[int]] = {}
    for week in problem.horizon.weeks:
        days = [d for d in week.days if problem.horizon.weekdays[d] >= SATURDAY]
        if days:
            weekends[week.key] = days
    for e, employee in enumerate(problem.employees):
        if employee.max_weekends is None:
            continue
        worked: list[Var] = []
        for key, days in weekends.items():
            works = [w for d in days if (w := ctx.works(e, d)) is not None]
            if len(works) == 1:
                worked.append(works[0])
            elif works:
                weekend = model.new_bool_var(f"weekend[{employee.id},{key}]")
                for w in works:
                    model.add_implication(w, weekend)
                worked.append(weekend)
        if len(worked) <= employee.max_weekends:
            continue
        literal = ctx.hard_group(RULE.code, f"{employee.field}.max_weekends", employee.id)
        model.add(cp_model.LinearExpr.sum(worked) <= employee.max_weekends).only_enforce_if(literal)


RULE = benchmark_rule("max_weekends", "at most the instance's number of worked weekends")
MAX_WEEKENDS = RuleFamily(
    "max_weekends",
    "at most the instance's number of worked weekends (imported benchmarks)",
    add_max_weekends,
    hard=True,
    hard_rules=(RULE,),
)
