"""Who carries the burden: each employee's share of a fairness group's target shifts.

The fair share is the one the model prices (shiftsched.solving.model.fairness): ``total * w_e / W``
with the policy's weights. Both policies are reported side by side, so an analyst can see
what switching policy would change before solving again. The Gini coefficient summarizes
how unevenly the target shifts fall (0: everyone the same count, towards 1: one person
carries all).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.solving.model.fairness import fairness_weights
from shiftsched.solving.problem import from_request


@dataclass(frozen=True)
class Share:
    employee_id: str
    count: int  # assignments to the group's target shifts
    equal_share: float
    proportional_share: float
    policy_share: float  # the share under the group's own policy
    excess: float  # count above policy_share (0 when at or below)


@dataclass(frozen=True)
class GroupBurden:
    index: int
    policy: str
    target_shift_ids: tuple[str, ...]
    shares: tuple[Share, ...]
    total: int
    excess: int  # the model's excess: ceil of the summed excesses (what is priced)
    gini: float


def gini(values: Sequence[float]) -> float:
    """Gini coefficient of non-negative values (0 for an empty or all-zero list)."""
    ordered = sorted(values)
    n, total = len(ordered), sum(ordered)
    if n == 0 or total == 0:
        return 0.0
    ranked = sum((i + 1) * v for i, v in enumerate(ordered))
    return (2 * ranked) / (n * total) - (n + 1) / n


def group_burden(
    request: SolveRequest, assignments: Sequence[Assignment], index: int
) -> GroupBurden:
    """Counts, fair shares under both policies, excess and Gini of fairness group ``index``."""
    problem = from_request(request)
    group = problem.fairness[index]
    targets = {problem.shifts[s].id for s in group.shifts}
    counts = Counter(a.employee_id for a in assignments if a.shift_id in targets)
    equal = fairness_weights(replace(group, equal=True), problem.employees)
    proportional = fairness_weights(replace(group, equal=False), problem.employees)
    own = equal if group.equal else proportional
    total = sum(counts[problem.employees[e].id] for e in own)

    def share(weights: dict[int, int], e: int) -> float:
        return total * weights[e] / sum(weights.values())

    shares = tuple(
        Share(
            employee_id=(employee_id := problem.employees[e].id),
            count=counts[employee_id],
            equal_share=share(equal, e),
            proportional_share=share(proportional, e),
            policy_share=share(own, e),
            excess=max(0.0, counts[employee_id] - share(own, e)),
        )
        for e in sorted(own)
    )
    weight_sum = sum(own.values())
    scaled = sum(
        max(0, counts[problem.employees[e].id] * weight_sum - total * w) for e, w in own.items()
    )
    return GroupBurden(
        index=index,
        policy="equal" if group.equal else "proportional",
        target_shift_ids=tuple(sorted(targets)),
        shares=shares,
        total=total,
        excess=math.ceil(scaled / weight_sum) if len(own) >= 2 else 0,
        gini=gini([s.count for s in shares]),
    )
