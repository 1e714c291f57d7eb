"""The inputs and outputs of the questions a roster raises, beside the v1 contract.

A manager asks more than "give me a roster": what does this roster break and cost
(audit), what changed between two versions (compare), why is a shift short and could
anyone fill it (explain), and why does someone work, or not, on a date (why not). Each
question starts from a request and one or two rosters; their field rules are
pydantic's and the cross-field rules below name the JSON path of every fault, so every
face (CLI, HTTP, MCP) reports them alike. A roster must fit its request: every
employee, shift and duty known, every date inside the period, one cell per employee
and date; a roster of another request is one fault (``roster_of_another_request``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from engine.audit import HardViolation
from engine.contract import (
    Assignment,
    Cause,
    Date,
    Id,
    Shortage,
    SoftConstraintViolation,
    SolveRequest,
)
from engine.contract import _Model as _ContractModel
from engine.errors import FieldError
from engine.figures import EmployeeChange, EmployeeFigures, Kpis
from engine.history import History
from engine.planning import (
    Absence,
    Change,
    KnownIds,
    absence_faults,
    period_history_faults,
    raise_if,
    request_faults,
    roster_faults,
)
from engine.rules import ErrorCode, parse_model

Path = tuple[str | int, ...]

# --------------------------------------------------------------------------- audit


class AuditRequest(_ContractModel):
    """A roster to price and check against its request (and the days before it)."""

    request: SolveRequest
    roster: list[Assignment]
    history: History | None = None


class AuditedTerm(SoftConstraintViolation):
    """A soft term with the input item behind it and what it means, in words."""

    field: str | None = None  # JSON path of the input item (None: an imported rule)
    words: str


class AuditedShortage(Shortage):
    """A shortage marker with the demand item behind it."""

    field: str


class AuditResponse(_ContractModel):
    """What a roster breaks and costs, who carries what, and the plan's KPIs.

    ``hard_violations``, ``soft_constraint_violations``, ``objective_value`` and
    ``shortages`` are the independent audit's (engine.audit), the figures and KPIs
    engine.figures's.
    """

    feasible: bool  # no hard rule broken (shortages and soft terms do not count)
    objective_value: float
    hard_violations: list[HardViolation]
    soft_constraint_violations: list[AuditedTerm]
    shortages: list[AuditedShortage]
    employees: list[EmployeeFigures]
    kpis: Kpis


# ------------------------------------------------------------------------- compare


class CompareRequest(_ContractModel):
    """Two rosters of one request: before and after an edit, or two what-ifs."""

    request: SolveRequest
    before: list[Assignment]
    after: list[Assignment]
    history: History | None = None


class TermCostChange(_ContractModel):
    """One soft term's price in both rosters (0 where it is not violated)."""

    name: str
    field: str | None = None
    before: float
    after: float
    delta: float  # after - before


class CompareResponse(_ContractModel):
    """What differs between ``before`` and ``after``: every delta is after - before."""

    changes: list[Change]  # every (employee, date) cell that differs
    employees: list[EmployeeChange]  # employees with a changed figure or cell
    terms: list[TermCostChange]  # soft terms whose price differs
    objective_before: float
    objective_after: float
    objective_delta: float
    hard_violations_added: list[HardViolation]  # broken after and not before
    hard_violations_removed: list[HardViolation]  # broken before and not after
    kpis_before: Kpis
    kpis_after: Kpis


# ------------------------------------------------------------------------- explain


class ExplainRequest(_ContractModel):
    """A roster whose shortages to explain; the absences hold for every fill."""

    request: SolveRequest
    roster: list[Assignment]
    absences: list[Absence] = Field(default_factory=list)
    history: History | None = None
    dates: list[Date] | None = None  # only the shortages on these dates (None: all)


Verdict = Literal["avoidable", "unavoidable", "undecided"]


class ShortageExplanation(_ContractModel):
    """Whether any roster can fill one more head of a shortage, and how, or why not.

    ``avoidable``: ``roster`` is the fill found, a roster that keeps every hard rule,
    whose audited objective is the original's plus ``objective_delta``; ``changes``
    are its cells that differ and ``filled_by`` who newly covers the demand.
    ``unavoidable``: no roster under these hard rules and absences can; ``causes``
    is a minimal set of the rules and input items that forbid it. ``undecided``: the
    time ran out before either was shown.
    """

    shortage: AuditedShortage
    verdict: Verdict
    summary: str
    causes: list[Cause] = Field(default_factory=list)
    objective_delta: float | None = None
    filled_by: list[str] = Field(default_factory=list)
    changes: list[Change] = Field(default_factory=list)
    roster: list[Assignment] | None = None


