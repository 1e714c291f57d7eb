"""Altair charts of rosters, coverage, penalties, search progress and fairness.

Each function takes a frame from :mod:`shiftsched.present.frames` (or one of the same shape) and
returns a chart with its data embedded, so it renders in a notebook, saves to HTML/PNG
(``chart.save``) and can be checked in tests through ``chart.to_dict()``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager

import altair as alt
import polars as pl

INLINE_ROWS = "marimo_inline_csv"  # the notebook server's transformer: rows as a data URL
CELL_WIDTH = 14  # pixels per date in the roster heatmap, at least ...
PAGE_WIDTH = 1000  # ... and more when few dates would leave most of a page empty
MAX_CELL_WIDTH = 40
PANEL_WIDTH = 420  # one of two heatmaps side by side, with room for labels and legend
CELL_HEIGHT = 16  # pixels per employee
# 32 distinct colours for shifts (Tableau 20, then 12 from ColorBrewer's Dark2 and Set1):
# a palette of 10 repeated itself from the eleventh shift on.
SHIFT_COLOURS = [
    "#4c78a8",
    "#f58518",
    "#54a24b",
    "#e45756",
    "#72b7b2",
    "#b279a2",
    "#ff9da6",
    "#9d755d",
    "#bab0ac",
    "#eeca3b",
    "#9ecae9",
    "#ffbf79",
    "#88d27a",
    "#ff9d98",
    "#83bcb6",
    "#d6a5c9",
    "#fcbfd2",
    "#d8b5a5",
    "#79706e",
    "#f2cf5b",
    "#1b9e77",
    "#d95f02",
    "#7570b3",
    "#e7298a",
    "#66a61e",
    "#e6ab02",
    "#a6761d",
    "#666666",
    "#377eb8",
    "#984ea3",
    "#a65628",
    "#f781bf",
]


def _date_step(frame: pl.DataFrame, page_width: int = PAGE_WIDTH) -> alt.Step:
    """Pixels per date: a period of a few weeks fills ``page_width``, a year scrolls."""
    dates = frame["date"].n_unique() if frame.height else 1
    return alt.Step(max(CELL_WIDTH, min(MAX_CELL_WIDTH, page_width // max(1, dates))))


def roster_heatmap(
    assignments: pl.DataFrame, title: str = "Roster", page_width: int = PAGE_WIDTH
) -> alt.Chart:
    """Employees x dates, coloured by shift; the duty and names show in the tooltip.
    A period of a few weeks spans ``page_width`` pixels."""
    chart: alt.Chart = _roster_cells(alt.Chart(assignments, title=title)).properties(
        width=_date_step(assignments, page_width), height=alt.Step(CELL_HEIGHT)
    )
    return chart


#: The name of the point selection of :func:`pickable_roster_heatmap`.
CELL_PICK = "cell"


@contextmanager
def rows_in_page() -> Iterator[None]:
    """Charts made in this block carry their rows inside the page.

    A clickable chart of a served notebook otherwise gets its rows as a file the server
    drops when the chart's cell runs again: a control moved twice in a row re-runs it
    while the browser may still be fetching the first run's file, and the server logs a
    traceback (``Virtual file not found``). The inline transformer is the notebook
    server's own, registered once altair is imported under it; without a server (a
    script, an export) there are no such files, and nothing changes.
    """
    if INLINE_ROWS not in alt.data_transformers.names():
        yield
        return
    with alt.data_transformers.enable(INLINE_ROWS):
        yield


def pickable_roster_heatmap(
    assignments: pl.DataFrame, title: str = "Roster", page_width: int = PAGE_WIDTH
) -> alt.Chart:
    """:func:`roster_heatmap` in which a click picks one cell (a double click clears it)
    and the other cells fade. The selection names no field, so it holds the picked
    row of ``assignments`` itself (its ``_vgsid_``), whatever the dates' encoding."""
    pick = alt.selection_point(name=CELL_PICK, on="click", clear="dblclick", toggle=False)
    chart: alt.Chart = (
        roster_heatmap(assignments, title, page_width)
        .add_params(pick)
        .encode(opacity=alt.when(pick).then(alt.value(1.0)).otherwise(alt.value(0.3)))
    )
    return chart


def _roster_cells(chart: alt.Chart) -> alt.Chart:
    """The cells of a roster heatmap: one rectangle per assignment, coloured by shift."""
    cells: alt.Chart = chart.mark_rect(stroke="white", strokeWidth=0.5).encode(
        x=alt.X("yearmonthdate(date):O", title="date", axis=alt.Axis(labelAngle=-60)),
        y=alt.Y("employee_id:N", title="employee", sort="ascending"),
        color=alt.Color(
            "shift_id:N",
            title="shift",
            sort="ascending",
            scale=alt.Scale(range=SHIFT_COLOURS),
        ),
        tooltip=[
            alt.Tooltip("employee:N"),
            alt.Tooltip("date:T", format="%a %Y-%m-%d"),
            alt.Tooltip("shift:N"),
            alt.Tooltip("duty:N"),
        ],
    )
    return cells


