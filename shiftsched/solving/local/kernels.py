"""Incremental evaluation of the model's rows, compiled: a change of one variable reaches
only the rows that read it, and the definitions those rows feed.

Plain functions over the arrays of :class:`shiftsched.solving.local.arrays.LocalModel` and
a state (values, row activities, violation flags), compiled with numba by
:mod:`shiftsched.solving.local.compiled`. Every change is written to a journal first, so
a rejected move is undone in the time it took, never by evaluating again.

``m`` below is the model's :meth:`LocalModel.kernel_arrays` tuple and ``st`` the state's
:meth:`LocalState.arrays` tuple; both are unpacked by constant index, which numba
compiles to plain loads.

The state's ``counters``: 0 rows violated, 1 value entries, 2 activity entries, 3 flag
entries in the journal, 5 the journal overflowed (4 is unused).
"""

from __future__ import annotations

from typing import Any

import numpy as np

VIOLATED, VALUES, ACTIVITIES, FLAGS, OVERFLOW = 0, 1, 2, 3, 5
LOWER = 1  # row kind of a definition's lower bound (arrays.LOWER)


def row_violated(m: Any, st: Any, r: int) -> bool:
    """Whether constraint row ``r`` is broken: enforced, and its activity out of bounds."""
    en_start, en_lit = m[11], m[12]
    val, act = st[0], st[1]
    for i in range(en_start[r], en_start[r + 1]):
        lit = en_lit[i]
        value = val[lit >> 1]
        if (lit & 1) == 0 and value == 0:
            return False
        if (lit & 1) == 1 and value != 0:
            return False
    return bool(act[r] < m[7][r] or act[r] > m[8][r])


