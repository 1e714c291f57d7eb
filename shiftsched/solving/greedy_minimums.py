"""The greedy roster's passes for the minimums the forward pass cannot see.

Shift count minimums are topped up on free days, then by trading worked days of other
shifts; runs of worked days shorter than a minimum are lengthened or dropped; total
minutes minimums are topped up by lengthening runs (candidates kept in a heap,
:class:`_Extensions`) or adding runs of the minimum length.
"""

from __future__ import annotations

import heapq

from shiftsched.solving.greedy_state import State
from shiftsched.solving.greedy_views import any_duty, min_run


def _best_shift(state: State, e: int, d: int) -> int | None:
    """The shift of day d that e can take, where most heads are still wanted."""
    options = [s for s in state.problem.employees[e].day_options[d] if state.can_take(e, d, s)]
    if not options:
        return None
    return max(
        options,
        key=lambda s: (
            state.need[d, s] - len(state.on_shift[d, s]),
            -state.preference_cost(e, d, s),
            -s,
        ),
    )


def _add_day(state: State, e: int, d: int) -> bool:
    if not 0 <= d < state.problem.num_days:
        return False
    s = _best_shift(state, e, d)
    if s is None:
        return False
    state.place(e, d, s, any_duty(state.problem.employees[e], s))
    return True


def repair_short_runs(state: State) -> None:
    """Lengthen each run of worked days shorter than the employee's minimum, or drop it.

    Only runs with a day off on both sides inside the period count, as in the model.
    """
    problem = state.problem
    last = problem.num_days - 1
    for e, employee in enumerate(problem.employees):
        low = min_run(employee)
        if low < 2:
            continue
        d = 0
        while d <= last:
            if (e, d) not in state.shift_on:
                d += 1
                continue
            start = d
            while (e, d + 1) in state.shift_on:
                d += 1
            end = d
            if start > 0 and end < last and end - start + 1 < low:
                start, end = _lengthen(state, e, start, end, low)
                if start > 0 and end < last and end - start + 1 < low:
                    for day in range(start, end + 1):
                        state.unplace(e, day)
            d = end + 1


def _lengthen(state: State, e: int, start: int, end: int, low: int) -> tuple[int, int]:
    """Add days after, then before, the run [start, end] until it is ``low`` long or
    touches an edge of the period; undo the additions, and return the run as it was,
    when it cannot."""
    last = state.problem.num_days - 1
    first, final = start, end
    added: list[int] = []
    while end - start + 1 < low and start > 0 and end < last:
        if _add_day(state, e, end + 1):
            end += 1
            added.append(end)
        elif _add_day(state, e, start - 1):
            start -= 1
            added.append(start)
        else:
            break
        while (e, end + 1) in state.shift_on:  # it may have joined the next run
            end += 1
        while (e, start - 1) in state.shift_on:
            start -= 1
    if start > 0 and end < last and end - start + 1 < low:
        for day in added:
            state.unplace(e, day)
        return first, final
    return start, end


def meet_minute_minimums(state: State) -> None:
    """Top up total-minutes minimums: first by lengthening runs (no new short run), then
    with new runs of the minimum length, on days where every checked rule still holds."""
    problem = state.problem
    for e, employee in enumerate(problem.employees):
        if employee.total_minutes is None:
            continue
        low = max(1, min_run(employee))
        extensions = _Extensions(state, e)
        while state.total_minutes[e] < employee.total_minutes[0]:
            if extensions.extend():
                continue
            if not _new_run(state, e, low):
                break
            extensions = _Extensions(state, e)


