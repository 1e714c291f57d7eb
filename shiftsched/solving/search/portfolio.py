"""The portfolio: CP-SAT on the full model beside a rostering-aware neighbourhood search,
and a decomposition that proves bounds.

Two halves share one incumbent:

- the **full-model solve** (CP-SAT, the caller's solver) finds the first roster, proves
  the bound that a reported gap rests on, and proves optimality outright on small
  requests;
- the **neighbourhood search** (:mod:`shiftsched.solving.search.lns`) improves the incumbent by
  re-optimising a part of the roster at a time.

A third part, the **decomposition** (:mod:`shiftsched.solving.decompose`), proves a lower bound from
column generation, which on rosters is far stronger than what CP-SAT proves on the full
model; the reported bound is the better of the two, tagged with its source. It runs in a
thread of its own (its solves release the interpreter) and ends when its LP converges
or when it has run a quarter of the time limit (:data:`DECOMPOSITION_SHARE`). Its
prices also guide the search: each incumbent's rows are priced at the master LP's last
duals (:class:`Guidance`), and the search's priced-rows neighbourhood frees the
employees whose rows those prices call furthest from right, until the solve ends.

Each full-model roster better than the incumbent is passed to the neighbourhood search,
which adopts it before its next step; each improvement the search finds is recorded.
The run ends at the time limit, when the full-model solve ends (optimal or infeasible),
or as soon as the incumbent's cost meets the proven bound.

How the cores are split is :func:`plan_for`; the measurements behind it are in
``benchmarks/README.md`` ("Search portfolio").
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from ortools.sat.python import cp_model

from shiftsched.solving.decompose import ColumnGeneration
from shiftsched.solving.decompose.paths import compiled as paths_compiled
from shiftsched.solving.decompose.pricing import Column
from shiftsched.solving.decompose.restricted import best_combination
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.completion import complete_roster
from shiftsched.solving.search.lns import NeighbourhoodSearch, StepLimits
from shiftsched.solving.search.progress import Progress

FULL_LINEARIZATION = 2  # the full-model worker's LP: the bound the gap rests on
MAX_LINEARIZED_VARIABLES = 200_000  # above this, the stronger LP slows the first roster
STEP_SECONDS_SHARE = 1 / 60  # a sub-solve gets this share of the budget ...
STEP_SECONDS_RANGE = (0.5, 2.0)  # ... within these bounds
STEP_RAMP = 1 / 20  # ... and at most this share of the time the search has run ...
STEP_RAMP_FLOOR = 0.1  # ... but never less than this
WAIT_FOR_ROSTER_SECONDS = 0.05
ROUNDS_TO_CONVERGE = 40  # column generation rounds, as measured on Curtois & Qu 8-12
STEP_BACK_NICENESS = 10  # the decomposition's thread when it cannot converge in time
DECOMPOSITION_SHARE = 0.25  # of the time limit, the most the decomposition may run
# Seconds the decomposition waits before a process's first compile of the path pricer:
# the compile cannot be stopped, and the solve waits for it, so a request the search
# settles at once (most small ones) would otherwise take a second or two longer.
COMPILE_GRACE = 1.0
COMBINATION_WORK = 5.0  # deterministic seconds for a roster from the columns
GUIDE_SECONDS = 1.0  # once its loop has ended, the decomposition re-prices the rows this often
GUIDE_SHARE = 0.05  # ... or less often: re-pricing takes at most this share of its thread
SEED_MODULUS = 2**31 - 2**20  # CP-SAT seeds are 32-bit; room for a seed per step

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Plan:
    """How a solve uses its workers: CP-SAT threads on the full model, and LNS threads."""

    full_workers: int
    neighbourhood_threads: int
    full_parameters: dict[str, object] = field(default_factory=dict)
    decomposition: bool = False  # prove bounds by column generation (shiftsched.solving.decompose)


def plan_for(workers: int, variables: int, hinted: bool = True) -> Plan:
    """The split of ``workers`` threads (see the module docstring for the measurements).

    One worker stays a plain CP-SAT solve, reproducible with a fixed seed. From two on,
    one thread runs the neighbourhood search, and the full-model solve keeps the rest; a
    lone full-model worker uses the stronger LP relaxation (CP-SAT's ``max_lp`` setting),
    which proves far better bounds on rosters than the default, unless the model is so
    large that solving its LP would delay the first roster. Eight or more full-model
    workers are CP-SAT's own portfolio; from 12 workers on, a second search thread runs.

    ``hinted``: the model carries a complete, feasible hint, so CP-SAT's first roster is
    the hint itself. Without one, finding a first roster is a search of its own, which
    one worker with the stronger LP does far more slowly (a 120,000-size request: 11 s
    against 4 s): CP-SAT then keeps every worker, and the neighbourhood search, which
    waits for a roster anyway, joins as an extra thread once one exists.
    """
    if workers <= 1:
        return Plan(full_workers=1, neighbourhood_threads=0)
    threads = 2 if workers >= 12 else 1
    if not hinted:
        return Plan(full_workers=workers, neighbourhood_threads=threads, decomposition=True)
    full = workers - threads
    parameters: dict[str, object] = {}
    if full == 1 and variables <= MAX_LINEARIZED_VARIABLES:
        parameters["linearization_level"] = FULL_LINEARIZATION
    return Plan(
        full_workers=full,
        neighbourhood_threads=threads,
        full_parameters=parameters,
        decomposition=True,
    )


def step_seconds(search_seconds: float | None) -> float:
    """The longest a sub-solve may run: a share of the budget, within bounds."""
    low, high = STEP_SECONDS_RANGE
    if search_seconds is None:
        return high
    return min(high, max(low, search_seconds * STEP_SECONDS_SHARE))


def step_limit(longest: float, searched: float, left: float) -> float:
    """The time limit of the next sub-solve, ``searched`` seconds into the search.

    Early on almost every sub-solve improves the roster, so many short ones beat a few
    long ones; later, improvements need larger neighbourhoods and longer sub-solves. The
    limit therefore ramps up with the time searched, from STEP_RAMP_FLOOR to ``longest``
    (:func:`step_seconds`). Measured side by side on 2 cores (benchmarks/README.md,
    "Search portfolio"): Curtois 12 at 60 s 4,317 and 4,338 against 4,614 without it;
    on synthetic requests at 10 s, four of five better in the median and one worse.
    """
    return min(longest, max(STEP_RAMP_FLOOR, STEP_RAMP * searched), left)


class Incumbent:
    """The best roster so far, shared by every thread of the portfolio."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.solution: list[int] | None = None
        self.objective = math.inf
        self.version = 0

    def offer(self, solution: list[int], objective: float) -> int | None:
        """Take a strictly better roster; its version, or None when it is not better."""
        with self._lock:
            if objective >= self.objective:
                return None
            self.solution, self.objective = solution, objective
            self.version += 1
            return self.version

    def read(self) -> tuple[list[int] | None, float, int]:
        with self._lock:
            return self.solution, self.objective, self.version


class Guidance:
    """The decomposition's latest word to the search: per employee, the reduced cost of
    their row in the incumbent at the master LP's duals (one writer, read whole)."""

    def __init__(self) -> None:
        self.latest: tuple[int, tuple[float, ...]] = (0, ())

    def publish(self, gains: list[float]) -> None:
        self.latest = (self.latest[0] + 1, tuple(gains))


@dataclass
class SearchResult:
    """The best roster of the portfolio (a CP-SAT solution vector) and its proof."""

    status: cp_model.CpSolverStatus  # the full-model solve's own status
    solution: list[int] | None
    objective: float
    bound: float
    proved_optimal: bool
    steps: int = 0
    improvements: int = 0
    bound_source: str | None = None  # cp_sat, decomposition or capacity


@dataclass
class _Searcher:
    compiled: CompiledModel
    incumbent: Incumbent
    progress: Progress
    deadline: float | None
    step_seconds: float  # the longest a sub-solve may run
    started: float  # when the search began (perf_counter)
    seed: int
    stop_full: Callable[[], None]
    guidance: Guidance | None = None
    done: threading.Event = field(default_factory=threading.Event)
    proved_optimal: bool = False
    steps: int = 0
    improvements: int = 0
    error: BaseException | None = None
    _lns: NeighbourhoodSearch | None = None

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # re-raised by the caller after the join
            self.error = exc
            self.stop_full()

    def stop(self) -> None:
        self.done.set()
        if self._lns is not None:
            self._lns.stop()

    def _left(self) -> float:
        return math.inf if self.deadline is None else self.deadline - time.perf_counter()

    def _run(self) -> None:
        solution, objective, seen = self.incumbent.read()
        while solution is None:
            if self.done.wait(WAIT_FOR_ROSTER_SECONDS) or self._left() <= 0:
                return
            solution, objective, seen = self.incumbent.read()
        lns = NeighbourhoodSearch(
            self.compiled, solution, objective, self.seed, stopped=self.done.is_set
        )
        self._lns = lns
        if self.done.is_set():
            lns.stop()
        guided = 0
        while not self.done.is_set():
            left = self._left()
            if left <= 0.05:
                break
            solution, objective, version = self.incumbent.read()
            if version != seen and solution is not None and objective < lns.objective:
                lns.adopt(solution, objective)
            seen = version
            if self.guidance is not None and self.guidance.latest[0] != guided:
                guided, gains = self.guidance.latest
                lns.guide(gains)
            seconds = step_limit(self.step_seconds, time.perf_counter() - self.started, left)
            step = lns.step(StepLimits(seconds=seconds))
            self.steps += 1
            if step.improved:
                self.improvements += 1
                taken = self.incumbent.offer(lns.solution, lns.objective)
                if taken == seen + 1:  # nothing arrived from the full solve meanwhile
                    seen = taken
                self.progress.record_roster(lns.objective)
            if step.proved_optimal or lns.objective <= self.progress.bound + 1e-6:
                self.proved_optimal = True
                self.stop_full()
                return


@dataclass(frozen=True)
class _Decisions:
    """The model's shift and duty decisions: their indices and keys, in one order."""

    shift_indices: np.ndarray
    cells: list[tuple[int, int, int]]
    duty_indices: np.ndarray
    duties: list[tuple[int, int, int, int]]


@dataclass
class _Decomposer:
    """Runs the column generation beside the search and raises the shared bound."""

    compiled: CompiledModel
    incumbent: Incumbent
    progress: Progress
    deadline: float | None
    on_proof: Callable[[], None]  # the incumbent meets the bound: stop the search
    guidance: Guidance = field(default_factory=Guidance)
    done: threading.Event = field(default_factory=threading.Event)  # ends the loop
    finished: threading.Event = field(default_factory=threading.Event)  # the solve's end
    from_columns: float | None = None  # the objective of a roster built from columns
    _columns_of: int = -1  # the incumbent version whose rows were added as columns
    _columns: list[Column | None] = field(default_factory=list)  # and those columns
    _decisions: _Decisions | None = None  # read once, for _roster
    _rounds_begun: int = 0
    _first_round_started: float = 0.0
    _paced_exact: bool = False  # the pace was re-timed when CP-SAT took over from paths
    _started: float = field(default_factory=time.perf_counter)

    def run(self) -> None:
        self._started = time.perf_counter()
        try:
            generation = ColumnGeneration(self.compiled.problem)
            self._tell(generation.capacity_bound(), "capacity")
            if generation.by_paths and not paths_compiled() and self.done.wait(COMPILE_GRACE):
                return  # the search ended first: nothing to compile for
            result = generation.run(
                deadline=self.deadline,
                stop=self.done,
                on_bound=lambda bound: self._tell(bound, "decomposition"),
                before_round=lambda: self._before_round(generation),
            )
            self._publish(generation)  # at the last duals
            if result.converged:
                self._roster_from_columns(generation)
            # Until the solve ends, the search's new rosters are priced at the last duals
            # (with no deadline the loop ran to its end, and so did the solve).
            wait = GUIDE_SECONDS
            while self.deadline is not None and not self.finished.wait(wait):
                if time.perf_counter() >= self.deadline:
                    break
                began = time.perf_counter()
                self._guide(generation)
                wait = max(GUIDE_SECONDS, (time.perf_counter() - began) / GUIDE_SHARE)
        except Exception:  # the bound is an extra: a failure must not cost the roster
            log.exception("the decomposition bound failed; CP-SAT's bound stands")

    def _before_round(self, generation: ColumnGeneration) -> None:
        if generation.exact and not self._paced_exact:
            # Paths have converged and CP-SAT prices from here on, a round now takes
            # far longer: time it afresh.
            self._paced_exact = True
            self._rounds_begun = 0
        self._pace()
        self._add_incumbent(generation)
        self._publish(generation)

    def _pace(self) -> None:
        """Step back when the column generation cannot converge in the time left.

        It is a third busy thread on two cores. Where it converges (Curtois & Qu 1-12:
        28-43 rounds of 0.5-1.5 s) it proves far more than CP-SAT, and the rosters were
        no worse; where it cannot (generated requests of 40,000 and more at 30 s: still
        below zero after 25 s), it only took a third of the CPU from the search, and
        rosters came out 6-45 % dearer. After its second round it estimates the time to
        converge; when that is beyond the deadline it lowers its priority, so it runs
        on what the search leaves (benchmarks/README.md, "The certificate").

        Paths price a round in milliseconds, so that estimate lets it run on. But
        beside the search for the whole limit, at full priority or niced, it cost the
        rosters of Curtois & Qu 8 and 12 up to 9 % at 60 s (its Python holds the
        interpreter lock, which niceness does not give back). So it ends once it has
        run :data:`DECOMPOSITION_SHARE` of the time limit; its bound stands.
        """
        now = time.perf_counter()
        if self.deadline is not None and now - self._started > DECOMPOSITION_SHARE * (
            self.deadline - self._started
        ):
            self.done.set()
            return
        self._rounds_begun += 1
        if self._rounds_begun == 2:
            self._first_round_started = now
        elif self._rounds_begun == 3 and self.deadline is not None:
            per_round = now - self._first_round_started
            if now + ROUNDS_TO_CONVERGE * per_round > self.deadline:
                _yield_cpu(STEP_BACK_NICENESS)

    def _add_incumbent(self, generation: ColumnGeneration) -> None:
        """The incumbent's rows as columns, once per roster: the master then holds a
        roster at least as good as the search's, so its duals are meaningful early and
        a combination of columns can only improve on the incumbent."""
        if self._read_incumbent(generation):
            for column in self._columns:
                if column is not None:
                    generation.master.add(column)

    def _guide(self, generation: ColumnGeneration) -> None:
        """Once the loop has ended, price each new incumbent's rows at its last duals,
        so the search's priced-rows neighbourhood follows the roster it improves."""
        if self._read_incumbent(generation):
            self._publish(generation)

    def _read_incumbent(self, generation: ColumnGeneration) -> bool:
        """Take the incumbent's rows as columns when it changed; whether it had."""
        solution, _, version = self.incumbent.read()
        if solution is None or version == self._columns_of:
            return False
        self._columns_of = version
        self._columns = generation.columns_of(self._roster(solution))
        return True

    def _publish(self, generation: ColumnGeneration) -> None:
        """The incumbent's rows' reduced costs at the last LP, for the search."""
        gains = generation.gains(self._columns) if self._columns else None
        if gains is not None:
            self.guidance.publish(gains)

    def _roster(self, solution: list[int]) -> dict[tuple[int, int, int], int | None]:
        """The shift (and duty) of each worked cell of a solution, by a gather: a
        year-long model has a million decisions, too many for a loop once a second."""
        if self._decisions is None:
            x, y = self.compiled.x, self.compiled.y
            self._decisions = _Decisions(
                np.fromiter((v.index for v in x.values()), np.int64, len(x)),
                list(x),
                np.fromiter((v.index for v in y.values()), np.int64, len(y)),
                list(y),
            )
        decisions = self._decisions
        values = np.asarray(solution, dtype=np.int64)
        cells = decisions.cells
        roster: dict[tuple[int, int, int], int | None] = {
            cells[i]: None for i in np.flatnonzero(values[decisions.shift_indices]).tolist()
        }
        for i in np.flatnonzero(values[decisions.duty_indices]).tolist():
            e, d, s, k = decisions.duties[i]
            roster[e, d, s] = k
        return roster

    def _roster_from_columns(self, generation: ColumnGeneration) -> None:
        """The best combination of the columns, offered as a roster when it is better."""
        left = math.inf if self.deadline is None else self.deadline - time.perf_counter()
        if left <= 0.1 or self.done.is_set():
            return
        combination = best_combination(
            len(self.compiled.problem.employees),
            generation.rows,
            generation.master.columns,
            work=COMBINATION_WORK,
            seconds=left / 2,
            stop=self.done,
        )
        if combination is None:
            return
        columns, cost = combination
        _, objective, _ = self.incumbent.read()
        if cost >= objective:
            return
        roster = {(c.employee, d, s): k for c in columns for d, s, k in c.cells}
        left = math.inf if self.deadline is None else self.deadline - time.perf_counter()
        completed = complete_roster(self.compiled, roster, left / 2, self.done)
        if completed is not None and self.incumbent.offer(*completed) is not None:
            self.progress.record_roster(completed[1])
            self.from_columns = completed[1]

    def _tell(self, bound: float, source: str) -> None:
        if self.progress.raise_bound(bound, source):
            _, objective, _ = self.incumbent.read()
            if objective <= bound + 1e-6:
                self.on_proof()


def _yield_cpu(niceness: int) -> None:
    """Lower this thread's scheduling priority (Linux schedules threads one by one).

    A thread niced to 10 gets about a tenth of a core's share beside two busy ones.
    """
    # Not Linux, or not permitted: the thread runs at equal priority.
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)


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
        _Decomposer(compiled, incumbent, progress, deadline, full.stop_search)
        if plan.decomposition
        else None
    )
    searchers = [
        _Searcher(
            compiled,
            incumbent,
            progress,
            deadline,
            step_seconds(search_seconds),
            started,
            (seed + 7919 * (n + 1)) % SEED_MODULUS,
            full.stop_search,
            decomposer.guidance if decomposer is not None else None,
        )
        for n in range(plan.neighbourhood_threads)
    ]
    on_roster = _sharing_rosters(incumbent, progress)
    progress.on_roster.append(on_roster)
    try:
        status = _beside(solve_full, searchers, decomposer)
    finally:
        progress.on_roster.remove(on_roster)
    for searcher in searchers:
        if searcher.error is not None:
            raise searcher.error
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        incumbent.offer(list(full.response_proto.solution), full.objective_value)
    return _result(status, full.best_objective_bound, incumbent, progress, searchers)


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
    searchers: list[_Searcher],
    decomposer: _Decomposer | None,
) -> cp_model.CpSolverStatus:
    """The full solve, with the searchers and the decomposer in threads beside it; every
    thread has ended when this returns, however the full solve ended."""
    threads = [threading.Thread(target=s.run, daemon=True) for s in searchers]
    if decomposer is not None:
        threads.append(threading.Thread(target=decomposer.run, daemon=True))
    for thread in threads:
        thread.start()
    try:
        return solve_full()
    finally:
        for searcher in searchers:
            searcher.stop()
        if decomposer is not None:
            decomposer.done.set()
            decomposer.finished.set()
        for thread in threads:
            thread.join()


def _result(
    status: cp_model.CpSolverStatus,
    full_bound: float,
    incumbent: Incumbent,
    progress: Progress,
    searchers: list[_Searcher],
) -> SearchResult:
    """The incumbent and the best proven bound, with the source of each proof; a roster
    that meets the bound is optimal, whoever proved it."""
    solution, objective, _ = incumbent.read()
    bound, source = progress.bound, progress.bound_source
    if full_bound > bound:
        bound, source = full_bound, "cp_sat"
    if solution is None:
        bound, source = -math.inf, None
    proved = status == cp_model.OPTIMAL or any(s.proved_optimal for s in searchers)
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
    )