def apply(m: Any, st: Any, changes: Any, n: int) -> None:
    """Set the ``n`` variables of ``changes`` (rows of variable, value) and bring the
    rest of the state along, journaling every change.

    One loop, no calls in its body: each changed variable updates the rows that read it;
    a definition any of those rows bounds is queued, and recomputed once the direct
    changes are made (its value is the least its rows allow, so a definition recomputed
    after its last input changed is right whatever the order). Constraint rows touched
    are rechecked once, at the end.
    """
    vr_start, vr_row, vr_coef, row_kind, row_def = m[3], m[4], m[5], m[9], m[10]
    ve_start, ve_row = m[13], m[14]
    def_var, def_div, dl_start, dl_row = m[15], m[16], m[17], m[18]
    val, act, counters = st[0], st[1], st[3]
    jv_var, jv_old, jr_row, jr_old = st[4], st[5], st[6], st[7]
    pending, stack, touched, marked = st[10], st[11], st[12], st[13]
    capacity = len(jv_var)
    queued = 0
    waiting = 0
    checks = 0
    while True:
        if queued < n:
            v = changes[queued, 0]
            new = changes[queued, 1]
            queued += 1
        elif waiting > 0:
            waiting -= 1
            j = stack[waiting]
            pending[j] = 0
            v = def_var[j]
            divisor = def_div[j]
            new = 0
            for i in range(dl_start[j], dl_start[j + 1]):
                bound = -((-act[dl_row[i]]) // divisor)
                if bound > new:
                    new = bound
        else:
            break
        delta = new - val[v]
        if delta == 0:
            continue
        k = counters[VALUES]
        if k < capacity:
            jv_var[k] = v
            jv_old[k] = val[v]
            counters[VALUES] = k + 1
        else:
            counters[OVERFLOW] = 1
        val[v] = new
        for i in range(vr_start[v], vr_start[v + 1]):
            r = vr_row[i]
            k = counters[ACTIVITIES]
            if k < capacity:
                jr_row[k] = r
                jr_old[k] = act[r]
                counters[ACTIVITIES] = k + 1
            else:
                counters[OVERFLOW] = 1
            act[r] += vr_coef[i] * delta
            kind = row_kind[r]
            if kind == 0:
                if marked[r] == 0 and checks < len(touched):
                    marked[r] = 1
                    touched[checks] = r
                    checks += 1
            elif kind == LOWER:
                j = row_def[r]
                if pending[j] == 0:
                    pending[j] = 1
                    stack[waiting] = j
                    waiting += 1
        for i in range(ve_start[v], ve_start[v + 1]):
            r = ve_row[i]
            if marked[r] == 0 and checks < len(touched):
                marked[r] = 1
                touched[checks] = r
                checks += 1
    if checks == len(touched):
        counters[OVERFLOW] = 1
    _recheck(m, st, checks)


def _recheck(m: Any, st: Any, checks: int) -> None:
    """Recheck the first ``checks`` rows :func:`apply` touched, journaling each flag."""
    row_lo, row_hi, en_start, en_lit = m[7], m[8], m[11], m[12]
    val, act, viol, counters = st[0], st[1], st[2], st[3]
    jx_row, jx_old, touched, marked = st[8], st[9], st[12], st[13]
    capacity = len(jx_row)
    for t in range(checks):
        r = touched[t]
        marked[r] = 0
        now = 1 if act[r] < row_lo[r] or act[r] > row_hi[r] else 0
        if now == 1:
            for i in range(en_start[r], en_start[r + 1]):
                lit = en_lit[i]
                if ((lit & 1) == 0) == (val[lit >> 1] == 0):
                    now = 0
                    break
        if now != viol[r]:
            k = counters[FLAGS]
            if k < capacity:
                jx_row[k] = r
                jx_old[k] = viol[r]
                counters[FLAGS] = k + 1
            else:
                counters[OVERFLOW] = 1
            counters[VIOLATED] += now - viol[r]
            viol[r] = now


def undo(m: Any, st: Any) -> None:
    """Restore the state the journal started from (flags, activities, values)."""
    val, act, viol, counters = st[0], st[1], st[2], st[3]
    jv_var, jv_old, jr_row, jr_old, jx_row, jx_old = st[4], st[5], st[6], st[7], st[8], st[9]
    for k in range(counters[FLAGS] - 1, -1, -1):
        r = jx_row[k]
        counters[VIOLATED] += jx_old[k] - viol[r]
        viol[r] = jx_old[k]
    for k in range(counters[ACTIVITIES] - 1, -1, -1):
        act[jr_row[k]] = jr_old[k]
    for k in range(counters[VALUES] - 1, -1, -1):
        val[jv_var[k]] = jv_old[k]
    forget(st)


def forget(st: Any) -> None:
    """Keep the state as it is: empty the journal."""
    counters = st[3]
    counters[VALUES] = 0
    counters[ACTIVITIES] = 0
    counters[FLAGS] = 0
    counters[OVERFLOW] = 0


def least(m: Any, act: Any, j: int) -> int:
    """Definition ``j``'s value: ``max(0, ceil(lower / divisor))`` over its lower rows."""
    def_div, dl_start, dl_row = m[16], m[17], m[18]
    divisor = def_div[j]
    best = 0
    for i in range(dl_start[j], dl_start[j + 1]):
        value = -((-act[dl_row[i]]) // divisor)
        if value > best:
            best = value
    return int(best)


def _activity(m: Any, val: Any, r: int) -> int:
    rv_start, rv_var, rv_coef, row_offset = m[0], m[1], m[2], m[6]
    total = row_offset[r]
    for i in range(rv_start[r], rv_start[r + 1]):
        total += rv_coef[i] * val[rv_var[i]]
    return int(total)


def evaluate_all(m: Any, st: Any) -> None:
    """Every definition, activity and flag from the decisions in the values alone."""
    def_var, dl_start, dl_row = m[15], m[17], m[18]
    val, act, viol, counters = st[0], st[1], st[2], st[3]
    for j in range(len(def_var)):
        for i in range(dl_start[j], dl_start[j + 1]):
            r = dl_row[i]
            act[r] = _activity(m, val, r)
        val[def_var[j]] = least(m, act, j)
    violated = 0
    row_kind = m[9]
    for r in range(len(act)):
        act[r] = _activity(m, val, r)
    for r in range(len(act)):
        viol[r] = 0
        if row_kind[r] == 0 and row_violated(m, st, r):
            viol[r] = 1
            violated += 1
    counters[VIOLATED] = violated
    forget(st)


def new_state(variables: int, rows: int, definitions: int, journal: int) -> tuple[Any, ...]:
    """Empty state arrays: values, activities, flags, counters, the journal (values,
    activities, flags), the definitions pending, the rows to recheck."""
    return (
        np.zeros(variables, np.int64),
        np.zeros(rows, np.int64),
        np.zeros(rows, np.int64),
        np.zeros(6, np.int64),
        np.zeros(journal, np.int64),
        np.zeros(journal, np.int64),
        np.zeros(journal, np.int64),
        np.zeros(journal, np.int64),
        np.zeros(journal, np.int64),
        np.zeros(journal, np.int64),
        np.zeros(max(1, definitions), np.int64),
        np.zeros(max(1, definitions), np.int64),
        np.zeros(min(rows, journal) + 1, np.int64),
        np.zeros(rows, np.int64),
    )
