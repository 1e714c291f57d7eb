"""Demand: staffing, manager, duty and cross-shift headcounts.

A minimum is hard in the contract but never makes a problem infeasible: each missing
head is slack in a ``missing`` variable priced at SHORTAGE, reported as a shortage marker
and under ``<kind>_shortage``. A maximum is soft: each head above it costs DEMAND_EXCESS
under ``<kind>_excess:...``. Holidays have zero demand (shiftsched.solving.problem zeroes them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from shiftsched.solving import weights
from shiftsched.solving.model.context import ModelContext, Var
from shiftsched.solving.model.family import Json, RuleFamily, drop_constraint
from shiftsched.solving.model.terms import ShortageKind, ShortageSlot


def add_staffing_demand(ctx: ModelContext) -> None:
    problem = ctx.problem
    for s, shift in enumerate(problem.shifts):
        for d in range(problem.num_days):
            heads = [v for _, v in ctx.staff.get((d, s), [])]
            _bound(
                ctx,
                "staffing",
                heads,
                shift.staffing.mins[d],
                shift.staffing.maxs[d],
                f"staffing_excess:{shift.id}:{problem.date_key(d)}",
                _Where(day=d, shift=s),
            )


def add_manager_demand(ctx: ModelContext) -> None:
    problem = ctx.problem
    for s, shift in enumerate(problem.shifts):
        if shift.managers is None:
            continue
        for d in range(problem.num_days):
            staff = ctx.staff.get((d, s), [])
            managers = [v for e, v in staff if problem.employees[e].is_manager]
            _bound(
                ctx,
                "manager",
                managers,
                shift.managers.mins[d],
                shift.managers.maxs[d],
                f"manager_excess:{shift.id}:{problem.date_key(d)}",
                _Where(day=d, shift=s),
            )


def add_duty_demand(ctx: ModelContext) -> None:
    problem = ctx.problem
    for k, duty in enumerate(problem.duties):
        for s, demand in duty.demand.items():
            for d in range(problem.num_days):
                holders = [v for _, v in ctx.holders.get((d, s, k), [])]
                where = _Where(day=d, shift=s, duty=k)
                _bound(
                    ctx,
                    "duty",
                    holders,
                    demand.mins[d],
                    demand.maxs[d],
                    f"duty_excess:{duty.id}:{problem.shifts[s].id}:{problem.date_key(d)}",
                    where,
                )


def add_cross_shift_demands(ctx: ModelContext) -> None:
    problem = ctx.problem
    for cross in problem.cross_shift:
        heads: list[Var] = []
        for s in cross.shifts:
            if cross.duty is None:
                pool = ctx.staff.get((cross.day, s), [])
            else:
                pool = ctx.holders.get((cross.day, s, cross.duty), [])
            heads.extend(
                v for e, v in pool if not cross.managers_only or problem.employees[e].is_manager
            )
        where = _Where(day=cross.day, shifts=cross.shifts, duty=cross.duty, order=cross.index)
        _bound(
            ctx,
            "cross_shift",
            heads,
            cross.min,
            cross.max,
            f"cross_shift_excess:{cross.index}",
            where,
        )


@dataclass(frozen=True, slots=True)
class _Where:
    """Which demand a bound belongs to (for its shortage marker)."""

    day: int
    shift: int | None = None
    shifts: tuple[int, ...] | None = None
    duty: int | None = None
    order: int = 0


def _bound(
    ctx: ModelContext,
    kind: ShortageKind,
    heads: Sequence[Var],
    minimum: int,
    maximum: int | None,
    excess_name: str,
    where: _Where,
) -> None:
    """Post ``minimum <= len(heads) <= maximum`` with priced slack on both sides."""
    available = len(heads)
    if minimum <= 0 and (maximum is None or available <= maximum):
        return  # nothing to post (weighted-cover problems leave every demand at 0)
    assigned = cp_model.LinearExpr.sum(list(heads))
    if minimum > 0:
        missing = ctx.at_least(
            minimum - assigned, max(0, minimum - available), minimum, f"missing[{kind}]"
        )
        ctx.penalize(f"{kind}_shortage", kind + "_shortage", weights.SHORTAGE, missing, "head")
        ctx.shortages.append(
            ShortageSlot(
                kind=kind,
                day=where.day,
                shift=where.shift,
                shifts=where.shifts,
                duty=where.duty,
                order=where.order,
                required=minimum,
                assigned=assigned,
                missing=missing,
            )
        )
    if maximum is not None and available > maximum:
        excess = ctx.at_least(assigned - maximum, 0, available - maximum, f"excess[{excess_name}]")
        ctx.penalize(excess_name, kind + "_excess", weights.DEMAND_EXCESS, excess, "head")


# ------------------------------------------------------------------------ descriptors


def _drop_manager_demand(data: Json) -> None:
    for shift in data["shifts"]:
        shift.pop("manager_demand", None)


STAFFING_DEMAND = RuleFamily(
    "staffing_demand",
    "heads wanted on each shift and date",
    add_staffing_demand,
    hard=False,
    soft_terms=("staffing_shortage", "staffing_excess:"),
)
MANAGER_DEMAND = RuleFamily(
    "manager_demand",
    "manager headcount per shift",
    add_manager_demand,
    hard=False,
    soft_terms=("manager_shortage", "manager_excess:"),
    switch_off=_drop_manager_demand,
)
DUTY_DEMAND = RuleFamily(
    "duty_demand",
    "holders wanted for each duty on a shift",
    add_duty_demand,
    hard=False,
    soft_terms=("duty_shortage", "duty_excess:"),
)
CROSS_SHIFT_DEMANDS = RuleFamily(
    "cross_shift_demands",
    "headcount across several shifts",
    add_cross_shift_demands,
    hard=False,
    soft_terms=("cross_shift_shortage", "cross_shift_excess:"),
    switch_off=drop_constraint("cross_shift_demands"),
)
