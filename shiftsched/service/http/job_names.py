"""What a kept job is called: a name a person recognises, derived from its request.

Why: the contract has no name field for a request, and a job id says nothing to the
person reading the Jobs page. The name says what the call was and what it was about:
"Re-plan · 2026-04-27 – 2026-05-24 · 12 employees · store-03 absent",
"Recommendation · early on 2026-04-27", "Why-not · op-01 off on 2026-04-27".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from shiftsched.contract.planning import Absence, PlanRequest, RecommendRequest, ReplanRequest
from shiftsched.contract.v1 import SolveRequest
from shiftsched.questions.inquiry import ExplainRequest, WhyRequest

SEPARATOR: Final = " · "
NAMED: Final = 2
"""Absent employees (or dates) named in a name; more are counted."""


def job_name(called: str, ask: object) -> str:
    """The name of a job of the operation a person calls ``called`` (e.g. "re-plan"),
    asked ``ask`` (the operation's typed request)."""
    parts = [called[:1].upper() + called[1:], *_about(ask)]
    return SEPARATOR.join(part for part in parts if part)


def _about(ask: object) -> list[str]:
    """What the request was about, most telling first."""
    if isinstance(ask, RecommendRequest):
        slot = ask.slot
        duty = f" ({slot.duty_id})" if slot.duty_id else ""
        return [f"{slot.shift_id}{duty} on {slot.date.isoformat()}", _staff(ask.request)]
    if isinstance(ask, WhyRequest):
        where = "off" if ask.shift_id is None else f"on {ask.shift_id}"
        return [f"{ask.employee_id} {where} on {ask.date.isoformat()}"]
    request = ask if isinstance(ask, SolveRequest) else getattr(ask, "request", None)
    if not isinstance(request, SolveRequest):
        return []
    about = [_period(request), _staff(request)]
    if isinstance(ask, PlanRequest | ReplanRequest):
        about.append(_absent(ask.absences))
    if isinstance(ask, ExplainRequest) and ask.dates:
        about.append("on " + _listed([day.isoformat() for day in ask.dates]))
    return about


def _period(request: SolveRequest) -> str:
    period = request.schedule_period
    return f"{period.start_date.isoformat()} – {period.end_date.isoformat()}"


def _staff(request: SolveRequest) -> str:
    count = len(request.employees)
    return f"{count} employee{'s' if count != 1 else ''}"


def _absent(absences: Sequence[Absence]) -> str:
    named = list(dict.fromkeys(absence.employee_id for absence in absences))
    return f"{_listed(named)} absent" if named else ""


def _listed(items: Sequence[str]) -> str:
    """The first :data:`NAMED` items, and how many more."""
    more = len(items) - NAMED
    return ", ".join(items[:NAMED]) + (f" +{more}" if more > 0 else "")
