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

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from pydantic import Field

from shiftsched.checking.audit import HardViolation
from shiftsched.checking.figures import EmployeeChange, EmployeeFigures, Kpis
from shiftsched.contract.history import History
from shiftsched.contract.parse import ErrorCode, parse_model
from shiftsched.contract.planning import (
    Absence,
    Change,
    KnownIds,
    absence_faults,
    period_history_faults,
    raise_if,
    request_faults,
    roster_faults,
)
from shiftsched.contract.v1 import (
    Assignment,
    Cause,
    Date,
    Id,
    Shortage,
    SoftConstraintViolation,
    SolveRequest,
)
from shiftsched.contract.v1 import _Model as _ContractModel
from shiftsched.errors import FieldError

Path = tuple[str | int, ...]

#: The most items each long list of an audit or a comparison answer holds. A longer list
#: keeps its first items, in its order, and the answer's ``totals`` give its full length:
#: the answer stays a few megabytes whatever the roster, while the objective, the
#: figures and the KPIs are still computed from every finding.
MAX_LISTED_FINDINGS: Final = 1_000


def _lengths(data: Mapping[str, Any], lists: Sequence[str]) -> dict[str, int]:
    """The length of each of ``lists`` in ``data``: the totals of an answer built
    without any (its lists are then whole)."""
    return {name: len(data.get(name, ())) for name in lists}


# --------------------------------------------------------------------------- audit


class AuditRequest(_ContractModel):
    """A roster to price and check against its request (and the days before it)."""

    request: SolveRequest
    roster: list[Assignment]
    history: History | None = None
    absences: list[Absence] = Field(default_factory=list)  # lower the day minimums


class AuditedTerm(SoftConstraintViolation):
    """A soft term with the input item behind it and what it means, in words."""

    field: str | None = None  # JSON path of the input item (None: an imported rule)
    words: str


class AuditedShortage(Shortage):
    """A shortage marker with the demand item behind it."""

    field: str


class AuditTotals(_ContractModel):
    """How many items each list of an audit answer has in full, listed or not."""

    hard_violations: int
    soft_constraint_violations: int
    shortages: int


def _audit_totals(data: dict[str, Any]) -> AuditTotals:
    return AuditTotals(**_lengths(data, tuple(AuditTotals.model_fields)))


class AuditResponse(_ContractModel):
    """What a roster breaks and costs, who carries what, and the plan's KPIs.

    ``hard_violations``, ``soft_constraint_violations``, ``objective_value`` and
    ``shortages`` are the independent audit's (shiftsched.checking.audit), the figures and KPIs
    shiftsched.checking.figures's. Each of the three lists holds at most ``listed_limit`` items (its
    first, in its order); ``totals`` gives each one's full length and ``truncated`` says
    whether any was cut. ``feasible``, the objective, the figures and the KPIs are
    computed from the whole audit, listed or not.
    """

    feasible: bool  # no hard rule broken (shortages and soft terms do not count)
    objective_value: float
    hard_violations: list[HardViolation]
    soft_constraint_violations: list[AuditedTerm]
    shortages: list[AuditedShortage]
    employees: list[EmployeeFigures]
    kpis: Kpis
    listed_limit: int = MAX_LISTED_FINDINGS  # the most items each list above holds
    totals: AuditTotals = Field(default_factory=_audit_totals)  # each list's full length
    truncated: bool = False  # some list holds fewer items than its total


# ------------------------------------------------------------------------- compare


class CompareRequest(_ContractModel):
    """Two rosters of one request: before and after an edit, or two what-ifs."""

    request: SolveRequest
    before: list[Assignment]
    after: list[Assignment]
    history: History | None = None
    absences: list[Absence] = Field(default_factory=list)  # lower the day minimums, both


class TermCostChange(_ContractModel):
    """One soft term's price in both rosters (0 where it is not violated)."""

    name: str
    field: str | None = None
    before: float
    after: float
    delta: float  # after - before


