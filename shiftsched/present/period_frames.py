"""Polars tables across periods: the seam between two periods, the ledger a history
carries, an audit with the history respected against one that ignores it, and where
each employee stands against the targets of a horizon longer than the period."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import polars as pl

from shiftsched.checking.audit import AuditReport, HardViolation
from shiftsched.contract.history import Ledger
from shiftsched.contract.horizon_targets import ShiftProgress, TargetProgress
from shiftsched.contract.v1 import SolveRequest
from shiftsched.present.words import many


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


#: The columns of :func:`horizon_progress_frame`, after the employee, in plain words.
HORIZON_COLUMNS = {
    "days worked": pl.Int64,  # from the horizon's start through the period's end
    "days at least": pl.Int64,  # the horizon's limits, as asked (null: none)
    "days at most": pl.Int64,
    "share at least": pl.Int64,  # the period's shares: counts by its end, those before it in
    "share at most": pl.Int64,
    "days still owed": pl.Int64,  # to reach the horizon's minimum
    "days still allowed": pl.Int64,  # under its maximum (below 0: over it already)
    "weekends worked": pl.Int64,
    "weekends at most": pl.Int64,
    "weekend share": pl.Int64,
    "weekends still allowed": pl.Int64,
    "hours worked": pl.Float64,  # of the shifts' working hours
    "hours at least": pl.Int64,
    "hours at most": pl.Int64,
    "hours share at least": pl.Float64,
    "hours share at most": pl.Float64,
    "hours still allowed": pl.Float64,
    "shift counts": pl.String,  # per shift a target counts: worked, share, horizon's limits
    "this period": pl.String,
}


def horizon_progress_frame(progress: Sequence[TargetProgress]) -> pl.DataFrame:
    """One row per horizon target: the employee's counts from the horizon's start through
    the period's end, the horizon's limits, the period's shares of them, what the period
    leaves for the rest of the horizon, and how the period stands against its share."""
    rows = [
        {
            "employee": p.employee_id,
            "days worked": p.days_worked,
            "days at least": p.min_days,
            "days at most": p.max_days,
            "share at least": p.period_min_days,
            "share at most": p.period_max_days,
            "days still owed": p.days_to_minimum if p.min_days is not None else None,
            "days still allowed": p.days_left_to_maximum,
            "weekends worked": p.weekends_worked,
            "weekends at most": p.max_weekends,
            "weekend share": p.period_max_weekends,
            "weekends still allowed": p.weekends_left,
            "hours worked": p.minutes_worked / 60,
            "hours at least": p.min_hours,
            "hours at most": p.max_hours,
            "hours share at least": _hours(p.period_min_minutes),
            "hours share at most": _hours(p.period_max_minutes),
            "hours still allowed": _hours(p.minutes_left_to_maximum),
            "shift counts": "; ".join(_shift_words(c) for c in p.shift_counts) or None,
            "this period": standing_words(p),
        }
        for p in progress
    ]
    return pl.DataFrame(rows, schema={"employee": pl.String, **HORIZON_COLUMNS})


def standing_words(p: TargetProgress) -> str:
    """How the period's counts stand against its shares, in words: each that is off, or
    *within its share*."""
    off = []
    if p.period_min_days is not None and p.days_worked < p.period_min_days:
        off.append(f"{many(p.period_min_days - p.days_worked, 'day')} short of its share")
    if p.period_max_days is not None and p.days_worked > p.period_max_days:
        off.append(f"{many(p.days_worked - p.period_max_days, 'day')} over its share")
    if p.period_max_weekends is not None and p.weekends_worked > p.period_max_weekends:
        over = p.weekends_worked - p.period_max_weekends
        off.append(f"{many(over, 'weekend')} over its share")
    if p.period_min_minutes is not None and p.minutes_worked < p.period_min_minutes:
        off.append(f"{_hours_words(p.period_min_minutes - p.minutes_worked)} short of its share")
    if p.period_max_minutes is not None and p.minutes_worked > p.period_max_minutes:
        off.append(f"{_hours_words(p.minutes_worked - p.period_max_minutes)} over its share")
    for c in p.shift_counts:
        kind = f"{c.shift_id} shift"
        if c.period_min is not None and c.worked < c.period_min:
            off.append(f"{many(c.period_min - c.worked, kind)} short of its share")
        if c.period_max is not None and c.worked > c.period_max:
            off.append(f"{many(c.worked - c.period_max, kind)} over its share")
    return "; ".join(off) or "within its share"


def _shift_words(c: ShiftProgress) -> str:
    """``night 12 (share 10-14; horizon 30-40)``: a shift count against its limits."""

    def span(low: int | None, high: int | None) -> str:
        if low is None:
            return "any" if high is None else f"at most {high}"
        return f"at least {low}" if high is None else f"{low}-{high}"

    return f"{c.shift_id} {c.worked} (share {span(c.period_min, c.period_max)}; " + (
        f"horizon {span(c.min, c.max)})"
    )


def _hours(minutes: int | None) -> float | None:
    return None if minutes is None else minutes / 60


def _hours_words(minutes: int) -> str:
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest:02d}" if rest else f"{hours} h"
