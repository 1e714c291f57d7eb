"""What a solve produced, before it is shaped into a v1 response.

A roster found is priced exactly from its decisions (shiftsched.solving.extract), whatever
the status the search ended on.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from shiftsched.contract.v1 import Assignment, Shortage, SoftConstraintViolation, SolverInfo
from shiftsched.solving.extract import extract
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.model.tight import tight_values
from shiftsched.solving.search.incumbent import SearchResult
from shiftsched.solving.search.progress import Progress, ProgressPoint

OutcomeStatus = Literal[
    "optimal", "feasible", "infeasible", "timeout", "model_invalid", "cancelled"
]


@dataclass
class SolveOutcome:
    """Everything a solve produced, before it is shaped into a v1 response."""

    status: OutcomeStatus
    cp_sat_status: str
    runtime_seconds: float
    solver: SolverInfo
    assignments: list[Assignment] = field(default_factory=list)
    shortages: list[Shortage] = field(default_factory=list)
    violations: list[SoftConstraintViolation] = field(default_factory=list)
    objective_value: float | None = None
    best_bound: float | None = None
    message: str | None = None
    progress: list[ProgressPoint] = field(default_factory=list)

    @property
    def has_solution(self) -> bool:
        return self.status in ("optimal", "feasible")

    @property
    def gap(self) -> float | None:
        if self.objective_value is None or self.best_bound is None:
            return None
        return max(0.0, self.objective_value - self.best_bound) / max(
            1.0, abs(self.objective_value)
        )


def cancelled(elapsed: float, solver: SolverInfo) -> SolveOutcome:
    """The caller stopped the solve before any roster was recorded."""
    return SolveOutcome(
        "cancelled",
        solver.cp_sat_status,
        elapsed,
        solver,
        message="the solve was stopped before it found a roster",
    )


def solved(
    compiled: CompiledModel,
    result: SearchResult,
    progress: Progress,
    info: Callable[[str], SolverInfo],
    started: float,
) -> SolveOutcome:
    """The best roster of the search, priced exactly from its decisions.

    The status is ``optimal`` when the search proved it (CP-SAT's proof, or a roster whose
    cost meets the proven bound); the reported CP-SAT status then reads ``OPTIMAL`` too.
    """
    assert result.solution is not None
    progress.finish(result.bound, result.bound_source or "cp_sat")
    values = tight_values(compiled, result.solution)
    assignments, violations, shortages = extract(compiled, values)
    name = "OPTIMAL" if result.proved_optimal else "FEASIBLE"
    solver = info(name)
    stopped_by = result.stopped_by or ("proof" if result.proved_optimal else "time_limit")
    if solver.stopped_on_request and not result.proved_optimal:
        stopped_by = "request"
    solver = solver.model_copy(update={"stopped_by": stopped_by})
    objective = math.fsum(v.penalty for v in violations)  # the same whatever their order
    return SolveOutcome(
        status="optimal" if result.proved_optimal else "feasible",
        cp_sat_status=name,
        runtime_seconds=time.perf_counter() - started,
        solver=solver,
        assignments=assignments,
        shortages=shortages,
        violations=violations,
        objective_value=objective,
        best_bound=objective if result.proved_optimal else float(min(result.bound, objective)),
        progress=progress.points,
    )
