"""The inputs and outputs of re-planning and recommendations, beside the v1 contract.

Both operations start from a request and a published roster (its assignments). Their
field rules are pydantic's, as for a solve; the cross-field rules below name the JSON
path of each fault, so every face (CLI, HTTP, MCP) reports them alike. The request
inside keeps all its own rules: its faults are reported under ``request``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from typing import Annotated, Final, Literal

from pydantic import Field

from shiftsched.contract.cross_field import check
from shiftsched.contract.hints import unknown_id
from shiftsched.contract.history import History, Ledger, history_faults
from shiftsched.contract.horizon_targets import PlanHorizon, TargetProgress, horizon_faults
from shiftsched.contract.parse import ErrorCode, parse_model
from shiftsched.contract.v1 import Assignment, Date, Id, NonNegativeInt, SolveRequest, SolveResponse
from shiftsched.contract.v1 import _Model as _ContractModel
from shiftsched.errors import FieldError, InvalidRequest

Path = tuple[str | int, ...]

#: Price of one changed (employee, date) cell, in objective units (docs/semantics.md,
#: Re-planning): above a preference (100) so nobody is moved for one wish, far below a
#: missing head (10,000) so the gap an absence leaves is filled when anyone can fill it.
DEFAULT_CHANGE_WEIGHT: Final = 500
DEFAULT_TOP: Final = 10


class Absence(_ContractModel):
    """An employee who cannot work on these dates (hard)."""

    employee_id: Id
    dates: Annotated[list[Date], Field(min_length=1)]


class Slot(_ContractModel):
    """A place in the roster to fill: a shift on a date, optionally one of its duties."""

    date: Date
    shift_id: Id
    duty_id: Id | None = None


class ReplanRequest(_ContractModel):
    """A request (perhaps edited since the roster was published) and what changed."""

    request: SolveRequest
    roster: list[Assignment]
    absences: list[Absence] = Field(default_factory=list)
    pin_before: Date | None = None  # every cell of the roster before this date is kept
    pinned: list[Assignment] = Field(default_factory=list)  # kept as listed (hard)
    change_weight: Annotated[int, Field(ge=0, le=1_000_000, strict=True)] = DEFAULT_CHANGE_WEIGHT
    history: History | None = None  # the days before the period (shiftsched.contract.history)


class PlanRequest(_ContractModel):
    """A request to plan, who cannot work when (vacations, sick leave, training), what
    came before the period, and the longer horizon it is planned inside."""

    request: SolveRequest
    absences: list[Absence] = Field(default_factory=list)
    history: History | None = None
    horizon: PlanHorizon | None = None  # limits over a year, say (horizon_targets)


class PlanResponse(SolveResponse):
    """A v1 SolveResponse plus the ledger to hand to the next period (with a roster),
    and with a horizon, where each employee stands against its targets."""

    ledger: Ledger | None = None
    horizon_progress: list[TargetProgress] | None = None


class Change(_ContractModel):
    """One (employee, date) cell that differs between the published and the new roster."""

    employee_id: str
    date: Date
    change: Literal["added", "removed", "moved"]
    from_shift_id: str | None = None
    from_duty_id: str | None = None
    to_shift_id: str | None = None
    to_duty_id: str | None = None


class ReplanResponse(SolveResponse):
    """A v1 SolveResponse plus the changes against the published roster."""

    changes: list[Change] = Field(default_factory=list)


class RecommendRequest(_ContractModel):
    """Who could fill ``slot`` in ``roster``; the ``absences`` are not candidates."""

    request: SolveRequest
    roster: list[Assignment]
    slot: Slot
    top: Annotated[int, Field(ge=1, le=50, strict=True)] = DEFAULT_TOP
    absences: list[Absence] = Field(default_factory=list)
    history: History | None = None


class HardBreak(_ContractModel):
    code: str
    message: str
    field: str | None = None  # the input item behind it (shiftsched.checking.audit.HardViolation)


class TermDelta(_ContractModel):
    name: str
    penalty_delta: float
    violated_by_delta: float


class Recommendation(_ContractModel):
    employee_id: str
    feasible: bool
    hard_violations: list[HardBreak]
    objective_delta: float
    changed_terms: list[TermDelta]
    moved_from_shift_id: str | None = None  # the shift the employee leaves on that date


class RecommendResponse(_ContractModel):
    recommendations: list[Recommendation]
    candidates: NonNegativeInt  # employees ranked before the top was cut
    job_id: str | None = None  # the service's record of the call (None off the service)


# ------------------------------------------------------------------ cross-field rules


class KnownIds:
    def __init__(self, request: SolveRequest) -> None:
        period = request.schedule_period
        self.start, self.end = period.start_date, period.end_date
        self.employees = {e.id for e in request.employees}
        self.shifts = {s.id for s in request.shifts}
        self.duty_shifts = {k.id: set(k.staffing_demand_by_shift) for k in request.duties}

    def date(self, path: Path, day: dt.date) -> Iterator[FieldError]:
        if not self.start <= day <= self.end:
            yield FieldError(
                path,
                f"{day.isoformat()} is outside the period {self.start.isoformat()}.."
                f"{self.end.isoformat()}",
                ErrorCode.DATE_OUTSIDE_PERIOD,
            )

    def employee(self, path: Path, employee_id: str) -> Iterator[FieldError]:
        if employee_id not in self.employees:
            yield FieldError(
                path, f"no employee has id {employee_id!r}", ErrorCode.UNKNOWN_EMPLOYEE_ID
            )

    def shift_and_duty(
        self, path: Path, shift_id: str, duty_id: str | None
    ) -> Iterator[FieldError]:
        if shift_id not in self.shifts:
            yield FieldError(
                (*path, "shift_id"),
                unknown_id("shift", shift_id, self.shifts),
                ErrorCode.UNKNOWN_SHIFT_ID,
            )
        if duty_id is None:
            return
        if duty_id not in self.duty_shifts:
            yield FieldError(
                (*path, "duty_id"),
                unknown_id("duty", duty_id, self.duty_shifts),
                ErrorCode.UNKNOWN_DUTY_ID,
            )
        elif shift_id in self.shifts and shift_id not in self.duty_shifts[duty_id]:
            yield FieldError(
                (*path, "duty_id"),
                f"duty {duty_id!r} is not defined on shift {shift_id!r}",
                ErrorCode.DUTY_NOT_ON_SHIFT,
            )

    def assignment(self, path: Path, a: Assignment) -> Iterator[FieldError]:
        yield from self.employee((*path, "employee_id"), a.employee_id)
        yield from self.date((*path, "date"), a.date)
        yield from self.shift_and_duty(path, a.shift_id, a.duty_id)


def _foreign(roster: Sequence[Assignment], known: KnownIds, at: Path) -> FieldError | None:
    """One fault for a roster that belongs to another request (none of its employees,
    or none of its dates, is the request's), instead of one fault per cell."""
    if not roster:
        return None
    if not any(a.employee_id in known.employees for a in roster):
        what = "none of its employees is in the request"
    elif not any(known.start <= a.date <= known.end for a in roster):
        what = (
            f"none of its dates is in the period {known.start.isoformat()}..{known.end.isoformat()}"
        )
    else:
        return None
    return FieldError(
        at,
        f"this roster belongs to another request: {what}",
        ErrorCode.ROSTER_OF_ANOTHER_REQUEST,
    )


def roster_faults(
    roster: Sequence[Assignment],
    known: KnownIds,
    strict: bool,
    at: Path = ("roster",),
    *,
    one_per_date: bool = True,
) -> list[FieldError]:
    """Dates inside the period and one assignment per employee and date.

    ``strict``: every employee, shift and duty must exist too. A re-plan is not strict:
    its request may have dropped an employee or a shift since the roster was published,
    and their assignments then simply go (they are listed as removed). A roster of
    another request is one fault at ``at``. ``one_per_date`` False lets an employee be
    listed twice on a date: an audit reports that as a broken rule, not a bad input.
    """
    foreign = _foreign(roster, known, at)
    if foreign is not None:
        return [foreign]
    faults: list[FieldError] = []
    seen: dict[tuple[str, dt.date], int] = {}
    for i, a in enumerate(roster):
        path: Path = (*at, i)
        if strict:
            faults += known.assignment(path, a)
        else:
            faults += known.date((*path, "date"), a.date)
        first = seen.setdefault((a.employee_id, a.date), i)
        if first != i and one_per_date:
            faults.append(
                FieldError(
                    path,
                    f"{a.employee_id} already has roster[{first}] on {a.date.isoformat()}",
                    ErrorCode.DUPLICATE_ASSIGNMENT,
                )
            )
    return faults


def absence_faults(absences: Sequence[Absence], known: KnownIds) -> list[FieldError]:
    faults: list[FieldError] = []
    for i, absence in enumerate(absences):
        faults += known.employee(("absences", i, "employee_id"), absence.employee_id)
        for j, day in enumerate(absence.dates):
            faults += known.date(("absences", i, "dates", j), day)
    return faults


def request_faults(request: SolveRequest) -> list[FieldError]:
    return [FieldError(("request", *f.path), f.message, f.code) for f in check(request)]


def period_history_faults(request: SolveRequest, history: History | None) -> list[FieldError]:
    return [] if history is None else history_faults(request, history, ("history",))


def raise_if(faults: list[FieldError]) -> None:
    if faults:
        raise InvalidRequest(faults)


def parse_replan(data: object) -> ReplanRequest:
    """Validate a re-plan input (field rules, then cross-field rules), or InvalidRequest."""
    replan = parse_model(ReplanRequest, data)
    raise_if(request_faults(replan.request))
    known = KnownIds(replan.request)
    faults = roster_faults(replan.roster, known, strict=False)
    faults += absence_faults(replan.absences, known)
    for i, pin in enumerate(replan.pinned):
        faults += known.assignment(("pinned", i), pin)
    faults += period_history_faults(replan.request, replan.history)
    raise_if(faults)
    return replan


def parse_plan(data: object) -> PlanRequest:
    """Validate a plan input (field rules, then cross-field rules), or InvalidRequest."""
    plan = parse_model(PlanRequest, data)
    raise_if(request_faults(plan.request))
    faults = absence_faults(plan.absences, KnownIds(plan.request))
    faults += period_history_faults(plan.request, plan.history)
    if plan.horizon is not None:
        faults += horizon_faults(plan.request, plan.horizon, ("horizon",))
    raise_if(faults)
    return plan


def parse_recommend(data: object) -> RecommendRequest:
    """Validate a recommendation input (field rules, then cross-field), or InvalidRequest."""
    ask = parse_model(RecommendRequest, data)
    raise_if(request_faults(ask.request))
    known = KnownIds(ask.request)
    faults = roster_faults(ask.roster, known, strict=True)
    faults += absence_faults(ask.absences, known)
    faults += known.date(("slot", "date"), ask.slot.date)
    faults += known.shift_and_duty(("slot",), ask.slot.shift_id, ask.slot.duty_id)
    faults += period_history_faults(ask.request, ask.history)
    raise_if(faults)
    return ask


def roster_changes(before: Sequence[Assignment], after: Sequence[Assignment]) -> list[Change]:
    """Every (employee, date) cell whose shift or duty differs, by employee then date.

    Plain set arithmetic on the two rosters, independent of any model: what a re-plan
    reports is checked against it.
    """
    old = {(a.employee_id, a.date): a for a in before}
    new = {(a.employee_id, a.date): a for a in after}
    changes = []
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if a is not None and b is not None and (a.shift_id, a.duty_id) == (b.shift_id, b.duty_id):
            continue
        kind: Literal["added", "removed", "moved"] = (
            "added" if a is None else "removed" if b is None else "moved"
        )
        changes.append(
            Change(
                employee_id=key[0],
                date=key[1],
                change=kind,
                from_shift_id=None if a is None else a.shift_id,
                from_duty_id=None if a is None else a.duty_id,
                to_shift_id=None if b is None else b.shift_id,
                to_duty_id=None if b is None else b.duty_id,
            )
        )
    return changes
