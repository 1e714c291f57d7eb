"""Compare two rosters: the roster shown against one made in the notebook.

Every figure is shiftsched.questions.review.compare's, at the request's own weights,
every delta after − before. The candidates are the rosters the other sections made (a
shortage's fill switched on, an upload, a sick call's re-plan, a hand edit), first
found first offered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import altair as alt
import polars as pl

from shiftsched.contract.planning import roster_changes
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.present.charts import compare_heatmap, employee_changes_chart
from shiftsched.present.frames import (
    assignments_frame,
    changes_frame,
    compared_cells_frame,
    employee_changes_frame,
    hard_violations_frame,
    kpis_frame,
    term_changes_frame,
)
from shiftsched.present.words import many
from shiftsched.questions.inquiry import CompareResponse, ShortageExplanation

SHOWN = "the roster above"  # the roster every other one is compared with
COMPARE_INTRO = (
    "## Compare two rosters\n"
    "The roster above against another one made here: moved by hand, re-planned "
    "after a sick call, the fill of a shortage (switch it on above), or uploaded. "
    "Every figure is the independent audit's comparison of the two "
    "(`shiftsched.questions.review.compare`), every delta after − before, "
    "priced at the "
    "request's own weights whatever the preference weight above."
)
NOTHING_TO_COMPARE = (
    "Move someone by hand, mark someone sick, switch on a shortage's fill or upload "
    "a roster: it can then be compared with the roster above."
)


def rosters_to_compare(
    fill: ShortageExplanation | None,
    uploaded: tuple[str, list[Assignment]] | None,
    replanned: list[Assignment] | None,
    edited: list[Assignment] | None,
) -> dict[str, list[Assignment]]:
    """Every roster made so far, by the name the dropdown gives it: a fill switched on
    (``fill`` with its roster), then an upload that fits, the re-plan, the hand edit."""
    rosters: dict[str, list[Assignment]] = {}
    if fill is not None and fill.roster is not None:
        where = fill.shortage
        shifts = where.shift_id or ",".join(where.shift_ids or [])
        rosters[f"the fill of {shifts} on {where.date.isoformat()}"] = fill.roster
    if uploaded is not None:
        rosters[f"uploaded {uploaded[0]}"] = uploaded[1]
    if replanned is not None:
        rosters["re-planned after the sick call"] = replanned
    if edited is not None:
        rosters["moved by hand"] = edited
    return rosters


def refused_words(faults: Sequence[object]) -> str:
    """Why an uploaded roster is not offered: each of its first faults."""
    return "**Not a roster of this request**\n\n" + "\n".join(
        f"- `{fault}`" for fault in faults[:10]
    )


def comparison_words(name: str, comparison: CompareResponse) -> str:
    """The headline: cells and people that differ, the objective, hard rules."""
    totals = comparison.totals  # the lists hold the first listed_limit items of each
    return (
        f"**The roster above → {name}**: {many(totals.changes, 'cell')} "
        f"differ for {many(len(comparison.employees), 'employee')}; objective "
        f"{comparison.objective_before:,.0f} → {comparison.objective_after:,.0f} "
        f"(**{comparison.objective_delta:+,.0f}**); hard rules: "
        f"{totals.hard_violations_added} newly broken, "
        f"{totals.hard_violations_removed} no longer broken."
    )


def newly_broken(comparison: CompareResponse) -> pl.DataFrame:
    """The hard rules the other roster newly breaks."""
    return hard_violations_frame(comparison.hard_violations_added)


@dataclass(frozen=True)
class ComparedCells:
    """Both rosters' cells side by side, every changed cell, and their heatmaps."""

    changes: pl.DataFrame
    cells: pl.DataFrame
    chart: alt.FacetChart


def compared_cells(
    request: SolveRequest,
    roster: Sequence[Assignment],
    other: Sequence[Assignment],
    name: str,
) -> ComparedCells:
    """Every changed cell (also past the comparison's listed_limit), outlined in both."""
    changes = changes_frame(roster_changes(roster, other))
    names = (SHOWN, name)
    cells = compared_cells_frame(
        assignments_frame(request, roster), assignments_frame(request, other), changes, names
    )
    return ComparedCells(changes, cells, compare_heatmap(cells, names))


def people_changes(comparison: CompareResponse) -> tuple[pl.DataFrame, alt.FacetChart]:
    """Per employee whose figures or cells change: the table and its bars."""
    changes = employee_changes_frame(comparison.employees)
    return changes, employee_changes_chart(changes)


def cost_changes(
    comparison: CompareResponse, request: SolveRequest
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The soft terms whose price changes, and both rosters' KPIs."""
    terms = term_changes_frame(comparison.terms, request)
    return terms, kpis_frame(comparison.kpis_before, comparison.kpis_after)


def _shown(value: float | None, sign: str = "") -> str:
    return "" if value is None else f"{value:{sign},.2f}"


def number_formats() -> Mapping[str, Callable[[float | None], str]]:
    """How the price and KPI tables write their numbers: two decimals, a sign on deltas."""
    return {
        "before": _shown,
        "after": _shown,
        "delta": lambda value: _shown(value, "+"),
    }
