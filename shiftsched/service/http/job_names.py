"""What a kept job is called: a name a person recognises, derived from its request.

Why: the contract has no name field for a request, and a job id says nothing to the
person reading the Jobs page. The name says what the call was and what it was about:
"Re-plan · 2026-04-27 – 2026-05-24 · 12 employees · store-03 absent",
"Recommendation · early on 2026-04-27", "Why-not · op-01 off on 2026-04-27". What it was
about is said by the function its operation's declaration names (``shiftsched.operations``,
its ``about``; the words in ``shiftsched.present.about``).
"""

from __future__ import annotations

from typing import Final

from shiftsched.operations import OPERATIONS, named
from shiftsched.present.about import period_and_staff

SEPARATOR: Final = " · "


def job_name(called: str, ask: object) -> str:
    """The name of a job of the operation a person calls ``called`` (e.g. "re-plan"),
    asked ``ask`` (the operation's typed request)."""
    about = next((named(op.about) for op in OPERATIONS if op.called_as == called), period_and_staff)
    parts = [called[:1].upper() + called[1:], *about(ask)]
    return SEPARATOR.join(part for part in parts if part)
