"""Polars tables comparing two rosters: cell by cell, per employee, per soft term, and
their key figures side by side."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from shiftsched.checking.figures import CHANGE_FIELDS, EmployeeChange, Kpis
from shiftsched.checking.items import term_words
from shiftsched.contract.v1 import SolveRequest
from shiftsched.present.term_frames import family_of
from shiftsched.questions.inquiry import TermCostChange

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
        if "holiday" in cells.columns:  # a date is a holiday in both rosters or in neither
            days = pl.concat([before, after]).select("date", "holiday").unique("date")
            blank = blank.join(days, on="date", how="left").with_columns(
                pl.col("holiday").fill_null(value=False)
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
