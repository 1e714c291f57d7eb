"""The portfolio: how workers are split, the shared incumbent, and whole solves.

With two workers the full-model solve and the neighbourhood search race each other, so
which roster wins depends on timing by design. Whole solves here therefore either end
proven optimal (the objective is then known exactly, whatever the timing) or are checked
only for what holds of any roster: the independent checker or audit accepts it at the
reported price, the bound is below it, the gap follows from both, and the roster is no
worse than the greedy one the solve started from. The full-model solve is limited by
CP-SAT's deterministic work; wall-clock limits are backstops only. Those tests are marked
``multi_worker`` (the suite refuses a multi-worker solve in any other test).
"""

from __future__ import annotations

import importlib
import math
import random
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

import pytest
from ortools.sat.python import cp_model

import shiftsched.solving.search.plan as plan_module
import shiftsched.solving.search.portfolio as portfolio
from shiftsched.formats.curtois import load, to_roster
from shiftsched.formats.curtois_check import check
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.incumbent import Incumbent, SearchResult
from shiftsched.solving.search.plan import (
    FULL_LINEARIZATION,
    MAX_LINEARIZED_VARIABLES,
    STEP_RAMP,
    STEP_RAMP_FLOOR,
    STEP_SECONDS_RANGE,
    Plan,
    plan_for,
    step_limit,
    step_seconds,
)
from shiftsched.solving.search.progress import Progress
from shiftsched.solving.solve import SolveLimits, SolveOutcome, run, solve, solve_problem
from tests.audited import EXACT, solved_and_audited
from tests.solving.search.rosters import (
    BACKSTOP_SECONDS,
    compiled,
    curtois_problem,
    dataset_problem,
    dataset_request,
)

DEFAULT_LINEARIZATION = cp_model.CpSolver().parameters.linearization_level


def limits(workers: int, **fields: object) -> SolveLimits:
    return SolveLimits(
        time_limit_seconds=BACKSTOP_SECONDS,
        num_workers=workers,
        random_seed=0,
        diagnosis_budget_seconds=0,
        **fields,  # type: ignore[arg-type]
    )


@cache
def retail_optimum() -> float:
    """The dataset's optimum, proven by a plain one-worker CP-SAT solve."""
    exact = solved_and_audited(dataset_request("retail_weekdays"), EXACT)
    assert exact.metrics.status == "optimal" and exact.metrics.objective_value is not None
    return exact.metrics.objective_value


# ------------------------------------------------------------------------------ the plan


def test_one_worker_is_a_plain_cp_sat_solve() -> None:
    assert plan_for(1, 1000) == Plan(full_workers=1, neighbourhood_threads=0)
    assert not plan_for(1, 1000).decomposition  # reproducible: nothing runs beside it
    assert not plan_for(1, 1000).local_threads
    assert plan_for(0, 1000) == Plan(full_workers=1, neighbourhood_threads=0)


def test_two_workers_run_one_search_thread_beside_a_full_solve_with_the_stronger_lp() -> None:
    lp: dict[str, object] = {"linearization_level": FULL_LINEARIZATION}
    assert FULL_LINEARIZATION == 2
    assert plan_for(2, 1000) == Plan(1, 1, lp, decomposition=True, local_threads=1)
    assert plan_for(2, MAX_LINEARIZED_VARIABLES) == Plan(
        1, 1, lp, decomposition=True, local_threads=1
    )
    assert plan_for(2, MAX_LINEARIZED_VARIABLES + 1) == Plan(
        1, 1, {}, decomposition=True, local_threads=1
    )


@pytest.mark.parametrize(
    ("workers", "full", "threads"), [(3, 2, 1), (8, 7, 1), (11, 10, 1), (12, 10, 2), (32, 30, 2)]
)
def test_more_workers_go_to_cp_sat_and_a_second_search_thread_from_twelve(
    workers: int, full: int, threads: int
) -> None:
    # Several full-model workers are CP-SAT's own portfolio: no LP setting is imposed.
    assert plan_for(workers, 1000) == Plan(full, threads, {}, decomposition=True, local_threads=1)
    assert plan_for(workers, 1000).full_workers + threads == workers


