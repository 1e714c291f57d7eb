"""A Timefold roster priced by the audit, and Timefold's own score set beside it.

The audit (:mod:`shiftsched.checking.audit`) is the judge: the response's metrics, shortages and
objective are the audit's. Timefold's score must tell the same story, or one of the two
models misreads docs/semantics.md: the same hard verdict (Timefold's hard score is 0
exactly when the audit finds no broken rule), and, constraint by constraint, the soft
penalty equal to the sum of the audit's terms it stands for
(:data:`benchmarks.timefold_model.terms.SOFT`). Both weigh soft terms alike, so on a
clean roster Timefold's soft score is minus the audit's objective.

The soft terms are compared on every roster that keeps one shift per date. A roster
that lists someone twice on a date is read two ways: the audit takes the date's shifts
as a set (a transition from it counts once), the model counts each slot. Timefold never
returns such a roster without a hard penalty, and the hard verdicts still agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.timefold_model.outcome import Limit, TimefoldRun
from benchmarks.timefold_model.terms import SOFT
from shiftsched.checking.audit import AuditReport, audit
from shiftsched.contract.v1 import Metrics, Solution, SolveRequest, SolveResponse, SolverInfo


@dataclass(frozen=True)
class Term:
    """One soft constraint: Timefold's penalty and the audit's sum of the terms it covers."""

    name: str
    timefold: int
    audit: float

    @property
    def agrees(self) -> bool:
        return abs(self.timefold - self.audit) < 1e-6


@dataclass(frozen=True)
class Agreement:
    """Timefold's score against the audit: the hard verdict and each soft constraint."""

    timefold_feasible: bool
    audit_feasible: bool
    terms: list[Term]
    uncovered: list[str]  # audit terms no constraint of the model stands for
    soft_compared: bool = True  # False for a roster with someone twice on a date

    @property
    def differences(self) -> list[str]:
        found = [t.name for t in self.terms if not t.agrees] if self.soft_compared else []
        found += self.uncovered
        if self.timefold_feasible != self.audit_feasible:
            found.insert(0, "hard verdict")
        return found

    @property
    def agrees(self) -> bool:
        return not self.differences


def agreement(run: TimefoldRun, report: AuditReport) -> Agreement:
    """Compares Timefold's score of a roster with the audit of the same roster."""
    terms = []
    covered: set[str] = set()
    for name, (prefix, _) in SOFT.items():
        mine = [v for v in report.soft_constraint_violations if v.name.startswith(prefix)]
        covered.update(v.name for v in mine)
        terms.append(Term(name, run.constraints.get(name, 0), sum(v.penalty for v in mine)))
    uncovered = [v.name for v in report.soft_constraint_violations if v.name not in covered]
    twice = any(v.code == "one_shift_per_date" for v in report.hard_violations)
    return Agreement(run.hard == 0, report.feasible, terms, uncovered, soft_compared=not twice)


def _solver_info(run: TimefoldRun, limit: Limit) -> SolverInfo:
    """The contract's record of what produced a result; its CP-SAT fields say none ran."""
    return SolverInfo(
        ortools_version=f"not used (Timefold Solver {run.version})",
        num_workers=1,
        random_seed=0,
        time_limit_seconds=limit.seconds or 0.0,
        cp_sat_status="NOT_USED",
        time_to_first_solution_seconds=run.first_roster_seconds,
        solutions_found=len(run.improvements),
    )


def to_response(run: TimefoldRun, report: AuditReport, limit: Limit, job_id: str) -> SolveResponse:
    """A v1 SolveResponse of the roster with the audit's figures. Its status is
    ``feasible`` for a roster that breaks no hard rule (Timefold proves no bound, so never
    ``optimal``), and absent for one that breaks some."""
    metrics = Metrics(
        solver_runtime_seconds=run.wall_seconds,
        objective_value=report.objective_value,
        soft_constraint_violations=report.soft_constraint_violations,
        status="feasible" if report.feasible else None,
        solver=_solver_info(run, limit),
    )
    solution = Solution(assignments=run.assignments, metrics=metrics, shortages=report.shortages)
    return SolveResponse(job_id=job_id, status="completed", solution=solution)


@dataclass(frozen=True)
class Priced:
    report: AuditReport
    agreement: Agreement
    response: SolveResponse


def price(
    request: SolveRequest, run: TimefoldRun, limit: Limit, job_id: str = "timefold"
) -> Priced:
    """The audit of the run's roster, its agreement with Timefold's score, the response."""
    report = audit(request, run.assignments)
    return Priced(report, agreement(run, report), to_response(run, report, limit, job_id))
