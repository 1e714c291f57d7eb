"""The search's trace: every roster and every better bound, on one clock.

Both halves of the portfolio (the full-model CP-SAT solve and the neighbourhood search)
write here, from their own threads, so the lock guards every update.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ortools.sat.python import cp_model


@dataclass(frozen=True, slots=True)
class ProgressPoint:
    """One step of the search: a new roster (``objective``) or a better bound.

    ``objective`` is CP-SAT's own value of the model objective; it may exceed the
    reported objective, which prices the same decisions with every slack tight.
    """

    seconds: float  # wall time since the solve was called (model build included)
    objective: float | None  # set when a roster arrived
    bound: float  # the best proven lower bound at that moment


class Progress(cp_model.CpSolverSolutionCallback):
    """Records each roster and bound as it arrives; never raises inside the solver.

    An error is kept and re-raised after the solve (raising inside a callback would
    abort the native search). ``on_roster`` lets the portfolio see each full-model
    roster as it arrives (called under no lock, from the solver's thread). ``listener``
    sees every point of the trace as it is recorded (a command line's live progress, a
    job's progress page); it runs on the solver's threads, so it must be quick, and an
    error in it is kept like any other.
    """

    def __init__(
        self,
        listener: Callable[[ProgressPoint], None] | None = None,
        started: float | None = None,
    ) -> None:
        super().__init__()
        self._listener = listener
        self.first_solution_seconds: float | None = None
        self.solutions = 0
        self.points: list[ProgressPoint] = []
        self.error: BaseException | None = None
        self.on_roster: list[Callable[[Progress], None]] = []
        self._lock = threading.Lock()
        # The clock runs from ``started`` (the call's start: the user waits for the model
        # build and the greedy pass too), else from the search's start.
        self._started = time.perf_counter() if started is None else started
        self._clock_started = started is not None
        self._bound = -math.inf
        self.bound_source: str | None = None  # who proved the bound: cp_sat, decomposition, ...
        self._best = math.inf

    @property
    def bound(self) -> float:
        return self._bound

    def on_solution_callback(self) -> None:
        try:
            objective = self.objective_value
            self.record_roster(objective, self.best_objective_bound)
            for listener in self.on_roster:
                listener(self)
        except BaseException as exc:
            self.error = exc
            self.stop_search()

    def record_roster(self, objective: float, bound: float | None = None) -> None:
        """A roster with this model objective (from either half of the portfolio).

        Only a better roster than every one before is a point of the trace: CP-SAT
        restates the starting roster that the search already recorded, and may report
        a roster the search has already beaten.
        """
        with self._lock:
            if bound is not None and bound > self._bound:
                self._bound, self.bound_source = bound, "cp_sat"
            if objective >= self._best:
                return
            self._best = objective
            self.solutions += 1
            if self.first_solution_seconds is None:
                self.first_solution_seconds = self.seconds()
            point = ProgressPoint(self.seconds(), objective, self._bound)
            self.points.append(point)
        self._tell(point)

    def _tell(self, point: ProgressPoint) -> None:
        if self._listener is None:
            return
        try:
            self._listener(point)
        except BaseException as exc:  # re-raised after the solve, like a callback's
            self.error = exc

    def start(self) -> None:
        """Start the clock, once, unless it runs from the call's start already: the
        portfolio starts it before it records the starting roster, and the full-model
        solve's later call must not move it (the trace would run backwards)."""
        if not self._clock_started:
            self._started = time.perf_counter()
            self._clock_started = True

    def seconds(self) -> float:
        """One clock for every point (CP-SAT's wall_time would start a little later)."""
        return time.perf_counter() - self._started

    def on_bound(self, bound: float) -> None:
        """CP-SAT's best-bound callback."""
        self.raise_bound(bound, "cp_sat")

    def raise_bound(self, bound: float, source: str) -> bool:
        """A bound proven by ``source`` (CP-SAT, the decomposition, capacity); a point of
        the trace when it is better than every one before. Whether it was better."""
        try:
            with self._lock:
                if bound <= self._bound:
                    return False
                self._bound, self.bound_source = bound, source
                point = ProgressPoint(self.seconds(), None, self._bound)
                self.points.append(point)
            self._tell(point)
            return True
        except BaseException as exc:
            self.error = exc
            return False

    def finish(self, bound: float, source: str = "cp_sat") -> None:
        """The bound the search ended with (a proof of optimality closes the gap)."""
        with self._lock:
            if bound <= self._bound:
                return
            self._bound, self.bound_source = bound, source
            point = ProgressPoint(self.seconds(), None, bound)
            self.points.append(point)
        self._tell(point)
