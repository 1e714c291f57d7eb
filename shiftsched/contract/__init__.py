"""The contract: the v1 shapes, how a raw request becomes one, and what travels with it.

Here live the pydantic models of the v1 body (``v1``), the one parser with JSON paths
(``parse``), the calendar a period is cut into (``horizon``), a problem's size and
units (``size``), the history and ledger across periods (``history``), and the inputs
and outputs of planning, re-planning and recommendations (``planning``).

May import: ``shiftsched.errors`` only. Everything else in the package stands on this.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what mypy and editors see; at run time, __getattr__ below
    from shiftsched.contract.parse import load_json, parse_request
    from shiftsched.contract.size import request_size, suggested_time_limit

#: Each public name (what the notebooks use): the submodule that defines it, and its
#: name there. Loaded on first use (PEP 562), so importing the folder stays cheap.
_EXPORTS: dict[str, tuple[str, str]] = {
    "load_json": ("shiftsched.contract.parse", "load_json"),
    "parse_request": ("shiftsched.contract.parse", "parse_request"),
    "request_size": ("shiftsched.contract.size", "request_size"),
    "suggested_time_limit": ("shiftsched.contract.size", "suggested_time_limit"),
}

__all__ = [
    "load_json",
    "parse_request",
    "request_size",
    "suggested_time_limit",
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
