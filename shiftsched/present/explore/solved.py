"""The explorer's roster: solved (or uploaded), audited, and shown as tables and files.

The clock of a solve starts before its problem is built, so the times shown are what a
person waits. Every figure shown is the independent audit's, equal to the solver's when
it solved; an uploaded roster gets the audit's figures alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from shiftsched.checking.audit import AuditReport, audit, compare_with_metrics
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.present.advice import no_roster_advice
from shiftsched.present.frames import (
    assignments_frame,
    coverage_frame,
    hard_violations_frame,
    penalty_by_family,
    progress_frame,
    shortages_frame,
    violations_frame,
)
from shiftsched.present.notebook_limits import notebook_solve, notebook_workers, tried_seconds
from shiftsched.present.words import many
from shiftsched.questions.variants import with_preference_weight
from shiftsched.solving.diagnose import DiagnosisLimits, diagnose
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import SolveOutcome


def solve_variant(
    request: SolveRequest,
    preference_weight: int,
    time_limit: float,
    work_limit: float,
    asked: float,
) -> SolveOutcome:
    """Solve ``request`` at ``preference_weight`` on the notebook's limits; ``asked`` is
    the ``time.perf_counter()`` reading of the moment the solve was asked for. The limit
    never ends it without a roster (``notebook_limits.until_first_roster``)."""
    problem = with_preference_weight(from_request(request), preference_weight)
    return notebook_solve(problem, time_limit, work_limit, started=asked)


def no_roster_words(outcome: SolveOutcome, time_limit: float) -> str:
    """Why there is no roster and what to do, before any cause is looked for."""
    return no_roster_advice(outcome.status, outcome.message, tried_seconds(outcome, time_limit))


def first_cause_words(request: SolveRequest, time_limit: float, work_limit: float) -> str:
    """The diagnosis' first cause in its words, with its JSON path ("" when none), as the
    command line and the service name it."""
    causes = diagnose(request, DiagnosisLimits(time_limit, notebook_workers(work_limit))).causes
    if not causes:
        return ""
    return f"\n\n**First cause:** {causes[0].message} (`{causes[0].field}`)"


def audit_shown(
    request: SolveRequest,
    roster: Sequence[Assignment],
    outcome: SolveOutcome | None,
    preference_weight: int,
) -> tuple[AuditReport, list[str]]:
    """The audit of the roster shown, and how it differs from the solver's figures
    (none for an uploaded roster: there are no solver figures)."""
    report = audit(request, roster, preference_weight=preference_weight)
    if outcome is None:
        return report, []
    metrics = {
        "solver_runtime_seconds": outcome.runtime_seconds,
        "objective_value": outcome.objective_value,
        "soft_constraint_violations": [v.model_dump() for v in outcome.violations],
    }
    return report, compare_with_metrics(report, metrics, outcome.shortages)


def upload_summary(
    name: str, source: str, report: AuditReport, roster: Sequence[Assignment], broken: int
) -> str:
    """The line above an uploaded roster: the audit's objective and verdict."""
    verdict = (
        "no hard rule broken"
        if report.feasible
        else f"**{many(broken, 'hard rule')} broken**, listed below"
    )
    return (
        f"**{name}**, a roster of **{source}** read from the file (not solved "
        f"here): objective **{report.objective_value:,.0f}** by the independent audit, "
        f"{len(roster)} assignments, {sum(s.missing for s in report.shortages)} heads "
        f"missing; {verdict}."
    )


def solve_summary(
    source: str,
    outcome: SolveOutcome,
    report: AuditReport,
    differences: Sequence[str],
    roster: Sequence[Assignment],
) -> str:
    """The line above a solved roster: how the solve ended, when its rosters came, and
    whether the audit agrees."""
    gap = f"{outcome.gap:.1%}" if outcome.gap is not None else "n/a"
    first = outcome.solver.time_to_first_solution_seconds
    verdict = (
        "the independent audit agrees: no hard rule broken, same penalties"
        if report.feasible and not differences
        else f"the audit disagrees: {report.hard_violations[:3]} {list(differences)[:3]}"
    )
    return (
        f"**{source}**: {outcome.status}, objective **{outcome.objective_value:,.0f}**\n"
        f"(bound {outcome.best_bound:,.0f}, gap {gap}); the first roster came\n"
        f"{first or 0:.2f} s after the solve was asked for, this one after\n"
        f"{outcome.runtime_seconds:.1f} s (the model's build included);\n"
        f"{len(roster)} assignments, {sum(s.missing for s in outcome.shortages)} heads\n"
        f"missing. Audit: {verdict}."
    )


@dataclass(frozen=True)
class RosterTables:
    """The tables of the roster shown, every figure the audit's."""

    assignments: pl.DataFrame
    coverage: pl.DataFrame
    penalties: pl.DataFrame
    progress: pl.DataFrame
    shortages: pl.DataFrame
    violations: pl.DataFrame


def roster_tables(
    request: SolveRequest,
    roster: Sequence[Assignment],
    report: AuditReport,
    outcome: SolveOutcome | None,
) -> RosterTables:
    """Assignments, coverage, penalties, search progress, shortages and violations."""
    return RosterTables(
        assignments=assignments_frame(request, roster),
        coverage=coverage_frame(request, roster, report.shortages),
        penalties=penalty_by_family(report.soft_constraint_violations),
        progress=progress_frame([] if outcome is None else outcome.progress),
        shortages=shortages_frame(report.shortages),
        violations=violations_frame(report.soft_constraint_violations, request),
    )


def cell_of(rows: pl.DataFrame | None) -> tuple[tuple[str, str] | None, str | None]:
    """The (employee_id, date) of the one roster cell clicked, and what it holds in
    words; (None, None) unless exactly one cell is picked."""
    if rows is None or len(rows) != 1:
        return None, None
    row: Mapping[str, Any] = rows.row(0, named=True)
    duty = f" ({row['duty']})" if row["duty"] else ""
    words = (
        f"**{row['employee']}** ({row['employee_id']}) works **{row['shift']}**{duty} "
        f"on {row['date']}"
    )
    return (row["employee_id"], row["date"].isoformat()), words


def hard_rules_broken(report: AuditReport) -> pl.DataFrame:
    """The hard rules the roster shown breaks, one row each."""
    return hard_violations_frame(report.hard_violations)
