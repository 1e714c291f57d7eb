"""The audit's verdict on one-cell edits of a roster, without auditing it again."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from shiftsched.checking.audit.cells import _check_references
from shiftsched.checking.audit.evaluate import _context, _findings
from shiftsched.checking.audit.findings import HardViolation, _Findings
from shiftsched.checking.audit.terms import PREFERENCE
from shiftsched.contract.history import History
from shiftsched.contract.planning import Absence
from shiftsched.contract.v1 import Assignment, SolveRequest


class TermChange(BaseModel):
    """How one soft term's price moves with a change (exact, in objective units)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    penalty_delta: float
    violated_by_delta: float


@dataclass(frozen=True)
class ChangeEffect:
    """The audit of an edited roster minus the audit of the original."""

    hard_violations: list[HardViolation]  # broken in the edited roster and not before
    objective_delta: float
    changed_terms: list[TermChange]


def _violation_key(v: HardViolation) -> tuple[Any, ...]:
    return (v.code, v.message, v.employee_id, v.date, v.shift_id, v.field)


class ChangeEvaluator:
    """The audit's verdict on many one-cell edits of one roster, without re-auditing it.

    Replacing one employee's assignment on one date can change only the rules about that
    employee, the rules about that date, and fairness (which compares everyone). Both
    rosters are evaluated by the same rules narrowed to that scope, so every term outside
    it cancels and the difference equals ``audit(edited) - audit(original)`` exactly. On
    ``datasets/max_size.json`` (50 employees, 31 days) one edit costs about 1.5 ms, a
    tenth of a full audit (benchmarks/docs/questions.md, "Re-planning after a sick call,
    and recommendations").
    """

    def __init__(
        self,
        request: SolveRequest,
        assignments: Sequence[Assignment],
        *,
        preference_weight: int = PREFERENCE,
        history: History | None = None,
        absences: Sequence[Absence] = (),
    ) -> None:
        self._base = _context(
            request,
            assignments,
            _Findings(),
            preference_weight=preference_weight,
            history=history,
            absences=absences,
        )

    def effect(self, employee_id: str, day: dt.date, new: Assignment | None) -> ChangeEffect:
        """Replace ``employee_id``'s assignments on ``day`` by ``new`` (None: a day off).

        ``new`` must name a known employee, shift and duty on a date of the period
        (ValueError otherwise): an unknown reference cannot be priced.
        """
        if new is not None:
            probe = _Findings()
            if not _check_references(self._base.request, [new], probe):
                raise ValueError(probe.hard[0].message)
            if (new.employee_id, new.date) != (employee_id, day):
                raise ValueError("the new assignment must be the same employee's, same date")
        scope = (frozenset({employee_id}), frozenset({day}))
        before = _findings(self._base.scoped(*scope))
        after = _findings(self._base.replaced(employee_id, day, new).scoped(*scope))
        had = Counter(_violation_key(v) for v in before.hard)
        broken = []
        for violation in after.hard:
            key = _violation_key(violation)
            if had[key]:
                had[key] -= 1
            else:
                broken.append(violation)
        changed = [
            TermChange(
                name=name,
                penalty_delta=float(after._penalty.get(name, 0) - before._penalty.get(name, 0)),
                violated_by_delta=float(
                    after._magnitude.get(name, 0) - before._magnitude.get(name, 0)
                ),
            )
            for name in sorted(set(before._penalty) | set(after._penalty))
            if after._penalty.get(name, 0) != before._penalty.get(name, 0)
        ]
        return ChangeEffect(
            hard_violations=broken,
            objective_delta=after.objective() - before.objective(),
            changed_terms=changed,
        )
