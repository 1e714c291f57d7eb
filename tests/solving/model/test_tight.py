"""A roster is priced exactly from its decisions, whatever the search left in the slack.

Three properties on random requests touching every family, on the shipped datasets and
on a Curtois & Qu instance:

- every auxiliary a penalty term or a shortage reads is defined from the decisions (and
  from auxiliaries defined before it), so nothing is read from the solver's slack;
- the tight completion satisfies every row of the model and costs exactly what CP-SAT
  finds when it minimizes the slack with the decisions fixed, term by term;
- metrics built from a roster whose slack was left at its loosest, and from the search's
  first roster, equal the independent audit, with random absences lowering the day
  minimums too.

Every solve here is deterministic (one worker, a fixed seed, a limit on CP-SAT's
deterministic work rather than on time, or a model with every decision fixed), so no
assertion depends on the clock.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import Absence
from shiftsched.contract.v1 import Metrics
from shiftsched.formats.curtois import load, to_problem
from shiftsched.solving.extract import extract
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.model.tight import evaluate, tight_values
from shiftsched.solving.problem import Problem, from_request, with_absences
from shiftsched.solving.solve import SolveLimits, solve
from tests.strategies import requests

pytestmark = pytest.mark.slow  # solves whole datasets

DATASETS = Path(__file__).resolve().parents[3] / "datasets"
NAMED = ["ward_24_7", "call_centre_duties", "retail_weekdays", "factory_three_shifts"]
UNBOUNDED_SECONDS = 600.0  # a backstop only: these solves end on their own long before
# Work, not time: a few tiny random requests take minutes to prove anything, so each
# search stops after this much of CP-SAT's deterministic work, the same on any machine.
WORK_SECONDS = 2.0


def _dataset(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATASETS / f"{name}.json").read_text())
    return data


def _compiled(problem: Problem, *, prune: bool = True) -> CompiledModel:
    compiled = build(problem, prune=prune)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    return compiled


def _some_roster(compiled: CompiledModel, steer: list[int] | None = None) -> list[int] | None:
    """A roster of the hard rules: CP-SAT's first one, or one steered by random weights.

    Steered, the model's objective is replaced by ``steer`` over the shift decisions
    and solved (to optimality, or as far as the work limit allows), which yields rosters
    the real objective would avoid: uncovered demand, broken preferences, unsupported
    beginners. One worker, a fixed seed and a limit on work, not time, keep it
    deterministic.
    """
    model = compiled.model
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = UNBOUNDED_SECONDS
    solver.parameters.max_deterministic_time = WORK_SECONDS
    if steer is None:
        solver.parameters.stop_after_first_solution = True
    else:
        model = model.clone()
        decisions = list(compiled.x.values())
        weights = [steer[i % len(steer)] for i in range(len(decisions))]
        model.minimize(cp_model.LinearExpr.weighted_sum(decisions, weights))
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return list(solver.response_proto.solution)


def _loosest(compiled: CompiledModel, solution: list[int]) -> list[int]:
    """The same decisions with every defined auxiliary at the top of its domain."""
    loose = list(solution)
    proto = compiled.model.proto
    for definition in compiled.definitions:
        index = definition.var.index
        loose[index] = proto.variables[index].domain[-1]
    return loose


def _variables_read(expressions: Iterable[Any]) -> set[int]:
    read: set[int] = set()
    for expression in expressions:
        if not isinstance(expression, int):
            read.update(var.index for var in cp_model.FlatIntExpr(expression).vars)
    return read


def assert_every_price_reads_defined_values(compiled: CompiledModel) -> None:
    decisions = {var.index for var in compiled.decision_vars()}
    known = set(decisions)
    for definition in compiled.definitions:
        undefined = _variables_read(definition.lowers) - known
        assert not undefined, f"{definition.var} reads auxiliaries defined later: {undefined}"
        known.add(definition.var.index)
    priced = [term.magnitude for term in compiled.terms]
    priced += [slot.missing for slot in compiled.shortages]
    priced += [slot.assigned for slot in compiled.shortages]
    undefined = _variables_read(priced) - known
    assert not undefined, f"prices read undefined auxiliaries: {undefined}"


def assert_tight_completion_is_the_cheapest(compiled: CompiledModel, solution: list[int]) -> None:
    """Tight values satisfy every row, and match CP-SAT's own slack minimization."""
    tight = tight_values(compiled, _loosest(compiled, solution))
    checker = compiled.model.clone()
    checker.clear_hints()  # type: ignore[no-untyped-call]
    for index, value in enumerate(tight):
        checker.add_hint(checker.get_int_var_from_proto_index(index), value)
    polisher = compiled.model.clone()
    polisher.clear_hints()  # type: ignore[no-untyped-call]
    for var in compiled.decision_vars():
        polisher.add_hint(var, solution[var.index])
    for model, name in ((checker, "tight completion"), (polisher, "slack minimization")):
        solver = cp_model.CpSolver()
        solver.parameters.fix_variables_to_their_hinted_value = True
        solver.parameters.num_workers = 1
        solver.parameters.max_time_in_seconds = UNBOUNDED_SECONDS
        status = solver.solve(model)
        assert status == cp_model.OPTIMAL, f"{name}: {solver.status_name(status)}"
        if model is polisher:
            minimized = list(solver.response_proto.solution)
    for term in compiled.terms:
        assert evaluate(term.magnitude, tight) == evaluate(term.magnitude, minimized), term.name
    for slot in compiled.shortages:
        assert evaluate(slot.missing, tight) == evaluate(slot.missing, minimized)