def _outlines(chart: alt.Chart) -> alt.Chart:
    """A black outline around each changed cell, with what it was and what it is."""
    outline: alt.Chart = chart.mark_rect(fill=None, stroke="black", strokeWidth=2).encode(
        x=alt.X("yearmonthdate(date):O"),
        y=alt.Y("employee_id:N", sort="ascending"),
        tooltip=[
            alt.Tooltip("employee_id:N", title="employee"),
            alt.Tooltip("date:T", format="%a %Y-%m-%d"),
            alt.Tooltip("change:N"),
            alt.Tooltip("before:N"),
            alt.Tooltip("after:N"),
        ],
    )
    return outline


def replan_heatmap(
    assignments: pl.DataFrame,
    changes: pl.DataFrame,
    title: str = "Re-planned roster",
    page_width: int = PAGE_WIDTH,
) -> alt.LayerChart:
    """The roster heatmap with every changed cell outlined (a removed one stays empty)."""
    roster = roster_heatmap(assignments, title, page_width)
    return alt.LayerChart(layer=[roster, _outlines(alt.Chart(changes))])


def compare_heatmap(
    cells: pl.DataFrame, rosters: tuple[str, str] = ("before", "after")
) -> alt.FacetChart:
    """Two rosters side by side, from :func:`shiftsched.present.frames.compared_cells_frame`: one
    panel per roster in the order of ``rosters``, the same rows, dates and shift colours
    in both, and every changed cell outlined in both (empty where that roster has it
    off)."""
    dates = cells.filter(pl.col("roster") == rosters[0])
    layers = alt.layer(
        _roster_cells(alt.Chart().transform_filter("isValid(datum.shift_id)")),
        _outlines(alt.Chart().transform_filter("isValid(datum.change)")),
        data=cells,
    ).properties(width=_date_step(dates, PANEL_WIDTH), height=alt.Step(CELL_HEIGHT))
    chart: alt.FacetChart = layers.facet(
        column=alt.Column("roster:N", title=None, sort=list(rosters))
    ).properties(title="Changed cells outlined")
    return chart


#: The figures :func:`employee_changes_chart` draws, with their panel titles.
EMPLOYEE_CHANGE_MEASURES = {
    "shifts": "shifts",
    "hours": "hours",
    "nights": "nights",
    "weekends": "weekends",
    "preferences_granted": "preferences granted",
}


def employee_changes_chart(changes: pl.DataFrame) -> alt.FacetChart:
    """Per employee, how each figure moves between two rosters (after - before, from
    :func:`shiftsched.present.frames.employee_changes_frame`): one panel per figure, each on its
    own scale, a bar right for more and left for fewer."""
    measures = list(EMPLOYEE_CHANGE_MEASURES)
    folded: list[str | alt.FieldName] = [*measures]
    chart: alt.FacetChart = (
        alt.Chart(changes)
        .transform_fold(folded, as_=["measure", "change"])
        .transform_calculate(sign="datum.change > 0 ? 'more' : 'fewer'")
        .mark_bar()
        .encode(
            x=alt.X("change:Q", title=None, axis=alt.Axis(tickMinStep=1, format="~g")),
            y=alt.Y("employee_id:N", title="employee", sort="ascending"),
            color=alt.Color(
                "sign:N",
                title="after - before",
                scale=alt.Scale(domain=["more", "fewer"], range=["#4c78a8", "#e45756"]),
            ),
            tooltip=["employee_id:N", "name:N", "measure:N", "change:Q", "changed_cells:Q"],
        )
        .properties(width=150, height=alt.Step(CELL_HEIGHT))
        .facet(
            column=alt.Column(
                "measure:N",
                title=None,
                sort=measures,
                header=alt.Header(labelExpr=_label_expr(EMPLOYEE_CHANGE_MEASURES)),
            )
        )
        .resolve_scale(x="independent")
        .properties(title="Per employee: after - before")
    )
    return chart


def _label_expr(labels: dict[str, str]) -> str:
    """A Vega expression that shows ``labels[value]`` for a header's value."""
    cases = " : ".join(f"datum.value === '{key}' ? '{text}'" for key, text in labels.items())
    return f"{cases} : datum.value"


