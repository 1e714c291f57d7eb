"""A history read into the seam: counters per employee, and the ledger handed on.

:func:`with_history` turns a history (shiftsched.contract.history) into one
:class:`shiftsched.solving.specs.Seam` per employee, the counters each rule family reads at the
start of the period; :func:`history_ledger` is the ledger a history hands on (its own,
or its cells counted), and :func:`ledger_after` adds a roster's counts to it for the
next period, each count stopping at its bound (shiftsched.contract.history, MAX_LEDGER_COUNT).
docs/semantics.md, "Planning across periods", says what each counter means to each rule.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from shiftsched.contract.history import (
    MAX_LEDGER_COUNT,
    MAX_LEDGER_MINUTES,
    History,
    Ledger,
    LedgerEntry,
)
from shiftsched.contract.horizon import Horizon, shift_minutes
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.solving.problem import Problem
from shiftsched.solving.specs import NO_SEAM, Seam


def past_counts(history: History) -> dict[str, Counter[str]]:
    """Per employee, the assignments of each shift before the period: the ledger's
    counts when the history has a ledger, else its cells counted."""
    if history.ledger is not None:
        return {e.employee_id: Counter(e.shift_counts) for e in history.ledger.employees}
    counts: dict[str, Counter[str]] = {}
    for a in history.assignments:
        counts.setdefault(a.employee_id, Counter())[a.shift_id] += 1
    return counts


def with_history(problem: Problem, request: SolveRequest, history: History | None) -> Problem:
    """``problem`` (built from ``request``) with each employee's seam read from ``history``."""
    if history is None:
        return problem
    start = request.schedule_period.start_date
    covered = history.read_from(start)
    days_before = 0 if covered is None else (start - covered).days
    shift_index = {s.id: i for i, s in enumerate(request.shifts)}
    minutes = shift_lengths(request)
    cells = {(a.employee_id, a.date): a.shift_id for a in history.assignments}
    past = past_counts(history)
    week_start = start - dt.timedelta(days=start.weekday())
    month_start = start.replace(day=1)
    employees = []
    for employee in problem.employees:
        before = [
            (day, cells.get((employee.id, day)))
            for day in (start - dt.timedelta(days=back) for back in range(1, days_before + 1))
        ]  # newest first
        seam = _seam(before, week_start, month_start, shift_index, minutes, past.get(employee.id))
        employees.append(employee if seam == NO_SEAM else replace(employee, seam=seam))
    horizon = problem.horizon
    return replace(
        problem,
        horizon=Horizon(horizon.start, horizon.end, horizon.holidays, days_before),
        employees=tuple(employees),
    )


def _seam(
    before: Sequence[tuple[dt.date, str | None]],
    week_start: dt.date,
    month_start: dt.date,
    shift_index: Mapping[str, int],
    minutes: Mapping[str, int],
    past: Counter[str] | None,
) -> Seam:
    run = 0
    while run < len(before) and before[run][1] is not None:
        run += 1
    last = before[0][1] if before else None
    week = [shift for day, shift in before if day >= week_start and shift is not None]
    month = [shift for day, shift in before if day >= month_start and shift is not None]
    return Seam(
        worked_run=run,
        last_shift=None if last is None else shift_index[last],
        week_days=len(week),
        week_minutes=sum(minutes[shift] for shift in week),
        month_days=len(month),
        past={shift_index[s]: n for s, n in (past or {}).items() if s in shift_index and n},
    )


# ----------------------------------------------------------------------- the ledger


def history_ledger(request: SolveRequest, history: History) -> Ledger | None:
    """The ledger ``history`` hands to ``request``'s period: its own, or else its cells
    counted, through the day before the period; None when no date comes before the
    period (it starts on the first date Python has)."""
    if history.ledger is not None:
        return history.ledger
    start = request.schedule_period.start_date
    if start == dt.date.min:
        return None
    minutes = shift_lengths(request)
    entries = []
    for employee_id, counts in sorted(past_counts(history).items()):
        worked = [a for a in history.assignments if a.employee_id == employee_id]
        entries.append(
            LedgerEntry(
                employee_id=employee_id,
                shift_counts={s: _capped(n) for s, n in sorted(counts.items())},
                days_worked=_capped(len(worked)),
                minutes_worked=_capped(
                    sum(minutes.get(a.shift_id, 0) for a in worked), MAX_LEDGER_MINUTES
                ),
            )
        )
    return Ledger(through=start - dt.timedelta(days=1), employees=entries)


def ledger_after(
    request: SolveRequest, roster: Sequence[Assignment], history: History | None
) -> Ledger:
    """The ledger to hand to the next period: the past counts plus this roster's, each
    stopping at its bound so that the next period accepts it as it stands."""
    minutes = shift_lengths(request)
    past = None if history is None else history_ledger(request, history)
    entries = {} if past is None else {e.employee_id: e for e in past.employees}
    shifts_on = {(a.employee_id, a.date): a.shift_id for a in roster}
    for employee in request.employees:
        mine = [a for a in roster if a.employee_id == employee.id]
        granted = sum(
            _granted(p.type, shifts_on.get((employee.id, p.date)), getattr(p, "shift_id", None))
            for p in employee.preferences
        )
        old = entries.get(employee.id, LedgerEntry(employee_id=employee.id))
        counts = Counter(old.shift_counts)
        counts.update(a.shift_id for a in mine)
        refused = len(employee.preferences) - granted
        entries[employee.id] = LedgerEntry(
            employee_id=employee.id,
            shift_counts={s: _capped(n) for s, n in sorted(counts.items())},
            days_worked=_capped(old.days_worked + len(mine)),
            minutes_worked=_capped(
                old.minutes_worked + sum(minutes[a.shift_id] for a in mine), MAX_LEDGER_MINUTES
            ),
            preferences_granted=_capped(old.preferences_granted + granted),
            preferences_refused=_capped(old.preferences_refused + refused),
        )
    return Ledger(
        through=request.schedule_period.end_date,
        employees=[entries[key] for key in sorted(entries)],
    )


def _capped(count: int, bound: int = MAX_LEDGER_COUNT) -> int:
    """A running count, stopping at its bound (reached after centuries of daily work)."""
    return min(count, bound)


def shift_lengths(request: SolveRequest) -> dict[str, int]:
    """The minutes of each shift (0 for one without working hours)."""
    return {
        s.id: shift_minutes(s.working_hours.start_time, s.working_hours.end_time)
        if s.working_hours
        else 0
        for s in request.shifts
    }


def _granted(kind: str, worked: str | None, shift_id: str | None) -> bool:
    if kind == "day_off":
        return worked is None
    if kind == "preferred_shift":
        return worked == shift_id
    return worked != shift_id
