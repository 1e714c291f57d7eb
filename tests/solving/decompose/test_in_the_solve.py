"""The decomposition inside a solve: it raises the shared bound, names itself as the
bound's source, proves a roster optimal, and turns its columns into rosters.

The parts are driven directly where a test must be deterministic (no deadline, pricing
on CP-SAT's deterministic work); the two-worker solve asserts only what holds for any
roster and any timing.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from shiftsched.formats import curtois
from shiftsched.formats.curtois_check import check
from shiftsched.solving.decompose import ColumnGeneration, Generation
from shiftsched.solving.decompose.restricted import best_combination
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.model.build import build
from shiftsched.solving.search.completion import complete_roster
from shiftsched.solving.search.decomposer import STEP_BACK_NICENESS, Decomposer
from shiftsched.solving.search.incumbent import Incumbent
from shiftsched.solving.search.progress import Progress
from shiftsched.solving.solve import SolveLimits, solve_problem

OPTIMUM_2 = 828  # Curtois & Qu instance 2, proven optimal in the literature


def compiled_instance(number: int):  # type: ignore[no-untyped-def]
    compiled = build(curtois.to_problem(curtois.load(number)))
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    return compiled


@pytest.mark.slow
def test_the_decomposition_proves_a_roster_at_the_optimum_optimal() -> None:
    compiled = compiled_instance(2)
    # The greedy roster, completed into the full model, stands in for a roster at the
    # optimum: the decomposer compares bounds with the objective the incumbent states.
    completed = complete_roster(compiled, greedy_roster(compiled.problem), seconds=120.0)
    assert completed is not None
    values, objective = completed
    assert objective >= OPTIMUM_2
    incumbent = Incumbent()
    incumbent.offer(values, float(OPTIMUM_2))
    progress = Progress()
    proofs: list[bool] = []
    decomposer = Decomposer(compiled, incumbent, progress, None, lambda: proofs.append(True))
    decomposer.run()
    assert progress.bound == OPTIMUM_2 and progress.bound_source == "decomposition"
    assert proofs, "a bound meeting the incumbent stops the search"
    assert decomposer.from_columns is None  # nothing from the columns beats the optimum


@pytest.mark.slow
def test_a_roster_from_the_columns_completes_into_the_full_model_at_its_cost() -> None:
    compiled = compiled_instance(1)
    generation = ColumnGeneration(compiled.problem)
    assert generation.run().converged
    combination = best_combination(
        len(compiled.problem.employees),
        generation.rows,
        generation.master.columns,
        work=5.0,
        seconds=120.0,
    )
    assert combination is not None
    columns, cost = combination
    assert sorted(c.employee for c in columns) == list(range(len(compiled.problem.employees)))
    roster = {(c.employee, d, s): k for c in columns for d, s, k in c.cells}
    completed = complete_roster(compiled, roster, seconds=120.0)
    assert completed is not None, "each column keeps its employee's rules; nothing else binds"
    _, objective = completed
    assert objective == cost  # the full model prices the combination as the master did
    problem = compiled.problem
    named = {e.id: [""] * problem.num_days for e in problem.employees}
    for e, d, s in roster:
        named[problem.employees[e].id][d] = problem.shifts[s].id
    report = check(curtois.load(1), named)  # the benchmark's own checker agrees
    assert report.violations == [] and report.objective == cost


def test_progress_counts_from_the_start_of_the_call() -> None:
    called = time.perf_counter() - 5.0  # the model build and greedy pass took 5 s
    progress = Progress(started=called)
    progress.start()  # the search starting later does not move the clock
    progress.record_roster(100.0)
    assert progress.first_solution_seconds is not None
    assert progress.first_solution_seconds >= 5.0
    assert progress.raise_bound(40.0, "capacity") and progress.bound_source == "capacity"
    assert not progress.raise_bound(30.0, "decomposition")  # not better: the source stays
    assert progress.bound == 40.0 and progress.bound_source == "capacity"


@pytest.mark.slow
@pytest.mark.multi_worker
def test_a_two_worker_solve_reports_a_bound_with_its_source() -> None:
    problem = curtois.to_problem(curtois.load(2))
    limits = SolveLimits(
        time_limit_seconds=120.0,
        num_workers=2,
        random_seed=0,
        diagnosis_budget_seconds=0,
        parameters={"max_deterministic_time": 2.0},
    )
    outcome = solve_problem(problem, limits)
    assert outcome.objective_value is not None and outcome.best_bound is not None
    assert outcome.best_bound <= OPTIMUM_2 <= outcome.objective_value
    assert outcome.solver.bound_source in ("cp_sat", "decomposition", "capacity")
    if outcome.status == "optimal":
        assert outcome.best_bound == outcome.objective_value == OPTIMUM_2
    first = outcome.solver.time_to_first_solution_seconds
    assert first is not None and 0 < first <= outcome.runtime_seconds


def test_a_rosters_rows_become_columns_that_the_combination_can_always_reuse() -> None:
    problem = curtois.to_problem(curtois.load(1))
    exact = solve_problem(
        problem, SolveLimits(time_limit_seconds=120.0, num_workers=1, random_seed=0)
    )
    assert exact.status == "optimal" and exact.objective_value == 607
    index = {e.id: i for i, e in enumerate(problem.employees)}
    shifts = {s.id: i for i, s in enumerate(problem.shifts)}
    days = {d: i for i, d in enumerate(problem.horizon.dates)}
    roster: dict[tuple[int, int, int], int | None] = {
        (index[a.employee_id], days[a.date], shifts[a.shift_id]): None for a in exact.assignments
    }
    generation = ColumnGeneration(problem)
    assert generation.add_roster(roster) == len(problem.employees)  # every row keeps its rules
    assert generation.add_roster(roster) == 0  # the same rows are not added twice
    combination = best_combination(
        len(problem.employees),
        generation.rows,
        generation.master.columns,
        work=5.0,
        seconds=120.0,
    )
    assert combination is not None and combination[1] == 607  # the roster, repriced


def _niceness_after_rounds(deadline_in: float, round_seconds: float) -> tuple[int, int]:
    """Run three round starts of a decomposer in a thread of its own (niceness is per
    thread on Linux); the thread's niceness before and after."""
    compiled = compiled_instance(1)
    seen: list[int] = []

    def rounds() -> None:
        tid = threading.get_native_id()
        seen.append(os.getpriority(os.PRIO_PROCESS, tid))
        decomposer = Decomposer(
            compiled, Incumbent(), Progress(), time.perf_counter() + deadline_in, lambda: None
        )
        decomposer._pace()
        decomposer._pace()
        decomposer._first_round_started -= round_seconds  # the second round took this long
        decomposer._pace()
        seen.append(os.getpriority(os.PRIO_PROCESS, tid))

    thread = threading.Thread(target=rounds)
    thread.start()
    thread.join()
    return seen[0], seen[1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness")
def test_a_decomposition_that_cannot_converge_in_time_steps_back() -> None:
    # Forty rounds of 10 s do not fit in 60 s: it steps back.
    before, after = _niceness_after_rounds(deadline_in=60.0, round_seconds=10.0)
    assert after >= max(before, STEP_BACK_NICENESS)
    # Rounds of a millisecond converge long before the deadline: it keeps its share.
    before, after = _niceness_after_rounds(deadline_in=3600.0, round_seconds=0.001)
    assert after == before


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness")
def test_the_pace_is_timed_afresh_when_cp_sat_takes_over_from_paths() -> None:
    compiled = compiled_instance(1)
    seen: list[int] = []

    def rounds() -> None:
        tid = threading.get_native_id()
        decomposer = Decomposer(
            compiled, Incumbent(), Progress(), time.perf_counter() + 60.0, lambda: None
        )
        generation = ColumnGeneration(compiled.problem)
        for _ in range(3):  # rounds by paths, a millisecond each: it keeps its share
            decomposer._before_round(generation)
        seen.append(os.getpriority(os.PRIO_PROCESS, tid))
        assert generation._to_exact()  # the paths converged: CP-SAT prices from here on
        assert generation.exact
        decomposer._before_round(generation)
        decomposer._before_round(generation)
        decomposer._first_round_started -= 10.0  # an exact round took 10 s
        decomposer._before_round(generation)
        seen.append(os.getpriority(os.PRIO_PROCESS, tid))

    thread = threading.Thread(target=rounds)
    thread.start()
    thread.join()
    before, after = seen
    assert after >= max(before, STEP_BACK_NICENESS)


def test_a_decomposition_ends_after_its_share_of_the_time_limit() -> None:
    now = time.perf_counter()
    decomposer = Decomposer(compiled_instance(1), Incumbent(), Progress(), now + 60.0, lambda: None)
    decomposer._started = now - 10.0  # 10 s of 70: within its share
    decomposer._pace()
    assert not decomposer.done.is_set()
    decomposer._started = now - 30.0  # 30 s of 90: beyond it
    decomposer._pace()
    assert decomposer.done.is_set()


@pytest.mark.parametrize("compiled_already", [False, True])
def test_a_search_that_ends_first_spares_the_first_compile(
    monkeypatch: pytest.MonkeyPatch, compiled_already: bool
) -> None:
    # A process's first compile of the path pricer cannot be stopped and the solve
    # waits for it: the decomposition holds off for a grace period, and a search that
    # has ended by then (``done``) leaves it uncompiled. Once compiled, it goes ahead.
    import shiftsched.solving.search.decomposer as decomposer_module

    monkeypatch.setattr(decomposer_module, "paths_compiled", lambda: compiled_already)
    runs: list[bool] = []
    monkeypatch.setattr(
        ColumnGeneration, "run", lambda self, **_: runs.append(True) or Generation()
    )
    decomposer = Decomposer(compiled_instance(2), Incumbent(), Progress(), None, lambda: None)
    decomposer.done.set()  # the search has ended
    decomposer.run()
    assert runs == ([True] if compiled_already else [])


def test_the_search_hears_the_reduced_costs_of_the_incumbents_rows() -> None:
    compiled = compiled_instance(1)
    completed = complete_roster(compiled, greedy_roster(compiled.problem), seconds=120.0)
    assert completed is not None
    values, objective = completed
    incumbent = Incumbent()
    incumbent.offer(values, objective)
    decomposer = Decomposer(compiled, incumbent, Progress(), None, lambda: None)
    generation = ColumnGeneration(compiled.problem, pricing="paths")
    decomposer._before_round(generation)  # the rows go in; no LP yet, nothing to say
    assert decomposer.guidance.latest == (0, ())
    generation.run(before_round=lambda: decomposer._before_round(generation))
    assert generation.solution is not None  # the loop ran to its end (it stalls on paths)
    version, gains = decomposer.guidance.latest
    assert version >= 1 and len(gains) == len(compiled.problem.employees)
    # What was published is each row's reduced cost at the LP's duals, never negative.
    roster = decomposer._roster(values)
    assert gains == tuple(generation.gains(generation.columns_of(roster)) or ())
    assert min(gains) >= 0
    # Once the loop has ended, a new incumbent is priced at the last duals.
    decomposer._guide(generation)
    assert decomposer.guidance.latest[0] == version  # the same roster: nothing new
    incumbent.offer(values, objective - 1)
    decomposer._guide(generation)
    assert decomposer.guidance.latest == (version + 1, gains)


@pytest.mark.slow
def test_the_decomposition_keeps_pricing_the_search_until_the_solve_ends() -> None:
    compiled = compiled_instance(1)
    completed = complete_roster(compiled, greedy_roster(compiled.problem), seconds=120.0)
    assert completed is not None
    incumbent = Incumbent()
    incumbent.offer(*completed)
    decomposer = Decomposer(
        compiled, incumbent, Progress(), time.perf_counter() + 3600.0, lambda: None
    )
    thread = threading.Thread(target=decomposer.run)
    thread.start()
    # The loop converges and waits; each new roster is priced until the solve ends.
    while decomposer.guidance.latest[0] == 0:
        assert thread.is_alive(), "the decomposition ended without a word to the search"
        time.sleep(0.05)
    before = decomposer.guidance.latest[0]
    incumbent.offer(completed[0], completed[1] - 1)
    while decomposer.guidance.latest[0] == before:
        assert thread.is_alive()
        time.sleep(0.05)
    decomposer.finished.set()
    thread.join()


def test_rows_met_before_are_not_priced_again() -> None:
    problem = curtois.to_problem(curtois.load(1))
    roster: dict[tuple[int, int, int], int | None] = dict.fromkeys(greedy_roster(problem))
    generation = ColumnGeneration(problem, pricing="paths")
    first = generation.columns_of(roster)
    again = generation.columns_of(roster)
    assert all(a is b for a, b in zip(first, again, strict=True))  # the same objects
    dropped = min(key for key in roster if key[0] == 0)  # employee 0's first worked cell
    changed = {key: k for key, k in roster.items() if key != dropped}
    after = generation.columns_of(changed)
    assert all(a is b for a, b in zip(first[1:], after[1:], strict=True))
    row = sorted((d, s, None) for (e, d, s) in changed if e == 0)
    fresh = ColumnGeneration(problem, pricing="paths").columns_of(changed)[0]
    assert after[0] == fresh and (fresh is None or list(fresh.cells) == row)
