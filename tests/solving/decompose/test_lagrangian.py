"""The subgradient bound is a proof at every iteration, and it climbs.

Every run here is deterministic: a fixed number of iterations, paths priced exactly and
CP-SAT pricing (where paths do not hold an employee's rules) stopped on deterministic
work; the optima are the literature's (Curtois & Qu) or proven by a one-worker,
fixed-seed CP-SAT solve.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.data.synthetic import synthetic_request
from shiftsched.formats import curtois
from shiftsched.solving.decompose import ColumnGeneration
from shiftsched.solving.decompose.lagrangian import Lagrangian
from shiftsched.solving.problem import from_request
from shiftsched.solving.search import decomposer as decomposer_module
from shiftsched.solving.search.decomposer import Decomposer
from shiftsched.solving.search.incumbent import Incumbent
from shiftsched.solving.search.progress import Progress
from shiftsched.solving.solve import solve
from tests.audited import work_limited
from tests.solving.decompose.test_in_the_solve import compiled_instance

# Optimal values from the benchmark's own table (proven by branch and price).
OPTIMUM = {1: 607, 2: 828, 4: 1716}
ITERATIONS = 300


@pytest.mark.parametrize("number", [1, 2, 4])
def test_on_curtois_every_iteration_is_below_the_optimum_and_the_bound_climbs(
    number: int,
) -> None:
    problem = curtois.to_problem(curtois.load(number))
    loop = Lagrangian(problem)
    heard: list[int] = []
    result = loop.run(iterations=ITERATIONS, on_bound=heard.append)
    assert result.iterations == ITERATIONS and not result.infeasible
    proven = [b for b in result.bounds if b is not None]
    assert len(proven) == ITERATIONS  # paths price every employee exactly
    assert max(proven) <= OPTIMUM[number]
    assert heard == sorted(set(heard)) and heard[-1] == result.bound  # each one better
    # Paths hold the weekly and period rules only through multipliers, so the best this
    # relaxation can prove is the column generation's bound by paths (the same dual).
    # The subgradient comes within a few per cent of it in these iterations.
    generation = ColumnGeneration(problem, pricing="paths")
    converged = generation.run()
    assert converged.bound is not None  # converged, or stalled at the LP
    assert result.bound is not None and result.bound >= 0.9 * converged.bound
    assert result.bound > proven[0]  # far above where it started


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_on_generated_requests_every_iteration_is_below_the_proven_optimum(seed: int) -> None:
    request = parse_request(synthetic_request(5, 2, 0, 14, seed=seed, mix="all"))
    response = solve(request, work_limited(20.0))
    assert response.solution is not None
    assert response.solution.metrics.status == "optimal"  # proven: one worker, a fixed seed
    optimum = response.solution.metrics.objective_value
    assert optimum is not None
    result = Lagrangian(from_request(request)).run(iterations=ITERATIONS)
    assert not result.infeasible and result.bound is not None
    assert all(b is None or b <= optimum for b in result.bounds)
    # Measured: 95-99 % of the optimum on these three, from far below zero.
    assert result.bound >= 0.9 * optimum


def test_the_rows_part_is_each_rows_own_floor_at_any_price() -> None:
    loop = Lagrangian(curtois.to_problem(curtois.load(2)))
    rng = np.random.default_rng(0)
    for _ in range(5):
        prices = rng.integers(-5_000, 150_000, len(loop.rows))
        total, lo, hi = loop._row_floors(prices)
        floors = [row.floor(int(p), 1000) for row, p in zip(loop.rows, prices, strict=True)]
        assert total == sum(floors)
        for row, p, a, b in zip(loop.rows, prices, lo, hi, strict=True):
            # Every count between the least and the most minimisers reaches the floor.
            for count in (a, b, (a + b) // 2):
                assert 1000 * row.cost(int(count)) + p * count == row.floor(int(p), 1000)


def test_a_slow_master_hands_the_bound_to_the_subgradient(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(decomposer_module, "SLOW_ROUND", -1.0)  # every round is slow
    monkeypatch.setattr(decomposer_module, "LONG_HORIZON", 14)  # and 14 days are long
    compiled = compiled_instance(2)
    stop = threading.Event()

    def heard(_: object) -> None:  # the first bound the subgradient raises ends the test
        if progress.bound_source == "lagrangian":
            stop.set()

    progress = Progress(heard)
    decomposer = Decomposer(
        compiled, Incumbent(), progress, time.perf_counter() + 60.0, lambda: None, done=stop
    )
    decomposer.finished.set()  # no guiding once the loop has ended
    decomposer.run()
    assert progress.bound_source == "lagrangian"
    assert 0 < progress.bound <= OPTIMUM[2]


def test_on_a_short_horizon_a_slow_master_keeps_the_column_generation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(decomposer_module, "SLOW_ROUND", -1.0)  # every round is slow
    compiled = compiled_instance(1)  # 14 days
    progress = Progress()
    decomposer = Decomposer(
        compiled, Incumbent(), progress, time.perf_counter() + 600.0, lambda: None
    )
    generation_ran = decomposer_module.ColumnGeneration.run
    rounds: list[int] = []

    def counted(self: ColumnGeneration, **kwargs: object) -> object:
        result = generation_ran(self, max_rounds=3, **kwargs)  # type: ignore[arg-type]
        rounds.append(result.rounds)
        decomposer.done.set()
        return result

    monkeypatch.setattr(decomposer_module.ColumnGeneration, "run", counted)
    decomposer.finished.set()  # no guiding once the loop has ended
    decomposer.run()
    assert rounds == [3] and progress.bound_source != "lagrangian"
