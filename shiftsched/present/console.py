"""What the command line shows people on stderr: live progress, a summary, the faults.

stdout carries only the result (JSON, or a roster table); everything for the person at
the terminal goes to stderr through here, so ``solve REQ > roster.json`` still shows
what happened.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console

from shiftsched.contract.v1 import SolveRequest, SolveResponse
from shiftsched.errors import FieldError, dotted
from shiftsched.present.advice import no_roster_advice
from shiftsched.present.words import many, many_or_none
from shiftsched.solving.search.progress import ProgressPoint

TICK_SECONDS = 1.0  # how often the live progress line is refreshed


def fault_lines(errors: Sequence[FieldError]) -> list[str]:
    """One line per fault: ``employees[2].favourite_colour: unknown property (code)``."""
    return [f"{dotted(e.path)}: {e.message} ({e.code})" for e in errors]


def number(value: float) -> str:
    """``1,350`` for a whole figure, ``12.50`` otherwise."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _gap(objective: float, bound: float) -> float | None:
    if objective <= 0 or bound == float("-inf"):
        return None
    return max(0.0, (objective - bound) / objective)


class LiveProgress:
    """The search's best roster and bound, shown about once a second.

    On a terminal the line is redrawn in place; otherwise (``--progress`` into a file or
    pipe) one plain line is written per tick. Fed from the solver's threads through
    :meth:`update` (``SolveLimits.on_progress``), drawn from a thread of its own.
    """

    def __init__(self, err: TextIO, time_limit: float | None) -> None:
        self._console = Console(file=err, highlight=False, soft_wrap=True)
        self._time_limit = time_limit
        self._started = time.perf_counter()
        self._objective: float | None = None
        self._bound = float("-inf")
        self._lock = threading.Lock()
        self._done = threading.Event()

    def update(self, point: ProgressPoint) -> None:
        with self._lock:
            if point.objective is not None:
                self._objective = point.objective
            self._bound = max(self._bound, point.bound)

    def line(self) -> str:
        with self._lock:
            objective, bound = self._objective, self._bound
        elapsed = time.perf_counter() - self._started
        limit = f" of {self._time_limit:g} s" if self._time_limit else " s"
        text = f"solving {elapsed:5.0f}{limit}"
        if objective is None:
            return text + "  no roster yet"
        text += f"  best {number(objective)}"
        if bound != float("-inf"):
            bound = max(0.0, bound)  # every penalty is non-negative: below 0 says nothing
            text += f"  bound {number(bound)}"
        gap = _gap(objective, bound)
        if gap is not None:
            text += f"  gap {gap:.1%}"
        return text

    @contextmanager
    def shown(self) -> Iterator[LiveProgress]:
        """Show the progress while the block runs."""
        if self._console.is_terminal:
            with (
                self._console.status(self.line()) as status,
                self._ticking(lambda: status.update(self.line())),
            ):
                yield self
        else:
            with self._ticking(lambda: self._console.print(self.line())):
                yield self

    @contextmanager
    def _ticking(self, draw: Callable[[], None]) -> Iterator[None]:
        def tick() -> None:
            while not self._done.wait(TICK_SECONDS):
                draw()

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            yield
        finally:
            self._done.set()
            ticker.join()


def summary(request: SolveRequest, response: SolveResponse, time_limit: float | None = None) -> str:
    """One line for people: how the solve ended and what the roster costs (within 100
    columns for any figure below a billion: the roster itself is on stdout)."""
    days = (request.schedule_period.end_date - request.schedule_period.start_date).days + 1
    size = f"{many(len(request.employees), 'employee')} x {many(days, 'day')}"
    if response.solution is None:
        error = response.error
        code = error.code if error else "failed"
        message = f": {error.message}" if error and error.message else ""
        advice = ""
        if error and error.diagnosis and error.diagnosis.causes:
            advice = f"; first cause: {error.diagnosis.causes[0].message}"
        elif code == "solver_timeout":
            advice = ". " + no_roster_advice("timeout", None, time_limit)
        return f"no roster ({code}){message}{advice} [{size}]"
    solution = response.solution
    metrics = solution.metrics
    parts = [f"{metrics.status or 'feasible'} roster"]
    if metrics.objective_value is not None:
        parts.append(f"objective {number(metrics.objective_value)}")
    if metrics.gap is not None:  # the gap says how far the bound is: one of them fits
        parts.append(f"gap {metrics.gap:.1%}")
    elif metrics.best_bound is not None:
        parts.append(f"bound {number(metrics.best_bound)}")
    parts.append(many_or_none(len(solution.shortages), "shortage"))
    parts.append(f"{size}, {metrics.solver_runtime_seconds:.1f} s")
    return ", ".join(parts)
