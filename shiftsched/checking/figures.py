"""What a roster asks of each person, and how well it staffs the plan, in plain numbers.

An audit says what a roster breaks and what it costs; a person reading it also wants to
know who works how much: shifts, hours, nights, weekends, wishes granted and refused.
:func:`employee_figures` gives those per employee, :func:`kpis` the plan's headline
numbers (coverage of every demand minimum, the share of preferences granted, the range
of hours, nights and weekends), and :func:`employee_changes` what moves for each person
between two rosters of one request, for the faces to show beside an audit or a
comparison.

Like :mod:`shiftsched.checking.audit`, this module computes from the contract objects with
:mod:`datetime` and plain loops and never imports ``shiftsched.solving.model``,
``shiftsched.solving.problem`` or ``shiftsched.contract.horizon``, so its figures can check what the
others report.

Readings (docs/semantics.md):

- The period's own cells: an assignment naming an unknown employee, shift or duty, or a
  date outside the period, is left out (the audit reports it as ``unknown_reference``);
  every other one counts as listed, even one that breaks a hard rule.
- Shifts, minutes and preferences are the ledger's (:func:`shiftsched.periods.seam.ledger_after`)
  for the period's own cells: a preference is granted when a ``day_off`` date is not
  worked, a ``preferred_shift`` is worked on its date, an ``avoided_shift`` is not;
  otherwise it is refused. Preferences are counted as written, on holidays too, as the
  audit prices them. With two cells of one employee on one date (a broken roster), a
  preferred shift is granted when either cell is it, as the audit prices it.
- A night shift is one whose ``end_time <= start_time`` (it ends the next day), so a
  shift ending at midnight is one; a shift without working hours is none and lasts 0
  minutes. An assignment belongs to its start date, also for weekends.
- A weekend is the Saturday and Sunday of one ISO week.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from shiftsched.checking.audit import shift_minutes
from shiftsched.contract.v1 import Assignment, Employee, Shift, Shortage, SolveRequest
from shiftsched.contract.v1 import _Model as _ContractModel

SATURDAY = 5  # date.weekday() of a Saturday; Sunday is 6


class EmployeeFigures(_ContractModel):
    """One employee's share of a roster, over the period's own cells."""

    employee_id: str
    name: str | None = None
    shifts: int
    hours: float  # worked minutes / 60, rounded to 2 decimals
    nights: int  # assignments on a shift with end_time <= start_time
    weekend_days: int  # assignments on a Saturday or Sunday
    weekends: int  # distinct ISO weekends with any work
    preferences_granted: int
    preferences_refused: int
    shift_counts: dict[str, int]  # per shift id, only the shifts worked


class Kpis(_ContractModel):
    """A roster's headline numbers. Percentages are not rounded, so 100.0 means exactly
    nothing missing (or nothing asked)."""

    coverage_percent: float
    required_heads: int
    missing_heads: int
    preferences_granted_percent: float | None = None  # None: no preference is stated
    hours_min: float
    hours_median: float
    hours_max: float
    nights_min: int
    nights_max: int
    nights_spread: int
    weekends_min: int
    weekends_max: int
    weekends_spread: int


class EmployeeChange(_ContractModel):
    """One employee's figures in one roster minus those in another (after - before)."""

    employee_id: str
    name: str | None = None
    shifts: int
    hours: float
    nights: int
    weekend_days: int
    weekends: int
    preferences_granted: int
    preferences_refused: int
    changed_cells: int  # (employee, date) cells whose shift or duty differs


# ----------------------------------------------------------------------------- helpers


NIGHT_ENDS_MINUTES = 5 * 60  # night work: any time between midnight and 05:00


