"""Which v1 families the Timefold model holds, and the refusal of a request that uses others.

The model holds staffing demand (minimum and maximum), the calendar (holidays, available
weekdays), assignable shifts, fixed assignments, one shift per date, the consecutive-days
cap, shift transitions, working days per week and per month, and preferences. A request
that states any other family is refused whole, naming each family by its registry name
(:data:`shiftsched.solving.model.registry.FAMILIES`) and the JSON path of its first item: solving it
without that family would compare two different problems.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from shiftsched.contract.v1 import Employee, SolveRequest

SUPPORTED = (
    "staffing_demand",
    "assignable_shift_ids",
    "available_weekdays",
    "holidays",
    "fixed_assignments",
    "max_consecutive_working_days",
    "shift_transitions",
    "working_days_per_week",
    "working_days_per_month",
    "preferences",
)


@dataclass(frozen=True)
class Unsupported:
    """A family the request states and the model lacks, and where the request states it."""

    family: str
    field: str


class UnsupportedFamily(ValueError):
    """The request states families the Timefold model lacks; ``found`` names each."""

    def __init__(self, found: list[Unsupported]) -> None:
        self.found = found
        listed = ", ".join(f"{u.family} ({u.field})" for u in found)
        super().__init__(f"the Timefold model lacks these families of the request: {listed}")

    @property
    def families(self) -> list[str]:
        return [u.family for u in self.found]


def _states(employee: Employee, family: str) -> bool:
    value = getattr(employee, family)
    return bool(value) if isinstance(value, dict | list) else value is not None


def _employee_families(request: SolveRequest) -> Iterator[Unsupported]:
    for family in ("skill_levels", "shift_count_limits", "weekly_working_hours_limit"):
        first = next((i for i, e in enumerate(request.employees) if _states(e, family)), None)
        if first is not None:
            yield Unsupported(family, f"request.employees[{first}].{family}")


def _request_families(request: SolveRequest) -> Iterator[Unsupported]:
    if request.duties:
        yield Unsupported("duty_demand", "request.duties")
    managed = next((i for i, s in enumerate(request.shifts) if s.manager_demand is not None), None)
    if managed is not None:
        yield Unsupported("manager_demand", f"request.shifts[{managed}].manager_demand")
    constraints = request.constraints
    stated = (
        ("cross_shift_demands", bool(constraints.cross_shift_demands)),
        ("employee_pairings", bool(constraints.employee_pairings)),
        ("skill_support", constraints.skill_support is not None),
        ("fairness_groups", bool(constraints.fairness_groups)),
    )
    for family, present in stated:
        if present:
            yield Unsupported(family, f"request.constraints.{family}")


def unsupported(request: SolveRequest) -> list[Unsupported]:
    """Every family of the request the model lacks, in a fixed order (empty: it holds all)."""
    return [*_request_families(request), *_employee_families(request)]


def check_supported(request: SolveRequest) -> None:
    """Raises :class:`UnsupportedFamily` unless the model holds every family of the request."""
    found = unsupported(request)
    if found:
        raise UnsupportedFamily(found)
