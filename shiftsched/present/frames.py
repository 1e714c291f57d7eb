"""Polars tables of a request and its roster, for notebooks, charts and benchmarks.

Each function turns engine objects into one tidy frame (one row per observation), so a
chart or a filter never has to know the v1 JSON shape. Demand comes from the internal
problem (holidays already zeroed), the same numbers the model covers.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence

import polars as pl

from shiftsched.checking.audit import AuditReport, HardViolation
from shiftsched.checking.figures import CHANGE_FIELDS, EmployeeChange, Kpis
from shiftsched.checking.items import term_field, term_words
from shiftsched.contract.history import Ledger
from shiftsched.contract.planning import Change, Recommendation
from shiftsched.contract.v1 import (
    Assignment,
    Cause,
    Shortage,
    SoftConstraintViolation,
    SolveRequest,
)
from shiftsched.questions.fair_share import GroupBurden
from shiftsched.questions.inquiry import AuditedShortage, ShortageExplanation, TermCostChange
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import ProgressPoint


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


def violations_frame(
    violations: Sequence[SoftConstraintViolation], request: SolveRequest | None = None
) -> pl.DataFrame:
    """One row per soft term: its family, what it means in the words of
    docs/semantics.md and the JSON path of the input item behind it (with ``request``;
    the name alone otherwise), its penalty and amount, and its name."""
    return pl.DataFrame(
        {
            "family": [family_of(v.name) for v in violations],
            "what": [
                v.name if request is None else term_words(request, v.name, v.violated_by)
                for v in violations
            ],
            "penalty": [v.penalty for v in violations],
            "violated_by": [v.violated_by for v in violations],
            "field": [None if request is None else term_field(request, v.name) for v in violations],
            "name": [v.name for v in violations],
        },
        schema={
            "family": pl.String,
            "what": pl.String,
            "penalty": pl.Float64,
            "violated_by": pl.Float64,
            "field": pl.String,
            "name": pl.String,
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


# ---------------------------------------------------------------- across periods


def seam_frame(
    before: pl.DataFrame,
    after: pl.DataFrame,
    current_end: dt.date,
    next_start: dt.date,
    days: int,
) -> pl.DataFrame:
    """The last ``days`` days of one period (through ``current_end``) and the first
    ``days`` of the next (from ``next_start``), from their :func:`assignments_frame`, with a
    ``period`` column: ``current`` or ``next``."""
    window = dt.timedelta(days=days)
    last = before.filter(pl.col("date").is_between(current_end - window, current_end, "right"))
    first = after.filter(pl.col("date").is_between(next_start, next_start + window, "left"))
    return pl.concat(
        [
            last.with_columns(period=pl.lit("current")),
            first.with_columns(period=pl.lit("next")),
        ]
    )


def hard_violations_frame(violations: Sequence[HardViolation]) -> pl.DataFrame:
    """One row per broken hard rule: its code, who, when, which shift, and why."""
    return pl.DataFrame(
        {
            "code": [v.code for v in violations],
            "employee_id": [v.employee_id for v in violations],
            "date": [v.date for v in violations],
            "shift_id": [v.shift_id for v in violations],
            "message": [v.message for v in violations],
        },
        schema={
            "code": pl.String,
            "employee_id": pl.String,
            "date": pl.Date,
            "shift_id": pl.String,
            "message": pl.String,
        },
    )


def _measures(report: AuditReport) -> dict[tuple[str, str], float]:
    """Per hard rule its count of violations, per soft term its penalty."""
    found: dict[tuple[str, str], float] = {}
    for key, amount in [
        *((("hard", v.code), 1.0) for v in report.hard_violations),
        *((("soft", t.name), t.penalty) for t in report.soft_constraint_violations),
    ]:
        found[key] = found.get(key, 0.0) + amount
    return found


def audit_comparison_frame(respected: AuditReport, ignored: AuditReport) -> pl.DataFrame:
    """Where two audits of one roster differ, the history read (``respected``) and not
    (``ignored``): per hard rule its count of violations, per soft term its penalty; the
    rules and terms on which they agree are left out."""
    with_history, without = _measures(respected), _measures(ignored)
    keys = sorted(
        k
        for k in with_history.keys() | without.keys()
        if with_history.get(k, 0.0) != without.get(k, 0.0)
    )
    return pl.DataFrame(
        {
            "kind": [kind for kind, _ in keys],
            "name": [name for _, name in keys],
            "history_respected": [with_history.get(k, 0.0) for k in keys],
            "history_ignored": [without.get(k, 0.0) for k in keys],
        },
        schema={
            "kind": pl.String,
            "name": pl.String,
            "history_respected": pl.Float64,
            "history_ignored": pl.Float64,
        },
    )


def ledger_frame(ledger: Ledger, shift_ids: Sequence[str] = ()) -> pl.DataFrame:
    """One row per employee of a ledger: the count of each shift (a ``shifts:<id>``
    column, ``shift_ids`` first, then any other the ledger counts), days and minutes
    worked, preferences granted and refused."""
    counted = {s for e in ledger.employees for s in e.shift_counts}
    shifts = [*shift_ids, *sorted(counted - set(shift_ids))]
    entries = ledger.employees
    data: dict[str, list[object]] = {"employee_id": [e.employee_id for e in entries]}
    for shift in shifts:
        data[f"shifts:{shift}"] = [e.shift_counts.get(shift, 0) for e in entries]
    data |= {
        "days_worked": [e.days_worked for e in entries],
        "minutes_worked": [e.minutes_worked for e in entries],
        "preferences_granted": [e.preferences_granted for e in entries],
        "preferences_refused": [e.preferences_refused for e in entries],
    }
    schema = {name: pl.String if name == "employee_id" else pl.Int64 for name in data}
    return pl.DataFrame(data, schema=schema)


def ledger_spread_frame(request: SolveRequest, before: Ledger, after: Ledger) -> pl.DataFrame:
    """Per fairness group of ``request`` (per shift when it has none): the spread, max -
    min, of its target shifts' counts in the ledger ``before`` and ``after`` a period,
    among the request's employees who may work one of them."""
    groups = [
        (f"fairness:{i}", tuple(g.target_shift_ids))
        for i, g in enumerate(request.constraints.fairness_groups)
    ] or [(f"shift:{s.id}", (s.id,)) for s in request.shifts]
    rows = []
    for name, targets in groups:
        eligible = [e.id for e in request.employees if set(e.assignable_shift_ids) & set(targets)]
        rows.append(
            {
                "group": name,
                "target_shifts": ", ".join(targets),
                "employees": len(eligible),
                "spread_before": _spread(before, targets, eligible),
                "spread_after": _spread(after, targets, eligible),
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            "group": pl.String,
            "target_shifts": pl.String,
            "employees": pl.Int64,
            "spread_before": pl.Int64,
            "spread_after": pl.Int64,
        },
    )