def coverage_chart(coverage: pl.DataFrame) -> alt.FacetChart:
    """Heads assigned against demand per shift and date; shortages as red points."""
    base = alt.Chart(coverage).encode(
        x=alt.X("yearmonthdate(date):O", title="date", axis=alt.Axis(labelAngle=-60))
    )
    assigned = base.mark_bar(color="#4c78a8", opacity=0.8).encode(
        y=alt.Y("assigned:Q", title="heads"),
        tooltip=["shift:N", alt.Tooltip("date:T"), "assigned:Q", "demand_min:Q", "demand_max:Q"],
    )
    demand = base.mark_tick(color="black", thickness=2, size=14).encode(y="demand_min:Q")
    short = (
        base.transform_filter(alt.datum.missing > 0)
        .mark_point(color="#d62728", filled=True, size=60, shape="triangle-down")
        .encode(y="demand_min:Q", tooltip=["shift:N", alt.Tooltip("date:T"), "missing:Q"])
    )
    return (
        alt.layer(assigned, demand, short, data=coverage)
        .properties(height=90, width=_date_step(coverage))
        .facet(row=alt.Row("shift_id:N", title="shift"))
        .properties(title="Coverage: bars assigned, ticks demand, red missing")
    )


def penalty_chart(by_family: pl.DataFrame) -> alt.Chart:
    """Soft-term penalty per family (from ``frames.penalty_by_family``)."""
    chart: alt.Chart = (
        alt.Chart(by_family, title="Penalty by constraint family")
        .mark_bar()
        .encode(
            x=alt.X("penalty:Q", title="penalty", axis=alt.Axis(format=",.0f")),
            y=alt.Y("family:N", sort="-x", title=None),
            tooltip=["family:N", alt.Tooltip("penalty:Q", format=",.0f"), "terms:Q"],
        )
        .properties(width=420)
    )
    return chart


def symlog_ticks(top: float) -> list[float]:
    """Where a symlog axis up to ``top`` gets a labelled tick: 0, then 1, 3, 10, 30, ...
    (only the powers of ten past five decades, so labels do not crowd), one step past
    ``top``. Vega's own ticks leave nothing between 0 and 1,000 on such an axis."""
    ticks = [0.0]
    power = 1.0
    crowded = top > 100_000
    while not ticks[-1] >= top:
        ticks += [power] if crowded else [power, 3 * power]
        power *= 10
    return ticks


def progress_chart(progress: pl.DataFrame) -> alt.LayerChart:
    """Objective and best bound over search time, on a symlog axis (early rosters cost
    far more than the last) with labelled ticks at every scale, and the final objective
    written beside its point and in the subtitle."""
    objectives = progress.filter(pl.col("series") == "objective")["value"].to_list()
    final = objectives[-1] if objectives else None
    top = max(progress["value"].to_list(), default=0.0)
    x = alt.X("seconds:Q", title="seconds from the start of the solve")
    y = alt.Y(
        "value:Q",
        title="objective",
        scale=alt.Scale(type="symlog"),
        axis=alt.Axis(values=symlog_ticks(top), format=",.10~g", labelOverlap=True),
    )
    lines = (
        alt.Chart()
        .mark_line(point=True, interpolate="step-after")
        .encode(
            x=x,
            y=y,
            color=alt.Color("series:N", title=None),
            tooltip=["series:N", alt.Tooltip("seconds:Q", format=".2f"), "value:Q"],
        )
    )
    label = (
        alt.Chart()
        .transform_filter(alt.datum.series == "objective")
        .transform_window(order="row_number()", sort=[alt.SortField("seconds", "descending")])
        .transform_filter(alt.datum.order == 1)
        .transform_calculate(label="'final ' + format(datum.value, ',.10~g')")
        .mark_text(align="left", dx=6, dy=-8, fontWeight="bold")
        .encode(x=x, y=y, text="label:N")
    )
    heading = alt.TitleParams(
        "Search progress",
        subtitle="no roster yet" if final is None else f"final objective {final:,.10g}",
    )
    return alt.LayerChart(layer=[lines, label], data=progress, title=heading, height=240)


def burden_chart(burden: pl.DataFrame, title: str) -> alt.LayerChart:
    """Each employee's count of target shifts (bars) against their fair share (ticks)."""
    base = alt.Chart(burden).encode(y=alt.Y("employee_id:N", title="employee"))
    bars = base.mark_bar(color="#f58518").encode(
        x=alt.X("count:Q", title="target shifts"),
        tooltip=["employee_id:N", "count:Q", "policy_share:Q", "excess:Q"],
    )
    share = base.mark_tick(color="black", thickness=2).encode(x="policy_share:Q")
    heading = alt.TitleParams(title, subtitle="bars: shifts worked; black tick: fair share")
    chart = alt.LayerChart(layer=[bars, share], title=heading, width=260)
    return chart


