"""A move's incremental change agrees with two full judgements, and its undo is exact.

A random feasible roster (the greedy start, then a random number of moves of the search
with a random seed) gets one random move of each kind the search makes (cell change,
swap on a date, block swap, duty change), made by the search's own plain functions
(``moves._apply`` over ``kernels.apply``, uncompiled) on a state fully evaluated from the
roster. Then:

- the change of the objective row is the difference of the judge's objectives (the v1
  audit, or the Curtois & Qu checker) of the roster before and after;
- no row is broken exactly when the judge finds no broken hard rule after the move;
- the incremental state equals a full evaluation of the moved roster, value by value;
- ``moves._restore`` gives back the state (values, activities, flags, counters) and the
  roster exactly.

The draws pick the cells; where a drawn swap cannot be made (an employee lacks the
other's shift or duty), the next pair of employees and the next dates are tried, in a
fixed order, so an example makes a move of its kind whenever the roster admits one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from shiftsched.solving.local import moves
from shiftsched.solving.local.arrays import LocalModel
from shiftsched.solving.local.kernels import VIOLATED
from shiftsched.solving.local.search import LocalSearch
from tests.solving.local.cases import CURTOIS, HISTORY, SYNTHETIC, Roster, case, evaluated

pytestmark = pytest.mark.slow  # many searches, moves made in plain Python

KINDS = ("change", "swap", "block", "duty")
# Models small enough for plain Python: every family mix, a history and Curtois & Qu.
SUBJECTS = (
    *SYNTHETIC,
    *HISTORY,
    "dataset-retail_weekdays",
    "dataset-call_centre_duties",
    "dataset-ward_24_7",
    *CURTOIS,
)
WITH_DUTIES = tuple(
    label
    for label in SUBJECTS
    if label.startswith(("synthetic", "history", "dataset-call"))
    and not label.endswith("no-duties")
)
Plan = list[tuple[int, int, int]]  # (cell, option or -1, duty literal or -1)


@dataclass(frozen=True)
class Draws:
    """Where the move starts: employee, day, other employee, option, duty, block length."""

    employee: int
    day: int
    other: int
    option: int
    duty: int
    length: int


def _cells(local: LocalModel, draws: Draws) -> Iterator[tuple[int, int]]:
    """Every cell (employee, day), from the drawn one on."""
    employees, days = local.employees, local.days
    for i in range(employees * days):
        flat = (draws.employee * days + draws.day + i) % (employees * days)
        yield divmod(flat, days)


def _change(local: LocalModel, roster: Roster, draws: Draws, *, duty_only: bool) -> Plan | None:
    """One cell to another option (or off) and duty; a duty change keeps the shift."""
    for e, d in _cells(local, draws):
        c = e * local.days + d
        first, last = int(local.cell_start[c]), int(local.cell_start[c + 1])
        if duty_only:
            options = [int(roster[0][c])] if roster[0][c] >= 0 else []
        else:
            options = [-1, *range(first, last)]
        choices = []
        for opt in options:
            duties = [] if opt < 0 else range(local.oy_start[opt], local.oy_start[opt + 1])
            choices += [(opt, y) for y in (-1, *duties)]
        choices = [(o, y) for o, y in choices if (o, y) != (roster[0][c], roster[1][c])]
        if choices:
            opt, y = choices[(draws.option * 7 + draws.duty) % len(choices)]
            return [(c, opt, y)]
    return None


def _swap(local: LocalModel, roster: Roster, draws: Draws, length: int) -> Plan | None:
    """Two employees exchange their cells over ``length`` days (1: a swap on a date)."""
    cells, employees, days = local.cell_arrays(), local.employees, local.days
    length = min(length, days)
    for e, d in _cells(local, draws):
        d = min(d, days - length)
        for k in range(employees - 1):
            other = (e + 1 + (draws.other + k) % (employees - 1)) % employees
            plan: Plan = []
            for day in range(d, d + length):
                a, b = e * days + day, other * days + day
                choice_a = moves._choice(cells, roster, a)
                choice_b = moves._choice(cells, roster, b)
                if choice_a == choice_b:
                    continue
                opt_b, y_b = moves._option_for(cells, b, *choice_a)
                opt_a, y_a = moves._option_for(cells, a, *choice_b)
                if opt_a == -2 or opt_b == -2:
                    plan = []
                    break
                plan += [(a, opt_a, y_a), (b, opt_b, y_b)]
            if plan:
                return plan
    return None


def planned(local: LocalModel, roster: Roster, kind: str, draws: Draws) -> Plan | None:
    if kind in ("change", "duty"):
        return _change(local, roster, draws, duty_only=kind == "duty")
    length = 1 if kind == "swap" else 2 + draws.length % (moves.LONGEST_BLOCK - 1)
    return _swap(local, roster, draws, length)


def draws() -> st.SearchStrategy[Draws]:
    small = st.integers(0, 1_000)
    return st.builds(Draws, small, small, small, small, small, small)


def _same(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...], what: str) -> None:
    for name, index in (("values", 0), ("activities", 1), ("flags", 2)):
        changed = np.flatnonzero(a[index] != b[index])
        assert changed.size == 0, f"{what}: {name} differ at {changed[:10].tolist()}"
    assert a[3][VIOLATED] == b[3][VIOLATED], what


def moved(local: LocalModel, values: list[int], plan: Plan) -> list[int]:
    """The roster of ``values`` with the plan's cells set, written from the plan alone."""
    out = list(values)
    for c, opt, y in plan:
        for option in range(local.cell_start[c], local.cell_start[c + 1]):
            out[local.opt_x[option]] = int(option == opt)
            for duty in range(local.oy_start[option], local.oy_start[option + 1]):
                out[local.oy_var[duty]] = int(duty == y)
    return out