def _spread(ledger: Ledger, targets: Sequence[str], employees: Sequence[str]) -> int:
    """Max - min of the ``employees``' counts of ``targets`` in ``ledger`` (0 when none)."""
    counts = {e.employee_id: e.shift_counts for e in ledger.employees}
    totals = [sum(counts.get(e, {}).get(t, 0) for t in targets) for e in employees]
    return max(totals) - min(totals) if totals else 0


# ------------------------------------------------------------ comparing two rosters

#: The per-employee figures of an EmployeeChange, in the order a table shows them.
EMPLOYEE_CHANGE_COLUMNS = CHANGE_FIELDS


def compared_cells_frame(
    before: pl.DataFrame,
    after: pl.DataFrame,
    changes: pl.DataFrame,
    rosters: tuple[str, str] = ("before", "after"),
) -> pl.DataFrame:
    """Two rosters' cells in one frame for side-by-side heatmaps: the rows of each
    :func:`assignments_frame` with a ``roster`` column (``rosters[0]`` for ``before``,
    ``rosters[1]`` for ``after``) and, from :func:`changes_frame`, the ``change`` and its
    ``before`` and ``after`` on every changed cell (null elsewhere). A changed cell a
    roster has off gets a row without a shift in that roster, so it can be outlined."""
    marks = changes.select("employee_id", "date", "change", "before", "after")
    names = pl.concat([before, after]).select("employee_id", "employee").unique("employee_id")
    parts = []
    for label, cells in zip(rosters, (before, after), strict=True):
        off = (
            marks.join(cells, on=["employee_id", "date"], how="anti")
            .join(names, on="employee_id", how="left")
            .select(
                "employee_id",
                pl.col("employee").fill_null(pl.col("employee_id")),
                "date",
                pl.col("date").dt.strftime("%a").alias("weekday"),
            )
        )
        blank = off.with_columns(
            *(
                pl.lit(None, dtype=pl.String).alias(c)
                for c in ("shift_id", "shift", "duty_id", "duty")
            )
        )
        parts.append(
            pl.concat([cells, blank.select(cells.columns)])
            .join(marks, on=["employee_id", "date"], how="left")
            .with_columns(roster=pl.lit(label))
        )
    return pl.concat(parts)


