"""What-if variants of a request: drop a constraint family, change one parameter.

Analysts ask "what does this rule cost?" by solving the same request with and without it.
Each function here is pure: it returns a new, re-validated request (or problem) and
leaves its input untouched. Request-level variants stay inside the v1 contract, so their
rosters can be audited as usual; :func:`with_preference_weight` tunes a weight that v1
fixes, so it works on the internal problem, and the audit must be told the same weight
(``engine.audit.audit(..., preference_weight=...)``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, Literal

from engine.contract import SolveRequest
from engine.problem import Problem

Json = dict[str, Any]


def _employees(field: str) -> Callable[[Json], None]:
    def drop(data: Json) -> None:
        for employee in data["employees"]:
            employee.pop(field, None)

    return drop


def _constraint(field: str) -> Callable[[Json], None]:
    def drop(data: Json) -> None:
        data.get("constraints", {}).pop(field, None)

    return drop


def _unbounded_consecutive_days(data: Json) -> None:
    # A cap N is hard at N and soft from N-1 on (docs/semantics.md); no run is longer
    # than the period, so a cap one above its length never binds nor costs.
    data.setdefault("constraints", {})["max_consecutive_working_days"] = _period_days(data) + 1


def _manager_demand(data: Json) -> None:
    for shift in data["shifts"]:
        shift.pop("manager_demand", None)


#: Families an analyst can switch off, with what switching off means.
FAMILIES: dict[str, tuple[str, Callable[[Json], None]]] = {
    "preferences": ("employees' day-off and shift wishes", _employees("preferences")),
    "fixed_assignments": ("pre-set assignments", _employees("fixed_assignments")),
    "shift_count_limits": ("per-employee shift count limits", _employees("shift_count_limits")),
    "working_days_per_month": ("monthly working-day ranges", _employees("working_days_per_month")),
    "working_days_per_week": ("weekly working-day ranges", _employees("working_days_per_week")),
    "weekly_working_hours_limit": (
        "weekly hour limits",
        _employees("weekly_working_hours_limit"),
    ),
    "available_weekdays": ("weekday availability", _employees("available_weekdays")),
    "manager_demand": ("manager headcount per shift", _manager_demand),
    "shift_transitions": (
        "forbidden and required shift sequences",
        _constraint("shift_transitions"),
    ),
    "max_consecutive_working_days": (
        "the cap on consecutive working days",
        _unbounded_consecutive_days,
    ),
    "employee_pairings": (
        "work-together and keep-apart pairings",
        _constraint("employee_pairings"),
    ),
    "skill_support": ("a senior beside every beginner", _constraint("skill_support")),
    "cross_shift_demands": ("headcount across several shifts", _constraint("cross_shift_demands")),
    "fairness_groups": ("fair sharing of burdensome shifts", _constraint("fairness_groups")),
}


def _period_days(data: Json) -> int:
    request = SolveRequest.model_validate(data)
    period = request.schedule_period
    return (period.end_date - period.start_date).days + 1


def _edited(request: SolveRequest, edit: Callable[[Json], None]) -> SolveRequest:
    data = request.model_dump(mode="json", exclude_unset=True)
    edit(data)
    return SolveRequest.model_validate(data)


def without_families(request: SolveRequest, families: Iterable[str]) -> SolveRequest:
    """The request with each named family (a key of :data:`FAMILIES`) switched off."""
    chosen = list(families)
    unknown = [f for f in chosen if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown families {unknown}; known: {sorted(FAMILIES)}")

    def edit(data: Json) -> None:
        for family in chosen:
            FAMILIES[family][1](data)

    return _edited(request, edit)


def families_in_use(request: SolveRequest) -> list[str]:
    """The switchable families this request actually uses, in :data:`FAMILIES` order."""
    data = request.model_dump(mode="json", exclude_unset=True)
    used = []
    for family, (_, drop) in FAMILIES.items():
        trial = copy.deepcopy(data)
        drop(trial)
        if _meaningful(trial) != _meaningful(data):
            used.append(family)
    return used


def _meaningful(data: Json) -> Json:
    """The request without its default values: an empty list is not a family in use."""
    return SolveRequest.model_validate(data).model_dump(mode="json", exclude_defaults=True)


def with_max_consecutive_days(request: SolveRequest, days: int) -> SolveRequest:
    """The request with ``max_consecutive_working_days`` set to ``days``."""

    def edit(data: Json) -> None:
        data.setdefault("constraints", {})["max_consecutive_working_days"] = days

    return _edited(request, edit)


def with_fairness_group(
    request: SolveRequest,
    index: int,
    *,
    policy: Literal["equal", "proportional"] | None = None,
    penalty_weight: int | None = None,
) -> SolveRequest:
    """Fairness group ``index`` with another policy and/or penalty weight."""

    def edit(data: Json) -> None:
        group = data["constraints"]["fairness_groups"][index]
        if policy is not None:
            group["policy"] = policy
        if penalty_weight is not None:
            group["penalty_weight"] = penalty_weight

    return _edited(request, edit)


def without_fairness_group(request: SolveRequest, index: int) -> SolveRequest:
    """The request without fairness group ``index`` (the others stay)."""

    def edit(data: Json) -> None:
        del data["constraints"]["fairness_groups"][index]

    return _edited(request, edit)


def with_preference_weight(problem: Problem, weight: int) -> Problem:
    """Every preference priced at ``weight`` per unmet item instead of the default."""
    if weight < 0:
        raise ValueError(f"a preference weight cannot be negative (got {weight})")
    employees = tuple(
        replace(e, preferences=tuple(replace(p, weight=weight) for p in e.preferences))
        for e in problem.employees
    )
    return replace(problem, employees=employees)