def check_move(label: str, seed: int, steps: int, kind: str, where: Draws) -> bool:
    """Make the move and check it; False when the roster admits no move of its kind."""
    subject = case(label)
    local, judge = subject.local, subject.judge
    assert judge is not None
    search = LocalSearch(local, subject.start, seed)
    search.run(steps)
    current = search.current_solution()
    assert current is not None
    state, roster = evaluated(local, current[0])
    plan = planned(local, roster, kind, where)
    if plan is None:
        return False
    kept = tuple(a.copy() for a in state)
    kept_roster = (roster[0].copy(), roster[1].copy())
    before = judge(current[0])
    assert before.feasible, before.broken
    m, cells = local.kernel_arrays(), local.cell_arrays()
    n = len(plan)
    undo_plan = np.zeros((2 * moves.LONGEST_BLOCK, 3), np.int64)
    changes = np.zeros((8 * moves.LONGEST_BLOCK, 2), np.int64)
    moves._apply(m, state, cells, roster, np.array(plan, np.int64), n, undo_plan, changes)
    row = local.objective_row
    delta = int(state[1][row] - kept[1][row])
    target = moved(local, current[0], plan)
    decisions = np.concatenate([local.opt_x, local.oy_var])
    assert np.array_equal(state[0][decisions], np.asarray(target)[decisions]), f"{kind} {plan}"
    after = judge(target)
    assert delta == after.objective - before.objective, f"{kind} {plan}"
    assert (state[3][VIOLATED] == 0) == after.feasible, f"{kind} {plan}: {after.broken}"
    _same(state, evaluated(local, target)[0], f"{kind} {plan}: incremental vs full")
    moves._restore(m, state, cells, roster, undo_plan, n)
    _same(state, kept, f"{kind} {plan}: undone")
    assert np.array_equal(state[3], kept[3]), "the journal is not emptied"
    assert not state[10].any() and not state[13].any(), "a definition or row left marked"
    assert np.array_equal(roster[0], kept_roster[0]) and np.array_equal(roster[1], kept_roster[1])
    return True


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SUBJECTS),
    st.integers(0, 2**20),
    st.integers(0, 3_000),
    st.sampled_from(KINDS[:3]),
    draws(),
)
def test_a_move_is_priced_and_checked_as_two_full_judgements(
    label: str, seed: int, steps: int, kind: str, where: Draws
) -> None:
    assume(check_move(label, seed, steps, kind, where))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(WITH_DUTIES), st.integers(0, 2**20), st.integers(0, 3_000), draws())
def test_a_duty_change_is_priced_and_checked_as_two_full_judgements(
    label: str, seed: int, steps: int, where: Draws
) -> None:
    assume(check_move(label, seed, steps, "duty", where))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("label", ["synthetic-all", "history-all", "curtois-1"])
def test_each_kind_of_move_is_made_on_the_first_draw(label: str, kind: str) -> None:
    """Guards the properties above: a move of every kind exists where they look for one."""
    if kind == "duty" and label == "curtois-1":
        pytest.skip("Curtois & Qu instances have no duties")
    assert check_move(label, 1, 500, kind, Draws(0, 0, 0, 0, 0, 0)), f"no {kind} move"