def employee_changes_frame(changes: Sequence[EmployeeChange]) -> pl.DataFrame:
    """One row per employee of a comparison (``CompareResponse.employees``): each figure
    after - before, and the cells that changed."""
    data: dict[str, list[object]] = {
        "employee_id": [c.employee_id for c in changes],
        "name": [c.name for c in changes],
    }
    for column in EMPLOYEE_CHANGE_COLUMNS:
        data[column] = [getattr(c, column) for c in changes]
    schema = {name: pl.String if name in ("employee_id", "name") else pl.Int64 for name in data} | {
        "hours": pl.Float64
    }
    return pl.DataFrame(data, schema=schema)


def term_changes_frame(
    terms: Sequence[TermCostChange], request: SolveRequest | None = None
) -> pl.DataFrame:
    """One row per soft term whose price differs between two rosters, with its family,
    what it means (the words of docs/semantics.md, with ``request``; its name otherwise)
    and input item: the price before, after and the change (after - before)."""
    return pl.DataFrame(
        {
            "family": [family_of(t.name) for t in terms],
            "what": [t.name if request is None else term_words(request, t.name) for t in terms],
            "field": [t.field for t in terms],
            "before": [t.before for t in terms],
            "after": [t.after for t in terms],
            "delta": [t.delta for t in terms],
            "name": [t.name for t in terms],
        },
        schema={
            "family": pl.String,
            "what": pl.String,
            "field": pl.String,
            "before": pl.Float64,
            "after": pl.Float64,
            "delta": pl.Float64,
            "name": pl.String,
        },
    )


def kpis_frame(before: Kpis, after: Kpis) -> pl.DataFrame:
    """The KPIs of two rosters side by side, one row per KPI in the order of
    :class:`shiftsched.checking.figures.Kpis`; ``delta`` is after - before (null where either
    is)."""
    rows = []
    for name in Kpis.model_fields:
        old, new = getattr(before, name), getattr(after, name)
        delta = None if old is None or new is None else new - old
        rows.append({"kpi": name, "before": old, "after": new, "delta": delta})
    return pl.DataFrame(
        rows,
        schema={"kpi": pl.String, "before": pl.Float64, "after": pl.Float64, "delta": pl.Float64},
    )


# ------------------------------------------------------------------ short shifts


def audited_shortages_frame(shortages: Sequence[AuditedShortage]) -> pl.DataFrame:
    """The columns of :func:`shortages_frame`, then ``field``: the demand item each
    shortage falls short of."""
    return shortages_frame(shortages).with_columns(
        pl.Series("field", [m.field for m in shortages], dtype=pl.String)
    )


def explanations_frame(explanations: Sequence[ShortageExplanation]) -> pl.DataFrame:
    """One row per explained shortage: which demand, the verdict, who fills it, how many
    cells move and what it costs (null unless avoidable), and the summary in words."""
    return pl.DataFrame(
        {
            "date": [e.shortage.date for e in explanations],
            "kind": [e.shortage.kind for e in explanations],
            "shift_id": [
                e.shortage.shift_id or ",".join(e.shortage.shift_ids or []) for e in explanations
            ],
            "duty_id": [e.shortage.duty_id for e in explanations],
            "field": [e.shortage.field for e in explanations],
            "verdict": [e.verdict for e in explanations],
            "filled_by": [", ".join(e.filled_by) for e in explanations],
            "changed_cells": [len(e.changes) for e in explanations],
            "objective_delta": [e.objective_delta for e in explanations],
            "summary": [e.summary for e in explanations],
        },
        schema={
            "date": pl.Date,
            "kind": pl.String,
            "shift_id": pl.String,
            "duty_id": pl.String,
            "field": pl.String,
            "verdict": pl.String,
            "filled_by": pl.String,
            "changed_cells": pl.Int64,
            "objective_delta": pl.Float64,
            "summary": pl.String,
        },
    )


def causes_frame(causes: Sequence[Cause]) -> pl.DataFrame:
    """One row per cause: its kind, the input item's JSON path and what it says."""
    return pl.DataFrame(
        {
            "cause_type": [c.cause_type for c in causes],
            "field": [c.field for c in causes],
            "message": [c.message for c in causes],
        },
        schema={"cause_type": pl.String, "field": pl.String, "message": pl.String},
    )
