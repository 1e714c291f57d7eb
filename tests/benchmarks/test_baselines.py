"""The baselines the benchmark report compares the engine with (benchmarks/baselines.py).

The plain formulation must be the same problem in a worse encoding: on instances small
enough to solve to optimality, it reaches the engine's optimum, its rosters pass the
independent audit to the unit, and its model is never smaller. ``prune=True`` (the
default) must stay the engine's model. The greedy baseline must be priced by the audit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from benchmarks import baselines
from benchmarks.baselines import compile_request, greedy_outcome, model_stats, solve_plain
from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Metrics, SolveRequest
from shiftsched.solving.model.build import build
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import SolveLimits, SolveOutcome, solve_problem
from tests.audited import work_limited
from tests.factories import full_request_dict, minimal_request_dict
from tests.solving.model.conftest import date, demand, duty, employee, request, shift
from tests.strategies import requests

DATASETS = Path(__file__).resolve().parents[2] / "datasets"
# The small requests are proven optimal long before this limit. Random tiny requests are
# mostly proven at once, but a few take minutes: each of those solves stops after a fixed
# amount of deterministic work, so its outcome is the same however busy the machine.
OPTIMAL = SolveLimits(time_limit_seconds=60, num_workers=1, random_seed=0)
PROPERTY_LIMITS = work_limited(2.0)


def restricted_request() -> dict[str, Any]:
    """Every eligibility rule at least once: the plain model must spell each one out."""
    days = 7
    return request(
        days,
        [shift("day", days, 1, 2), shift("night", days, 1, 1, hours=("22:00", "06:00"))],
        [
            employee(
                "a",
                ["day", "night"],
                skill_levels={"lead": 8, "medic": 0},
                fixed_assignments=[{"date": date(0), "shift_id": "day", "duty_id": "lead"}],
            ),
            employee("b", ["day"], available_weekdays=["mon", "tue", "wed", "thu"]),
            employee("c", ["night"], skill_levels={"lead": 2, "medic": 9}),
            employee("d", ["day", "night"], skill_levels={"lead": 0}),
        ],
        duties=[
            duty("lead", {"day": demand(days, 1, 1)}),
            duty("medic", {"night": demand(days, 0, 1)}),
        ],
        holidays=[date(6)],
        skill_support={"scope": "duty", "enforcement": "soft"},
    )


def small_requests() -> list[tuple[str, SolveRequest]]:
    dataset = json.loads((DATASETS / "retail_weekdays.json").read_text())
    return [
        ("minimal", parse_request(minimal_request_dict())),
        ("full", parse_request(full_request_dict())),
        ("restricted", parse_request(restricted_request())),
        ("retail_weekdays", parse_request(dataset)),
    ]


SMALL = small_requests()
IDS = [name for name, _ in SMALL]


def assert_audited(request: SolveRequest, outcome: SolveOutcome) -> None:
    """No hard violation, and the audit prices the roster exactly as reported."""
    report = audit(request, outcome.assignments)
    assert report.hard_violations == []
    metrics = Metrics(
        solver_runtime_seconds=outcome.runtime_seconds,
        objective_value=outcome.objective_value,
        soft_constraint_violations=outcome.violations,
    )
    assert compare_with_metrics(report, metrics, outcome.shortages) == []


@pytest.mark.parametrize(("name", "req"), SMALL, ids=IDS)
def test_plain_reaches_the_engine_optimum(name: str, req: SolveRequest) -> None:
    engine = solve_problem(from_request(req), OPTIMAL)
    plain = solve_plain(req, OPTIMAL)
    assert (engine.status, plain.status) == ("optimal", "optimal")
    assert plain.objective_value == engine.objective_value
    assert plain.best_bound == engine.best_bound
    assert_audited(req, engine)
    assert_audited(req, plain)


def test_plain_reports_progress_without_a_hint() -> None:
    req = SMALL[-1][1]
    plain = solve_plain(req, OPTIMAL)
    assert plain.solver.warm_start is False
    assert plain.solver.time_to_first_solution_seconds is not None
    assert any(point.objective is not None for point in plain.progress)
    assert plain.progress[-1].bound == plain.best_bound


@pytest.mark.wall_clock  # only the recorded limit is asserted, however the solve ends
def test_plain_reads_a_missing_time_limit_as_the_request_timeout() -> None:
    req = parse_request(full_request_dict())  # options.solver_timeout_seconds = 10
    plain = solve_plain(req, SolveLimits(num_workers=1))
    assert plain.solver.time_limit_seconds == 10.0


@pytest.mark.parametrize(("name", "req"), SMALL, ids=IDS)
def test_plain_model_is_never_smaller(name: str, req: SolveRequest) -> None:
    pruned, plain = model_stats(req, prune=True), model_stats(req, prune=False)
    assert plain["variables"] >= pruned["variables"]
    assert plain["decisions"] >= pruned["decisions"]
    problem = from_request(req)
    assert set(build(problem).x) <= set(build(problem, prune=False).x)


def test_eligibility_rules_make_the_plain_model_strictly_larger() -> None:
    req = parse_request(restricted_request())
    pruned, plain = model_stats(req, prune=True), model_stats(req, prune=False)
    employees, days, shifts, duties = 4, 7, 2, 2
    assert plain["decisions"] == employees * days * shifts * (1 + duties)
    assert plain["decisions"] > pruned["decisions"]
    assert plain["variables"] > pruned["variables"]
    assert plain["constraints"] > pruned["constraints"]


@pytest.mark.parametrize(("name", "req"), SMALL, ids=IDS)
def test_prune_true_is_the_default_model(name: str, req: SolveRequest) -> None:
    for gated in (False, True):
        problem = from_request(req, gated=gated)
        assert str(build(problem, prune=True).model.proto) == str(build(problem).model.proto)
    compiled = compile_request(req, prune=True)
    stats = model_stats(req, prune=True)
    default = build(from_request(req)).model.proto
    hard_groups = len(compiled.hard_groups)
    assert stats["variables"] == len(default.variables)
    assert stats["constraints"] == len(default.constraints) + hard_groups


@pytest.mark.parametrize(("name", "req"), SMALL, ids=IDS)
def test_greedy_outcome_is_priced_by_the_audit(name: str, req: SolveRequest) -> None:
    outcome = greedy_outcome(req)
    report = audit(req, outcome.assignments)
    assert outcome.objective_value == report.objective_value
    assert outcome.violations == report.soft_constraint_violations
    assert outcome.shortages == report.shortages
    assert outcome.status == ("feasible" if report.feasible else "infeasible")
    assert len(outcome.progress) == 1
    assert outcome.progress[0].objective == outcome.objective_value
    assert outcome.runtime_seconds >= outcome.progress[0].seconds >= 0


def test_greedy_outcome_names_its_broken_hard_rules() -> None:
    """The greedy cannot look ahead to a shift-count minimum on a shift nobody needs."""
    data = minimal_request_dict()
    data["employees"][0]["shift_count_limits"] = [{"shift_id": "night", "min": 7, "max": 7}]
    data["shifts"][1]["staffing_demand"] = [{"min": 0, "max": 1}] * 7
    req = parse_request(data)
    outcome = greedy_outcome(req)
    broken = len(audit(req, outcome.assignments).hard_violations)
    assert broken > 0
    assert outcome.status == "infeasible"
    assert outcome.message == f"the greedy roster breaks {broken} hard rule(s)"
    assert outcome.objective_value is not None


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_plain_and_engine_agree_on_random_requests(data: dict[str, Any]) -> None:
    req = parse_request(data)
    engine = solve_problem(from_request(req), PROPERTY_LIMITS)
    plain = solve_plain(req, PROPERTY_LIMITS)
    if "infeasible" in (engine.status, plain.status):  # a proof: both must find it
        assert engine.status == plain.status == "infeasible"
        return
    if plain.has_solution:
        assert_audited(req, plain)
    if engine.status == plain.status == "optimal":
        assert plain.objective_value == engine.objective_value


def test_plain_is_cp_sat_alone_on_every_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """From two workers on the engine runs a neighbourhood search beside CP-SAT; plain not."""
    seen: list[SolveLimits] = []

    def record(compiled: object, limits: SolveLimits, started: float) -> SolveOutcome:
        seen.append(limits)
        raise RuntimeError("stop here")

    monkeypatch.setattr(baselines, "run", record)
    limits = SolveLimits(time_limit_seconds=5, num_workers=2)
    assert limits.neighbourhood_search and limits.warm_start
    with pytest.raises(RuntimeError, match="stop here"):
        solve_plain(SMALL[0][1], limits)
    assert (seen[0].neighbourhood_search, seen[0].warm_start) == (False, False)
    assert (seen[0].num_workers, seen[0].time_limit_seconds) == (2, 5)
