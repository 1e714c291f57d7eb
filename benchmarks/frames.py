"""The results frames: fixed schemas, and how they are written and read back.

One schema for every result file means ``compare`` and ``charts`` can read any run,
including one where some methods crashed (their columns are null, not missing).
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import polars as pl

RUN_SCHEMA: dict[str, Any] = {
    "instance": pl.String,
    "method": pl.String,
    "mix": pl.String,
    "source": pl.String,
    "size": pl.Int64,
    "employees": pl.Int64,
    "shifts": pl.Int64,
    "duties": pl.Int64,
    "days": pl.Int64,
    "time_limit": pl.Float64,
    "workers": pl.Int64,
    "cores": pl.Int64,
    "oversubscribed": pl.Boolean,
    "variables": pl.Int64,
    "constraints": pl.Int64,
    "build_seconds": pl.Float64,
    "setup_seconds": pl.Float64,
    "first_feasible_seconds": pl.Float64,
    "best_seconds": pl.Float64,
    "wall_seconds": pl.Float64,
    "objective": pl.Float64,
    "bound": pl.Float64,
    "gap": pl.Float64,
    "status": pl.String,
    "cp_sat_status": pl.String,
    "solutions": pl.Int64,
    "shortage_heads": pl.Int64,
    "audit": pl.String,
    "hard_violations": pl.Int64,
    "audit_differences": pl.Int64,
    "peak_memory_mb": pl.Float64,
    "error": pl.String,
}
PROGRESS_SCHEMA: dict[str, Any] = {
    "instance": pl.String,
    "method": pl.String,
    "workers": pl.Int64,
    "seconds": pl.Float64,
    "series": pl.String,
    "value": pl.Float64,
}


def runs_frame(records: list[dict[str, Any]]) -> pl.DataFrame:
    rows = [{name: record.get(name) for name in RUN_SCHEMA} for record in records]
    return (
        pl.DataFrame(rows, schema=RUN_SCHEMA, orient="row")
        if rows
        else pl.DataFrame(schema=RUN_SCHEMA)
    )


def progress_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    clean = [{name: row.get(name) for name in PROGRESS_SCHEMA} for row in rows]
    return (
        pl.DataFrame(clean, schema=PROGRESS_SCHEMA)
        if clean
        else pl.DataFrame(schema=PROGRESS_SCHEMA)
    )


def progress_path(results_csv: Path) -> Path:
    """The progress file that belongs to a results CSV: ``<stem>-progress.csv.gz``."""
    return results_csv.with_name(results_csv.stem + "-progress.csv.gz")


def write(runs: pl.DataFrame, progress: pl.DataFrame, stem: Path) -> list[Path]:
    """``<stem>.csv``, ``<stem>.parquet`` and the progress trace as gzipped CSV."""
    csv, parquet = stem.with_suffix(".csv"), stem.with_suffix(".parquet")
    runs.write_csv(csv)
    runs.write_parquet(parquet)
    trace = progress_path(csv)
    trace.write_bytes(gzip.compress(progress.write_csv().encode("utf-8"), mtime=0))
    return [csv, parquet, trace]


def read_runs(path: Path) -> pl.DataFrame:
    """A results file (CSV or parquet), cast to the run schema (older files: extra nulls)."""
    frame = (
        pl.read_parquet(path)
        if path.suffix == ".parquet"
        else pl.read_csv(
            path, schema_overrides={k: v for k, v in RUN_SCHEMA.items()}, infer_schema_length=0
        )
    )
    for name, dtype in RUN_SCHEMA.items():
        if name not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype=dtype).alias(name))
    return frame.select([pl.col(n).cast(t) for n, t in RUN_SCHEMA.items()])


def read_progress(results_csv: Path) -> pl.DataFrame:
    trace = progress_path(results_csv.with_suffix(".csv"))
    if not trace.exists():
        return progress_frame([])
    with gzip.open(trace, "rb") as handle:
        return pl.read_csv(handle.read(), schema=PROGRESS_SCHEMA)