class CompareTotals(_ContractModel):
    """How many items each long list of a comparison has in full, listed or not."""

    changes: int
    terms: int
    hard_violations_added: int
    hard_violations_removed: int


def _compare_totals(data: dict[str, Any]) -> CompareTotals:
    return CompareTotals(**_lengths(data, tuple(CompareTotals.model_fields)))


class CompareResponse(_ContractModel):
    """What differs between ``before`` and ``after``: every delta is after - before.

    ``changes``, ``terms``, ``hard_violations_added`` and ``hard_violations_removed``
    each hold at most ``listed_limit`` items (their first, in their order); ``totals``
    gives each one's full length and ``truncated`` says whether any was cut. The
    objectives and the KPIs are computed from both whole rosters, listed or not;
    ``employees`` (one per employee at most) is always whole.
    """

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
    listed_limit: int = MAX_LISTED_FINDINGS  # the most items each long list holds
    totals: CompareTotals = Field(default_factory=_compare_totals)  # their full lengths
    truncated: bool = False  # some list holds fewer items than its total


# ------------------------------------------------------------------------- explain


class ExplainRequest(_ContractModel):
    """A roster whose shortages to explain; the absences hold for every fill."""

    request: SolveRequest
    roster: list[Assignment]
    absences: list[Absence] = Field(default_factory=list)
    history: History | None = None
    dates: list[Date] | None = None  # only the shortages on these dates (None: all)


Verdict = Literal["avoidable", "unavoidable", "undecided"]


class HeadCounts(_ContractModel):
    """A shortage's missing heads, each counted once (they add up to ``missing``).

    ``fillable``: some roster keeping every hard rule covers it with the roster's total
    of missing heads (over every demand) lower; ``movable``: some roster covers it, but
    only by leaving another demand short (the total does not fall); ``unavoidable``: no
    roster covers it; ``undecided``: the work ran out before it was shown either way.
    """

    missing: int
    fillable: int = 0
    movable: int = 0
    unavoidable: int = 0
    undecided: int = 0


class ShortageExplanation(_ContractModel):
    """Whether any roster can fill one more head of a shortage, and how, or why not.

    ``avoidable``: at least one head is fillable; ``roster`` is the fill found, a roster
    that keeps every hard rule, whose total of missing heads is lower than the
    original's and whose audited objective is the original's plus ``objective_delta``;
    ``changes`` are its cells that differ and ``filled_by`` who newly covers the demand.
    ``unavoidable``: no head is fillable, every one shown only movable or unavoidable;
    ``causes`` is a minimal set of the rules and input items that forbid the first
    unavoidable head (none when every head is only movable: ``capacity`` says why).
    ``undecided``: the time ran out before either was shown. ``heads`` counts the
    missing heads by kind; ``capacity`` is the date's capacity in words (who may work
    that date, against the heads its shifts want).
    """

    shortage: AuditedShortage
    verdict: Verdict
    summary: str
    causes: list[Cause] = Field(default_factory=list)
    objective_delta: float | None = None
    filled_by: list[str] = Field(default_factory=list)
    changes: list[Change] = Field(default_factory=list)
    roster: list[Assignment] | None = None
    heads: HeadCounts | None = None
    capacity: str | None = None


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
    known = KnownIds(ask.request)
    faults = _rosters(known, {"roster": ask.roster}, one_per_date=False)
    faults += absence_faults(ask.absences, known)
    raise_if(faults + period_history_faults(ask.request, ask.history))
    return ask


def parse_compare(data: object) -> CompareRequest:
    """Validate a comparison input, or InvalidRequest (both rosters must fit the request)."""
    ask = parse_model(CompareRequest, data)
    raise_if(request_faults(ask.request))
    known = KnownIds(ask.request)
    faults = _rosters(known, {"before": ask.before, "after": ask.after}, one_per_date=False)
    faults += absence_faults(ask.absences, known)
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
