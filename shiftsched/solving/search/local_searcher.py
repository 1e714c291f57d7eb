"""The portfolio's local search thread: compiled moves on the incumbent, traded both ways.

It reads the model into arrays (:mod:`shiftsched.solving.local`), waits for a first roster,
then runs moves in chunks of about :data:`CHUNK_SECONDS`. It shares its core with
the neighbourhood search by measured gain (:mod:`shiftsched.solving.search.turns`). Once
its rosters level off (less than :data:`PLATEAU_GAIN` of the cost removed over the last
:data:`PLATEAU_SECONDS`, or :data:`PLATEAU_SHARE` of the time searched), or once it yields
to the neighbourhood search, it sets ``levelled``, which starts the decomposition.

After each chunk it adopts a better incumbent found by another thread (CP-SAT or the
neighbourhood search), or offers its own best roster when that is better; a roster it
offers is a complete solution of the model, checked from its decisions alone, so the
others take it as it is. A model it
cannot read (:class:`shiftsched.solving.local.arrays.NotEvaluable`) leaves the thread idle.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from shiftsched.solving.local.arrays import NotEvaluable, local_model
from shiftsched.solving.local.search import LocalSearch
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.incumbent import Incumbent
from shiftsched.solving.search.progress import Progress
from shiftsched.solving.search.turns import Turns

NAME = "local"  # in the portfolio's Turns

log = logging.getLogger(__name__)

WAIT_FOR_ROSTER_SECONDS = 0.05
CHUNK_SECONDS = 0.1  # between two looks at the incumbent and the stop
FIRST_CHUNK_MOVES = 2_000
PLATEAU_SECONDS = 1.0  # over the last this many seconds (or ...
PLATEAU_SHARE = 0.2  # ... this share of the time searched, if longer) ...
PLATEAU_GAIN = 0.01  # ... the best roster improved by less than this: they level off


@dataclass
class LocalSearcher:
    compiled: CompiledModel
    incumbent: Incumbent
    progress: Progress
    deadline: float | None
    seed: int
    stop_full: Callable[[], None]
    turns: Turns | None = None
    levelled: threading.Event = field(default_factory=threading.Event)  # set on the plateau
    done: threading.Event = field(default_factory=threading.Event)
    proved_optimal: bool = False
    moves: int = 0
    evaluated: int = 0
    improvements: int = 0
    error: BaseException | None = None

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # re-raised by the caller after the join
            self.error = exc
            self.stop_full()
        finally:
            self.levelled.set()  # whatever ended the search, the others may start

    def stop(self) -> None:
        self.done.set()

    def _left(self) -> float:
        return math.inf if self.deadline is None else self.deadline - time.perf_counter()

    def _run(self) -> None:
        try:
            model = local_model(self.compiled)
        except NotEvaluable as exc:
            log.info("local search off: %s", exc)
            return
        solution, objective, seen = self.incumbent.read()
        while solution is None:
            if self.done.wait(WAIT_FOR_ROSTER_SECONDS) or self._left() <= 0:
                return
            solution, objective, seen = self.incumbent.read()
        search = LocalSearch(model, solution, self.seed)
        moves = FIRST_CHUNK_MOVES
        started = time.perf_counter()
        # Cumulative gains (cost removed) by this search's moves and by the rosters it
        # adopted from the others, one point per chunk: they decide its share of a core.
        trace = [(started, 0, 0)]
        own = adopted = 0
        while not self.done.is_set() and self._left() > 0.02:
            began = time.perf_counter()
            before = search.best_cost
            chunk = search.run(moves)
            spent = time.perf_counter() - began
            own += before - chunk.best
            self.moves += moves
            self.evaluated += chunk.evaluated
            moves = max(FIRST_CHUNK_MOVES, int(moves * CHUNK_SECONDS / max(spent, 1e-4)))
            moves = min(moves, 4 * FIRST_CHUNK_MOVES * 1000)
            solution, objective, version = self.incumbent.read()
            if version != seen and solution is not None and objective < search.best_cost:
                adopted += search.best_cost - int(objective)
                search.load(solution)  # another thread's roster is better: carry on from it
                seen = version
            elif search.best_cost < objective:
                roster = search.best_solution()
                if roster is not None:
                    taken = self.incumbent.offer(*roster)
                    if taken is not None:
                        seen = taken
                        self.improvements += 1
                        self.progress.record_roster(roster[1])
            if search.best_cost <= self.progress.bound + 1e-6:
                self.proved_optimal = True
                self.stop_full()
                return
            now = time.perf_counter()
            trace.append((now, own, adopted))
            mine, _ = _recent(trace, started, now)
            pause = 0.0
            if self.turns is not None:
                self.turns.record(NAME, spent, before - chunk.best)
                pause = self.turns.pause(NAME, spent)
            if (
                not self.levelled.is_set()
                and mine is not None
                and (mine <= PLATEAU_GAIN * abs(search.best_cost) or pause > 0)
            ):
                self.levelled.set()
            if pause > 0 and self.done.wait(pause):  # the others gain more: make room
                break


def _recent(
    trace: list[tuple[float, int, int]], started: float, now: float
) -> tuple[int | None, int]:
    """The gains of the last window (:data:`PLATEAU_SECONDS`, or :data:`PLATEAU_SHARE` of
    the time searched): by the moves and by adoption; (None, 0) before a window has passed."""
    window = max(PLATEAU_SECONDS, PLATEAU_SHARE * (now - started))
    if now - started < window:
        return None, 0
    _, own, adopted = next(point for point in reversed(trace) if point[0] <= now - window)
    return trace[-1][1] - own, trace[-1][2] - adopted
