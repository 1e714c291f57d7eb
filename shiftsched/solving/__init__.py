"""Solving: the internal problem, the CP-SAT model, and every search that finds a roster.

``problem`` turns a parsed request into integer-indexed data; ``model/`` posts one
descriptor per rule family; ``greedy`` builds a starting roster; ``search/`` runs the
portfolio (CP-SAT beside a rostering LNS); ``decompose/`` gives the column-generation
bound; ``solve`` ties them together and reads the roster back. ``diagnose`` and
``conflicts`` live here too: a solve that finds no roster diagnoses it by re-solving
relaxed models, so the diagnosis is part of solving, not of checking.

May import: ``shiftsched.contract`` and ``shiftsched.errors``. Never the audit
(``shiftsched.checking``): the model and its referee share no code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shiftsched.lazy import lazy_names

if TYPE_CHECKING:  # what mypy and editors see; at run time, __getattr__ below
    from shiftsched.solving.diagnose import DiagnosisLimits, diagnose_with_probes
    from shiftsched.solving.problem import DEFAULT_MAX_CONSECUTIVE_DAYS, from_request
    from shiftsched.solving.solve import SolveLimits, SolveOutcome, solve_problem

#: Each public name (what the notebooks use): the submodule that defines it, and its
#: name there. Loaded on first use (PEP 562), so importing the folder stays cheap.
_EXPORTS: dict[str, tuple[str, str]] = {
    "DEFAULT_MAX_CONSECUTIVE_DAYS": ("shiftsched.solving.problem", "DEFAULT_MAX_CONSECUTIVE_DAYS"),
    "DiagnosisLimits": ("shiftsched.solving.diagnose", "DiagnosisLimits"),
    "SolveLimits": ("shiftsched.solving.solve", "SolveLimits"),
    "SolveOutcome": ("shiftsched.solving.solve", "SolveOutcome"),
    "diagnose_with_probes": ("shiftsched.solving.diagnose", "diagnose_with_probes"),
    "from_request": ("shiftsched.solving.problem", "from_request"),
    "solve_problem": ("shiftsched.solving.solve", "solve_problem"),
}

__all__ = [
    "DEFAULT_MAX_CONSECUTIVE_DAYS",
    "DiagnosisLimits",
    "SolveLimits",
    "SolveOutcome",
    "diagnose_with_probes",
    "from_request",
    "solve_problem",
]

__getattr__, __dir__ = lazy_names(__name__, _EXPORTS, __all__)
