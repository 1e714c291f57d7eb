"""Problems, first rosters and independent checks shared by the search tests.

A starting roster is the greedy roster (:mod:`shiftsched.solving.greedy`) completed by one CP-SAT
solve with every decision fixed to it: cheap, deterministic and usually far from
optimal, so a neighbourhood search has something to improve. Every roster a search
returns is checked twice, independently of the search: as an assignment of the full
model (each variable fixed to its value, the model must be feasible) and priced from its
decisions alone by the audit of v1 requests or the Curtois & Qu checker.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ortools.sat.python import cp_model

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Metrics, SolveRequest
from shiftsched.formats.curtois import Instance, load, to_problem, to_roster
from shiftsched.formats.curtois_check import check
from shiftsched.solving.extract import extract
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.hint import add_roster_hint
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.model.tight import tight_values
from shiftsched.solving.problem import Problem, from_request

DATASETS = Path(__file__).resolve().parents[3] / "datasets"
DATASET_NAMES = (
    "ward_24_7",
    "call_centre_duties",
    "retail_weekdays",
    "factory_three_shifts",
    "two_month_period",
)
BACKSTOP_SECONDS = 120.0  # only a broken solve reaches it: every solve here ends on work


@cache
def dataset_request(name: str) -> SolveRequest:
    return parse_request(json.loads((DATASETS / f"{name}.json").read_text()))


@cache
def dataset_problem(name: str) -> Problem:
    return from_request(dataset_request(name))


@cache
def curtois_problem(number: int) -> Problem:
    return to_problem(load(number))


def compiled(problem: Problem) -> CompiledModel:
    """The full model with every hard group enforced, as the solve pipeline has it."""
    result = build(problem)
    for group in result.hard_groups:
        result.model.add_bool_and([group.literal])
    return result


@dataclass(frozen=True)
class Start:
    compiled: CompiledModel
    solution: list[int]
    objective: float


def greedy_start(problem: Problem) -> Start:
    """The greedy roster, completed into a full solution of the model (one fixed solve)."""
    model = compiled(problem)
    add_roster_hint(model, greedy_roster(problem))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.fix_variables_to_their_hinted_value = True
    solver.parameters.max_time_in_seconds = BACKSTOP_SECONDS
    status = solver.solve(model.model.clone())
    assert status == cp_model.OPTIMAL, solver.status_name(status)
    return Start(model, list(solver.response_proto.solution), solver.objective_value)


def model_objective_of(model: CompiledModel, solution: Sequence[int]) -> float:
    """Fix every variable of a clone of the model to ``solution``: it must be feasible.

    Returns the model's objective there (CP-SAT's own value, slack as the solution has it).
    """
    clone = model.model.clone()
    clone.clear_hints()  # type: ignore[no-untyped-call]
    assert len(solution) == len(clone.proto.variables)
    for index, value in enumerate(solution):
        clone.add(clone.get_int_var_from_proto_index(index) == value)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = BACKSTOP_SECONDS
    status = solver.solve(clone)
    assert status == cp_model.OPTIMAL, f"not a solution of the model: {solver.status_name(status)}"
    return float(solver.objective_value)


Decision = frozenset[tuple[str, int, int]]  # ("shift", s, -1) and ("duty", s, k)


def decisions(model: CompiledModel, solution: Sequence[int]) -> dict[tuple[int, int], Decision]:
    """Per worked cell ``(employee, day)``: its shift and duty decisions set to 1."""
    cells: dict[tuple[int, int], set[tuple[str, int, int]]] = {}
    for (e, d, s), x in model.x.items():
        if solution[x.index]:
            cells.setdefault((e, d), set()).add(("shift", s, -1))
    for (e, d, s, k), y in model.y.items():
        if solution[y.index]:
            cells.setdefault((e, d), set()).add(("duty", s, k))
    return {cell: frozenset(chosen) for cell, chosen in cells.items()}


def changed_cells(model: CompiledModel, before: Sequence[int], after: Sequence[int]) -> int:
    """How many cells ``(employee, day)`` have a different shift or duty."""
    a, b = decisions(model, before), decisions(model, after)
    return sum(1 for cell in a.keys() | b.keys() if a.get(cell) != b.get(cell))


def priced_by_audit(model: CompiledModel, request: SolveRequest, solution: Sequence[int]) -> float:
    """The roster's exact price; the audit must find no broken rule and the same price."""
    assignments, violations, shortages = extract(model, tight_values(model, solution))
    objective = float(sum(v.penalty for v in violations))
    report = audit(request, assignments)
    assert report.hard_violations == [], report.hard_violations
    metrics = Metrics(
        solver_runtime_seconds=0.0,
        objective_value=objective,
        soft_constraint_violations=violations,
    )
    assert compare_with_metrics(report, metrics, shortages) == []
    return objective


def priced_by_checker(model: CompiledModel, instance: Instance, solution: Sequence[int]) -> float:
    """The roster's exact price; the Curtois & Qu checker must accept it at that price."""
    assignments, violations, _ = extract(model, tight_values(model, solution))
    objective = float(sum(v.penalty for v in violations))
    report = check(instance, to_roster(model.problem, assignments))
    assert report.violations == [], report.violations
    assert report.objective == objective
    return objective
