"""Worked weekends: a hard maximum per employee, and soft complete weekends.

``EmployeeSpec.max_weekends = n``: a weekend (the Saturday and Sunday of one ISO week,
or the part of it inside the period) is worked when either day is worked; at most ``n``
weekends are worked (one group per employee, field ``<employee>.max_weekends``). One
literal per weekend, implied by each of its work literals: only an upper bound is
posted, so nothing forces it up, and a one-day weekend uses that day's literal itself.
The literal is defined as its least value (worked when a day is), so a roster's
auxiliaries follow from its decisions alone (the local search reads them that way).
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from shiftsched.contract.horizon import SATURDAY
from shiftsched.solving.model.context import ModelContext, Var
from shiftsched.solving.model.family import RuleFamily, benchmark_rule


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
                worked.append(ctx.define(weekend, *works))
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


def add_complete_weekends(ctx: ModelContext) -> None:
    """Soft: a weekend with both days in the period, worked on one day only, costs
    ``EmployeeSpec.complete_weekends`` (``complete_weekends:<employee>``, in weekends).
    A day without options is a day off."""
    problem = ctx.problem
    pairs = [
        [d for d in week.days if problem.horizon.weekdays[d] >= SATURDAY]
        for week in problem.horizon.weeks
    ]
    for e, employee in enumerate(problem.employees):
        if not employee.complete_weekends:
            continue
        broken: list[Var | int] = []
        for days in pairs:
            if len(days) != 2:
                continue  # a weekend the period cuts: its other day is not planned here
            sat, sun = (ctx.works(e, d) for d in days)
            if sat is None and sun is None:
                continue
            if sat is None or sun is None:
                broken.append(sat if sun is None else sun)  # type: ignore[arg-type]
                continue
            half = ctx.model.new_bool_var(f"half_weekend[{employee.id}]")
            ctx.model.add(half >= sat - sun)
            ctx.model.add(half >= sun - sat)
            broken.append(ctx.define(half, sat - sun, sun - sat))
        if broken:
            ctx.penalize(
                f"complete_weekends:{employee.id}",
                "complete_weekends",
                employee.complete_weekends,
                cp_model.LinearExpr.sum(broken),
                "weekend",
            )


COMPLETE_WEEKENDS = RuleFamily(
    "complete_weekends",
    "both days of a weekend or neither (imported benchmarks)",
    add_complete_weekends,
    hard=False,
    soft_terms=("complete_weekends:",),
)
