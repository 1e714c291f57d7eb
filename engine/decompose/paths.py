"""The cheapest sequence of days for one employee: a shortest path, compiled.

A roster of one employee is a path through the days: each day is off or one shift. The
rules that look at neighbouring days are held exactly by the path's state, ``(what the
previous day was, how long its run has lasted, whether that run began on the first day
of the period)``:

- forbidden transitions between the shift of one day and the next;
- a run of worked days is at most ``high`` long, and at least ``low`` long unless it
  touches the first or last day of the period;
- a run of days off is at least ``rest`` long unless it touches either end.

These are the semantics of ``engine.model.consecutive_shifts``,
``engine.model.days_off_runs`` and ``engine.model.sequences`` (hard forbids). Each day
and shift has a cost, and a worked weekend (Saturday or Sunday, once per weekend) one
more, so that rules over the whole period can be priced in by multipliers
(:mod:`engine.decompose.labelling`).

The loop is compiled with numba: a year of days with a dozen shifts is about a million
state moves, which the interpreter would take a second over and the compiled loop a few
milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

START = -2  # the back pointer of a first day: nothing came before


def _cheapest_path(
    cost: npt.NDArray[np.float64],
    allowed: npt.NDArray[np.bool_],
    forbid: npt.NDArray[np.bool_],
    low: int,
    high: int,
    rest: int,
    weekend_start: npt.NDArray[np.bool_],
    weekend_second: npt.NDArray[np.bool_],
    weekend_price: float,
) -> tuple[float, npt.NDArray[np.int64]]:
    """The least total cost of a path and its choices (-1 off, else the shift).

    ``cost[d, s]``: working shift ``s`` on day ``d`` (off costs nothing);
    ``allowed[d, s]``: the option exists; ``forbid[a, b]``: ``b`` may not follow ``a``;
    ``high`` 0 means no maximum; ``weekend_start[d]``: working ``d`` works its weekend;
    ``weekend_second[d]``: working ``d`` works its weekend unless ``d - 1`` was worked.
    Returns ``(inf, [])`` when no path keeps the rules.
    """
    days, shifts = cost.shape
    work_cap = high if high > 0 else max(low, 1)
    runs = max(work_cap, max(rest, 1))
    states = (shifts + 1) * runs * 2
    value = np.full(states, np.inf)
    back = np.full((days, states), -1, np.int64)

    def index(last: int, run: int, edge: int) -> int:
        return ((last * runs) + (run - 1)) * 2 + edge

    if days == 0:
        return 0.0, np.empty(0, np.int64)
    at = index(0, 1, 1)
    value[at] = 0.0
    back[0, at] = START
    for s in range(shifts):
        if allowed[0, s]:
            at = index(s + 1, 1, 1)
            charge = cost[0, s] + (weekend_price if weekend_start[0] or weekend_second[0] else 0.0)
            value[at] = charge
            back[0, at] = START
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
            if last == 0:
                to = index(0, min(run + 1, max(rest, 1)), edge)
                ok = True
            else:
                to = index(0, 1, 0)
                ok = not (run < low and edge == 0)
            if ok and here < nxt[to]:
                nxt[to] = here
                back[d, to] = state
            # A shift.
            for s in range(shifts):
                if not allowed[d, s]:
                    continue
                if last == 0:
                    if run < rest and edge == 0:
                        continue
                    to = index(s + 1, 1, 0)
                    weekend = weekend_start[d] or weekend_second[d]
                else:
                    if forbid[last - 1, s] or (high > 0 and run + 1 > high):
                        continue
                    to = index(s + 1, min(run + 1, work_cap), edge)
                    weekend = weekend_start[d]
                charge = here + cost[d, s] + (weekend_price if weekend else 0.0)
                if charge < nxt[to]:
                    nxt[to] = charge
                    back[d, to] = state
        value = nxt
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


def cheapest_path(*args: Any) -> tuple[float, npt.NDArray[np.int64]]:
    """:func:`_cheapest_path`, compiled on first use (numba is imported only then: the
    v1 requests never price by paths, and a process that solves one pays nothing)."""
    if not _COMPILED:
        from numba import njit

        try:  # cached on disk where numba finds a writable place (next to this file...)
            compiled = njit(cache=True, nogil=True)(_cheapest_path)
        except RuntimeError:  # ...else compiled in each process (a read-only install)
            compiled = njit(nogil=True)(_cheapest_path)
        _COMPILED.append(compiled)
    result: tuple[float, npt.NDArray[np.int64]] = _COMPILED[0](*args)
    return result
