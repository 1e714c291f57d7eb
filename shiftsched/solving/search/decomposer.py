"""The portfolio's decomposition thread: column generation beside the search.

It raises the shared bound (capacity first, then each round's Lagrangian bound), prices
the incumbent's rows at the master LP's duals to guide the search, and builds a roster
from its columns when that beats the incumbent. It runs at most a share of the time
limit (:data:`DECOMPOSITION_SHARE`) and steps back (a lower priority) when it cannot
converge in time. When a round by paths is slow (the master LP: year-long requests),
it leaves the LP and raises the bound by subgradient instead
(:mod:`shiftsched.solving.decompose.lagrangian`).
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

from shiftsched.solving.decompose import ColumnGeneration
from shiftsched.solving.decompose.lagrangian import Lagrangian
from shiftsched.solving.decompose.paths import compiled as paths_compiled
from shiftsched.solving.decompose.pricing import Column
from shiftsched.solving.decompose.restricted import best_combination
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.completion import complete_roster
from shiftsched.solving.search.incumbent import Guidance, Incumbent
from shiftsched.solving.search.progress import Progress

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
# A round by paths prices in milliseconds, so one this slow is the master LP's. On a long
# horizon the subgradient takes over from it (benchmarks/docs/lagrangian.md, single runs
# of each alone): Curtois & Qu 22 (364 days) passed a second at its 11th round and its
# bound was still below zero at 300 s, the subgradient's 88 % of the best known; on 19
# (84 days) the two came within 1 % of each other; on 13 (28 days) the column generation
# converged and proved 99 % at 300 s, the subgradient stalled at 28 %.
SLOW_ROUND = 1.0
LONG_HORIZON = 85  # days


class _SlowMaster(Exception):
    """Ends the column generation's loop: the subgradient takes over."""


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Decisions:
    """The model's shift and duty decisions: their indices and keys, in one order."""

    shift_indices: np.ndarray
    cells: list[tuple[int, int, int]]
    duty_indices: np.ndarray
    duties: list[tuple[int, int, int, int]]


@dataclass
class Decomposer:
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
    _round_began: float | None = None
    _started: float = field(default_factory=time.perf_counter)

    def run(self) -> None:
        self._started = time.perf_counter()
        try:
            generation = ColumnGeneration(self.compiled.problem)
            self._tell(generation.capacity_bound(), "capacity")
            if generation.by_paths and not paths_compiled() and self.done.wait(COMPILE_GRACE):
                return  # the search ended first: nothing to compile for
            try:
                result = generation.run(
                    deadline=self.deadline,
                    stop=self.done,
                    on_bound=lambda bound: self._tell(bound, "decomposition"),
                    before_round=lambda: self._before_round(generation),
                )
            except _SlowMaster:
                self._subgradient()
            else:
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
        now = time.perf_counter()
        began, self._round_began = self._round_began, now
        slow = began is not None and now - began > SLOW_ROUND and not generation.exact
        slow = slow and self.compiled.problem.num_days >= LONG_HORIZON
        if slow and self.deadline is not None and not self.done.is_set():
            raise _SlowMaster
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
        on what the search leaves (benchmarks/docs/certificate.md,
        "In the portfolio (2 cores, 2 workers, 60 s, single runs)").

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

    def _subgradient(self) -> None:
        """The Lagrangian bound by subgradient, within the decomposition's share of the
        time limit (its Python holds the interpreter lock as the LP's did)."""
        assert self.deadline is not None
        share = self._started + DECOMPOSITION_SHARE * (self.deadline - self._started)
        Lagrangian(self.compiled.problem).run(
            deadline=min(self.deadline, share),
            stop=self.done,
            on_bound=lambda bound: self._tell(bound, "lagrangian"),
        )

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