@pytest.mark.parametrize("workers", [2, 4, 12])
def test_without_a_complete_hint_cp_sat_keeps_every_worker(workers: int) -> None:
    # The first roster is then CP-SAT's own search: no worker is taken from it, and the
    # neighbourhood search joins as an extra thread once a roster exists.
    plan = plan_for(workers, 1000, hinted=False)
    assert plan.full_workers == workers and plan.full_parameters == {}
    assert plan.neighbourhood_threads == (2 if workers >= 12 else 1)
    assert plan.decomposition  # the bound is proven beside the search from two workers on
    assert plan.local_threads == 1  # and the compiled local search shares the search core


def test_a_sub_solve_gets_a_share_of_the_budget_within_bounds() -> None:
    low, high = STEP_SECONDS_RANGE
    assert step_seconds(None) == high
    assert step_seconds(1.0) == low
    assert step_seconds(60.0) == pytest.approx(1.0)
    assert step_seconds(3600.0) == high


def test_sub_solves_start_short_and_ramp_up_to_the_longest() -> None:
    assert step_limit(1.0, 0.0, 30.0) == STEP_RAMP_FLOOR
    assert step_limit(1.0, 10.0, 30.0) == pytest.approx(10.0 * STEP_RAMP)
    assert step_limit(1.0, 600.0, 30.0) == 1.0
    assert step_limit(1.0, 600.0, 0.3) == 0.3  # never past the deadline
    limits = [step_limit(2.0, t, 60.0) for t in range(0, 60, 5)]
    assert limits == sorted(limits)


# -------------------------------------------------------------------------- incumbent


def test_the_incumbent_only_takes_strictly_better_rosters() -> None:
    incumbent = Incumbent()
    assert incumbent.read() == (None, math.inf, 0)
    assert incumbent.offer([1], 10.0) == 1
    assert incumbent.offer([2], 10.0) is None  # equal: kept the first
    assert incumbent.offer([3], 11.0) is None
    assert incumbent.read() == ([1], 10.0, 1)
    assert incumbent.offer([4], 9.5) == 2
    assert incumbent.read() == ([4], 9.5, 2)


@pytest.mark.slow
def test_concurrent_offers_leave_the_least_offered_roster() -> None:
    incumbent = Incumbent()
    rng = random.Random(0)
    offers = [[rng.randrange(1_000_000) for _ in range(3000)] for _ in range(4)]
    accepted = [0] * len(offers)
    barrier = threading.Barrier(len(offers))

    def offer_all(n: int) -> None:
        barrier.wait()
        for value in offers[n]:
            accepted[n] += incumbent.offer([n, value], float(value)) is not None

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=offer_all, args=(n,)) for n in range(len(offers))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    solution, objective, version = incumbent.read()
    best = min(min(values) for values in offers)
    assert objective == best
    assert solution is not None and solution[1] == best  # the roster goes with its cost
    assert version == sum(accepted)  # every accepted offer counted once
    # Each thread's accepted offers were its running minima, at most.
    for n, values in enumerate(offers):
        running = sum(1 for i, v in enumerate(values) if v < min(values[:i], default=math.inf))
        assert accepted[n] <= running


# ---------------------------------------------------------------- through solve's run()