def _minute_of_day(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def is_night(shift: Shift) -> bool:
    """A shift with working time between midnight and 05:00, the usual definition of
    night work: 22:00-06:00 and a 24-hour shift are nights; 15:00-00:00, which ends
    at midnight, is not. A shift without hours is none."""
    hours = shift.working_hours
    if hours is None:
        return False
    start, end = _minute_of_day(hours.start_time), _minute_of_day(hours.end_time)
    if end <= start:  # it runs past midnight: night unless it ends at midnight exactly
        return end > 0 or start < NIGHT_ENDS_MINUTES
    return start < NIGHT_ENDS_MINUTES


def _known(request: SolveRequest, assignments: Iterable[Assignment]) -> list[Assignment]:
    """The assignments the audit places on the calendar: known ids, dates in the period."""
    period = request.schedule_period
    employees = {e.id for e in request.employees}
    shifts = {s.id for s in request.shifts}
    duties = {k.id for k in request.duties}
    return [
        a
        for a in assignments
        if a.employee_id in employees
        and a.shift_id in shifts
        and (a.duty_id is None or a.duty_id in duties)
        and period.start_date <= a.date <= period.end_date
    ]


def _preferences(employee: Employee, worked: Mapping[dt.date, set[str]]) -> tuple[int, int]:
    """(granted, refused) of the employee's preferences, given the shifts worked per date."""
    granted = 0
    for pref in employee.preferences:
        shifts = worked.get(pref.date, set())
        if pref.type == "day_off":
            granted += not shifts
        elif pref.type == "preferred_shift":
            granted += pref.shift_id in shifts
        else:
            granted += pref.shift_id not in shifts
    return granted, len(employee.preferences) - granted


def _figures_of(
    employee: Employee, mine: Sequence[Assignment], shifts: Mapping[str, Shift]
) -> EmployeeFigures:
    worked: dict[dt.date, set[str]] = {}
    for a in mine:
        worked.setdefault(a.date, set()).add(a.shift_id)
    granted, refused = _preferences(employee, worked)
    weekend = [a.date for a in mine if a.date.weekday() >= SATURDAY]
    return EmployeeFigures(
        employee_id=employee.id,
        name=employee.name,
        shifts=len(mine),
        hours=round(sum(shift_minutes(shifts[a.shift_id]) for a in mine) / 60, 2),
        nights=sum(1 for a in mine if is_night(shifts[a.shift_id])),
        weekend_days=len(weekend),
        weekends=len({day.isocalendar()[:2] for day in weekend}),
        preferences_granted=granted,
        preferences_refused=refused,
        shift_counts=dict(sorted(Counter(a.shift_id for a in mine).items())),
    )


# ----------------------------------------------------------------------------- figures


def employee_figures(
    request: SolveRequest, assignments: Sequence[Assignment]
) -> list[EmployeeFigures]:
    """One :class:`EmployeeFigures` per employee of the request, in request order.

    Assignments naming an unknown employee, shift or duty, or dated outside the period,
    are left out, as the audit leaves them out of every rule.
    """
    shifts = {s.id: s for s in request.shifts}
    by_employee: dict[str, list[Assignment]] = {}
    for a in _known(request, assignments):
        by_employee.setdefault(a.employee_id, []).append(a)
    return [_figures_of(e, by_employee.get(e.id, []), shifts) for e in request.employees]


def required_heads(request: SolveRequest) -> int:
    """Heads asked for by every demand minimum of the period: staffing, manager, duty and
    cross-shift, none on a holiday (the kinds of the shortage markers)."""
    period = request.schedule_period
    holidays = set(period.holidays)
    days = (period.end_date - period.start_date).days + 1
    open_days = [
        index
        for index in range(days)
        if period.start_date + dt.timedelta(days=index) not in holidays
    ]
    per_day = [s.staffing_demand for s in request.shifts]
    per_day += [s.manager_demand for s in request.shifts if s.manager_demand is not None]
    per_day += [ranges for k in request.duties for ranges in k.staffing_demand_by_shift.values()]
    total = sum(ranges[i].min for ranges in per_day for i in open_days if i < len(ranges))
    for demand in request.constraints.cross_shift_demands:
        inside = period.start_date <= demand.date <= period.end_date
        if demand.min is not None and inside and demand.date not in holidays:
            total += demand.min
    return total


def _spread(values: Sequence[int]) -> tuple[int, int, int]:
    """(min, max, max - min), all 0 for no values."""
    if not values:
        return 0, 0, 0
    return min(values), max(values), max(values) - min(values)


def kpis(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    shortages: Sequence[Shortage],
    figures: Sequence[EmployeeFigures] | None = None,
) -> Kpis:
    """The plan's headline numbers for a roster and its shortage markers.

    ``shortages`` are the roster's markers (the audit's, or the solver's, which agree);
    the heads required are counted from the request. ``figures``, when the caller has
    them, saves computing them again; an employee of the request they leave out counts
    as one who does not work. Hours and weekends range over every employee of the
    request; nights over those who may work a night shift, or do.
    """
    if figures is None:
        figures = employee_figures(request, assignments)
    given = {f.employee_id: f for f in figures}
    everyone = [given.get(e.id) or _figures_of(e, [], {}) for e in request.employees]
    required = required_heads(request)
    missing = sum(marker.missing for marker in shortages)
    stated = sum(f.preferences_granted + f.preferences_refused for f in everyone)
    granted = sum(f.preferences_granted for f in everyone)
    nights = {s.id for s in request.shifts if is_night(s)}
    night_workers = [
        f.nights
        for e, f in zip(request.employees, everyone, strict=True)
        if f.nights or nights.intersection(e.assignable_shift_ids)
    ]
    hours = [f.hours for f in everyone]
    nights_min, nights_max, nights_spread = _spread(night_workers)
    weekends_min, weekends_max, weekends_spread = _spread([f.weekends for f in everyone])
    return Kpis(
        coverage_percent=100 * (required - missing) / required if required else 100.0,
        required_heads=required,
        missing_heads=missing,
        preferences_granted_percent=100 * granted / stated if stated else None,
        hours_min=min(hours, default=0.0),
        hours_median=round(statistics.median(hours), 2) if hours else 0.0,
        hours_max=max(hours, default=0.0),
        nights_min=nights_min,
        nights_max=nights_max,
        nights_spread=nights_spread,
        weekends_min=weekends_min,
        weekends_max=weekends_max,
        weekends_spread=weekends_spread,
    )


# ----------------------------------------------------------------------------- changes


def count_changed_cells(
    before: Sequence[Assignment], after: Sequence[Assignment]
) -> dict[str, int]:
    """Per employee, the (employee, date) cells whose shift or duty differs between two
    rosters, the way a re-plan counts its changes; employees with none are left out."""
    old = {(a.employee_id, a.date): (a.shift_id, a.duty_id) for a in before}
    new = {(a.employee_id, a.date): (a.shift_id, a.duty_id) for a in after}
    counts = Counter(key[0] for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    return dict(sorted(counts.items()))


#: The fields of an EmployeeChange that say something moved, in the order a table
#: shows them.
CHANGE_FIELDS = (
    "changed_cells",
    "shifts",
    "hours",
    "nights",
    "weekend_days",
    "weekends",
    "preferences_granted",
    "preferences_refused",
)


def _zero(employee_id: str, name: str | None) -> EmployeeFigures:
    return EmployeeFigures(
        employee_id=employee_id,
        name=name,
        shifts=0,
        hours=0.0,
        nights=0,
        weekend_days=0,
        weekends=0,
        preferences_granted=0,
        preferences_refused=0,
        shift_counts={},
    )


def employee_changes(
    before: Sequence[EmployeeFigures],
    after: Sequence[EmployeeFigures],
    changed_cells: Mapping[str, int],
) -> list[EmployeeChange]:
    """What moves for each person from ``before`` to ``after`` (two rosters of one request).

    Only employees with a figure that moves or a changed cell are listed, in the order of
    ``after``, then those only in ``before``, then those only in ``changed_cells``; an
    employee missing on one side counts zero there.
    """
    old = {f.employee_id: f for f in before}
    new = {f.employee_id: f for f in after}
    order = list(dict.fromkeys([*new, *old, *sorted(changed_cells)]))
    changes = []
    for employee_id in order:
        known = new.get(employee_id) or old.get(employee_id)
        name = known.name if known is not None else None
        a = old.get(employee_id) or _zero(employee_id, name)
        b = new.get(employee_id) or _zero(employee_id, name)
        change = EmployeeChange(
            employee_id=employee_id,
            name=name,
            shifts=b.shifts - a.shifts,
            hours=round(b.hours - a.hours, 2),
            nights=b.nights - a.nights,
            weekend_days=b.weekend_days - a.weekend_days,
            weekends=b.weekends - a.weekends,
            preferences_granted=b.preferences_granted - a.preferences_granted,
            preferences_refused=b.preferences_refused - a.preferences_refused,
            changed_cells=changed_cells.get(employee_id, 0),
        )
        if any(getattr(change, field) for field in CHANGE_FIELDS):
            changes.append(change)
    return changes
