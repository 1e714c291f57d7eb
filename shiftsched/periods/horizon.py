"""A period planned inside a horizon: its targets as soft ranges, and the counts after it.

The shares (``shiftsched.contract.horizon_targets``) become the soft-range families that
count across periods (``shiftsched.solving.model.counts``): ``total_days`` for the day
limits, ``weekend_cap`` for the weekend limit, ``total_hours`` for the hour limits, each
reading the counts so far from the employee's seam, and ``total_shifts`` for the shift
counts, each carrying its count so far. So the period's model prices exactly
what the audit prices (``shiftsched.checking.audit.horizon``), and the last period prices
the horizon itself.
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
    HorizonCount,
    HorizonLedger,
)
from shiftsched.contract.horizon import SATURDAY
from shiftsched.contract.horizon_targets import (
    MINUTES_PER_DAY,
    PlanHorizon,
    Share,
    TargetProgress,
    progress,
    shares,
)
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.periods.seam import shift_lengths
from shiftsched.solving.problem import Problem
from shiftsched.solving.specs import EmployeeSpec, ShiftTotal, SoftRange


def with_horizon(
    problem: Problem, request: SolveRequest, history: History | None, horizon: PlanHorizon
) -> Problem:
    """``problem`` with each target's share as soft ranges on worked days, weekends and
    minutes."""
    by_id = {s.employee_id: s for s in shares(request, horizon, history, shift_lengths(request))}
    index = {shift.id: i for i, shift in enumerate(problem.shifts)}
    employees = tuple(
        _targeted(e, by_id[e.id], horizon, problem.num_days, index) if e.id in by_id else e
        for e in problem.employees
    )
    return replace(problem, employees=employees)


def _targeted(
    employee: EmployeeSpec, s: Share, horizon: PlanHorizon, days: int, index: Mapping[str, int]
) -> EmployeeSpec:
    total_days = None
    if s.min_days is not None or s.max_days is not None:
        most = s.days_before + days  # a maximum never reached is no maximum
        high = most if s.max_days is None else s.max_days
        total_days = SoftRange(s.min_days or 0, high, horizon.day_weight)
    weekend_cap = None
    if s.max_weekends is not None:
        weekend_cap = SoftRange(0, s.max_weekends, horizon.weekend_weight)
    total_hours = None
    if s.min_minutes is not None or s.max_minutes is not None:
        most = s.minutes_before + days * MINUTES_PER_DAY  # never reached: no maximum
        high = most if s.max_minutes is None else s.max_minutes
        total_hours = SoftRange(s.min_minutes or 0, high, horizon.hour_weight)
    seam = replace(
        employee.seam,
        days_worked=s.days_before,
        weekends_worked=s.weekends_before,
        minutes_worked=s.minutes_before,
    )
    return replace(
        employee,
        seam=seam,
        total_days=total_days,
        weekend_cap=weekend_cap,
        total_hours=total_hours,
        shift_totals=tuple(
            ShiftTotal(
                index[c.shift_id],
                c.before,
                SoftRange(
                    c.low or 0, c.before + days if c.high is None else c.high, horizon.shift_weight
                ),
            )
            for c in s.shifts
        ),
    )


def period_counts(
    request: SolveRequest, roster: Sequence[Assignment]
) -> Mapping[str, tuple[int, int, int]]:
    """(worked days, working weekends, worked minutes) of each employee in the period's
    roster: a weekend is an ISO week's Saturday and Sunday, or the part of them in the
    period."""
    period = request.schedule_period
    lengths = shift_lengths(request)
    worked: dict[str, set[dt.date]] = {}
    minutes: dict[str, int] = {}
    for a in roster:
        if period.start_date <= a.date <= period.end_date:
            worked.setdefault(a.employee_id, set()).add(a.date)
            minutes[a.employee_id] = minutes.get(a.employee_id, 0) + lengths.get(a.shift_id, 0)
    return {
        employee: (
            len(dates),
            len({d.isocalendar()[:2] for d in dates if d.weekday() >= SATURDAY}),
            minutes[employee],
        )
        for employee, dates in worked.items()
    }


def horizon_after(
    request: SolveRequest,
    roster: Sequence[Assignment],
    history: History | None,
    horizon: PlanHorizon,
) -> tuple[HorizonLedger, list[TargetProgress]]:
    """The ledger's horizon block through the period's end, and each target's standing."""
    found = shares(request, horizon, history, shift_lengths(request))
    here = period_counts(request, roster)
    period = request.schedule_period
    worked = Counter(
        (a.employee_id, a.shift_id)
        for a in roster
        if period.start_date <= a.date <= period.end_date
    )
    after, shifts_after = {}, {}
    for s in found:
        days, weekend_count, minutes = here.get(s.employee_id, (0, 0, 0))
        after[s.employee_id] = (
            s.days_before + days,
            s.weekends_before + weekend_count,
            min(s.minutes_before + minutes, MAX_LEDGER_MINUTES),
        )
        shifts_after[s.employee_id] = {
            c.shift_id: min(c.before + worked[s.employee_id, c.shift_id], MAX_LEDGER_COUNT)
            for c in s.shifts
        }
    kept = HorizonLedger(
        start=horizon.start,
        end=horizon.end,
        employees=[
            HorizonCount(
                employee_id=e,
                days_worked=d,
                weekends_worked=w,
                minutes_worked=m,
                shift_counts=shifts_after[e],
            )
            for e, (d, w, m) in sorted(after.items())
        ],
    )
    return kept, progress(horizon, found, after, shifts_after)