def horizon_progress_chart(progress: pl.DataFrame, title: str) -> alt.LayerChart:
    """Each employee's days worked since the horizon's start (bars) against the period's
    share of the horizon's limits (a grey band from the share's least to its most, black
    ticks at its ends), from ``frames.horizon_progress_frame``."""
    base = alt.Chart(progress).encode(y=alt.Y("employee:N", title="employee", sort=None))
    bars = base.mark_bar(color="#4c78a8", opacity=0.8).encode(
        x=alt.X("days worked:Q", title="days worked since the horizon's start"),
        tooltip=[
            "employee:N",
            "days worked:Q",
            "share at least:Q",
            "share at most:Q",
            "days still owed:Q",
            "days still allowed:Q",
            "this period:N",
        ],
    )
    band = base.mark_rule(color="grey", strokeWidth=6, opacity=0.5).encode(
        x="share at least:Q", x2="share at most:Q"
    )
    ticks = [
        base.transform_filter(f"isValid(datum['{end}'])")
        .mark_tick(color="black", thickness=2)
        .encode(x=f"{end}:Q")
        for end in ("share at least", "share at most")
    ]
    heading = alt.TitleParams(
        title, subtitle="bars: days worked; black ticks: the period's share, least and most"
    )
    return alt.LayerChart(layer=[bars, band, *ticks], title=heading, width=360)


SWEEP_COLOUR = "#4c78a8"
SOLVE_STATES = ["proven optimal", "unfinished"]  # shiftsched.questions.tradeoff's: filled, hollow


def fairness_cost_chart(sweep: pl.DataFrame) -> alt.FacetChart:
    """The cost of fairness per penalty weight: one panel per measure, own y scales.

    ``sweep`` has columns penalty_weight, measure (e.g. "other terms", "excess"), value,
    solve (:data:`SOLVE_STATES`) and gap (percent, null without a bound). A proven-optimal
    point is filled, an unfinished one hollow, and the legend says which is which: a
    trade-off read off unfinished solves can run the wrong way.
    """
    base = alt.Chart().encode(
        x=alt.X("penalty_weight:O", title="fairness penalty_weight"),
        y=alt.Y("value:Q", title=None),
    )
    line = base.mark_line(color=SWEEP_COLOUR)
    points = base.mark_point(size=90, strokeWidth=2, color=SWEEP_COLOUR, opacity=1).encode(
        fill=alt.Fill(
            "solve:N",
            scale=alt.Scale(domain=SOLVE_STATES, range=[SWEEP_COLOUR, "white"]),
            legend=alt.Legend(title="solve", symbolStrokeColor=SWEEP_COLOUR),
        ),
        tooltip=[
            "penalty_weight:O",
            "measure:N",
            "value:Q",
            "solve:N",
            alt.Tooltip("gap:Q", title="gap %"),
        ],
    )
    chart: alt.FacetChart = (
        alt.layer(line, points, data=sweep)
        .properties(width=420, height=120)
        .facet(row=alt.Row("measure:N", title=None))
        .resolve_scale(y="independent")
        .properties(title="Cost of fairness")
    )
    return chart


def probes_chart(probes: pl.DataFrame) -> alt.Chart:
    """Diagnosis probes in order: what was relaxed, feasible or not, and how long. Each
    label is drawn whole (``labelLimit`` 0), however long: a cut label hides what a probe
    switched off."""
    chart: alt.Chart = (
        alt.Chart(probes, title="Diagnosis probes")
        .mark_bar()
        .encode(
            x=alt.X("seconds:Q", title="seconds"),
            y=alt.Y("label:N", sort=None, title=None, axis=alt.Axis(labelLimit=0)),
            color=alt.Color(
                "outcome:N",
                scale=alt.Scale(
                    domain=["feasible", "infeasible", "undecided"],
                    range=["#54a24b", "#e45756", "#bab0ac"],
                ),
            ),
            tooltip=["step:N", "label:N", "outcome:N", "seconds:Q"],
        )
    )
    return chart


def seam_heatmap(seam: pl.DataFrame, boundary: dt.date, title: str = "The seam") -> alt.LayerChart:
    """The roster heatmap of the days either side of a seam (``frames.seam_frame``), with a
    black line before ``boundary``, the first date of the next period."""
    roster = roster_heatmap(seam, title)
    line = (
        alt.Chart(pl.DataFrame({"date": [boundary]}, schema={"date": pl.Date}))
        .mark_rule(color="black", strokeWidth=3)
        .encode(x=alt.X("yearmonthdate(date):O", bandPosition=0))
    )
    return alt.LayerChart(layer=[roster, line])
