"""Who should fill a slot: every employee ranked by what the move does to the audit.

For each candidate the roster is edited (the employee takes the slot, leaving the shift
they work that date, if any) and the independent evaluator prices the edit
(:class:`shiftsched.checking.audit.ChangeEvaluator`): the hard rules it breaks, the objective delta
(the audit of the edited roster minus the audit of the original) and the soft terms it
moves. No solver runs, so an answer takes milliseconds, and every figure is exactly
what an audit of the edited roster would say.

Ranking: employees whose move breaks no hard rule first, then the smallest objective
delta, then fewer changed terms, then the employee id (a stable order for equal moves).
Employees already in the slot, and those absent on its date, are not candidates.
"""

from __future__ import annotations

from shiftsched.checking.audit import ChangeEvaluator
from shiftsched.contract.planning import (
    HardBreak,
    Recommendation,
    RecommendRequest,
    RecommendResponse,
    TermDelta,
)
from shiftsched.contract.v1 import Assignment


def recommend(ask: RecommendRequest) -> RecommendResponse:
    """Rank the employees who could fill ``ask.slot`` in ``ask.roster`` (see module doc)."""
    slot = ask.slot
    absent = {a.employee_id for a in ask.absences if slot.date in a.dates}
    worked = {(a.employee_id, a.date): a for a in ask.roster}
    evaluator = ChangeEvaluator(ask.request, ask.roster, history=ask.history, absences=ask.absences)
    ranked: list[tuple[tuple[bool, float, int, str], Recommendation]] = []
    for employee in ask.request.employees:
        if employee.id in absent:
            continue
        current = worked.get((employee.id, slot.date))
        if (
            current is not None
            and current.shift_id == slot.shift_id
            and (slot.duty_id is None or current.duty_id == slot.duty_id)
        ):
            continue  # already fills it
        move = Assignment(
            employee_id=employee.id, date=slot.date, shift_id=slot.shift_id, duty_id=slot.duty_id
        )
        effect = evaluator.effect(employee.id, slot.date, move)
        recommendation = Recommendation(
            employee_id=employee.id,
            feasible=not effect.hard_violations,
            hard_violations=[
                HardBreak(code=v.code, message=v.message, field=v.field)
                for v in effect.hard_violations
            ],
            objective_delta=effect.objective_delta,
            changed_terms=[
                TermDelta(
                    name=t.name,
                    penalty_delta=t.penalty_delta,
                    violated_by_delta=t.violated_by_delta,
                )
                for t in effect.changed_terms
            ],
            moved_from_shift_id=None if current is None else current.shift_id,
        )
        key = (
            not recommendation.feasible,
            effect.objective_delta,
            len(effect.changed_terms),
            employee.id,
        )
        ranked.append((key, recommendation))
    ranked.sort(key=lambda pair: pair[0])
    return RecommendResponse(
        recommendations=[r for _, r in ranked[: ask.top]], candidates=len(ranked)
    )
