"""Hand edits of a roster, judged by the independent audit without re-solving.

A planner who moves one person wants to know at once whether the roster still holds
(hard violations) and what the move costs (objective delta, which soft terms changed).
The verdict comes from ``shiftsched.checking.audit``, never from the model that made the roster.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from shiftsched.checking.audit import PREFERENCE, AuditReport, HardViolation, audit
from shiftsched.contract.v1 import Assignment, SolveRequest


def reassign(
    assignments: Sequence[Assignment],
    employee_id: str,
    date: dt.date,
    shift_id: str | None,
    duty_id: str | None = None,
) -> list[Assignment]:
    """The roster with ``employee_id``'s work on ``date`` replaced (``shift_id`` None: off)."""
    kept = [a for a in assignments if not (a.employee_id == employee_id and a.date == date)]
    if shift_id is not None:
        kept.append(
            Assignment(employee_id=employee_id, date=date, shift_id=shift_id, duty_id=duty_id)
        )
    kept.sort(key=lambda a: (a.date, a.shift_id, a.employee_id))
    return kept


def _same_fault(violation: HardViolation) -> HardViolation:
    """The violation as two audits of edited rosters can compare it."""
    if violation.field is not None and violation.field.startswith("roster["):
        return violation.model_copy(update={"field": None})
    return violation


@dataclass(frozen=True)
class TermChange:
    name: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class EditVerdict:
    before: AuditReport
    after: AuditReport

    @property
    def feasible(self) -> bool:
        return self.after.feasible

    @property
    def objective_delta(self) -> float:
        return self.after.objective_value - self.before.objective_value

    @property
    def new_hard_violations(self) -> list[HardViolation]:
        """Violations the edit introduced (the roster may have had some before).

        A fault of the roster itself is named by its position (``roster[i]``), which an
        edit shifts, so the position is left out when the two audits are compared.
        """
        old = {_same_fault(v) for v in self.before.hard_violations}
        return [v for v in self.after.hard_violations if _same_fault(v) not in old]

    @property
    def changed_terms(self) -> list[TermChange]:
        """Soft terms whose penalty moved, largest change first."""
        before = {v.name: v.penalty for v in self.before.soft_constraint_violations}
        after = {v.name: v.penalty for v in self.after.soft_constraint_violations}
        changes = [
            TermChange(name, before.get(name, 0.0), after.get(name, 0.0))
            for name in sorted(before.keys() | after.keys())
            if before.get(name, 0.0) != after.get(name, 0.0)
        ]
        return sorted(changes, key=lambda c: -abs(c.delta))


def judge_edit(
    request: SolveRequest,
    before: Sequence[Assignment],
    after: Sequence[Assignment],
    *,
    preference_weight: int = PREFERENCE,
) -> EditVerdict:
    """Audit both rosters; the verdict compares them."""
    return EditVerdict(
        audit(request, before, preference_weight=preference_weight),
        audit(request, after, preference_weight=preference_weight),
    )
