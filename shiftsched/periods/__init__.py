"""Periods: planning with absences, re-planning a published roster, and the seam between.

``plan`` solves a period after a history; ``replan`` moves as few people as possible
after a change; ``seam`` reads a history into per-employee counters and hands the
ledger on; ``split`` cuts one request into consecutive periods and joins the rosters.

May import: ``shiftsched.solving``, ``shiftsched.contract``, ``shiftsched.errors``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

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
