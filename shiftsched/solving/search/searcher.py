"""The portfolio's neighbourhood search thread: it waits for a first roster, then steps
the search (:mod:`shiftsched.solving.search.lns`), adopting each better incumbent the full
solve finds and offering each improvement it finds, until the solve ends or a proof."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.incumbent import Guidance, Incumbent
from shiftsched.solving.search.lns import NeighbourhoodSearch, StepLimits
from shiftsched.solving.search.plan import step_limit
from shiftsched.solving.search.progress import Progress
from shiftsched.solving.search.turns import Turns

WAIT_FOR_ROSTER_SECONDS = 0.05
NAME = "neighbourhood"  # in the portfolio's Turns


@dataclass
class Searcher:
    compiled: CompiledModel
    incumbent: Incumbent
    progress: Progress
    deadline: float | None
    step_seconds: float  # the longest a sub-solve may run
    started: float  # when the search began (perf_counter)
    seed: int
    stop_full: Callable[[], None]
    guidance: Guidance | None = None
    turns: Turns | None = None  # shared with the local search: who gets the core
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
            before, began = lns.objective, time.perf_counter()
            step = lns.step(StepLimits(seconds=seconds))
            self.steps += 1
            spent = time.perf_counter() - began
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
            if self.turns is not None:  # the local search gains more: make room
                self.turns.record(NAME, spent, before - lns.objective)
                pause = self.turns.pause(NAME, spent)
                if pause > 0 and self.done.wait(min(pause, max(0.0, self._left()))):
                    break
