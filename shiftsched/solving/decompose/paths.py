"""The cheapest sequence of days for one employee: a shortest path, compiled.

A roster of one employee is a path through the days: each day is off or one shift. The
rules that look at neighbouring days are held exactly by the path's state, ``(what the
previous day was, how long its run has lasted, whether that run began on the first day
of the period)``:

- transitions between the shift (or day off) of one day and the next: forbidden, or
  charged per occurrence (soft forbids and requires);
- a run of worked days is at most ``high`` long, and at least ``low`` long unless it
  touches the first or last day of the period; a day that makes a run ``r`` long may
  cost (the soft cap on consecutive days charges each run's days from the cap on);
- a run of days off is at least ``rest`` long unless it touches either end;
- a day may have to be worked (a fixed assignment).

These are the semantics of ``shiftsched.solving.model.consecutive_shifts``,
``shiftsched.solving.model.days_off_runs`` and ``shiftsched.solving.model.sequences``. Each day and
shift has a cost, and a worked weekend (Saturday or Sunday, once per weekend) one more, so that
rules over the whole period or a week or month can be priced in by multipliers
(:mod:`shiftsched.solving.decompose.labelling`).

The loop is compiled with numba: a year of days with a dozen shifts is about a million
state moves, which the interpreter would take a second over and the compiled loop a few
milliseconds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

START = -2  # the back pointer of a first day: nothing came before


def _state(last: int, run: int, edge: int, runs: int) -> int:
    """The index of a state: what the day was (0 off, ``s + 1`` shift ``s``), how long
    its run has lasted (1 to ``runs``) and whether that run began on the first day."""
    return ((last * runs) + (run - 1)) * 2 + edge


def _cheapest_path(
    cost: npt.NDArray[np.float64],
    allowed: npt.NDArray[np.bool_],
    must_work: npt.NDArray[np.bool_],
    step: npt.NDArray[np.float64],
    run_cost: npt.NDArray[np.float64],
    low: int,
    high: int,
    rest: int,
    weekend_start: npt.NDArray[np.bool_],
    weekend_second: npt.NDArray[np.bool_],
    weekend_price: float,
) -> tuple[float, npt.NDArray[np.int64]]:
    """The least total cost of a path and its choices (-1 off, else the shift).

    ``cost[d, s]``: working shift ``s`` on day ``d`` (off costs nothing);
    ``allowed[d, s]``: the option exists; ``must_work[d]``: day ``d`` may not be off;
    ``step[a, b]``: what ``b`` costs after ``a`` on the day before, where 0 is a day off
    and ``s + 1`` shift ``s`` (``inf``: ``b`` may not follow ``a``);
    ``run_cost[r]``: a worked day that makes its run ``r`` long (index ``high`` and
    beyond: the last entry); ``high`` 0 means no maximum; ``weekend_start[d]``:
    working ``d`` works its weekend; ``weekend_second[d]``: working ``d`` works its
    weekend unless ``d - 1`` was worked. Returns ``(inf, [])`` when no path keeps the
    rules. The day-by-day loop stays whole here, where the compiler sees all of it.
    """
    days, shifts = cost.shape
    if days == 0:
        return 0.0, np.empty(0, np.int64)
    work_cap = high if high > 0 else max(low, 1)
    runs = max(work_cap, max(rest, 1))
    value, back = _first_day(
        cost, allowed, must_work, run_cost, weekend_start, weekend_second, weekend_price, runs
    )
    states = len(value)
    last_run = len(run_cost) - 1
    for d in range(1, days):
        nxt = np.full(states, np.inf)
        for state in range(states):
            here = value[state]
            if here == np.inf:
                continue
            edge = state % 2
            run = (state // 2) % runs + 1
            last = state // (2 * runs)
            # A day off.
            if not must_work[d]:
                if last == 0:
                    to = _state(0, min(run + 1, max(rest, 1)), edge, runs)
                    ok = True
                else:
                    to = _state(0, 1, 0, runs)
                    ok = not (run < low and edge == 0)
                charge = here + step[last, 0]
                if ok and charge < nxt[to]:
                    nxt[to] = charge
                    back[d, to] = state
            # A shift.
            for s in range(shifts):
                if not allowed[d, s] or step[last, s + 1] == np.inf:
                    continue
                if last == 0:
                    if run < rest and edge == 0:
                        continue
                    length = 1
                    to = _state(s + 1, 1, 0, runs)
                    weekend = weekend_start[d] or weekend_second[d]
                else:
                    if high > 0 and run + 1 > high:
                        continue
                    length = run + 1
                    to = _state(s + 1, min(run + 1, work_cap), edge, runs)
                    weekend = weekend_start[d]
                charge = here + step[last, s + 1] + cost[d, s] + run_cost[min(length, last_run)]
                if weekend:
                    charge += weekend_price
                if charge < nxt[to]:
                    nxt[to] = charge
                    back[d, to] = state
        value = nxt
    return _backtrack(value, back, runs)


def _first_day(
    cost: npt.NDArray[np.float64],
    allowed: npt.NDArray[np.bool_],
    must_work: npt.NDArray[np.bool_],
    run_cost: npt.NDArray[np.float64],
    weekend_start: npt.NDArray[np.bool_],
    weekend_second: npt.NDArray[np.bool_],
    weekend_price: float,
    runs: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The value of each state after the first day (``inf``: unreachable) and the table
    of back pointers, the first day's filled in."""
    days, shifts = cost.shape
    states = (shifts + 1) * runs * 2
    value = np.full(states, np.inf)
    back = np.full((days, states), -1, np.int64)
    last_run = len(run_cost) - 1
    if not must_work[0]:
        at = _state(0, 1, 1, runs)
        value[at] = 0.0
        back[0, at] = START
    for s in range(shifts):
        if allowed[0, s]:
            at = _state(s + 1, 1, 1, runs)
            charge = cost[0, s] + run_cost[min(1, last_run)]
            if weekend_start[0] or weekend_second[0]:
                charge += weekend_price
            value[at] = charge
            back[0, at] = START
    return value, back