def assert_loose_slack_is_priced_like_the_audit(
    data: dict[str, Any], steer: list[int] | None = None, absences: Sequence[Absence] = ()
) -> None:
    request = parse_request(data)
    problem = with_absences(from_request(request), ((a.employee_id, a.dates) for a in absences))
    compiled = _compiled(problem)
    assert_every_price_reads_defined_values(compiled)
    solution = _some_roster(compiled, steer)
    if solution is None:
        return  # the hard rules admit no roster: nothing to price
    assert_tight_completion_is_the_cheapest(compiled, solution)
    assignments, violations, shortages = extract(
        compiled, tight_values(compiled, _loosest(compiled, solution))
    )
    report = audit(request, assignments, absences=absences)
    assert report.hard_violations == []
    metrics = Metrics(
        solver_runtime_seconds=0.0,
        objective_value=float(sum(v.penalty for v in violations)),
        soft_constraint_violations=violations,
    )
    assert compare_with_metrics(report, metrics, shortages) == []


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(), st.none() | st.lists(st.integers(-3, 3), min_size=1, max_size=40))
def test_random_requests_are_priced_exactly_from_their_decisions(
    data: dict[str, Any], steer: list[int] | None
) -> None:
    assert_loose_slack_is_priced_like_the_audit(data, steer)


@st.composite
def requests_with_absences(draw: st.DrawFn) -> tuple[dict[str, Any], list[Absence]]:
    """A random request and random absences: dates of the period for some employees.

    The absent dates are not kept off in the roster priced (any roster is priced the
    same way), so the model's and the audit's proration are compared on every roster.
    """
    data = draw(requests())
    start = dt.date.fromisoformat(data["schedule_period"]["start_date"])
    end = dt.date.fromisoformat(data["schedule_period"]["end_date"])
    days = [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    absences = [
        Absence(employee_id=e["id"], dates=draw(st.lists(st.sampled_from(days), min_size=1)))
        for e in data["employees"]
        if draw(st.booleans())
    ]
    return data, absences


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests_with_absences(), st.none() | st.lists(st.integers(-3, 3), min_size=1, max_size=40))
def test_random_absences_lower_the_minimums_alike_in_the_model_and_the_audit(
    drawn: tuple[dict[str, Any], list[Absence]], steer: list[int] | None
) -> None:
    data, absences = drawn
    assert_loose_slack_is_priced_like_the_audit(data, steer, absences)


@pytest.mark.parametrize("name", NAMED)
def test_datasets_are_priced_exactly_from_their_decisions(name: str) -> None:
    assert_loose_slack_is_priced_like_the_audit(_dataset(name))


@pytest.mark.parametrize("prune", [True, False], ids=["pruned", "full-tensor"])
@pytest.mark.parametrize("number", [1, 3])  # 3: successions, posted as blocks
def test_curtois_instance_is_priced_exactly_from_its_decisions(number: int, prune: bool) -> None:
    compiled = _compiled(to_problem(load(number)), prune=prune)
    assert_every_price_reads_defined_values(compiled)
    solution = _some_roster(compiled)
    assert solution is not None
    assert_tight_completion_is_the_cheapest(compiled, solution)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_the_first_roster_of_a_search_reports_the_audit(data: dict[str, Any]) -> None:
    """The search stopped at its first roster, unhinted: no time to tighten anything."""
    request = parse_request(data)
    limits = SolveLimits(
        time_limit_seconds=UNBOUNDED_SECONDS,
        num_workers=1,
        random_seed=0,
        warm_start=False,
        diagnosis_budget_seconds=0,
        parameters={"stop_after_first_solution": True, "max_deterministic_time": WORK_SECONDS},
    )
    response = solve(request, limits)
    if response.solution is None:  # proven infeasible, or no roster within the work
        assert response.error is not None
        assert response.error.solver_status in ("INFEASIBLE", "UNKNOWN"), response.error
        return
    report = audit(request, response.solution.assignments)
    assert report.hard_violations == []
    metrics = response.solution.metrics
    assert compare_with_metrics(report, metrics, response.solution.shortages) == []
    assert metrics.objective_value == report.objective_value
