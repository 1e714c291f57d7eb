"""Polars tables of a request and its roster, for notebooks, charts and benchmarks.

Each function turns engine objects into one tidy frame (one row per observation), so a
chart or a filter never has to know the v1 JSON shape. The tables of soft terms, short shifts,
periods and compared rosters are in term_frames, shortage_frames, period_frames and
compare_frames beside this module, and re-exported here. Demand comes from the internal
problem (holidays already zeroed), the same numbers the model covers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import polars as pl

from shiftsched.checking.items import term_words
from shiftsched.contract.planning import Change, Recommendation
from shiftsched.contract.v1 import Assignment, Shortage, SolveRequest
from shiftsched.present.compare_frames import (
    EMPLOYEE_CHANGE_COLUMNS,
    compared_cells_frame,
    employee_changes_frame,
    kpis_frame,
    term_changes_frame,
)
from shiftsched.present.period_frames import (
    audit_comparison_frame,
    hard_violations_frame,
    horizon_progress_frame,
    ledger_frame,
    ledger_spread_frame,
    seam_frame,
)
from shiftsched.present.shortage_frames import (
    audited_shortages_frame,
    causes_frame,
    explanations_frame,
    shortages_frame,
)
from shiftsched.present.term_frames import family_of, penalty_by_family, violations_frame
from shiftsched.questions.fair_share import GroupBurden
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import ProgressPoint

# The tables of one area each live beside this module; every table is read from here.
__all__ = [
    "EMPLOYEE_CHANGE_COLUMNS",
    "assignments_frame",
    "audit_comparison_frame",
    "audited_shortages_frame",
    "burden_frame",
    "causes_frame",
    "changes_frame",
    "compared_cells_frame",
    "coverage_frame",
    "employee_changes_frame",
    "explanations_frame",
    "family_of",
    "hard_violations_frame",
    "horizon_progress_frame",
    "kpis_frame",
    "ledger_frame",
    "ledger_spread_frame",
    "penalty_by_family",
    "progress_frame",
    "recommendations_frame",
    "seam_frame",
    "shortages_frame",
    "term_changes_frame",
    "violations_frame",
]


def assignments_frame(request: SolveRequest, assignments: Sequence[Assignment]) -> pl.DataFrame:
    """One row per assignment, with names, weekday and whether the date is a holiday,
    for reading and filtering."""
    holidays = set(request.schedule_period.holidays)
    shift_names = {s.id: s.name for s in request.shifts}
    duty_names = {k.id: k.name for k in request.duties}
    employee_names = {e.id: e.name or e.id for e in request.employees}
    return pl.DataFrame(
        {
            "employee_id": [a.employee_id for a in assignments],
            "employee": [employee_names.get(a.employee_id, a.employee_id) for a in assignments],
            "date": [a.date for a in assignments],
            "weekday": [a.date.strftime("%a") for a in assignments],
            "holiday": [a.date in holidays for a in assignments],
            "shift_id": [a.shift_id for a in assignments],
            "shift": [shift_names.get(a.shift_id, a.shift_id) for a in assignments],
            "duty_id": [a.duty_id for a in assignments],
            "duty": [
                duty_names.get(a.duty_id, a.duty_id) if a.duty_id else None for a in assignments
            ],
        },
        schema={
            "employee_id": pl.String,
            "employee": pl.String,
            "date": pl.Date,
            "weekday": pl.String,
            "holiday": pl.Boolean,
            "shift_id": pl.String,
            "shift": pl.String,
            "duty_id": pl.String,
            "duty": pl.String,
        },
    )


def changes_frame(changes: Sequence[Change]) -> pl.DataFrame:
    """One row per changed (employee, date) cell of a re-plan or a comparison: what it
    was, what it is."""
    return pl.DataFrame(
        {
            "employee_id": [c.employee_id for c in changes],
            "date": [c.date for c in changes],
            "change": [c.change for c in changes],
            "before": [_cell(c.from_shift_id, c.from_duty_id) for c in changes],
            "after": [_cell(c.to_shift_id, c.to_duty_id) for c in changes],
        },
        schema={
            "employee_id": pl.String,
            "date": pl.Date,
            "change": pl.String,
            "before": pl.String,
            "after": pl.String,
        },
    )


def _cell(shift_id: str | None, duty_id: str | None) -> str:
    if shift_id is None:
        return "off"
    return shift_id if duty_id is None else f"{shift_id}/{duty_id}"


def recommendations_frame(
    recommendations: Sequence[Recommendation], request: SolveRequest | None = None
) -> pl.DataFrame:
    """One row per ranked candidate, best first: the hard rules the move breaks in words
    (with the input item behind each), and the soft terms it moves in the words of
    docs/semantics.md when ``request`` is given (their names otherwise)."""

    def words(name: str, amount: float) -> str:
        return name if request is None else term_words(request, name, abs(amount))

    return pl.DataFrame(
        {
            "rank": list(range(1, len(recommendations) + 1)),
            "employee_id": [r.employee_id for r in recommendations],
            "feasible": [r.feasible for r in recommendations],
            "objective_delta": [r.objective_delta for r in recommendations],
            "leaves": [r.moved_from_shift_id or "" for r in recommendations],
            "hard_rules_broken": [
                "; ".join(
                    v.message + (f" ({v.field})" if v.field else "") for v in r.hard_violations
                )
                for r in recommendations
            ],
            "terms_moved": [
                "; ".join(
                    f"{words(t.name, t.violated_by_delta)} {t.penalty_delta:+,g}"
                    for t in r.changed_terms
                )
                for r in recommendations
            ],
        },
        schema={
            "rank": pl.Int64,
            "employee_id": pl.String,
            "feasible": pl.Boolean,
            "objective_delta": pl.Float64,
            "leaves": pl.String,
            "hard_rules_broken": pl.String,
            "terms_moved": pl.String,
        },
    )


def coverage_frame(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    shortages: Sequence[Shortage] = (),
) -> pl.DataFrame:
    """Staffing per (date, shift): whether the date is a holiday (its demand is then 0),
    demand range, heads assigned, heads reported missing."""
    problem = from_request(request)
    holidays = set(request.schedule_period.holidays)
    assigned = Counter((a.date, a.shift_id) for a in assignments)
    missing = {(m.date, m.shift_id): m.missing for m in shortages if m.kind == "staffing"}
    rows = [
        {
            "date": date,
            "holiday": date in holidays,
            "shift_id": shift.id,
            "shift": shift.name,
            "demand_min": shift.staffing.mins[d],
            "demand_max": shift.staffing.maxs[d],
            "assigned": assigned[date, shift.id],
            "missing": missing.get((date, shift.id), 0),
        }
        for shift in problem.shifts
        for d, date in enumerate(problem.horizon.dates)
    ]
    return pl.DataFrame(
        rows,
        schema={
            "date": pl.Date,
            "holiday": pl.Boolean,
            "shift_id": pl.String,
            "shift": pl.String,
            "demand_min": pl.Int64,
            "demand_max": pl.Int64,
            "assigned": pl.Int64,
            "missing": pl.Int64,
        },
    )


def progress_frame(progress: Sequence[ProgressPoint]) -> pl.DataFrame:
    """Objective and bound over time, long form (one row per series and point).

    Every penalty is non-negative, so a bound below zero (or none yet, minus infinity)
    says only that no roster costs less than 0: it is shown as 0, which keeps charts on
    a readable scale.
    """
    rows = []
    for point in progress:
        if point.objective is not None:
            rows.append({"seconds": point.seconds, "series": "objective", "value": point.objective})
        bound = max(0.0, point.bound)
        rows.append({"seconds": point.seconds, "series": "bound", "value": bound})
    return pl.DataFrame(
        rows, schema={"seconds": pl.Float64, "series": pl.String, "value": pl.Float64}
    )


def burden_frame(burden: GroupBurden) -> pl.DataFrame:
    """One row per eligible employee of a fairness group: count, shares and excess."""
    return pl.DataFrame(
        {
            "employee_id": [s.employee_id for s in burden.shares],
            "count": [s.count for s in burden.shares],
            "equal_share": [s.equal_share for s in burden.shares],
            "proportional_share": [s.proportional_share for s in burden.shares],
            "policy_share": [s.policy_share for s in burden.shares],
            "excess": [s.excess for s in burden.shares],
        },
        schema={
            "employee_id": pl.String,
            "count": pl.Int64,
            "equal_share": pl.Float64,
            "proportional_share": pl.Float64,
            "policy_share": pl.Float64,
            "excess": pl.Float64,
        },
    )
