"""What the portfolio's threads share: the incumbent, the decomposition's guidance to
the search, and the result the portfolio returns."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from ortools.sat.python import cp_model


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
    bound_source: str | None = None  # cp_sat, decomposition, lagrangian or capacity
    local_moves: int = 0  # moves the local search evaluated
    local_improvements: int = 0  # its rosters the incumbent took
    stopped_by: str | None = None  # set by a search limited by work (search.deterministic)
