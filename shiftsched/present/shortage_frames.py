"""Polars tables of short shifts: the shortages an audit finds, why each is short, and
the causes of a request with no roster."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from shiftsched.contract.v1 import Cause, Shortage
from shiftsched.questions.inquiry import AuditedShortage, ShortageExplanation

#: An explanation's head counts, as columns (shiftsched.questions.inquiry.HeadCounts).
HEAD_KINDS = ("fillable", "movable", "unavoidable")


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


def audited_shortages_frame(shortages: Sequence[AuditedShortage]) -> pl.DataFrame:
    """The columns of :func:`shortages_frame`, then ``field``: the demand item each
    shortage falls short of."""
    return shortages_frame(shortages).with_columns(
        pl.Series("field", [m.field for m in shortages], dtype=pl.String)
    )


def explanations_frame(explanations: Sequence[ShortageExplanation]) -> pl.DataFrame:
    """One row per explained shortage: which demand, the verdict, its missing heads by
    kind (fillable, only movable, unavoidable; null when not counted), who fills it, how
    many cells move and what it costs (null unless avoidable), and the summary in words."""
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
            **{
                kind: [None if e.heads is None else getattr(e.heads, kind) for e in explanations]
                for kind in HEAD_KINDS
            },
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
            **dict.fromkeys(HEAD_KINDS, pl.Int64),
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
