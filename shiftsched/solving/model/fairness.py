"""Fairness groups: burdensome shifts shared in proportion (soft).

For a group with target shifts T, the eligible employees are those with a shift of T in
their assignable shifts; ``count_e`` is e's assignments to T and ``total`` their sum.
Each eligible employee has a weight ``w_e`` (policy ``equal``: 1; ``proportional``:
``min + max`` of working_days_per_month when given, else twice the number of dates on
which e may work a shift of T), so e's fair share is ``total * w_e / W``. The penalty is
``penalty_weight`` per unit of total excess over the fair shares, rounded up:

    scaled_e >= count_e * W - total * w_e,  scaled_e >= 0
    W * excess >= sum_e scaled_e

Both weights are fixed inputs, so the rule stays linear. A history adds each
employee's past count of T (``Seam.past``) to ``count_e`` and so to ``total``: the
shares are of everything worked so far, and the period evens out what the past left
uneven.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from shiftsched.solving.model.context import ModelContext
from shiftsched.solving.model.family import RuleFamily, drop_constraint
from shiftsched.solving.specs import EmployeeSpec, FairnessSpec


def fairness_weights(group: FairnessSpec, employees: tuple[EmployeeSpec, ...]) -> dict[int, int]:
    """Weight of each eligible employee (index -> w_e); an all-zero set becomes all ones."""
    eligible = {
        e: employee for e, employee in enumerate(employees) if group.shifts & employee.assignable
    }
    if group.equal:
        return dict.fromkeys(eligible, 1)
    found = {
        e: (
            sum(employee.days_per_month)
            if employee.days_per_month is not None
            else 2 * sum(1 for opts in employee.day_options if group.shifts.intersection(opts))
        )
        for e, employee in eligible.items()
    }
    return found if sum(found.values()) > 0 else dict.fromkeys(eligible, 1)


def add_fairness(ctx: ModelContext) -> None:
    model, problem = ctx.model, ctx.problem
    for group in problem.fairness:
        shares = fairness_weights(group, problem.employees)
        if len(shares) < 2:
            continue  # one eligible employee is always exactly at their share
        total_weight = sum(shares.values())
        # What each employee worked of the group before the period (shiftsched.contract.history).
        past = {
            e: sum(n for s, n in problem.employees[e].seam.past.items() if s in group.shifts)
            for e in shares
        }
        counts = {
            e: cp_model.LinearExpr.sum(
                [
                    x
                    for d in range(problem.num_days)
                    for s in ctx.shift_options(e, d)
                    if s in group.shifts and (x := ctx.x.get((e, d, s))) is not None
                ]
            )
            + past[e]
            for e in shares
        }
        # One variable for the total keeps each employee's row short.
        most = problem.num_days * len(shares) + sum(past.values())
        total = model.new_int_var(0, most, f"fairness_total[{group.index}]")
        everyone = cp_model.LinearExpr.sum(list(counts.values()))
        model.add(total == everyone)
        ctx.define(total, everyone)
        upper = most * total_weight
        scaled = [
            ctx.at_least(counts[e] * total_weight - total * w, 0, upper) for e, w in shares.items()
        ]
        excess = ctx.at_least(
            cp_model.LinearExpr.sum(scaled),
            0,
            upper,
            f"fairness_excess[{group.index}]",
            divisor=total_weight,
        )
        ctx.penalize(f"fairness:{group.index}", "fairness", group.weight, excess, "assignment")


FAIRNESS_GROUPS = RuleFamily(
    "fairness_groups",
    "fair sharing of burdensome shifts",
    add_fairness,
    hard=False,
    soft_terms=("fairness:",),
    switch_off=drop_constraint("fairness_groups"),
)
