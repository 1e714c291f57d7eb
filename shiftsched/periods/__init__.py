"""Periods: planning with absences, re-planning a published roster, and the seam between.

``plan`` solves a period after a history; ``replan`` moves as few people as possible
after a change; ``seam`` reads a history into per-employee counters and hands the
ledger on; ``split`` cuts one request into consecutive periods and joins the rosters.

May import: ``shiftsched.solving``, ``shiftsched.contract``, ``shiftsched.errors``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shiftsched.lazy import lazy_names

if TYPE_CHECKING:  # what mypy and editors see; at run time, __getattr__ below
    from shiftsched.periods.split import next_period

#: Each public name (what the notebooks use): the submodule that defines it, and its
#: name there. Loaded on first use (PEP 562), so importing the folder stays cheap.
_EXPORTS: dict[str, tuple[str, str]] = {
    "next_period": ("shiftsched.periods.split", "next_period"),
}

__all__ = [
    "next_period",
]

__getattr__, __dir__ = lazy_names(__name__, _EXPORTS, __all__)