class _Extensions:
    """One employee's extensions of a run: work one more day next to a worked day, where
    most heads are still wanted (the earliest such day on a tie).

    The candidates sit in a heap instead of being rescanned after each added day. While
    days are only added to this row, a day's best extension can only get worse (totals
    and counts grow, every other row stands still), except on the two days next to the
    day added, which are rescored; so the top of the heap, rescored and unchanged, is
    the best extension of a full scan.
    """

    def __init__(self, state: State, e: int) -> None:
        self.state, self.e = state, e
        self.heap: list[tuple[int, int, int]] = []  # (-gap, day, shift)
        for d in range(state.problem.num_days):
            self._push(d)

    def _best(self, d: int) -> tuple[int, int] | None:
        """(gap, shift) of the best extension on day d, or None."""
        state, e = self.state, self.e
        if not 0 <= d < state.problem.num_days or (e, d) in state.shift_on:
            return None
        if (e, d - 1) not in state.shift_on and (e, d + 1) not in state.shift_on:
            return None
        s = _best_shift(state, e, d)
        if s is None:
            return None
        return state.need[d, s] - len(state.on_shift[d, s]), s

    def _push(self, d: int) -> None:
        best = self._best(d)
        if best is not None:
            heapq.heappush(self.heap, (-best[0], d, best[1]))

    def extend(self) -> bool:
        state, e = self.state, self.e
        while self.heap:
            negative_gap, d, s = heapq.heappop(self.heap)
            now = self._best(d)
            if now is None:
                continue
            if now != (-negative_gap, s):
                heapq.heappush(self.heap, (-now[0], d, now[1]))
                continue
            state.place(e, d, s, any_duty(state.problem.employees[e], s))
            self._push(d - 1)
            self._push(d + 1)
            return True
        return False


def _new_run(state: State, e: int, low: int) -> bool:
    """Work a new run of ``low`` days between days off, where it fits."""
    last = state.problem.num_days - 1
    for start in range(last + 1):
        if (e, start - 1) in state.shift_on:
            continue
        added: list[int] = []
        for d in range(start, start + low):
            if d > last or not _add_day(state, e, d):
                break
            added.append(d)
        end = start + len(added) - 1
        while (e, end + 1) in state.shift_on:
            end += 1
        if added and (len(added) == low or end == last or end - start + 1 >= low):
            return True
        for d in added:
            state.unplace(e, d)
    return False


def meet_count_minimums(state: State) -> None:
    """Top up shift count minimums on free days (an extra head costs little).

    A roster that misses a hard minimum cannot be completed into a full hint
    (shiftsched.solving.hint.complete_hint), and the search then starts from scratch.
    """
    problem = state.problem
    for e, employee in enumerate(problem.employees):
        for limit in employee.count_limits:
            if limit.min is None:
                continue
            for d in range(problem.num_days):
                if state.shift_count[e, limit.shift] >= limit.min:
                    break
                if state.can_take(e, d, limit.shift):
                    state.place(e, d, limit.shift, any_duty(employee, limit.shift))
            if state.shift_count[e, limit.shift] < limit.min:
                _trade_into(state, e, limit.shift, limit.min)


def _trade_into(state: State, e: int, s: int, minimum: int) -> None:
    """Trade e's worked days of other shifts for shift s until e works it ``minimum``
    times, when free days were not enough (a month's maximum reached, say): the days
    whose shift has most heads to spare first, never a fixed day, nor a shift another
    minimum of e's still needs. A head moved may leave demand short; a minimum missed
    leaves no start at all."""
    problem = state.problem
    employee = problem.employees[e]
    fixed = {f.day for f in employee.fixed}
    worked = [
        d for d in range(problem.num_days) if state.shift_on.get((e, d), s) != s and d not in fixed
    ]

    def spare(d: int) -> int:
        other = state.shift_on[e, d]
        return len(state.on_shift[d, other]) - state.need[d, other]

    for d in sorted(worked, key=spare, reverse=True):
        if state.shift_count[e, s] >= minimum:
            return
        other = state.shift_on[e, d]
        if any(
            limit.shift == other
            and limit.min is not None
            and state.shift_count[e, other] <= limit.min
            for limit in employee.count_limits
        ):
            continue
        duty = state.roster[e, d, other]
        state.unplace(e, d)
        if state.can_take(e, d, s):
            state.place(e, d, s, any_duty(employee, s))
        else:
            state.place(e, d, other, duty)