def _backtrack(
    value: npt.NDArray[np.float64], back: npt.NDArray[np.int64], runs: int
) -> tuple[float, npt.NDArray[np.int64]]:
    """The cheapest final state's cost and the choices that lead to it, read back from
    the last day; ``(inf, [])`` when no state was reached."""
    days = back.shape[0]
    best = int(np.argmin(value))
    if value[best] == np.inf:
        return np.inf, np.empty(0, np.int64)
    choices = np.empty(days, np.int64)
    state = best
    for d in range(days - 1, -1, -1):
        choices[d] = state // (2 * runs) - 1
        state = int(back[d, state])
    return value[best], choices


_COMPILED: list[Callable[..., Any]] = []  # the compiled loop, once built
_COMPILING = threading.Lock()


def compiled() -> bool:
    """Whether this process has the compiled loop already (compiling it takes about a
    second, two on a busy machine, and cannot be interrupted)."""
    return bool(_COMPILED)


def cheapest_path(*args: Any) -> tuple[float, npt.NDArray[np.int64]]:
    """:func:`_cheapest_path`, compiled on first use (numba is imported only then: a
    process that never prices by paths pays nothing for it)."""
    if not _COMPILED:
        with _COMPILING:  # once per process, whichever thread prices first
            if not _COMPILED:
                _COMPILED.append(_compile())
    result: tuple[float, npt.NDArray[np.int64]] = _COMPILED[0](*args)
    return result


def _compile() -> Callable[..., Any]:
    """The loop for numba, its helpers inlined where they are called: the compiled code
    is what it was as one function (measured: no slower on Curtois & Qu 12 and 24)."""
    from numba import njit
    from numba.extending import register_jitable

    register_jitable(inline="always")(_state)
    register_jitable(inline="always")(_first_day)
    register_jitable(inline="always")(_backtrack)
    try:  # cached on disk where numba finds a writable place (next to this file...)
        return njit(cache=True, nogil=True)(_cheapest_path)
    except RuntimeError:  # ...else compiled in each process (a read-only install)
        return njit(nogil=True)(_cheapest_path)
