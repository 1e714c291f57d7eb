"""Presenting: rosters and answers as text, tables, frames, charts, files and words.

``roster_text`` and ``answer_text`` fit a terminal; ``console`` is what the command line
shows on stderr; ``frames`` and ``charts`` are polars tables and Altair charts for the
notebooks; ``export`` writes CSV, iCalendar and XLSX; ``advice`` and ``probe_words``
put outcomes and diagnoses in words; ``notebook_limits`` is how the notebooks solve.
``explore/`` holds the roster explorer's sections, one module each, and ``downloads``
the roster files a notebook offers; the names below are what the notebooks import.

May import: every engine folder below it (questions, periods, checking, solving,
contract). Nothing in the engine imports this folder.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what mypy and editors see; at run time, __getattr__ below
    from shiftsched.present.advice import no_roster_advice
    from shiftsched.present.charts import (
        burden_chart,
        coverage_chart,
        fairness_cost_chart,
        penalty_chart,
        pickable_roster_heatmap,
        probes_chart,
        progress_chart,
        roster_heatmap,
    )
    from shiftsched.present.downloads import DOWNLOADS, export_files, media_type, roster_file_name
    from shiftsched.present.explore.compare import (
        COMPARE_INTRO,
        NOTHING_TO_COMPARE,
        compared_cells,
        comparison_words,
        cost_changes,
        newly_broken,
        number_formats,
        people_changes,
        refused_words,
        rosters_to_compare,
    )
    from shiftsched.present.explore.hand_edit import (
        NOBODY,
        edit_choices,
        edit_intro,
        judged,
        moved,
        nothing_moved_words,
        period_dates,
        picked_in,
        verdict_words,
    )
    from shiftsched.present.explore.next_period import (
        NEXT_INTRO,
        SEAM_DAYS,
        SWITCH_ON,
        end_before_next,
        history_misfit,
        ledger_shown,
        naive_audit,
        naive_words,
        no_plan_words,
        period_days,
        plan_after,
        plan_file_name,
        roster_history,
        seam_shown,
        uploaded_history,
    )
    from shiftsched.present.explore.shortages import (
        SHORTAGE_ASK,
        VERDICT_TONE,
        explain_picked,
        explanation_view,
        picked_marker,
        short_demands,
    )
    from shiftsched.present.explore.sick_call import (
        NOBODY_SICK,
        SICK_INTRO,
        fills,
        marked_absence,
        no_replan_words,
        nothing_left_words,
        replan_shown,
        replan_sick,
    )
    from shiftsched.present.explore.solved import (
        audit_shown,
        cell_of,
        first_cause_words,
        hard_rules_broken,
        no_roster_words,
        roster_tables,
        solve_summary,
        solve_variant,
        upload_summary,
    )
    from shiftsched.present.explore.sources import (
        chosen_request,
        dataset_files,
        fault_lines,
        misfit_words,
        read_upload,
        roster_fit,
        uploaded_note,
        uploaded_roster_fit,
    )
    from shiftsched.present.frames import assignments_frame, burden_frame
    from shiftsched.present.notebook_limits import notebook_limits as notebook_solve_limits
    from shiftsched.present.notebook_limits import notebook_workers
    from shiftsched.present.probe_words import probe_frame

#: Each public name (what the notebooks use): the submodule that defines it, and its
#: name there. Loaded on first use (PEP 562), so importing the folder stays cheap.
_EXPORTS: dict[str, tuple[str, str]] = {
    "COMPARE_INTRO": ("shiftsched.present.explore.compare", "COMPARE_INTRO"),
    "DOWNLOADS": ("shiftsched.present.downloads", "DOWNLOADS"),
    "NEXT_INTRO": ("shiftsched.present.explore.next_period", "NEXT_INTRO"),
    "NOBODY": ("shiftsched.present.explore.hand_edit", "NOBODY"),
    "NOBODY_SICK": ("shiftsched.present.explore.sick_call", "NOBODY_SICK"),
    "NOTHING_TO_COMPARE": ("shiftsched.present.explore.compare", "NOTHING_TO_COMPARE"),
    "SEAM_DAYS": ("shiftsched.present.explore.next_period", "SEAM_DAYS"),
    "SHORTAGE_ASK": ("shiftsched.present.explore.shortages", "SHORTAGE_ASK"),
    "SICK_INTRO": ("shiftsched.present.explore.sick_call", "SICK_INTRO"),
    "SWITCH_ON": ("shiftsched.present.explore.next_period", "SWITCH_ON"),
    "VERDICT_TONE": ("shiftsched.present.explore.shortages", "VERDICT_TONE"),
    "assignments_frame": ("shiftsched.present.frames", "assignments_frame"),
    "audit_shown": ("shiftsched.present.explore.solved", "audit_shown"),
    "burden_chart": ("shiftsched.present.charts", "burden_chart"),
    "burden_frame": ("shiftsched.present.frames", "burden_frame"),
    "cell_of": ("shiftsched.present.explore.solved", "cell_of"),
    "chosen_request": ("shiftsched.present.explore.sources", "chosen_request"),
    "compared_cells": ("shiftsched.present.explore.compare", "compared_cells"),
    "comparison_words": ("shiftsched.present.explore.compare", "comparison_words"),
    "cost_changes": ("shiftsched.present.explore.compare", "cost_changes"),
    "coverage_chart": ("shiftsched.present.charts", "coverage_chart"),
    "dataset_files": ("shiftsched.present.explore.sources", "dataset_files"),
    "edit_choices": ("shiftsched.present.explore.hand_edit", "edit_choices"),
    "edit_intro": ("shiftsched.present.explore.hand_edit", "edit_intro"),
    "end_before_next": ("shiftsched.present.explore.next_period", "end_before_next"),
    "explain_picked": ("shiftsched.present.explore.shortages", "explain_picked"),
    "explanation_view": ("shiftsched.present.explore.shortages", "explanation_view"),
    "export_files": ("shiftsched.present.downloads", "export_files"),
    "fairness_cost_chart": ("shiftsched.present.charts", "fairness_cost_chart"),
    "fault_lines": ("shiftsched.present.explore.sources", "fault_lines"),
    "fills": ("shiftsched.present.explore.sick_call", "fills"),
    "first_cause_words": ("shiftsched.present.explore.solved", "first_cause_words"),
    "hard_rules_broken": ("shiftsched.present.explore.solved", "hard_rules_broken"),
    "history_misfit": ("shiftsched.present.explore.next_period", "history_misfit"),
    "judged": ("shiftsched.present.explore.hand_edit", "judged"),
    "ledger_shown": ("shiftsched.present.explore.next_period", "ledger_shown"),
    "marked_absence": ("shiftsched.present.explore.sick_call", "marked_absence"),
    "media_type": ("shiftsched.present.downloads", "media_type"),
    "misfit_words": ("shiftsched.present.explore.sources", "misfit_words"),
    "moved": ("shiftsched.present.explore.hand_edit", "moved"),
    "naive_audit": ("shiftsched.present.explore.next_period", "naive_audit"),
    "naive_words": ("shiftsched.present.explore.next_period", "naive_words"),
    "newly_broken": ("shiftsched.present.explore.compare", "newly_broken"),
    "no_plan_words": ("shiftsched.present.explore.next_period", "no_plan_words"),
    "no_replan_words": ("shiftsched.present.explore.sick_call", "no_replan_words"),
    "no_roster_advice": ("shiftsched.present.advice", "no_roster_advice"),
    "no_roster_words": ("shiftsched.present.explore.solved", "no_roster_words"),
    "notebook_solve_limits": ("shiftsched.present.notebook_limits", "notebook_limits"),
    "notebook_workers": ("shiftsched.present.notebook_limits", "notebook_workers"),
    "nothing_left_words": ("shiftsched.present.explore.sick_call", "nothing_left_words"),
    "nothing_moved_words": ("shiftsched.present.explore.hand_edit", "nothing_moved_words"),
    "number_formats": ("shiftsched.present.explore.compare", "number_formats"),
    "penalty_chart": ("shiftsched.present.charts", "penalty_chart"),
    "people_changes": ("shiftsched.present.explore.compare", "people_changes"),
    "period_dates": ("shiftsched.present.explore.hand_edit", "period_dates"),
    "period_days": ("shiftsched.present.explore.next_period", "period_days"),
    "pickable_roster_heatmap": ("shiftsched.present.charts", "pickable_roster_heatmap"),
    "picked_in": ("shiftsched.present.explore.hand_edit", "picked_in"),
    "picked_marker": ("shiftsched.present.explore.shortages", "picked_marker"),
    "plan_after": ("shiftsched.present.explore.next_period", "plan_after"),
    "plan_file_name": ("shiftsched.present.explore.next_period", "plan_file_name"),
    "probe_frame": ("shiftsched.present.probe_words", "probe_frame"),
    "probes_chart": ("shiftsched.present.charts", "probes_chart"),
    "progress_chart": ("shiftsched.present.charts", "progress_chart"),
    "read_upload": ("shiftsched.present.explore.sources", "read_upload"),
    "refused_words": ("shiftsched.present.explore.compare", "refused_words"),
    "replan_shown": ("shiftsched.present.explore.sick_call", "replan_shown"),
    "replan_sick": ("shiftsched.present.explore.sick_call", "replan_sick"),
    "roster_file_name": ("shiftsched.present.downloads", "roster_file_name"),
    "roster_fit": ("shiftsched.present.explore.sources", "roster_fit"),
    "roster_heatmap": ("shiftsched.present.charts", "roster_heatmap"),
    "roster_history": ("shiftsched.present.explore.next_period", "roster_history"),
    "roster_tables": ("shiftsched.present.explore.solved", "roster_tables"),
    "rosters_to_compare": ("shiftsched.present.explore.compare", "rosters_to_compare"),
    "seam_shown": ("shiftsched.present.explore.next_period", "seam_shown"),
    "short_demands": ("shiftsched.present.explore.shortages", "short_demands"),
    "solve_summary": ("shiftsched.present.explore.solved", "solve_summary"),
    "solve_variant": ("shiftsched.present.explore.solved", "solve_variant"),
    "upload_summary": ("shiftsched.present.explore.solved", "upload_summary"),
    "uploaded_history": ("shiftsched.present.explore.next_period", "uploaded_history"),
    "uploaded_note": ("shiftsched.present.explore.sources", "uploaded_note"),
    "uploaded_roster_fit": ("shiftsched.present.explore.sources", "uploaded_roster_fit"),
    "verdict_words": ("shiftsched.present.explore.hand_edit", "verdict_words"),
}

__all__ = [
    "COMPARE_INTRO",
    "DOWNLOADS",
    "NEXT_INTRO",
    "NOBODY",
    "NOBODY_SICK",
    "NOTHING_TO_COMPARE",
    "SEAM_DAYS",
    "SHORTAGE_ASK",
    "SICK_INTRO",
    "SWITCH_ON",
    "VERDICT_TONE",
    "assignments_frame",
    "audit_shown",
    "burden_chart",
    "burden_frame",
    "cell_of",
    "chosen_request",
    "compared_cells",
    "comparison_words",
    "cost_changes",
    "coverage_chart",
    "dataset_files",
    "edit_choices",
    "edit_intro",
    "end_before_next",
    "explain_picked",
    "explanation_view",
    "export_files",
    "fairness_cost_chart",
    "fault_lines",
    "fills",
    "first_cause_words",
    "hard_rules_broken",
    "history_misfit",
    "judged",
    "ledger_shown",
    "marked_absence",
    "media_type",
    "misfit_words",
    "moved",
    "naive_audit",
    "naive_words",
    "newly_broken",
    "no_plan_words",
    "no_replan_words",
    "no_roster_advice",
    "no_roster_words",
    "notebook_solve_limits",
    "notebook_workers",
    "nothing_left_words",
    "nothing_moved_words",
    "number_formats",
    "penalty_chart",
    "people_changes",
    "period_dates",
    "period_days",
    "pickable_roster_heatmap",
    "picked_in",
    "picked_marker",
    "plan_after",
    "plan_file_name",
    "probe_frame",
    "probes_chart",
    "progress_chart",
    "read_upload",
    "refused_words",
    "replan_shown",
    "replan_sick",
    "roster_file_name",
    "roster_fit",
    "roster_heatmap",
    "roster_history",
    "roster_tables",
    "rosters_to_compare",
    "seam_shown",
    "short_demands",
    "solve_summary",
    "solve_variant",
    "upload_summary",
    "uploaded_history",
    "uploaded_note",
    "uploaded_roster_fit",
    "verdict_words",
]


def __getattr__(name: str) -> object:
    """Load a public name from its submodule on first use, and keep it."""
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:  # not public: the import system then looks for a submodule
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
