"""What-if variants of a request: drop a constraint family, change one parameter.

Analysts ask "what does this rule cost?" by solving the same request with and without it.
Each function here is pure: it returns a new, re-validated request (or problem) and
leaves its input untouched. Request-level variants stay inside the v1 contract, so their
rosters can be audited as usual; :func:`with_preference_weight` tunes a weight that v1
fixes, so it works on the internal problem, and the audit must be told the same weight
(``shiftsched.checking.audit.audit(..., preference_weight=...)``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Literal

from shiftsched.contract.v1 import SolveRequest
from shiftsched.solving.model.family import Json
from shiftsched.solving.model.registry import SWITCHABLE
from shiftsched.solving.problem import Problem

#: Families an analyst can switch off, with what switching off means (each family's
#: descriptor says how, :mod:`shiftsched.solving.model.registry`).
FAMILIES: dict[str, tuple[str, Callable[[Json], None]]] = {
    family.name: (family.summary, family.switch_off)
    for family in SWITCHABLE
    if family.switch_off is not None
}


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
