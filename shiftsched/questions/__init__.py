"""Questions a roster raises: review, explain, why-not, recommend, sick calls, variants.

Each module answers one question by reading the audit or by trying a change and
re-planning: ``review`` (audit and compare), ``explain`` (could a shortage be filled),
``why`` (why is this cell so), ``recommend`` and ``sick_call`` (who could take a slot),
``edit`` (a hand edit judged at once), ``validation`` (what the solver will make of a
request), ``variants``, ``relax``, ``tradeoff`` and ``fair_share`` (what a rule costs and
who carries it). ``inquiry`` holds their request and response shapes.

May import: ``shiftsched.periods``, ``shiftsched.checking``, ``shiftsched.solving``,
``shiftsched.contract``, ``shiftsched.errors``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shiftsched.lazy import lazy_names

if TYPE_CHECKING:  # what mypy and editors see; at run time, __getattr__ below
    from shiftsched.questions.fair_share import group_burden
    from shiftsched.questions.relax import relax as relax_cause
    from shiftsched.questions.review import compare
    from shiftsched.questions.tradeoff import (
        SweepPoint,
        gap_percent,
        scenarios_note,
        shared_most_burdened,
        solve_state,
        starting_burden,
        sweep_caption,
    )
    from shiftsched.questions.variants import (
        families_in_use,
        with_fairness_group,
        with_max_consecutive_days,
        without_fairness_group,
        without_families,
    )

#: Each public name (what the notebooks use): the submodule that defines it, and its
#: name there. Loaded on first use (PEP 562), so importing the folder stays cheap.
_EXPORTS: dict[str, tuple[str, str]] = {
    "SweepPoint": ("shiftsched.questions.tradeoff", "SweepPoint"),
    "compare": ("shiftsched.questions.review", "compare"),
    "families_in_use": ("shiftsched.questions.variants", "families_in_use"),
    "gap_percent": ("shiftsched.questions.tradeoff", "gap_percent"),
    "group_burden": ("shiftsched.questions.fair_share", "group_burden"),
    "relax_cause": ("shiftsched.questions.relax", "relax"),
    "scenarios_note": ("shiftsched.questions.tradeoff", "scenarios_note"),
    "shared_most_burdened": ("shiftsched.questions.tradeoff", "shared_most_burdened"),
    "solve_state": ("shiftsched.questions.tradeoff", "solve_state"),
    "starting_burden": ("shiftsched.questions.tradeoff", "starting_burden"),
    "sweep_caption": ("shiftsched.questions.tradeoff", "sweep_caption"),
    "with_fairness_group": ("shiftsched.questions.variants", "with_fairness_group"),
    "with_max_consecutive_days": ("shiftsched.questions.variants", "with_max_consecutive_days"),
    "without_fairness_group": ("shiftsched.questions.variants", "without_fairness_group"),
    "without_families": ("shiftsched.questions.variants", "without_families"),
}

__all__ = [
    "SweepPoint",
    "compare",
    "families_in_use",
    "gap_percent",
    "group_burden",
    "relax_cause",
    "scenarios_note",
    "shared_most_burdened",
    "solve_state",
    "starting_burden",
    "sweep_caption",
    "with_fairness_group",
    "with_max_consecutive_days",
    "without_fairness_group",
    "without_families",
]

__getattr__, __dir__ = lazy_names(__name__, _EXPORTS, __all__)
