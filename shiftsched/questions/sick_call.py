"""A sick call on a published roster: the cells it leaves, and who could take one,
priced against the roster that was published.

:func:`shiftsched.questions.recommend.recommend` prices a move against the roster it is handed.
Handed the roster with the sick person's cell removed, its deltas read against that hole, and
filling a shortage the absence made looks like a saving. A manager compares with the
roster everyone was given, so here every figure is against the published roster: the
audit of the published roster with the candidate in the slot (and the sick person out
of it) minus the audit of the published roster, and the hard rules that roster breaks
which the published one does not. When taking the sick person out breaks a hard rule of
its own (they are fixed to that shift), every candidate's roster breaks it too, and
says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from shiftsched.checking.audit import audit
from shiftsched.contract.planning import (
    Absence,
    HardBreak,
    Recommendation,
    RecommendRequest,
    RecommendResponse,
    Slot,
    TermDelta,
)
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.questions.edit import EditVerdict, reassign
from shiftsched.questions.recommend import recommend


def left_cells(roster: Sequence[Assignment], absence: Absence) -> list[Assignment]:
    """The sick person's cells on the dates of ``absence``, by date: empty when they are
    off on all of them, and then there is nothing to re-plan."""
    dates = set(absence.dates)
    left = [a for a in roster if a.employee_id == absence.employee_id and a.date in dates]
    return sorted(left, key=lambda a: a.date)


def fills_of(
    request: SolveRequest, published: Sequence[Assignment], absence: Absence, top: int = 5
) -> tuple[Assignment, RecommendResponse]:
    """Who could take the first cell ``absence`` leaves in ``published``, the ``top`` best,
    each priced against ``published`` by two audits (module docstring).

    The candidates are ranked by :func:`shiftsched.questions.recommend.recommend` in the roster
    with the hole (there each delta differs from the one here by the price of the hole
    alone), then the best ``top`` are priced in full and ranked again on those figures.
    Raises ValueError when the sick person is off on every date of ``absence``.
    """
    left = left_cells(published, absence)
    if not left:
        raise ValueError(f"{absence.employee_id} works none of the dates of the absence")
    cell = left[0]
    hole = reassign(published, cell.employee_id, cell.date, None)
    slot = Slot(date=cell.date, shift_id=cell.shift_id, duty_id=cell.duty_id)
    ranked = recommend(
        RecommendRequest(request=request, roster=hole, slot=slot, absences=[absence], top=top)
    )
    before = audit(request, published, absences=[absence])
    priced = [
        _priced(
            EditVerdict(
                before, audit(request, _filled(hole, slot, r.employee_id), absences=[absence])
            ),
            r,
        )
        for r in ranked.recommendations
    ]
    priced.sort(
        key=lambda r: (not r.feasible, r.objective_delta, len(r.changed_terms), r.employee_id)
    )
    return cell, RecommendResponse(recommendations=priced, candidates=ranked.candidates)


def _filled(hole: Sequence[Assignment], slot: Slot, employee_id: str) -> list[Assignment]:
    return reassign(hole, employee_id, slot.date, slot.shift_id, slot.duty_id)


def _priced(verdict: EditVerdict, ranked: Recommendation) -> Recommendation:
    """``ranked`` with the figures of ``verdict``: published roster -> candidate's."""
    magnitude = {
        name: {v.name: v.violated_by or 0.0 for v in report.soft_constraint_violations}
        for name, report in (("before", verdict.before), ("after", verdict.after))
    }
    broken = verdict.new_hard_violations
    return ranked.model_copy(
        update={
            "feasible": not broken,
            "hard_violations": [
                HardBreak(code=v.code, message=v.message, field=v.field) for v in broken
            ],
            "objective_delta": verdict.objective_delta,
            "changed_terms": [
                TermDelta(
                    name=t.name,
                    penalty_delta=t.delta,
                    violated_by_delta=magnitude["after"].get(t.name, 0.0)
                    - magnitude["before"].get(t.name, 0.0),
                )
                for t in verdict.changed_terms
            ],
        }
    )
