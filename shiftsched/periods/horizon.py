"""A period planned inside a horizon: its targets as soft ranges, and the counts after it.

The shares (``shiftsched.contract.horizon_targets``) become the soft-range families that
count across periods (``shiftsched.solving.model.counts``): ``total_days`` for the day
limits, ``weekend_cap`` for the weekend limit, each reading the counts so far from the
employee's seam. So the period's model prices exactly what the audit prices
(``shiftsched.checking.audit.horizon``), and the last period prices the horizon itself.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import replace

from shiftsched.contract.history import History, HorizonCount, HorizonLedger
from shiftsched.contract.horizon import SATURDAY
from shiftsched.contract.horizon_targets import (
    PlanHorizon,
    Share,
    TargetProgress,
    progress,
    shares,
)
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.solving.problem import Problem
from shiftsched.solving.specs import EmployeeSpec, SoftRange


def with_horizon(
    problem: Problem, request: SolveRequest, history: History | None, horizon: PlanHorizon
) -> Problem:
    """``problem`` with each target's share as soft ranges on worked days and weekends."""
    by_id = {s.employee_id: s for s in shares(request, horizon, history)}
    employees = tuple(
        _targeted(e, by_id[e.id], horizon, problem.num_days) if e.id in by_id else e
        for e in problem.employees
    )
    return replace(problem, employees=employees)


def _targeted(employee: EmployeeSpec, s: Share, horizon: PlanHorizon, days: int) -> EmployeeSpec:
    total_days = None
    if s.min_days is not None or s.max_days is not None:
        most = s.days_before + days  # a maximum never reached is no maximum
        high = most if s.max_days is None else s.max_days
        total_days = SoftRange(s.min_days or 0, high, horizon.day_weight)
    weekend_cap = None
    if s.max_weekends is not None:
        weekend_cap = SoftRange(0, s.max_weekends, horizon.weekend_weight)
    seam = replace(employee.seam, days_worked=s.days_before, weekends_worked=s.weekends_before)
    return replace(employee, seam=seam, total_days=total_days, weekend_cap=weekend_cap)


def period_counts(
    request: SolveRequest, roster: Sequence[Assignment]
) -> Mapping[str, tuple[int, int]]:
    """(worked days, working weekends) of each employee in the period's roster: a
    weekend is an ISO week's Saturday and Sunday, or the part of them in the period."""
    period = request.schedule_period
    worked: dict[str, set[dt.date]] = {}
    for a in roster:
        if period.start_date <= a.date <= period.end_date:
            worked.setdefault(a.employee_id, set()).add(a.date)
    return {
        employee: (
            len(dates),
            len({d.isocalendar()[:2] for d in dates if d.weekday() >= SATURDAY}),
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
    found = shares(request, horizon, history)
    here = period_counts(request, roster)
    after = {}
    for s in found:
        days, weekend_count = here.get(s.employee_id, (0, 0))
        after[s.employee_id] = (s.days_before + days, s.weekends_before + weekend_count)
    kept = HorizonLedger(
        start=horizon.start,
        end=horizon.end,
        employees=[
            HorizonCount(employee_id=e, days_worked=d, weekends_worked=w)
            for e, (d, w) in sorted(after.items())
        ],
    )
    return kept, progress(horizon, found, after)