class ExplainResponse(_ContractModel):
    objective_value: float  # the audited objective of the roster explained
    explanations: list[ShortageExplanation]
    job_id: str | None = None  # the service's record of the call (None off the service)


# ------------------------------------------------------------------------- why not


class WhyRequest(_ContractModel):
    """Why ``employee_id`` does not work ``shift_id`` on ``date``, or, with no
    ``shift_id``, why they are not off that date."""

    request: SolveRequest
    roster: list[Assignment]
    employee_id: Id
    date: Date
    shift_id: Id | None = None
    duty_id: Id | None = None
    absences: list[Absence] = Field(default_factory=list)
    history: History | None = None


WhyVerdict = Literal["already", "possible", "impossible", "undecided"]


class WhyResponse(_ContractModel):
    """``possible``: the re-plan that makes it so (``roster``, ``changes``, and the
    objective's change); ``impossible``: the hard rules and items that forbid it;
    ``already``: the roster already has it; ``undecided``: time ran out."""

    question: str
    verdict: WhyVerdict
    summary: str
    causes: list[Cause] = Field(default_factory=list)
    objective_delta: float | None = None
    changes: list[Change] = Field(default_factory=list)
    roster: list[Assignment] | None = None
    job_id: str | None = None  # the service's record of the call (None off the service)


# ------------------------------------------------------------------ cross-field rules


def fit_faults(
    request: SolveRequest, roster: Sequence[Assignment], at: Path, *, one_per_date: bool = False
) -> list[FieldError]:
    """How ``roster`` does not fit ``request``: unknown employees, shifts and duties,
    dates outside the period (a roster of another request is one fault at ``at``), and
    with ``one_per_date`` an employee listed twice on a date."""
    return roster_faults(roster, KnownIds(request), True, at, one_per_date=one_per_date)


def _rosters(
    known: KnownIds, named: dict[str, list[Assignment]], *, one_per_date: bool
) -> list[FieldError]:
    faults: list[FieldError] = []
    for at, roster in named.items():
        faults += roster_faults(roster, known, True, (at,), one_per_date=one_per_date)
    return faults


def parse_audit(data: object) -> AuditRequest:
    """Validate an audit input (field rules, then cross-field rules), or InvalidRequest."""
    ask = parse_model(AuditRequest, data)
    raise_if(request_faults(ask.request))
    faults = _rosters(KnownIds(ask.request), {"roster": ask.roster}, one_per_date=False)
    raise_if(faults + period_history_faults(ask.request, ask.history))
    return ask


def parse_compare(data: object) -> CompareRequest:
    """Validate a comparison input, or InvalidRequest (both rosters must fit the request)."""
    ask = parse_model(CompareRequest, data)
    raise_if(request_faults(ask.request))
    faults = _rosters(
        KnownIds(ask.request), {"before": ask.before, "after": ask.after}, one_per_date=False
    )
    raise_if(faults + period_history_faults(ask.request, ask.history))
    return ask


def _question_faults(ask: ExplainRequest | WhyRequest) -> tuple[KnownIds, list[FieldError]]:
    """What a question on one roster checks first: the request (raised at once), then
    the roster (one cell per employee and date) and the absences."""
    raise_if(request_faults(ask.request))
    known = KnownIds(ask.request)
    faults = _rosters(known, {"roster": ask.roster}, one_per_date=True)
    return known, faults + absence_faults(ask.absences, known)


def parse_explain(data: object) -> ExplainRequest:
    """Validate an explain input, or InvalidRequest."""
    ask = parse_model(ExplainRequest, data)
    known, faults = _question_faults(ask)
    for i, day in enumerate(ask.dates or ()):
        faults += known.date(("dates", i), day)
    raise_if(faults + period_history_faults(ask.request, ask.history))
    return ask


def parse_why(data: object) -> WhyRequest:
    """Validate a why-not input, or InvalidRequest."""
    ask = parse_model(WhyRequest, data)
    known, faults = _question_faults(ask)
    faults += known.employee(("employee_id",), ask.employee_id)
    faults += known.date(("date",), ask.date)
    if ask.shift_id is not None:
        faults += known.shift_and_duty((), ask.shift_id, ask.duty_id)
    elif ask.duty_id is not None:
        faults.append(
            FieldError(("duty_id",), "a duty needs its shift_id", ErrorCode.MISSING_FIELD)
        )
    raise_if(faults + period_history_faults(ask.request, ask.history))
    return ask
