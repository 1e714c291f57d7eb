"""The neighbourhood search improves a real roster, step by reproducible step.

Each sub-solve stops on CP-SAT's deterministic work (``StepLimits(deterministic=...)``),
runs one worker with a seed derived from the search's, so a sequence of steps is the same
on any machine under any load. Every roster a step keeps is checked independently: it is
a solution of the full model (every variable fixed, the model stays feasible at the
step's objective) and the audit or the Curtois & Qu checker accepts it at its exact price.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from shiftsched.formats.curtois import load
from shiftsched.solving.decompose import ColumnGeneration
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.adaptive import Selector
from shiftsched.solving.search.lns import NeighbourhoodSearch, Step, StepLimits
from shiftsched.solving.search.neighbourhoods import NEIGHBOURHOODS
from shiftsched.solving.search.submodel import Extractor
from tests.solving.search.rosters import (
    BACKSTOP_SECONDS,
    Start,
    changed_cells,
    curtois_problem,
    dataset_problem,
    dataset_request,
    decisions,
    greedy_start,
    model_objective_of,
    priced_by_audit,
    priced_by_checker,
)

SEED = 1
WORK = StepLimits(deterministic=0.05)  # CP-SAT's deterministic seconds per sub-solve
STEPS = 6


@dataclass(frozen=True)
class Trajectory:
    start: Start
    steps: list[Step]
    solutions: list[list[int]]  # the incumbent after each step

    def objectives(self) -> list[float]:
        return [step.objective for step in self.steps]


def walk(
    start: Start,
    steps: int,
    limits: StepLimits = WORK,
    seed: int = SEED,
    cut: bool | None = None,
) -> Trajectory:
    search = NeighbourhoodSearch(
        start.compiled, start.solution, start.objective, seed=seed, cut=cut
    )
    taken, solutions = [], []
    for _ in range(steps):
        taken.append(search.step(limits))
        solutions.append(list(search.solution))
        assert search.objective == taken[-1].objective
    return Trajectory(start, taken, solutions)


def cells_with_options(compiled: CompiledModel) -> int:
    return len({(e, d) for (e, d, _s) in compiled.x})


def assert_every_step_keeps_a_better_or_equal_roster(
    trajectory: Trajectory, price: Callable[[list[int]], float]
) -> None:
    start = trajectory.start
    compiled = start.compiled
    previous, objective = start.solution, start.objective
    for step, solution in zip(trajectory.steps, trajectory.solutions, strict=True):
        assert step.neighbourhood in NEIGHBOURHOODS
        assert 0 <= step.free_cells <= cells_with_options(compiled)
        assert step.status in ("OPTIMAL", "FEASIBLE", "UNKNOWN"), step
        if step.status == "UNKNOWN":  # nothing within the work limit: nothing changes
            assert solution == previous and step.objective == objective
        assert step.objective <= objective, "a step made the roster worse"
        assert step.improved == (step.objective < objective)
        # Only the freed cells may change, and the roster kept is one of the full model.
        assert changed_cells(compiled, previous, solution) <= step.free_cells
        assert model_objective_of(compiled, solution) == step.objective
        assert price(solution) <= step.objective  # the exact price never exceeds CP-SAT's own
        previous, objective = solution, step.objective


# ----------------------------------------------------------------- Curtois instance 4


@pytest.fixture(scope="module")
def curtois_4() -> Trajectory:
    return walk(greedy_start(curtois_problem(4)), STEPS)


@pytest.mark.slow
def test_steps_on_curtois_4_never_worsen_and_keep_rosters_the_checker_accepts(
    curtois_4: Trajectory,
) -> None:
    instance = load(4)
    compiled = curtois_4.start.compiled
    assert_every_step_keeps_a_better_or_equal_roster(
        curtois_4, lambda solution: priced_by_checker(compiled, instance, solution)
    )
    assert priced_by_checker(compiled, instance, curtois_4.start.solution) == (
        curtois_4.start.objective
    )
    assert any(step.improved for step in curtois_4.steps)
    assert curtois_4.objectives()[-1] < curtois_4.start.objective


@pytest.mark.slow
def test_steps_on_cut_down_sub_models_keep_rosters_the_checker_accepts(
    curtois_4: Trajectory,
) -> None:
    """The same search on cut-down sub-models (large models use them by default)."""
    start = curtois_4.start
    trajectory = walk(start, STEPS, cut=True)
    instance = load(4)
    assert_every_step_keeps_a_better_or_equal_roster(
        trajectory, lambda solution: priced_by_checker(start.compiled, instance, solution)
    )
    assert trajectory.objectives()[-1] < start.objective
    assert walk(start, STEPS, cut=True).solutions == trajectory.solutions  # reproducible


def test_the_same_seed_gives_the_same_steps(curtois_4: Trajectory) -> None:
    again = walk(curtois_4.start, STEPS)
    assert again.steps == curtois_4.steps  # neighbourhood, size, status and objective
    assert again.solutions == curtois_4.solutions


def test_roster_is_the_incumbents_shift_per_worked_cell(curtois_4: Trajectory) -> None:
    start = curtois_4.start
    search = NeighbourhoodSearch(
        start.compiled, curtois_4.solutions[-1], curtois_4.steps[-1].objective
    )
    worked = decisions(start.compiled, curtois_4.solutions[-1])
    assert search.roster() == {
        cell: s for cell, chosen in worked.items() for kind, s, _ in chosen if kind == "shift"
    }


def test_adopt_replaces_the_incumbent_and_the_next_step_starts_from_it(
    curtois_4: Trajectory,
) -> None:
    start = curtois_4.start
    better, objective = curtois_4.solutions[-1], curtois_4.steps[-1].objective
    assert changed_cells(start.compiled, start.solution, better) > 2 * STEPS
    search = NeighbourhoodSearch(start.compiled, start.solution, start.objective, seed=11)
    search.adopt(better, objective)
    assert search.solution == better and search.objective == objective
    step = search.step(WORK)
    assert step.objective <= objective
    assert changed_cells(start.compiled, better, search.solution) <= step.free_cells
    assert model_objective_of(start.compiled, search.solution) == step.objective
    # Back to the worse start roster: the search now walks from it, not from `better`
    # (the cells outside each neighbourhood are fixed to the adopted roster).
    search.adopt(start.solution, start.objective)
    before = list(search.solution)
    step = search.step(WORK)
    assert step.objective <= start.objective
    assert changed_cells(start.compiled, before, search.solution) <= step.free_cells


def test_stop_makes_every_later_step_do_nothing(curtois_4: Trajectory) -> None:
    start = curtois_4.start
    search = NeighbourhoodSearch(start.compiled, start.solution, start.objective, seed=SEED)
    search.stop()
    for _ in range(3):
        step = search.step(WORK)
        assert step.status == "UNKNOWN" and not step.improved
        assert step.objective == start.objective
        assert search.solution == start.solution


def test_a_search_stopped_while_it_reads_the_model_does_nothing(curtois_4: Trajectory) -> None:
    start = curtois_4.start
    search = NeighbourhoodSearch(
        start.compiled, start.solution, start.objective, SEED, stopped=lambda: True, cut=True
    )
    step = search.step(WORK)
    assert step.status == "UNKNOWN" and not step.improved
    assert search.solution == start.solution and search.objective == start.objective


def test_stop_from_another_thread_ends_a_running_step(curtois_4: Trajectory) -> None:
    start = curtois_4.start
    search = NeighbourhoodSearch(start.compiled, start.solution, start.objective, seed=SEED)
    steps: list[Step] = []
    # A wall-clock limit only as a backstop: the step ends when it is stopped (or when
    # it proves its neighbourhood optimal first); nothing below depends on which.
    worker = threading.Thread(
        target=lambda: steps.append(search.step(StepLimits(BACKSTOP_SECONDS)))
    )
    worker.start()
    while worker.is_alive():
        search.stop()  # repeated: a stop can land before the sub-solve has begun
        worker.join(0.01)
    (step,) = steps
    assert step.objective <= start.objective
    assert model_objective_of(start.compiled, search.solution) == search.objective
    assert search.step(WORK).status == "UNKNOWN"


def test_a_model_the_cutter_cannot_read_is_searched_as_a_whole_clone() -> None:
    """A constraint kind the sub-model cutter does not read (here a maximum) sends every
    step through the fallback: a clone of the whole model with kept cells fixed."""
    first = greedy_start(curtois_problem(4))
    model = first.compiled.model
    extra = model.new_int_var(0, 1, "extra")
    model.add_max_equality(extra, [0, 1])
    start = Start(first.compiled, [*first.solution, 1], first.objective)
    assert Extractor.of(model, [x.index for x in first.compiled.x.values()]) is None
    trajectory = walk(start, 4, cut=True)
    instance = load(4)
    assert_every_step_keeps_a_better_or_equal_roster(
        trajectory, lambda solution: priced_by_checker(start.compiled, instance, solution)
    )
    assert trajectory.objectives()[-1] < start.objective


# ------------------------------------------------------------------- a tiny instance


def test_a_step_that_frees_the_whole_roster_and_finishes_proves_it_optimal() -> None:
    start = greedy_start(curtois_problem(1))  # 8 employees over 14 days: freed whole
    search = NeighbourhoodSearch(start.compiled, start.solution, start.objective, seed=0)
    whole = cells_with_options(start.compiled)
    proved = []
    for _ in range(6):
        step = search.step(StepLimits(deterministic=0.3))
        assert step.proved_optimal == (step.free_cells == whole and step.status == "OPTIMAL")
        if step.proved_optimal:
            proved.append(step)
            break
    assert proved, "no step proved the roster optimal"
    assert proved[0].objective == 607  # the instance's known optimum
    assert priced_by_checker(start.compiled, load(1), search.solution) == 607


# ------------------------------------------------- neighbourhoods that follow cover


def only(search: NeighbourhoodSearch, name: str) -> None:
    """Make the search try one neighbourhood only."""
    selector = search.selector
    search.selector = Selector([name], selector.cells, selector.initial_fraction)


def walk_one(start: Start, name: str, gains: list[float] | None = None) -> Trajectory:
    search = NeighbourhoodSearch(start.compiled, start.solution, start.objective, seed=SEED)
    if gains is not None:
        search.guide(gains)
    only(search, name)
    taken, solutions = [], []
    for _ in range(STEPS):
        taken.append(search.step(WORK))
        solutions.append(list(search.solution))
    return Trajectory(start, taken, solutions)


def test_cover_swap_steps_on_curtois_4_keep_rosters_the_checker_accepts(
    curtois_4: Trajectory,
) -> None:
    start = curtois_4.start
    trajectory = walk_one(start, "cover_swap")
    assert {step.neighbourhood for step in trajectory.steps} == {"cover_swap"}
    assert_every_step_keeps_a_better_or_equal_roster(
        trajectory, lambda solution: priced_by_checker(start.compiled, load(4), solution)
    )
    assert trajectory.objectives()[-1] < start.objective


@pytest.mark.slow
def test_priced_rows_follow_the_decompositions_prices_and_keep_checked_rosters(
    curtois_4: Trajectory,
) -> None:
    start = curtois_4.start
    compiled = start.compiled
    roster: dict[tuple[int, int, int], int | None] = {
        key: None for key, x in compiled.x.items() if start.solution[x.index]
    }
    generation = ColumnGeneration(compiled.problem, pricing="paths")
    columns = generation.columns_of(roster)
    assert all(c is not None for c in columns)  # the start keeps every employee's rules
    assert generation.gains(columns) is None  # no LP solved yet: no prices
    generation.add_roster(roster)
    assert generation.run().converged
    gains = generation.gains(columns)
    assert gains is not None and len(gains) == len(compiled.problem.employees)
    assert min(gains) >= 0 and max(gains) > 0  # a greedy roster is not the LP's best
    search = NeighbourhoodSearch(compiled, start.solution, start.objective, seed=SEED)
    search.guide(gains[:-1])  # not one per employee: ignored
    assert "priced_rows" not in search.selector.names
    search.guide(gains)
    assert "priced_rows" in search.selector.names
    trajectory = walk_one(start, "priced_rows", gains)
    assert_every_step_keeps_a_better_or_equal_roster(
        trajectory, lambda solution: priced_by_checker(compiled, load(4), solution)
    )
    assert trajectory.objectives()[-1] < start.objective


# ------------------------------------------------------------ a request with duties


def test_steps_on_a_request_with_duties_keep_rosters_the_audit_accepts() -> None:
    request = dataset_request("call_centre_duties")
    start = greedy_start(dataset_problem("call_centre_duties"))
    assert start.compiled.y, "the dataset has duty decisions"
    trajectory = walk(start, 3)
    assert_every_step_keeps_a_better_or_equal_roster(
        trajectory, lambda solution: priced_by_audit(start.compiled, request, solution)
    )
    assert priced_by_audit(start.compiled, request, start.solution) == start.objective
    assert trajectory.objectives()[-1] < start.objective


# ------------------------------------------------------------------------------ seeds


def test_any_seed_cp_sat_accepts_seeds_every_step(curtois_4: Trajectory) -> None:
    start = curtois_4.start
    largest = 2**31 - 1  # CP-SAT's largest random_seed (a one-worker solve accepts it)
    search = NeighbourhoodSearch(start.compiled, start.solution, start.objective, seed=largest)
    for _ in range(2):
        assert search.step(WORK).objective <= start.objective
