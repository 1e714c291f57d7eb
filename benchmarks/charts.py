"""Charts of a results file, saved as PNG, SVG and HTML beside it.

- ``<stem>-first-feasible``: time to first feasible roster against size (log x), one
  colour per method, a rule at 80,000 where synchronous answers end.
- ``<stem>-gap``: final gap against size, same encoding.
- ``<stem>-progress``: objective and bound over time for the largest instances, one
  panel per instance (symlog y: early rosters cost orders of magnitude more).

PNG for reading in a pull request, SVG for papers, HTML for hovering over points.
"""

from __future__ import annotations

from pathlib import Path

import altair as alt
import polars as pl

from benchmarks import frames
from shiftsched.contract.size import LARGE_SIZE_THRESHOLD

FORMATS = ("png", "svg", "html")
LARGEST_SHOWN = 3  # progress panels: this many of the largest instances


def _threshold_rule() -> alt.Chart:
    rule: alt.Chart = (
        alt.Chart(pl.DataFrame({"size": [LARGE_SIZE_THRESHOLD]}))
        .mark_rule(strokeDash=[6, 4], color="gray")
        .encode(x="size:Q")
    )
    return rule


def versus_size(
    runs: pl.DataFrame, column: str, title: str, y_title: str, missing_at: str | None = None
) -> alt.LayerChart:
    """``column`` against size (log x), coloured by method.

    The sweep (mix ``all``) is joined by lines; family mixes and datasets are points of
    their own shape. Runs without a value are left out, or drawn at ``missing_at`` (e.g.
    the time limit) as crosses, so a run that found no roster is not silently missing.
    """
    kind = (
        pl.when(pl.col("mix") == "all")
        .then(pl.lit("sweep"))
        .when(pl.col("mix") == "dataset")
        .then(pl.lit("dataset"))
        .otherwise(pl.lit("family mix"))
    )
    data = runs.with_columns(kind.alias("kind"), pl.col(column).is_null().alias("no_value")).select(
        "instance",
        "method",
        "size",
        "mix",
        "kind",
        "status",
        "no_value",
        column,
        *([missing_at] if missing_at else []),
    )
    if missing_at:
        data = data.with_columns(pl.coalesce(column, missing_at).alias(column))
    data = data.filter(pl.col(column).is_not_null())
    x = alt.X("size:Q", scale=alt.Scale(type="log"), title="size (E x S x max(1,D) x days)")
    y = alt.Y(f"{column}:Q", title=y_title)
    color = alt.Color("method:N", title="method")
    tooltip = ["instance:N", "method:N", "size:Q", f"{column}:Q", "status:N"]
    line = (
        alt.Chart(data)
        .transform_filter((alt.datum.kind == "sweep") & ~alt.datum.no_value)
        .mark_line()
        .encode(x=x, y=y, color=color, detail="method:N")
    )
    points = (
        alt.Chart(data)
        .mark_point(filled=True, size=60)
        .encode(
            x=x,
            y=y,
            color=color,
            shape=alt.Shape("kind:N", title="instance"),
            opacity=alt.condition(alt.datum.no_value, alt.value(0.45), alt.value(1.0)),
            tooltip=tooltip,
        )
    )
    layers = [line, points, _threshold_rule()]
    if missing_at:
        layers.append(
            alt.Chart(data)
            .transform_filter(alt.datum.no_value)
            .mark_point(shape="cross", size=140, color="black")
            .encode(x=x, y=y, tooltip=tooltip)
        )
    return alt.LayerChart(layer=layers, title=title, width=520, height=300)


def progress_panels(runs: pl.DataFrame, progress: pl.DataFrame) -> alt.FacetChart:
    """Objective and bound over time of the largest instances, per method."""
    largest = (
        runs.select("instance", "size").unique().sort("size", descending=True).head(LARGEST_SHOWN)
    )["instance"].to_list()
    data = progress.filter(pl.col("instance").is_in(largest)).with_columns(
        (pl.col("method") + " " + pl.col("series")).alias("line")
    )
    chart: alt.FacetChart = (
        alt.Chart(data)
        .mark_line(interpolate="step-after", point=True)
        .encode(
            x=alt.X("seconds:Q", title="seconds since the call"),
            y=alt.Y("value:Q", title="objective / bound", scale=alt.Scale(type="symlog")),
            color=alt.Color("line:N", title=None),
            tooltip=["instance:N", "method:N", "series:N", "seconds:Q", "value:Q"],
        )
        .properties(width=420, height=220)
        .facet(facet=alt.Facet("instance:N", title=None, sort=largest), columns=LARGEST_SHOWN)
        .properties(title="Search progress, largest instances")
    )
    return chart


def save(chart: alt.TopLevelMixin, stem: Path) -> list[Path]:
    paths = [stem.with_name(f"{stem.name}.{fmt}") for fmt in FORMATS]
    for path in paths:
        chart.save(str(path))
    return paths


def save_suite_charts(results_csv: Path) -> list[Path]:
    """Every chart of one results file; returns the paths written."""
    runs = frames.read_runs(results_csv)
    progress = frames.read_progress(results_csv)
    base = results_csv.with_suffix("")
    written = save(
        versus_size(
            runs,
            "first_feasible_seconds",
            "Time to first feasible roster (black cross: none by the time limit)",
            "seconds",
            missing_at="time_limit",
        ),
        base.with_name(base.name + "-first-feasible"),
    )
    gaps = runs.with_columns((pl.col("gap") * 100).alias("gap_percent"))
    written += save(
        versus_size(gaps, "gap_percent", "Gap at the deadline", "gap (%)"),
        base.with_name(base.name + "-gap"),
    )
    if not progress.is_empty():
        written += save(progress_panels(runs, progress), base.with_name(base.name + "-progress"))
    return written
