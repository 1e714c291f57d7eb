"""What one run of an operation was about, in words a person recognises: the parts of a
kept job's name after what the call was ("2026-04-27 – 2026-05-24", "12 employees",
"store-03 absent").

Why here: each operation's declaration (``shiftsched.operations``) names the function
that describes its request, so a new operation brings its own words and the service's
job names (``shiftsched.service.http.job_names``) list nothing by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from shiftsched.contract.v1 import SolveRequest
from shiftsched.present.words import many

if TYPE_CHECKING:
    from shiftsched.contract.planning import Absence, PlanRequest, RecommendRequest, ReplanRequest
    from shiftsched.questions.inquiry import ExplainRequest, WhyRequest

NAMED: Final = 2
"""Absent employees (or dates) named in a name; more are counted."""


def period_and_staff(ask: object) -> list[str]:
    """The period and the staff of the request asked (the ask itself, or its
    ``request``); nothing when it has none."""
    request = ask if isinstance(ask, SolveRequest) else getattr(ask, "request", None)
    if not isinstance(request, SolveRequest):
        return []
    return [_period(request), _staff(request)]


def with_absences(ask: PlanRequest | ReplanRequest) -> list[str]:
    """A plan's or a re-plan's: its period, its staff and who is absent."""
    return [*period_and_staff(ask), _absent(ask.absences)]


def on_dates(ask: ExplainRequest) -> list[str]:
    """An explanation's: its period, its staff and the dates asked about, if any."""
    about = period_and_staff(ask)
    if ask.dates:
        about.append("on " + _listed([day.isoformat() for day in ask.dates]))
    return about


def slot(ask: RecommendRequest) -> list[str]:
    """A recommendation's: the slot to fill and the staff."""
    wanted = ask.slot
    duty = f" ({wanted.duty_id})" if wanted.duty_id else ""
    return [f"{wanted.shift_id}{duty} on {wanted.date.isoformat()}", _staff(ask.request)]


def cell(ask: WhyRequest) -> list[str]:
    """A why-not question's: the cell asked about."""
    where = "off" if ask.shift_id is None else f"on {ask.shift_id}"
    return [f"{ask.employee_id} {where} on {ask.date.isoformat()}"]


def _period(request: SolveRequest) -> str:
    period = request.schedule_period
    return f"{period.start_date.isoformat()} – {period.end_date.isoformat()}"


def _staff(request: SolveRequest) -> str:
    return many(len(request.employees), "employee")


def _absent(absences: Sequence[Absence]) -> str:
    named = list(dict.fromkeys(absence.employee_id for absence in absences))
    return f"{_listed(named)} absent" if named else ""


def _listed(items: Sequence[str]) -> str:
    """The first :data:`NAMED` items, and how many more."""
    more = len(items) - NAMED
    return ", ".join(items[:NAMED]) + (f" +{more}" if more > 0 else "")
