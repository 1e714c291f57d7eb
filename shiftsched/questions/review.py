"""Audit any roster and compare two: the answers every face gives, from one place.

Both are read off the independent audit (shiftsched.checking.audit), never off the model that made
a roster, so a hand-edited roster, one from another tool and one from the solver are
judged alike. The audit adds what a manager reads next to the price: the input item
behind every finding (shiftsched.checking.items), the figures of each employee and the plan's KPIs
(shiftsched.checking.figures). A comparison is two audits and a plain diff of the cells.

Both answers list at most :data:`shiftsched.questions.inquiry.MAX_LISTED_FINDINGS` items per long
list and give each list's full length beside it: a free, anonymous answer stays a few
megabytes whatever the roster. The cap is applied here, to the answers only: the audit
itself (shiftsched.checking.audit) stays complete for the solver, the re-planner and every figure
computed below.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

from shiftsched.checking.audit import AuditReport, HardViolation, audit
from shiftsched.checking.figures import employee_changes, employee_figures, kpis
from shiftsched.checking.items import shortage_field, term_field, term_words
from shiftsched.contract.history import History
from shiftsched.contract.planning import Absence, roster_changes
from shiftsched.contract.v1 import Assignment, Shortage, SolveRequest
from shiftsched.questions.inquiry import (
    MAX_LISTED_FINDINGS,
    AuditedShortage,
    AuditedTerm,
    AuditRequest,
    AuditResponse,
    AuditTotals,
    CompareRequest,
    CompareResponse,
    CompareTotals,
    TermCostChange,
)

_Item = TypeVar("_Item")


def _listed(items: Sequence[_Item]) -> list[_Item]:
    """The first :data:`MAX_LISTED_FINDINGS` of ``items``, in their order."""
    return list(items[:MAX_LISTED_FINDINGS])


def audit_roster(ask: AuditRequest) -> AuditResponse:
    """The audit of ``ask.roster``, every finding with its input item, and the figures."""
    report = audit(ask.request, ask.roster, history=ask.history, absences=ask.absences)
    return explained(ask.request, ask.roster, report)


def explained(
    request: SolveRequest, roster: Sequence[Assignment], report: AuditReport
) -> AuditResponse:
    """An audit report with the input items, the words, the figures and the KPIs; the
    lists capped, the figures and KPIs from the whole report."""
    figures = employee_figures(request, roster)
    totals = AuditTotals(
        hard_violations=len(report.hard_violations),
        soft_constraint_violations=len(report.soft_constraint_violations),
        shortages=len(report.shortages),
    )
    return AuditResponse(
        feasible=report.feasible,
        objective_value=report.objective_value,
        hard_violations=_listed(report.hard_violations),
        soft_constraint_violations=[
            AuditedTerm(
                **dict(v),
                field=term_field(request, v.name),
                words=term_words(request, v.name, v.violated_by),
            )
            for v in _listed(report.soft_constraint_violations)
        ],
        shortages=_with_fields(request, _listed(report.shortages)),
        employees=figures,
        kpis=kpis(request, roster, report.shortages, figures),
        listed_limit=MAX_LISTED_FINDINGS,
        totals=totals,
        truncated=max(totals.model_dump().values()) > MAX_LISTED_FINDINGS,
    )


def audited_shortages(request: SolveRequest, report: AuditReport) -> list[AuditedShortage]:
    """The report's shortage markers, each with its demand item."""
    return _with_fields(request, report.shortages)


def _with_fields(request: SolveRequest, markers: Sequence[Shortage]) -> list[AuditedShortage]:
    return [
        AuditedShortage(**dict(marker), field=shortage_field(request, marker)) for marker in markers
    ]


def compare_rosters(ask: CompareRequest) -> CompareResponse:
    """What differs between two rosters of one request, every delta after - before."""
    return compare(ask.request, ask.before, ask.after, history=ask.history, absences=ask.absences)


def compare(
    request: SolveRequest,
    before: Sequence[Assignment],
    after: Sequence[Assignment],
    *,
    history: History | None = None,
    absences: Sequence[Absence] = (),
) -> CompareResponse:
    """The comparison of two rosters (see :func:`compare_rosters`); ``absences`` hold for
    both, so a re-plan around them is compared with the roster it replaced fairly."""
    old = audit(request, before, history=history, absences=absences)
    new = audit(request, after, history=history, absences=absences)
    changes = roster_changes(before, after)
    cells = Counter(c.employee_id for c in changes)
    priced_before = {v.name: v.penalty for v in old.soft_constraint_violations}
    priced_after = {v.name: v.penalty for v in new.soft_constraint_violations}
    terms = [
        TermCostChange(
            name=name,
            field=term_field(request, name),
            before=priced_before.get(name, 0.0),
            after=priced_after.get(name, 0.0),
            delta=priced_after.get(name, 0.0) - priced_before.get(name, 0.0),
        )
        for name in sorted(priced_before.keys() | priced_after.keys())
        if priced_before.get(name, 0.0) != priced_after.get(name, 0.0)
    ]
    figures_before = employee_figures(request, before)
    figures_after = employee_figures(request, after)
    added = _missing_from(new.hard_violations, old.hard_violations)
    removed = _missing_from(old.hard_violations, new.hard_violations)
    totals = CompareTotals(
        changes=len(changes),
        terms=len(terms),
        hard_violations_added=len(added),
        hard_violations_removed=len(removed),
    )
    return CompareResponse(
        changes=_listed(changes),
        employees=employee_changes(figures_before, figures_after, cells),
        terms=_listed(terms),
        objective_before=old.objective_value,
        objective_after=new.objective_value,
        objective_delta=new.objective_value - old.objective_value,
        hard_violations_added=_listed(added),
        hard_violations_removed=_listed(removed),
        kpis_before=kpis(request, before, old.shortages, figures_before),
        kpis_after=kpis(request, after, new.shortages, figures_after),
        listed_limit=MAX_LISTED_FINDINGS,
        totals=totals,
        truncated=max(totals.model_dump().values()) > MAX_LISTED_FINDINGS,
    )


def _missing_from(
    these: Sequence[HardViolation], others: Sequence[HardViolation]
) -> list[HardViolation]:
    """The violations of ``these`` not in ``others``, counted as a multiset. A
    violation's ``field`` is left out of the match: a roster item's index moves when
    cells are added or removed before it."""

    def key(v: HardViolation) -> tuple[object, ...]:
        return (v.code, v.message, v.employee_id, v.date, v.shift_id)

    left = Counter(key(v) for v in others)
    out = []
    for violation in these:
        if left[key(violation)]:
            left[key(violation)] -= 1
        else:
            out.append(violation)
    return out
