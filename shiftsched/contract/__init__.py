"""The contract: the v1 shapes, how a raw request becomes one, and what travels with it.

Here live the pydantic models of the v1 body (``v1``), the one parser with JSON paths
(``parse``), the calendar a period is cut into (``horizon``), a problem's size and
units (``size``), the history and ledger across periods (``history``), and the inputs
and outputs of planning, re-planning and recommendations (``planning``).

May import: ``shiftsched.errors`` only. Everything else in the package stands on this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shiftsched.lazy import lazy_names

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

__getattr__, __dir__ = lazy_names(__name__, _EXPORTS, __all__)
