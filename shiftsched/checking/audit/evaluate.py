"""The audit's entry: the family checks, in a fixed order, over one context.

The order of :data:`_RULES` is the order of the report's hard violations, so it must not
change; soft terms and shortage markers are sorted by :class:`_Findings` whatever the order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shiftsched.checking.audit.cells import (
    _check_assignable_shift,
    _check_available_weekday,
    _check_duty_on_shift,
    _check_fixed_assignments,
    _check_holiday,
    _check_one_shift_per_date,
    _check_references,
    _check_skill_level,
)
from shiftsched.checking.audit.context import _Context, _positions
from shiftsched.checking.audit.demand import _cross_shift_demand, _demand
from shiftsched.checking.audit.fairness import _fairness
from shiftsched.checking.audit.findings import AuditReport, _Findings
from shiftsched.checking.audit.horizon import _horizon
from shiftsched.checking.audit.limits import (
    _check_shift_count_limits,
    _days_per_month,
    _days_per_week,
    _weekly_hours,
)
from shiftsched.checking.audit.preferences import _preferences
from shiftsched.checking.audit.response import read_response
from shiftsched.checking.audit.sequences import _consecutive_days, _shift_transitions
from shiftsched.checking.audit.teams import _pairings, _skill_support
from shiftsched.checking.audit.terms import PREFERENCE
from shiftsched.contract.history import History
from shiftsched.contract.horizon_targets import PlanHorizon
from shiftsched.contract.planning import Absence
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.errors import InvalidRequest

_RULES = (
    _check_one_shift_per_date,
    _check_assignable_shift,
    _check_holiday,
    _check_available_weekday,
    _check_duty_on_shift,
    _check_skill_level,
    _check_fixed_assignments,
    _check_shift_count_limits,
    _consecutive_days,
    _days_per_month,
    _weekly_hours,
    _shift_transitions,
    _pairings,
    _skill_support,
    _days_per_week,
    _demand,
    _cross_shift_demand,
    _fairness,
    _preferences,
)


def _context(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    out: _Findings,
    *,
    preference_weight: int,
    history: History | None,
    absences: Sequence[Absence] = (),
) -> _Context:
    """The context of the assignments that name known things; each of the others is
    reported in ``out`` as an unknown_reference and left out of every other rule."""
    known = _check_references(request, assignments, out)
    return _Context(
        request,
        known,
        preference_weight,
        history=history,
        positions=_positions(assignments, known),
        absences=absences,
    )


def _findings(ctx: _Context, out: _Findings | None = None) -> _Findings:
    """Every family's findings on ``ctx``, added to ``out`` (a new one when None)."""
    found = _Findings() if out is None else out
    for rule in _RULES:
        rule(ctx, found)
    return found


def audit(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    *,
    preference_weight: int = PREFERENCE,
    history: History | None = None,
    absences: Sequence[Absence] = (),
    horizon: PlanHorizon | None = None,
) -> AuditReport:
    """Evaluates a roster: hard violations, soft terms, objective value and shortages.

    ``preference_weight`` prices an unmet preference, for rosters solved with a tuned
    weight (shiftsched.questions.variants.with_preference_weight); v1 always uses the default.
    ``history``: the days before the period (docs/semantics.md, "Planning across
    periods"), read across the seam; its cells are facts and are never reported.
    ``absences``: a plan's, re-plan's or question's; each absent date lowers that
    employee's day minimums pro rata ("Planning with absences").
    ``horizon``: a plan's; each employee's worked days and weekends against the
    period's share of the horizon's limits ("Horizon targets").
    """
    out = _Findings()
    ctx = _context(
        request,
        assignments,
        out,
        preference_weight=preference_weight,
        history=history,
        absences=absences,
    )
    _findings(ctx, out)
    if horizon is not None:
        _horizon(ctx, horizon, out)
    return AuditReport(
        hard_violations=out.hard,
        soft_constraint_violations=out.violations(),
        objective_value=out.objective(),
        shortages=out.shortages(),
    )


def audit_json(
    request_data: Mapping[str, Any],
    response_data: Mapping[str, Any] | Sequence[Mapping[str, Any]],
) -> AuditReport:
    """Audits JSON-shaped data: a SolveResponse, ``{"assignments": [...]}`` or a list.

    Raises ValueError when the response holds no readable roster (see :func:`read_response`).
    """
    request = SolveRequest.model_validate(request_data)
    try:
        assignments = read_response(response_data).assignments
    except InvalidRequest as exc:
        raise ValueError(str(exc)) from None
    return audit(request, assignments)
