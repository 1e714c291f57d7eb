"""Who works together: employee pairings and skill support.

- Pairing ``exclude`` (hard, group ``constraints.employee_pairings[i]``): at most one of
  the listed employees on each (shift, date).
- Pairing ``require`` (soft): for each (shift, date) and each listed employee on it,
  every other listed employee missing from it costs PAIRING_REQUIRE under
  ``pairing_require:<i>``.
- Skill support: beginner = level 1..3, senior = level 7..10. Scope ``duty`` groups the
  holders of a duty on a (date, shift) by their level for that duty; scope ``shift``
  groups everyone on a (date, shift) by their highest level. A group with a beginner
  needs a senior: hard (group ``constraints.skill_support``) or soft, SKILL_SUPPORT per
  unsupported group under ``skill_support:<date>:<shift>[:<duty>]``.
"""

from __future__ import annotations

import re
from itertools import permutations

from ortools.sat.python import cp_model

from shiftsched.contract.v1 import SolveRequest
from shiftsched.solving import weights
from shiftsched.solving.model.context import ModelContext, Var
from shiftsched.solving.model.family import (
    REMOVED,
    HardRule,
    Json,
    NotHard,
    RuleFamily,
    drop_constraint,
    make_soft,
    remove_item,
)
from shiftsched.solving.model.terms import Expr, HardGroup

BEGINNER_LEVELS = range(1, 4)
SENIOR_LEVELS = range(7, 11)


def add_employee_pairings(ctx: ModelContext) -> None:
    _add_pairing_exclude(ctx)
    _add_pairing_require(ctx)


def _add_pairing_exclude(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    for pairing in problem.pairings:
        if not pairing.exclude:
            continue
        for d in range(problem.num_days):
            for s in range(len(problem.shifts)):
                xs = [x for e in pairing.employees if (x := ctx.shift_var(e, d, s)) is not None]
                if len(xs) < 2:
                    continue
                literal = ctx.hard_group(
                    PAIRING_EXCLUDE.code, f"constraints.employee_pairings[{pairing.index}]"
                )
                model.add(cp_model.LinearExpr.sum(xs) <= 1).only_enforce_if(literal)


def _add_pairing_require(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    for pairing in problem.pairings:
        if pairing.exclude:
            continue
        missing: list[Expr] = []
        for d in range(problem.num_days):
            for s in range(len(problem.shifts)):
                for a, b in permutations(pairing.employees, 2):
                    xa = ctx.shift_var(a, d, s)
                    if xa is None:
                        continue
                    xb = ctx.shift_var(b, d, s)
                    if xb is None:  # the partner can never join: every time a works, 1 missing
                        missing.append(xa)
                        continue
                    v = model.new_bool_var("")
                    model.add_bool_or([~xa, xb, v])
                    missing.append(ctx.define(v, xa - xb))
        if missing:
            ctx.penalize(
                f"pairing_require:{pairing.index}",
                "pairing_require",
                weights.PAIRING_REQUIRE,
                cp_model.LinearExpr.sum(missing),
                "partner",
            )


def add_skill_support(ctx: ModelContext) -> None:
    support = ctx.problem.skill_support
    if support is None:
        return
    problem = ctx.problem
    literal = (
        ctx.hard_group(SKILL_SUPPORT_RULE.code, "constraints.skill_support")
        if support.hard
        else None
    )
    if support.by_duty:
        for (d, s, k), holders in ctx.holders.items():
            levels = [(problem.employees[e].skills.get(k), v) for e, v in holders]
            name = (
                f"skill_support:{problem.date_key(d)}:{problem.shifts[s].id}:{problem.duties[k].id}"
            )
            _support_group(ctx, levels, name, literal)
    else:
        for (d, s), staff in ctx.staff.items():
            levels = [(problem.employees[e].top_level(), v) for e, v in staff]
            name = f"skill_support:{problem.date_key(d)}:{problem.shifts[s].id}"
            _support_group(ctx, levels, name, literal)


def _support_group(
    ctx: ModelContext, levels: list[tuple[int | None, Var]], name: str, literal: Var | None
) -> None:
    """One linear row per group: a beginner present implies a senior (or the penalty)."""
    beginners = [v for level, v in levels if level in BEGINNER_LEVELS]
    if not beginners:
        return
    seniors = cp_model.LinearExpr.sum([v for level, v in levels if level in SENIOR_LEVELS])
    model = ctx.model
    if len(beginners) == 1:
        needs_senior = beginners[0]
    else:
        needs_senior = model.new_bool_var("")
        for b in beginners:
            model.add_implication(b, needs_senior)
        ctx.define(needs_senior, *beginners)
    if literal is not None:
        model.add(seniors >= needs_senior).only_enforce_if(literal)
        return
    unsupported = model.new_bool_var("")
    model.add(seniors + unsupported >= needs_senior)
    ctx.define(unsupported, needs_senior - seniors)
    ctx.penalize(name, "skill_support", weights.SKILL_SUPPORT, unsupported, "group")


# ------------------------------------------------------------------------ descriptors


def _describe_exclude(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    pairing = request.constraints.employee_pairings[int(match["i"])]
    return f"{', '.join(pairing.employee_ids)} may never work the same shift on a date"


def _relax_exclude(data: Json, match: re.Match[str]) -> None:
    pairings = data["constraints"]["employee_pairings"]
    pairing = pairings[int(match["i"])]
    if pairing is not REMOVED and pairing["rule"] != "exclude":
        raise NotHard("the pairing is not an exclude pairing")
    remove_item(pairings, int(match["i"]))


def _describe_support(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    return "every beginner on a shift needs a senior beside them (hard skill support)"


def _relax_support(data: Json, match: re.Match[str]) -> None:
    """Make skill support soft: it still costs its penalty."""
    make_soft(data["constraints"]["skill_support"], "skill support")


PAIRING_EXCLUDE = HardRule(
    "pairing_exclude",
    r"constraints\.employee_pairings\[(?P<i>\d+)\]",
    _describe_exclude,
    "Remove one of these employees from the exclude pairing.",
    _relax_exclude,
)
SKILL_SUPPORT_RULE = HardRule(
    "skill_support",
    r"constraints\.skill_support",
    _describe_support,
    "Make skill support soft, or add a senior who can work alongside.",
    _relax_support,
)

EMPLOYEE_PAIRINGS = RuleFamily(
    "employee_pairings",
    "work-together and keep-apart pairings",
    add_employee_pairings,
    hard=True,
    hard_rules=(PAIRING_EXCLUDE,),
    soft_terms=("pairing_require:",),
    switch_off=drop_constraint("employee_pairings"),
)
SKILL_SUPPORT = RuleFamily(
    "skill_support",
    "a senior beside every beginner",
    add_skill_support,
    hard=True,
    hard_rules=(SKILL_SUPPORT_RULE,),
    soft_terms=("skill_support:",),
    switch_off=drop_constraint("skill_support"),
)