@dataclass(frozen=True)
class Call:
    plan: Plan
    full_workers: int  # as set on the full-model solver
    full_linearization: int
    result: SearchResult


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Call]]:
    """Every call of the real portfolio by ``run()``, with the full solver's settings."""
    calls: list[Call] = []
    real = portfolio.search  # the function run() calls

    def spy(
        compiled: CompiledModel,
        full: cp_model.CpSolver,
        plan: Plan,
        progress: Progress,
        search_seconds: float | None,
        seed: int,
        solve_full: Callable[[], cp_model.CpSolverStatus],
        start: tuple[list[int], float] | None = None,
    ) -> SearchResult:
        result = real(compiled, full, plan, progress, search_seconds, seed, solve_full, start)
        parameters = full.parameters
        calls.append(Call(plan, parameters.num_workers, parameters.linearization_level, result))
        return result

    monkeypatch.setattr(importlib.import_module("shiftsched.solving.solve"), "search", spy)
    yield calls


def assert_solver_follows_the_plan(call: Call) -> None:
    """The full-model solver runs the plan's workers and its LP setting, nothing else."""
    plan = call.plan
    assert call.full_workers == plan.full_workers
    lp = plan.full_parameters.get("linearization_level", DEFAULT_LINEARIZATION)
    assert call.full_linearization == lp


def assert_result_is_consistent(call: Call) -> None:
    assert_solver_follows_the_plan(call)
    result = call.result
    assert 0 <= result.improvements <= result.steps
    if call.plan.neighbourhood_threads == 0:
        assert result.steps == 0
    if result.solution is not None:
        assert result.bound <= result.objective
        if result.proved_optimal:
            assert result.bound == result.objective


def assert_outcome_is_consistent(outcome: SolveOutcome) -> None:
    """What holds of any roster a solve reports, however the portfolio's race went."""
    assert outcome.has_solution
    objective, bound = outcome.objective_value, outcome.best_bound
    assert objective is not None and bound is not None
    assert bound <= objective
    assert outcome.status in ("optimal", "feasible")
    if outcome.status == "optimal":  # optimal only when the bound meets the roster's cost
        assert bound == objective and outcome.cp_sat_status == "OPTIMAL"
    assert outcome.gap == pytest.approx((objective - bound) / max(1.0, abs(objective)))
    points = outcome.progress
    assert points, "a solve with a roster records it"
    assert [p.seconds for p in points] == sorted(p.seconds for p in points)
    assert [p.bound for p in points] == sorted(p.bound for p in points)
    assert points[-1].bound == bound
    assert all(p.objective >= bound for p in points if p.objective is not None)


@pytest.mark.slow
@pytest.mark.multi_worker
def test_two_workers_prove_curtois_1_optimal_at_607(searches: list[Call]) -> None:
    instance = load(1)
    problem = curtois_problem(1)
    outcome = solve_problem(problem, limits(2))
    assert outcome.status == "optimal" and outcome.cp_sat_status == "OPTIMAL"
    assert outcome.objective_value == 607 and outcome.best_bound == 607
    assert outcome.gap == 0
    assert_outcome_is_consistent(outcome)
    report = check(instance, to_roster(problem, outcome.assignments))
    assert report.violations == [] and report.objective == 607
    (call,) = searches
    assert call.plan == plan_for(2, len(compiled(problem).model.proto.variables))
    assert call.plan.neighbourhood_threads == 1
    assert call.result.proved_optimal and call.result.objective == 607
    assert_result_is_consistent(call)


@pytest.mark.slow
@pytest.mark.multi_worker
def test_two_workers_on_a_larger_instance_report_a_roster_the_checker_accepts(
    searches: list[Call],
) -> None:
    instance = load(4)
    problem = curtois_problem(4)
    # The full-model solve stops on CP-SAT's work, the search when it does.
    outcome = solve_problem(problem, limits(2, parameters={"max_deterministic_time": 0.2}))
    assert_outcome_is_consistent(outcome)
    report = check(instance, to_roster(problem, outcome.assignments))
    assert report.violations == [] and report.objective == outcome.objective_value
    assert outcome.solver.num_workers == 2
    # Never worse than the greedy roster the solve was hinted with.
    greedy = {e.id: [""] * problem.num_days for e in problem.employees}
    for e, d, s in greedy_roster(problem):
        greedy[problem.employees[e].id][d] = problem.shifts[s].id
    assert outcome.objective_value is not None
    assert outcome.objective_value <= check(instance, greedy).objective
    (call,) = searches
    assert call.plan.neighbourhood_threads == 1
    assert_result_is_consistent(call)


