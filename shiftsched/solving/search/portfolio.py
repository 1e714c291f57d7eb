"""The portfolio: CP-SAT on the full model beside a rostering-aware neighbourhood search,
and a decomposition that proves bounds.

Two halves share one incumbent:

- the **full-model solve** (CP-SAT, the caller's solver) finds the first roster, proves
  the bound that a reported gap rests on, and proves optimality outright on small
  requests;
- the **neighbourhood search** (:mod:`shiftsched.solving.search.lns`) improves the incumbent by
  re-optimising a part of the roster at a time.

A third part, the **decomposition** (:mod:`shiftsched.solving.decompose`, run by
:mod:`shiftsched.solving.search.decomposer`), proves a lower bound from column generation,
which on rosters is far stronger than what CP-SAT proves on the full model; the reported
bound is the better of the two, tagged with its source. It runs in a thread of its own
(its solves release the interpreter) and ends when its LP converges or when it has run
a quarter of the time limit (``DECOMPOSITION_SHARE``). Its prices also guide the search:
each incumbent's rows are priced at the master LP's last duals (``Guidance``, in
:mod:`shiftsched.solving.search.incumbent`), and the search's priced-rows neighbourhood
frees the employees whose rows those prices call furthest from right, until the solve
ends.

Each full-model roster better than the incumbent is passed to the neighbourhood search
(:mod:`shiftsched.solving.search.searcher`), which adopts it before its next step; each
improvement the search finds is recorded. The run ends at the time limit, when the
full-model solve ends (optimal or infeasible), or as soon as the incumbent's cost meets
the proven bound.

How the cores are split is :func:`shiftsched.solving.search.plan.plan_for`; the
measurements behind it are in ``benchmarks/docs/search.md`` ("Search portfolio").
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from ortools.sat.python import cp_model

from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.decomposer import Decomposer
from shiftsched.solving.search.incumbent import Incumbent, SearchResult
from shiftsched.solving.search.local_searcher import LocalSearcher
from shiftsched.solving.search.plan import Plan, step_seconds
from shiftsched.solving.search.progress import Progress
from shiftsched.solving.search.searcher import Searcher
from shiftsched.solving.search.turns import Turns

SEED_MODULUS = 2**31 - 2**20  # CP-SAT seeds are 32-bit; room for a seed per step


def search(
    compiled: CompiledModel,
    full: cp_model.CpSolver,
    plan: Plan,
    progress: Progress,
    search_seconds: float | None,
    seed: int,
    solve_full: Callable[[], cp_model.CpSolverStatus],
    start: tuple[list[int], float] | None = None,
) -> SearchResult:
    """Run both halves until the first of: time, a proof, or the full solve's end.

    ``solve_full`` runs ``full`` on the compiled model (with its own watchdog) and
    returns its status; ``progress`` is its solution callback. ``start``: a complete,
    feasible solution and its objective, the first incumbent (the search needs not wait
    for CP-SAT to restate it).
    """
    incumbent = Incumbent()
    if start is not None:
        incumbent.offer(*start)
        progress.start()
        progress.record_roster(start[1])
    started = time.perf_counter()
    deadline = None if search_seconds is None else started + search_seconds
    decomposer = (
        Decomposer(compiled, incumbent, progress, deadline, full.stop_search)
        if plan.decomposition
        else None
    )
    turns = Turns(("neighbourhood", "local")) if plan.local_threads else None
    searchers = [
        Searcher(
            compiled,
            incumbent,
            progress,
            deadline,
            step_seconds(search_seconds),
            started,
            (seed + 7919 * (n + 1)) % SEED_MODULUS,
            full.stop_search,
            decomposer.guidance if decomposer is not None else None,
            turns,
        )
        for n in range(plan.neighbourhood_threads)
    ]
    movers = [
        LocalSearcher(
            compiled,
            incumbent,
            progress,
            deadline,
            (seed + 104_729 * (n + 1)) % SEED_MODULUS,
            full.stop_search,
            turns,
        )
        for n in range(plan.local_threads)
    ]
    on_roster = _sharing_rosters(incumbent, progress)
    progress.on_roster.append(on_roster)
    try:
        status = _beside(solve_full, searchers, movers, decomposer)
    finally:
        progress.on_roster.remove(on_roster)
    for error in [s.error for s in searchers] + [m.error for m in movers]:
        if error is not None:
            raise error
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        incumbent.offer(list(full.response_proto.solution), full.objective_value)
    return _result(status, full.best_objective_bound, incumbent, progress, searchers, movers)


def _sharing_rosters(incumbent: Incumbent, progress: Progress) -> Callable[[Progress], None]:
    """The full solve's roster callback: each better roster becomes the incumbent, and
    one that meets a bound proven outside CP-SAT ends the full solve."""

    def on_roster(callback: Progress) -> None:
        objective = callback.objective_value
        if objective < incumbent.objective:
            incumbent.offer(list(callback.response_proto.solution), objective)
        if objective <= progress.bound + 1e-6:  # meets a bound proven outside CP-SAT
            callback.stop_search()

    return on_roster


def _beside(
    solve_full: Callable[[], cp_model.CpSolverStatus],
    searchers: list[Searcher],
    movers: list[LocalSearcher],
    decomposer: Decomposer | None,
) -> cp_model.CpSolverStatus:
    """The full solve, with the other threads beside it; every thread has ended when this
    returns, however the full solve ended.

    The local and neighbourhood searches start with the full solve; the decomposition
    starts once the local search's rosters level off (at once when there is none), so on
    two cores the first seconds go to the searches that improve a roster fastest.
    """
    early = [threading.Thread(target=m.run, daemon=True) for m in movers]
    early += [threading.Thread(target=s.run, daemon=True) for s in searchers]
    late = []
    if decomposer is not None:
        late.append(threading.Thread(target=decomposer.run, daemon=True))
    ended = threading.Event()
    levelled = [m.levelled for m in movers]

    def start_late() -> None:
        for event in levelled:
            while not event.wait(0.05):
                if ended.is_set():
                    return
        if not ended.is_set():
            for thread in late:
                thread.start()

    starter = threading.Thread(target=start_late, daemon=True)
    for thread in early:
        thread.start()
    starter.start()
    try:
        return solve_full()
    finally:
        ended.set()
        for searcher in searchers:
            searcher.stop()
        for mover in movers:
            mover.stop()
        if decomposer is not None:
            decomposer.done.set()
            decomposer.finished.set()
        starter.join()
        for thread in (*early, *late):
            if thread.ident is not None:  # started
                thread.join()


def _result(
    status: cp_model.CpSolverStatus,
    full_bound: float,
    incumbent: Incumbent,
    progress: Progress,
    searchers: list[Searcher],
    movers: list[LocalSearcher],
) -> SearchResult:
    """The incumbent and the best proven bound, with the source of each proof; a roster
    that meets the bound is optimal, whoever proved it."""
    solution, objective, _ = incumbent.read()
    bound, source = progress.bound, progress.bound_source
    if full_bound > bound:
        bound, source = full_bound, "cp_sat"
    if solution is None:
        bound, source = -math.inf, None
    proved = (
        status == cp_model.OPTIMAL
        or any(s.proved_optimal for s in searchers)
        or any(m.proved_optimal for m in movers)
    )
    if solution is not None and objective <= bound + 1e-6:
        proved = True
    if proved and solution is not None:
        if status == cp_model.OPTIMAL:
            source = "cp_sat"
        bound = objective
    return SearchResult(
        status=status,
        solution=solution,
        objective=objective,
        bound=bound,
        proved_optimal=proved,
        steps=sum(s.steps for s in searchers),
        improvements=sum(s.improvements for s in searchers),
        bound_source=source,
        local_moves=sum(s.evaluated for s in movers),
        local_improvements=sum(s.improvements for s in movers),
    )
