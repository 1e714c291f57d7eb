"""What an audit finds: the hard violations, the report, and the accumulator the rules fill.

:class:`_Findings` merges soft magnitudes by name and keeps each shortage marker with its
sort key, so soft terms and markers come out in the report's order whatever order the rules
ran in; hard violations keep the order of the rules (``evaluate._RULES``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from shiftsched.checking.audit.terms import SHORTAGE_KINDS, HardCode
from shiftsched.contract.v1 import Date, Shortage, SoftConstraintViolation


class HardViolation(BaseModel):
    """One broken hard rule: which rule, who/when/what in words, and the input behind it.

    ``field`` is the JSON path of the item to change: a request item prefixed
    ``request.`` (``request.employees[3].fixed_assignments[0]``), or ``roster[i]`` for a
    fault of the roster itself (``i`` the assignment's position in the audited list).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: HardCode
    message: str
    employee_id: str | None = None
    date: Date | None = None
    shift_id: str | None = None
    field: str | None = None


class AuditReport(BaseModel):
    """What a roster costs and breaks, in the shape of the solver's own metrics."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hard_violations: list[HardViolation]
    soft_constraint_violations: list[SoftConstraintViolation]
    objective_value: float
    shortages: list[Shortage]

    @property
    def feasible(self) -> bool:
        """True when no hard rule is broken (shortages and soft terms do not count)."""
        return not self.hard_violations

    def violation(self, name: str) -> SoftConstraintViolation | None:
        """The soft term called ``name``, or None when it is not violated."""
        return next((v for v in self.soft_constraint_violations if v.name == name), None)


@dataclass
class _Findings:
    """Accumulates hard violations, soft magnitudes (merged by name) and shortages."""

    hard: list[HardViolation] = field(default_factory=list)
    _penalty: dict[str, int] = field(default_factory=dict)
    _magnitude: dict[str, int] = field(default_factory=dict)
    _shortages: list[tuple[tuple[Any, ...], Shortage]] = field(default_factory=list)

    def broken(
        self,
        code: HardCode,
        message: str,
        employee_id: str | None = None,
        day: dt.date | None = None,
        shift_id: str | None = None,
        *,
        at: str | None,
    ) -> None:
        """Records a broken hard rule; ``at`` is the JSON path of the input item behind it."""
        self.hard.append(
            HardViolation(
                code=code,
                message=message,
                employee_id=employee_id,
                date=day,
                shift_id=shift_id,
                field=at,
            )
        )

    def soft(self, name: str, weight: int, magnitude: int) -> None:
        """Adds ``weight x magnitude`` to the term ``name``; zero magnitudes are dropped."""
        if magnitude <= 0:
            return
        self._penalty[name] = self._penalty.get(name, 0) + weight * magnitude
        self._magnitude[name] = self._magnitude.get(name, 0) + magnitude

    def shortage(self, marker: Shortage, cross_index: int = -1) -> None:
        """Keeps a marker with its sort key: kind, date, shift id, duty id, cross index."""
        key = (
            SHORTAGE_KINDS.index(marker.kind),
            marker.date,
            marker.shift_id or "",
            marker.duty_id or "",
            cross_index,
        )
        self._shortages.append((key, marker))

    def violations(self) -> list[SoftConstraintViolation]:
        return [
            SoftConstraintViolation(
                name=name,
                penalty=float(self._penalty[name]),
                violated_by=float(self._magnitude[name]),
            )
            for name in sorted(self._penalty)
        ]

    def objective(self) -> float:
        return float(sum(self._penalty.values()))

    def shortages(self) -> list[Shortage]:
        return [marker for _, marker in sorted(self._shortages, key=lambda item: item[0])]