@pytest.mark.slow
@pytest.mark.multi_worker
def test_a_v1_request_solved_by_the_portfolio_is_the_proven_optimum_the_audit_accepts(
    searches: list[Call],
) -> None:
    optimum = retail_optimum()
    searches.clear()  # only the portfolio's own solve below
    solution = solved_and_audited(dataset_request("retail_weekdays"), limits(2))
    metrics = solution.metrics
    assert metrics.status == "optimal"
    assert metrics.objective_value == optimum == metrics.best_bound
    assert metrics.gap == 0
    (call,) = searches
    assert call.plan.neighbourhood_threads == 1
    assert_result_is_consistent(call)


@pytest.mark.multi_worker
def test_without_the_neighbourhood_search_every_worker_goes_to_cp_sat(
    searches: list[Call],
) -> None:
    optimum = retail_optimum()
    searches.clear()
    request = dataset_request("retail_weekdays")
    solution = solved_and_audited(request, limits(2, neighbourhood_search=False))
    assert solution.metrics.status == "optimal"
    assert solution.metrics.objective_value == optimum
    assert solution.metrics.solver is not None and solution.metrics.solver.num_workers == 2
    (call,) = searches
    assert call.plan == Plan(full_workers=2, neighbourhood_threads=0)
    assert (call.full_workers, call.full_linearization) == (2, DEFAULT_LINEARIZATION)
    assert call.result.steps == 0
    assert_result_is_consistent(call)


def test_one_worker_runs_no_search_thread(searches: list[Call]) -> None:
    response = solve(dataset_request("retail_weekdays"), limits(1))
    assert response.solution is not None and response.solution.metrics.status == "optimal"
    (call,) = searches
    assert call.plan == Plan(full_workers=1, neighbourhood_threads=0)
    assert (call.full_workers, call.full_linearization) == (1, DEFAULT_LINEARIZATION)
    assert call.result.steps == 0


@pytest.mark.multi_worker
def test_a_model_above_the_lp_threshold_keeps_the_default_lp(
    searches: list[Call], monkeypatch: pytest.MonkeyPatch
) -> None:
    optimum = retail_optimum()
    searches.clear()
    model = compiled(dataset_problem("retail_weekdays"))
    variables = len(model.model.proto.variables)
    monkeypatch.setattr(plan_module, "MAX_LINEARIZED_VARIABLES", variables - 1)
    outcome = run(model, limits(2))
    assert outcome.status == "optimal" and outcome.objective_value == optimum
    assert_outcome_is_consistent(outcome)
    (call,) = searches
    assert call.plan.neighbourhood_threads == 1
    assert "linearization_level" not in call.plan.full_parameters
    assert call.full_linearization == DEFAULT_LINEARIZATION
    assert_result_is_consistent(call)


@pytest.mark.multi_worker
def test_an_infeasible_model_ends_the_search_thread_without_a_roster(
    searches: list[Call],
) -> None:
    model = compiled(curtois_problem(1))
    model.model.add(sum(model.x.values()) >= len(model.x) + 1)  # more shifts than exist
    before = set(threading.enumerate())
    outcome = run(model, limits(2))
    assert outcome.status == "infeasible" and outcome.cp_sat_status == "INFEASIBLE"
    assert outcome.assignments == [] and outcome.objective_value is None
    (call,) = searches
    assert call.result.solution is None and call.result.steps == 0
    assert call.result.bound == -math.inf and not call.result.proved_optimal
    # The search thread was joined (the full solve's cancelled watchdog timer may still
    # be on its way out, and is not the search's).
    left = set(threading.enumerate()) - before
    assert not [t for t in left if not isinstance(t, threading.Timer)], left
