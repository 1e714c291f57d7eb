"""The moves of the local search and its acceptance, compiled.

A roster is one choice per cell (employee, day): a shift option or the day off, and on
the shift one of its duties or none. The moves:

- **cell change**: one cell to another option (or off), with a duty where it has some;
  half of those on a worked day keep it worked, on another shift;
- **swap on a date**: two employees exchange their cells of one day;
- **block swap**: two employees exchange their cells over 2 to 14 consecutive days; half
  of them are *aligned*, both employees off on the days either side, so whole runs of
  work change hands and the rules on runs (Curtois & Qu's minimum and maximum runs) hold;
- **duty change**: an assigned cell keeps its shift and holds another duty (or none).

A swap only moves a cell to an employee who has that option (shift and duty); otherwise
the move is not made. Acceptance is late acceptance hill climbing: a move is taken when
the roster stays feasible and its cost is at most the current one or the cost of
``history`` moves ago. It needs no temperature, which matters here: shortages cost
10,000 and a soft transition 40, and one temperature fits neither (measured in
benchmarks/docs/local.md).

``cells`` below is :meth:`LocalModel.cell_arrays`, ``roster`` the two arrays of the current
choice per cell (``cell_opt``: an index of ``opt_x`` or -1; ``cell_y``: an index of
``oy_var`` or -1), ``best`` the same two arrays for the best roster seen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shiftsched.solving.local.kernels import (
    OVERFLOW,
    VIOLATED,
    apply,
    evaluate_all,
    forget,
    undo,
)

CHANGE, SWAP, BLOCK, DUTY = 0, 1, 2, 3
MOVE_SHARES = (0.45, 0.25, 0.2, 0.1)  # cell change, swap, block swap, duty change
LONGEST_BLOCK = 14
SAME_SHIFT_SHARE = 0.5  # of cell changes on a worked day: another shift, not off
ALIGNED_SHARE = 0.5  # of block swaps: aligned on days both employees have off
HOT_SHARE = 0.5  # of moves: from a cell a costing term reads (shiftsched.solving.local.hot)
HOT_DRAWS = 8  # draws of a term before a random cell instead


def set_cell(cells: Any, roster: Any, c: int, opt: int, y: int, changes: Any, n: int) -> int:
    """Cell ``c`` to option ``opt`` (-1 off) holding duty literal ``y`` (-1 none): its
    variable changes are added to ``changes`` from row ``n``; the new row count."""
    opt_x, oy_var = cells[1], cells[4]
    cell_opt, cell_y = roster[0], roster[1]
    old_opt, old_y = cell_opt[c], cell_y[c]
    if old_y >= 0 and old_y != y:
        changes[n, 0], changes[n, 1] = oy_var[old_y], 0
        n += 1
    if old_opt >= 0 and old_opt != opt:
        changes[n, 0], changes[n, 1] = opt_x[old_opt], 0
        n += 1
    if opt >= 0 and opt != old_opt:
        changes[n, 0], changes[n, 1] = opt_x[opt], 1
        n += 1
    if y >= 0 and y != old_y:
        changes[n, 0], changes[n, 1] = oy_var[y], 1
        n += 1
    cell_opt[c] = opt
    cell_y[c] = y
    return n


def read_cells(m: Any, st: Any, cells: Any, roster: Any) -> None:
    """The choice per cell from the values (the decisions of a loaded roster)."""
    cell_start, opt_x, oy_start, oy_var = cells[0], cells[1], cells[3], cells[4]
    val = st[0]
    for c in range(len(cell_start) - 1):
        roster[0][c] = -1
        roster[1][c] = -1
        for i in range(cell_start[c], cell_start[c + 1]):
            if val[opt_x[i]] != 0:
                roster[0][c] = i
                for j in range(oy_start[i], oy_start[i + 1]):
                    if val[oy_var[j]] != 0:
                        roster[1][c] = j


def write_cells(m: Any, st: Any, cells: Any, roster: Any) -> None:
    """The values of the decisions from the choice per cell, and everything after them."""
    cell_start, opt_x, oy_start, oy_var = cells[0], cells[1], cells[3], cells[4]
    val = st[0]
    for c in range(len(cell_start) - 1):
        for i in range(cell_start[c], cell_start[c + 1]):
            val[opt_x[i]] = 1 if roster[0][c] == i else 0
            for j in range(oy_start[i], oy_start[i + 1]):
                val[oy_var[j]] = 1 if roster[1][c] == j else 0
    evaluate_all(m, st)


def _option_for(cells: Any, c: int, shift: int, duty: int) -> tuple[int, int]:
    """Cell ``c``'s option for ``shift`` holding ``duty`` (-1: none); (-2, -2) when the
    cell has no such option. Shift -1 is the day off, always open."""
    cell_start, opt_shift, oy_start, oy_duty = cells[0], cells[2], cells[3], cells[5]
    if shift < 0:
        return -1, -1
    for i in range(cell_start[c], cell_start[c + 1]):
        if opt_shift[i] == shift:
            if duty < 0:
                return i, -1
            for j in range(oy_start[i], oy_start[i + 1]):
                if oy_duty[j] == duty:
                    return i, j
            return -2, -2
    return -2, -2


def _choice(cells: Any, roster: Any, c: int) -> tuple[int, int]:
    """The (shift, duty) of cell ``c``: -1 for off or no duty."""
    opt = roster[0][c]
    if opt < 0:
        return -1, -1
    y = roster[1][c]
    return cells[2][opt], cells[5][y] if y >= 0 else -1


def _hot_cell(m: Any, st: Any, cells: Any, objective_row: int) -> int:
    """A cell read by a term that costs now (``shiftsched.solving.local.hot``), or -1
    when a few draws find none."""
    rv_start, rv_var, val = m[0], m[1], st[0]
    hot_start, hot_cell = cells[6], cells[7]
    first, last = rv_start[objective_row], rv_start[objective_row + 1]
    if last == first:
        return -1
    for _ in range(HOT_DRAWS):
        i = np.random.randint(0, last - first)
        count = hot_start[i + 1] - hot_start[i]
        if count > 0 and val[rv_var[first + i]] != 0:
            return int(hot_cell[hot_start[i] + np.random.randint(0, count)])
    return -1


def _plan_move(
    m: Any,
    st: Any,
    cells: Any,
    roster: Any,
    employees: int,
    days: int,
    objective_row: int,
    plan: Any,
) -> int:
    """Draw a move; its cell changes go to ``plan`` (rows of cell, option, duty literal).
    The number of changes, 0 when the draw makes no change."""
    draw = np.random.random()
    kind = CHANGE
    edge = MOVE_SHARES[0]
    if draw >= edge:
        kind = SWAP
        edge += MOVE_SHARES[1]
        if draw >= edge:
            kind = BLOCK
            edge += MOVE_SHARES[2]
            if draw >= edge:
                kind = DUTY
    c = -1
    if np.random.random() < HOT_SHARE:
        c = _hot_cell(m, st, cells, objective_row)
    if c < 0:
        c = np.random.randint(0, employees * days)
    if kind in (CHANGE, DUTY):
        return _plan_cell(cells, roster, c, kind, plan)
    if employees < 2:
        return 0
    return _plan_swap(cells, roster, employees, days, c, kind, plan)


def _plan_cell(cells: Any, roster: Any, c: int, kind: int, plan: Any) -> int:
    """A cell change or a duty change of cell ``c`` (see :func:`_plan_move`)."""
    cell_start, oy_start = cells[0], cells[3]
    first, last = cell_start[c], cell_start[c + 1]
    if last == first:
        return 0
    opt = roster[0][c]
    if kind == CHANGE and opt >= 0 and last - first >= 2 and np.random.random() < SAME_SHIFT_SHARE:
        opt = first + (opt - first + 1 + np.random.randint(0, last - first - 1)) % (
            last - first
        )  # another shift, the day stays worked: its runs stay as they are
    elif kind == CHANGE:
        opt = first + np.random.randint(0, last - first + 1) - 1
        if opt < first:
            opt = -1
    if opt < 0:
        y = -1
    else:
        duties = oy_start[opt + 1] - oy_start[opt]
        if duties == 0:
            y = -1
        else:
            y = oy_start[opt] + np.random.randint(0, duties + 1) - 1
            if y < oy_start[opt]:
                y = -1
    if opt == roster[0][c] and y == roster[1][c]:
        return 0
    plan[0, 0], plan[0, 1], plan[0, 2] = c, opt, y
    return 1


def _plan_swap(
    cells: Any, roster: Any, employees: int, days: int, c: int, kind: int, plan: Any
) -> int:
    """A swap on a date or a block swap from cell ``c`` with another employee."""
    e, d = c // days, c % days
    other = np.random.randint(0, employees - 1)
    if other >= e:
        other += 1
    length = 1
    if kind == BLOCK and np.random.random() < ALIGNED_SHARE:
        length = _aligned_block(roster, e, other, d, days)
        if length == 0:
            return 0
    elif kind == BLOCK:
        length = 2 + np.random.randint(0, LONGEST_BLOCK - 1)
        if d + length > days:
            d = max(0, days - length)
            length = days - d
    n = 0
    for day in range(d, d + length):
        a, b = e * days + day, other * days + day
        shift_a, duty_a = _choice(cells, roster, a)
        shift_b, duty_b = _choice(cells, roster, b)
        if shift_a == shift_b and duty_a == duty_b:
            continue
        opt_b, y_b = _option_for(cells, b, shift_a, duty_a)
        opt_a, y_a = _option_for(cells, a, shift_b, duty_b)
        if opt_a == -2 or opt_b == -2:
            return 0
        plan[n, 0], plan[n, 1], plan[n, 2] = a, opt_a, y_a
        plan[n + 1, 0], plan[n + 1, 1], plan[n + 1, 2] = b, opt_b, y_b
        n += 2
    return n


def _aligned_block(roster: Any, e: int, other: int, d: int, days: int) -> int:
    """The length of a block from day ``d`` that both employees have off on either side
    (or that touches an end of the period), so swapping it swaps whole runs of work and
    the rules on runs see the same runs; 0 when there is none of 2 to
    :data:`LONGEST_BLOCK` days."""
    cell_opt = roster[0]
    if d > 0 and (cell_opt[e * days + d - 1] >= 0 or cell_opt[other * days + d - 1] >= 0):
        return 0
    for t in range(d + 1, min(d + LONGEST_BLOCK, days)):
        if t == days - 1 or (cell_opt[e * days + t + 1] < 0 and cell_opt[other * days + t + 1] < 0):
            return t - d + 1
    return 0


def _apply(
    m: Any, st: Any, cells: Any, roster: Any, plan: Any, n: int, undo_plan: Any, changes: Any
) -> None:
    """Make the ``n`` changes of ``plan``, keeping what each cell was in ``undo_plan``."""
    count = 0
    for i in range(n):
        c = plan[i, 0]
        undo_plan[i, 0], undo_plan[i, 1], undo_plan[i, 2] = c, roster[0][c], roster[1][c]
        count = set_cell(cells, roster, c, plan[i, 1], plan[i, 2], changes, count)
    apply(m, st, changes, count)


def _restore(m: Any, st: Any, cells: Any, roster: Any, undo_plan: Any, n: int) -> None:
    """Take a move back: the journal when it held everything, else a full evaluation."""
    for i in range(n - 1, -1, -1):
        c = undo_plan[i, 0]
        roster[0][c] = undo_plan[i, 1]
        roster[1][c] = undo_plan[i, 2]
    if st[3][OVERFLOW] == 0:
        undo(m, st)
    else:
        write_cells(m, st, cells, roster)


def run_moves(
    m: Any,
    st: Any,
    cells: Any,
    roster: Any,
    best: Any,
    history: Any,
    employees: int,
    days: int,
    objective_row: int,
    moves: int,
    seed: int,
    best_cost: int,
) -> Any:
    """``moves`` late-acceptance steps from the current roster (feasible on entry); every
    roster accepted is feasible.

    ``history`` holds the costs of the last moves, carried from one call to the next;
    ``best`` the best roster seen, updated whenever a roster better than ``best_cost`` is
    left. Returns (best cost, current cost, moves accepted, moves evaluated).

    Crossing rosters that break rules, judged by their cost plus a weight per broken row,
    was measured and dropped: on Curtois & Qu 8 after the same time, weights of 100, 1,000
    and 10,000 gave 5,993 (never feasible again), 3,767 and 3,865, against 3,766 without.
    """
    np.random.seed(seed)
    act, counters = st[1], st[3]
    plan = np.zeros((2 * LONGEST_BLOCK, 3), np.int64)
    undo_plan = np.zeros((2 * LONGEST_BLOCK, 3), np.int64)
    changes = np.zeros((8 * LONGEST_BLOCK, 2), np.int64)
    current = act[objective_row]
    at_best = counters[VIOLATED] == 0 and current < best_cost
    if at_best:
        best_cost = act[objective_row]
    accepted = 0
    evaluated = 0
    length = len(history)
    for step in range(moves):
        n = _plan_move(m, st, cells, roster, employees, days, objective_row, plan)
        if n == 0:
            continue
        evaluated += 1
        _apply(m, st, cells, roster, plan, n, undo_plan, changes)
        cost = act[objective_row]
        slot = step % length
        take = (
            counters[OVERFLOW] == 0
            and counters[VIOLATED] == 0
            and (cost <= current or cost <= history[slot])
        )
        if not take:
            _restore(m, st, cells, roster, undo_plan, n)
        else:
            if at_best and cost > best_cost:  # leaving the best roster: keep it first
                _restore(m, st, cells, roster, undo_plan, n)
                best[0][:] = roster[0]
                best[1][:] = roster[1]
                _apply(m, st, cells, roster, plan, n, undo_plan, changes)
                at_best = False
            forget(st)
            current = cost
            accepted += 1
            if cost < best_cost:
                best_cost = cost
                at_best = True
        if current < history[slot]:
            history[slot] = current
    if at_best:
        best[0][:] = roster[0]
        best[1][:] = roster[1]
    return best_cost, current, accepted, evaluated
