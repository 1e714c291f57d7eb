"""A search limited by work, not by the clock: the same request gives the same roster on
any machine (with the same versions of the engine and OR-Tools).

The portfolio's threads race each other, so which roster it ends with depends on timing.
This search runs its parts one after the other instead, each limited by a count of
work: the compiled local search for :data:`MOVES_PER_SECOND` moves per second of the
budget's :data:`LOCAL_SHARE`, then one CP-SAT worker hinted with the local search's roster,
limited by CP-SAT's deterministic time (:data:`WORK_PER_SECOND` units per second of the
rest). The wall clock stays as a safety net at :data:`CLOCK_SLACK` times the budget, and
never under :data:`SHORTEST_CLOCK_NET` seconds: the net is there for a search gone wrong,
and a small budget on a busy machine can take several times its quiet time; the
result says which limit stopped the search (``stopped_by``), and only ``work_limit`` and
``proof`` answers are reproducible.
"""

from __future__ import annotations

from collections.abc import Callable

from ortools.sat.python import cp_model

from shiftsched.solving.local.arrays import NotEvaluable, local_model
from shiftsched.solving.local.search import LocalSearch
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.incumbent import SearchResult
from shiftsched.solving.search.progress import Progress

MOVES_PER_SECOND = 250_000  # about what the local search draws in a second on one core
WORK_PER_SECOND = 1.0  # CP-SAT deterministic time units per second of budget
LOCAL_SHARE = 0.3  # of the budget, to the local search
CLOCK_SLACK = 3.0  # the wall-clock safety net, as a multiple of the budget
SHORTEST_CLOCK_NET = 60.0  # s: a test's 4 s budget ran past 12 s on a loaded machine
CHUNK_MOVES = 100_000


def work_limits(budget_seconds: float) -> tuple[int, float]:
    """The local search's moves and CP-SAT's deterministic time for a budget."""
    moves = int(MOVES_PER_SECOND * LOCAL_SHARE * budget_seconds)
    return moves, WORK_PER_SECOND * (1 - LOCAL_SHARE) * budget_seconds


def clock_net(budget_seconds: float) -> float:
    """The wall-clock limit behind the work limit: only a search gone wrong reaches it."""
    return max(CLOCK_SLACK * budget_seconds, SHORTEST_CLOCK_NET)


def deterministic_search(
    compiled: CompiledModel,
    full: cp_model.CpSolver,
    progress: Progress,
    budget_seconds: float,
    seed: int,
    solve_full: Callable[[], cp_model.CpSolverStatus],
    start: tuple[list[int], float] | None,
) -> SearchResult:
    """Local search on ``start`` (when there is one), then CP-SAT from its best roster.

    ``full`` must have one worker; its limits are set here. ``solve_full`` runs it on the
    compiled model (see :func:`shiftsched.solving.search.portfolio.search`).
    """
    moves, work = work_limits(budget_seconds)
    best = start
    if start is not None:
        progress.start()
        progress.record_roster(start[1])
        best = _local(compiled, start, seed, moves, progress) or start
        model = compiled.model
        model.clear_hints()  # type: ignore[no-untyped-call]
        hint = model.proto.solution_hint
        hint.vars.extend(range(len(best[0])))
        hint.values.extend(best[0])
    full.parameters.num_workers = 1
    full.parameters.max_deterministic_time = work
    full.parameters.max_time_in_seconds = clock_net(budget_seconds)
    status = solve_full()
    solution, objective = (None, float("inf")) if best is None else (list(best[0]), best[1])
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) and full.objective_value <= objective:
        solution, objective = list(full.response_proto.solution), full.objective_value
    proved = status == cp_model.OPTIMAL or (
        solution is not None and objective <= full.best_objective_bound + 1e-6
    )
    response = full.response_proto
    if proved:
        stopped_by = "proof"
    elif response.deterministic_time >= work * 0.999:
        stopped_by = "work_limit"
    else:
        stopped_by = "time_limit"
    bound = objective if proved else full.best_objective_bound
    return SearchResult(
        status=status,
        solution=solution,
        objective=objective,
        bound=bound,
        proved_optimal=proved,
        bound_source="cp_sat" if solution is not None else None,
        local_moves=moves if start is not None else 0,
        stopped_by=stopped_by,
    )


def _local(
    compiled: CompiledModel,
    start: tuple[list[int], float],
    seed: int,
    moves: int,
    progress: Progress,
) -> tuple[list[int], float] | None:
    """The local search's best roster after ``moves`` moves; None when it cannot read
    the model or finds nothing better than the start."""
    try:
        model = local_model(compiled)
    except NotEvaluable:
        return None
    search = LocalSearch(model, start[0], seed)
    left = moves
    while left > 0:
        search.run(min(CHUNK_MOVES, left))
        left -= CHUNK_MOVES
    if search.best_cost >= start[1]:
        return None
    best = search.best_solution()
    if best is None:
        return None
    progress.record_roster(best[1])
    return best[0], float(best[1])
