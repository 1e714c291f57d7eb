"""Why is this shift short: each demand the roster leaves short, and one explained.

A shortage is explained by re-planning with one more head on it, every hard rule kept
(shiftsched.questions.explain): a fill shows it avoidable, a minimal set of rules and
items shows it unavoidable. It solves, so only a selected shortage is explained, with
every other shortage of its date in the same run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import polars as pl

from shiftsched.checking.audit import AuditReport
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.present.charts import replan_heatmap
from shiftsched.present.frames import (
    assignments_frame,
    audited_shortages_frame,
    causes_frame,
    changes_frame,
    explanations_frame,
)
from shiftsched.present.notebook_limits import notebook_limits
from shiftsched.present.words import many
from shiftsched.questions.explain import explain_shortages
from shiftsched.questions.explain_words import who_takes
from shiftsched.questions.inquiry import (
    AuditedShortage,
    ExplainRequest,
    ExplainResponse,
    ShortageExplanation,
)
from shiftsched.questions.review import audited_shortages

#: The callout's kind for each verdict.
VERDICT_TONE = {"avoidable": "success", "unavoidable": "danger", "undecided": "warn"}
SHORTAGE_ASK = "Select a short demand in the table to ask whether any roster could fill it."


def short_demands(
    request: SolveRequest, report: AuditReport
) -> tuple[list[AuditedShortage], pl.DataFrame, str]:
    """The shortages of the audited roster with their input items, as a table, and the
    section's heading and what it does."""
    markers = audited_shortages(request, report)
    table = audited_shortages_frame(markers)
    words = (
        "## Why is this shift short?\n"
        f"The roster above leaves {many(table.height, 'demand')} short, each with the input "
        "item it falls short of (`field`). Select one: each of its missing heads is counted "
        "as **fillable** (a roster keeping every hard rule covers it with fewer heads "
        "missing in all), **only movable** (covering it leaves another demand short: the "
        "date's capacity) or **unavoidable** (no roster covers it), each shown by a small "
        "solve. With a fillable head the shortage is **avoidable**: the roster is re-planned "
        "with one more head there and no other demand shorter, and the fill says who takes "
        "it, every cell that moves, what stays short and what the objective does. With none "
        "it is **unavoidable**: the date's capacity, and a minimal set of the hard rules and "
        "input items that forbid the heads no roster covers. Every shortage of that date is "
        "explained in one run, which solves, so it runs only on a selection; prices are the "
        "request's own weights."
    )
    return markers, table, words


def picked_marker(markers: Sequence[AuditedShortage], row: Mapping[str, Any]) -> AuditedShortage:
    """The shortage a selected row of the table is."""
    key = (row["kind"], row["date"], row["field"], row["duty_id"])
    return next(m for m in markers if (m.kind, m.date, m.field, m.duty_id) == key)


def explain_picked(
    request: SolveRequest,
    roster: Sequence[Assignment],
    marker: AuditedShortage,
    time_limit: float,
    work_limit: float,
) -> tuple[ShortageExplanation, ExplainResponse]:
    """Every shortage of ``marker``'s date explained, and ``marker``'s explanation."""
    answer = explain_shortages(
        ExplainRequest(request=request, roster=list(roster), dates=[marker.date]),
        notebook_limits(time_limit, work_limit),
    )
    return next(e for e in answer.explanations if e.shortage == marker), answer


def _fill_words(explanation: ShortageExplanation, answer: ExplainResponse, cells: int) -> str:
    """Who takes the head, how many cells change, and the objective before and after:
    the fill as it stands (the summary above names each cell and what stays short)."""
    delta = explanation.objective_delta or 0.0
    changes = f"{many(cells, 'cell')} {'changes' if cells == 1 else 'change'}"
    return (
        f"**{who_takes(explanation.filled_by)}**; {changes}, outlined below; objective "
        f"{answer.objective_value:,.0f} → {answer.objective_value + delta:,.0f} "
        f"(**{delta:+,.0f}**). The fill is the cheapest roster found in its time, not "
        "proven the cheapest."
    )


@dataclass(frozen=True)
class ExplanationView:
    """One explanation as shown: its tables, the fill's heatmap (None without a fill)
    and the sentences around them."""

    verdict_words: str
    explanation_table: pl.DataFrame
    causes_table: pl.DataFrame
    fill_changes: pl.DataFrame
    fill_view: alt.LayerChart | None
    fill_words: str | None
    others: pl.DataFrame
    others_words: str


def explanation_view(
    request: SolveRequest, explanation: ShortageExplanation, answer: ExplainResponse
) -> ExplanationView:
    """The verdict, the fill (who, the cells that move, the objective) or the causes,
    and the other shortages of the date."""
    fill_changes = changes_frame(explanation.changes)
    fill_view = None
    fill_words = None
    if explanation.roster is not None:
        fill_view = replan_heatmap(
            assignments_frame(request, explanation.roster), fill_changes, "The fill"
        )
        fill_words = _fill_words(explanation, answer, fill_changes.height)
    table = explanations_frame(answer.explanations)
    others = table.filter(table["field"] != explanation.shortage.field).drop("date")
    return ExplanationView(
        verdict_words=f"**{explanation.verdict.capitalize()}**: {explanation.summary}.",
        explanation_table=table,
        causes_table=causes_frame(explanation.causes),
        fill_changes=fill_changes,
        fill_view=fill_view,
        fill_words=fill_words,
        others=others,
        others_words=(
            f"The other shortages of {explanation.shortage.date.isoformat()}, explained too:"
        ),
    )
