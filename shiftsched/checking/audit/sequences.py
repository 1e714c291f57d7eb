"""Sequences (docs/semantics.md, "Sequences"): consecutive working days and shift
transitions, read across the seam when there is a history."""

from __future__ import annotations

import datetime as dt

from shiftsched.checking.audit.context import _Context
from shiftsched.checking.audit.findings import _Findings
from shiftsched.checking.audit.terms import (
    CONSECUTIVE_DAYS,
    DEFAULT_MAX_CONSECUTIVE_DAYS,
    SHIFT_TRANSITION,
)


def _consecutive_days(ctx: _Context, out: _Findings) -> None:
    """Hard: no run longer than N. Soft (N >= 2): each window of N worked dates costs 1.
    With a history, runs and windows are read across the seam; only those that reach a
    date of the period count."""
    limit = ctx.request.constraints.max_consecutive_working_days
    n = DEFAULT_MAX_CONSECUTIVE_DAYS if limit is None else limit
    dates, first_of_period = ctx.joined, len(ctx.before)
    for employee in ctx.scoped_employees:
        worked = [bool(ctx.worked_shifts(employee.id, day)) for day in dates]

        run_start = 0
        for i in range(len(worked) + 1):
            if i < len(worked) and worked[i]:
                continue
            run_length = i - run_start
            if run_length > n and i - 1 >= first_of_period:
                first, last = dates[run_start], dates[i - 1]
                out.broken(
                    "max_consecutive_days",
                    f"{employee.id} works {run_length} consecutive dates "
                    f"{first.isoformat()}..{last.isoformat()}, more than {n}",
                    employee.id,
                    dates[max(run_start, first_of_period)],
                    # also when N is the default: that field is the one to set
                    at="request.constraints.max_consecutive_working_days",
                )
            run_start = i + 1

        if n >= 2:
            windows = sum(
                1
                for i in range(len(worked) - n + 1)
                if i + n - 1 >= first_of_period and all(worked[i + j] for j in range(n))
            )
            out.soft(f"consecutive_days:{employee.id}", CONSECUTIVE_DAYS, windows)


def _shift_transitions(ctx: _Context, out: _Findings) -> None:
    """Consecutive dates d, d+1 of the period; the last date has no d+1."""
    transitions = ctx.request.constraints.shift_transitions
    if not transitions:
        return
    # With a history, the pair (the day before the start, the start) counts too.
    dates = ctx.before[-1:] + ctx.dates
    rows = {e.id: [ctx.worked_shifts(e.id, day) for day in dates] for e in ctx.scoped_employees}
    for index, transition in enumerate(transitions):
        for employee in ctx.scoped_employees:
            occurrences: list[dt.date] = []
            row = rows[employee.id]
            for i, day in enumerate(dates[:-1]):
                if transition.from_shift_id not in row[i]:
                    continue
                to_next = transition.to_shift_id in row[i + 1]
                if transition.rule == "forbid" and to_next:
                    occurrences.append(day)
                if transition.rule == "require" and not to_next:
                    occurrences.append(day)

            if transition.enforcement == "soft":
                name = (
                    f"shift_transition:{transition.rule}:{transition.from_shift_id}:"
                    f"{transition.to_shift_id}:{employee.id}"
                )
                out.soft(name, SHIFT_TRANSITION, len(occurrences))
                continue
            for day in occurrences:
                verb = "followed by" if transition.rule == "forbid" else "not followed by"
                out.broken(
                    "shift_transition",
                    f"{employee.id} works {transition.from_shift_id} on {day.isoformat()} "
                    f"{verb} {transition.to_shift_id} the next date ({transition.rule})",
                    employee.id,
                    day,
                    transition.from_shift_id,
                    at=f"request.constraints.shift_transitions[{index}]",
                )
