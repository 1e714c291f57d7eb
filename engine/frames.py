"""Polars tables of a request and its roster, for notebooks, charts and benchmarks.

Each function turns engine objects into one tidy frame (one row per observation), so a
chart or a filter never has to know the v1 JSON shape. Demand comes from the internal
problem (holidays already zeroed), the same numbers the model covers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import polars as pl

from engine.contract import Assignment, Shortage, SoftConstraintViolation, SolveRequest
from engine.fair_share import GroupBurden
from engine.planning import Change, Recommendation
from engine.problem import from_request
from engine.solve import ProgressPoint


def family_of(violation_name: str) -> str:
    """The soft-term family of a violation name: its part before the first ``:``."""
    return violation_name.split(":", 1)[0]


def assignments_frame(request: SolveRequest, assignments: Sequence[Assignment]) -> pl.DataFrame:
    """One row per assignment, with names and weekday for reading and filtering."""
    shift_names = {s.id: s.name for s in request.shifts}
    duty_names = {k.id: k.name for k in request.duties}
    employee_names = {e.id: e.name or e.id for e in request.employees}
    return pl.DataFrame(
        {
            "employee_id": [a.employee_id for a in assignments],
            "employee": [employee_names.get(a.employee_id, a.employee_id) for a in assignments],
            "date": [a.date for a in assignments],
            "weekday": [a.date.strftime("%a") for a in assignments],
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
            "shift_id": pl.String,
            "shift": pl.String,
            "duty_id": pl.String,
            "duty": pl.String,
        },
    )


def changes_frame(changes: Sequence[Change]) -> pl.DataFrame:
    """One row per changed (employee, date) cell of a re-plan: what it was, what it is."""
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


def recommendations_frame(recommendations: Sequence[Recommendation]) -> pl.DataFrame:
    """One row per ranked candidate, best first, with the rules and terms it moves."""
    return pl.DataFrame(
        {
            "rank": list(range(1, len(recommendations) + 1)),
            "employee_id": [r.employee_id for r in recommendations],
            "feasible": [r.feasible for r in recommendations],
            "objective_delta": [r.objective_delta for r in recommendations],
            "leaves": [r.moved_from_shift_id or "" for r in recommendations],
            "hard_rules_broken": [
                "; ".join(v.code for v in r.hard_violations) for r in recommendations
            ],
            "terms_moved": [
                ", ".join(f"{t.name} {t.penalty_delta:+g}" for t in r.changed_terms)
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


def shortages_frame(shortages: Sequence[Shortage]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "kind": [m.kind for m in shortages],
            "date": [m.date for m in shortages],
            "shift_id": [m.shift_id or ",".join(m.shift_ids or []) for m in shortages],
            "duty_id": [m.duty_id for m in shortages],
            "required": [m.required for m in shortages],
            "assigned": [m.assigned for m in shortages],
            "missing": [m.missing for m in shortages],
        },
        schema={
            "kind": pl.String,
            "date": pl.Date,
            "shift_id": pl.String,
            "duty_id": pl.String,
            "required": pl.Int64,
            "assigned": pl.Int64,
            "missing": pl.Int64,
        },
    )


def violations_frame(violations: Sequence[SoftConstraintViolation]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "family": [family_of(v.name) for v in violations],
            "name": [v.name for v in violations],
            "penalty": [v.penalty for v in violations],
            "violated_by": [v.violated_by for v in violations],
        },
        schema={
            "family": pl.String,
            "name": pl.String,
            "penalty": pl.Float64,
            "violated_by": pl.Float64,
        },
    )


def penalty_by_family(violations: Sequence[SoftConstraintViolation]) -> pl.DataFrame:
    """Total penalty per soft-term family, largest first."""
    return (
        violations_frame(violations)
        .group_by("family")
        .agg(pl.col("penalty").sum(), pl.len().alias("terms"))
        .sort(["penalty", "family"], descending=[True, False])
    )


def coverage_frame(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    shortages: Sequence[Shortage] = (),
) -> pl.DataFrame:
    """Staffing per (date, shift): demand range, heads assigned, heads reported missing."""
    problem = from_request(request)
    assigned = Counter((a.date, a.shift_id) for a in assignments)
    missing = {(m.date, m.shift_id): m.missing for m in shortages if m.kind == "staffing"}
    rows = [
        {
            "date": date,
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
