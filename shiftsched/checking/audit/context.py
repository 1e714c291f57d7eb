"""The audit's working state: the request with its lookups, and the roster indexed.

The calendar arithmetic (periods, ISO weeks, calendar months, proration, shift lengths) is
the audit's own, in plain :mod:`datetime`, so that it shares no code with
``shiftsched.contract.horizon``. A :class:`_Context` can be narrowed to one employee and
one date, or changed in one cell, for :class:`~shiftsched.checking.audit.ChangeEvaluator`.
"""

from __future__ import annotations

import calendar
import copy
import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shiftsched.checking.audit.terms import MINUTES_PER_DAY, PREFERENCE, WEEKDAY_NAMES
from shiftsched.contract.history import History
from shiftsched.contract.planning import Absence
from shiftsched.contract.v1 import Assignment, Duty, Employee, Shift, SolveRequest


def _period_dates(start: dt.date, end: dt.date) -> list[dt.date]:
    """Every date of the period, in order (day index = position)."""
    return [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]


def _week_key(day: dt.date) -> str:
    """ISO week key ``YYYY-Www`` (the ISO year, which may differ from the calendar year)."""
    iso_year, iso_week, _ = day.isocalendar()
    return f"{iso_year:04d}-W{iso_week:02d}"


def _month_key(day: dt.date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def _days_in_month(day: dt.date) -> int:
    return calendar.monthrange(day.year, day.month)[1]


def _weekday_name(day: dt.date) -> str:
    return WEEKDAY_NAMES[day.weekday()]


def _group_dates(dates: Sequence[dt.date], key: Any) -> dict[str, list[dt.date]]:
    """Period dates grouped by week or month key, in calendar order."""
    groups: dict[str, list[dt.date]] = {}
    for day in dates:
        groups.setdefault(key(day), []).append(day)
    return groups


def _past_counts(history: History) -> dict[str, dict[str, int]]:
    """Per employee and shift, the assignments before the period: the ledger's counts
    when the history has a ledger, else its cells counted."""
    if history.ledger is not None:
        return {e.employee_id: dict(e.shift_counts) for e in history.ledger.employees}
    counts: dict[str, dict[str, int]] = {}
    for a in history.assignments:
        mine = counts.setdefault(a.employee_id, {})
        mine[a.shift_id] = mine.get(a.shift_id, 0) + 1
    return counts


def _prorate(minimum: int, days_inside: int, days_total: int) -> int:
    """``floor(min * days_inside / days_total)``: a minimum scaled to a partial week/month."""
    return minimum * days_inside // days_total


def _minutes(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def shift_minutes(shift: Shift) -> int:
    """Length of a shift: end - start, plus 24 h when end <= start (night or 24-hour)."""
    if shift.working_hours is None:
        return 0
    start = _minutes(shift.working_hours.start_time)
    end = _minutes(shift.working_hours.end_time)
    length = end - start
    if end <= start:
        length += MINUTES_PER_DAY
    return length


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def _describe(a: Assignment) -> str:
    duty = f" duty {a.duty_id}" if a.duty_id is not None else ""
    return f"{a.employee_id} on {a.date.isoformat()} shift {a.shift_id}{duty}"


@dataclass
class _Context:
    """The request with lookups, and the assignments that name known things.

    ``employees`` and ``dates`` narrow the rules to a scope (see :class:`ChangeEvaluator`):
    rules about one employee run for the employees in scope, rules about one date for the
    dates in scope, and fairness (which compares everyone) always runs whole. None: all.
    """

    request: SolveRequest
    assignments: list[Assignment]
    preference_weight: int = PREFERENCE
    employee_scope: frozenset[str] | None = None
    date_scope: frozenset[dt.date] | None = None
    history: History | None = None
    # id(assignment) -> its positions in the audited list (one object may be listed twice)
    positions: Mapping[int, list[int]] = field(default_factory=dict)
    absences: Sequence[Absence] = ()  # who cannot work when: lowers day minimums pro rata
    dates: list[dt.date] = field(init=False)
    absent: dict[str, set[dt.date]] = field(init=False)  # employee -> absent dates, period
    before: list[dt.date] = field(init=False)  # the dates the history covers, in order
    _earlier: dict[tuple[str, dt.date], str] = field(init=False)  # history: shift worked
    _past: dict[str, dict[str, int]] = field(init=False)  # employee -> shift -> count before
    holidays: set[dt.date] = field(init=False)
    shifts: dict[str, Shift] = field(init=False)
    duties: dict[str, Duty] = field(init=False)
    employees: dict[str, Employee] = field(init=False)
    employee_index: dict[str, int] = field(init=False)  # id -> position in the request
    holiday_index: dict[dt.date, int] = field(init=False)  # first position in holidays
    duty_index: dict[str, int] = field(init=False)
    _by_employee: dict[str, list[Assignment]] = field(init=False)
    _by_employee_date: dict[tuple[str, dt.date], list[Assignment]] = field(init=False)
    _by_shift_date: dict[tuple[str, dt.date], list[Assignment]] = field(init=False)

    def __post_init__(self) -> None:
        period = self.request.schedule_period
        self.dates = _period_dates(period.start_date, period.end_date)
        self.before, self._earlier, self._past = [], {}, {}
        if self.history is not None:
            cells = self.history.assignments
            first = self.history.read_from(period.start_date)  # a year back at most
            if first is not None and first < period.start_date:
                self.before = _period_dates(first, period.start_date - dt.timedelta(days=1))
            self._earlier = {(a.employee_id, a.date): a.shift_id for a in cells}
            self._past = _past_counts(self.history)
        self.absent = {}
        inside = set(self.dates)
        for absence in self.absences:
            mine = self.absent.setdefault(absence.employee_id, set())
            mine.update(day for day in absence.dates if day in inside)
        self.holidays = set(period.holidays)
        self.shifts = {s.id: s for s in self.request.shifts}
        self.duties = {k.id: k for k in self.request.duties}
        self.employees = {e.id: e for e in self.request.employees}
        self.employee_index = {e.id: i for i, e in enumerate(self.request.employees)}
        self.duty_index = {k.id: i for i, k in enumerate(self.request.duties)}
        self.holiday_index = {}
        for i, holiday in enumerate(period.holidays):
            self.holiday_index.setdefault(holiday, i)
        self._by_employee = defaultdict(list)
        self._by_employee_date = defaultdict(list)
        self._by_shift_date = defaultdict(list)
        for a in self.assignments:
            self._by_employee[a.employee_id].append(a)
            self._by_employee_date[(a.employee_id, a.date)].append(a)
            self._by_shift_date[(a.shift_id, a.date)].append(a)

    def scoped(
        self, employee_ids: frozenset[str] | None, days: frozenset[dt.date] | None
    ) -> _Context:
        """The same roster and lookups, with rules narrowed to this scope."""
        view = copy.copy(self)
        view.employee_scope, view.date_scope = employee_ids, days
        return view

    def replaced(self, employee_id: str, day: dt.date, new: Assignment | None) -> _Context:
        """The roster with ``employee_id``'s assignments on ``day`` replaced by ``new``.

        Only the lookups that the change touches are copied, so a candidate move costs
        a few dictionary copies rather than a new index of the whole roster.
        """
        view = copy.copy(self)
        old = self._by_employee_date.get((employee_id, day), [])
        kept = [a for a in self._by_employee.get(employee_id, []) if a.date != day]
        added = [] if new is None else [new]
        view._by_employee = {**self._by_employee, employee_id: kept + added}
        view._by_employee_date = {**self._by_employee_date, (employee_id, day): added}
        by_shift = dict(self._by_shift_date)
        for a in old:
            by_shift[a.shift_id, day] = [b for b in by_shift[a.shift_id, day] if b is not a]
        if new is not None:
            by_shift[new.shift_id, day] = [*by_shift.get((new.shift_id, day), []), new]
        view._by_shift_date = by_shift
        gone = {id(a) for a in old}
        view.assignments = [a for a in self.assignments if id(a) not in gone] + added
        return view

    def available(self, employee_id: str, days: Sequence[dt.date]) -> int:
        """How many of ``days`` the employee is not absent: what a minimum is owed on."""
        absent = self.absent.get(employee_id)
        return len(days) if not absent else sum(1 for day in days if day not in absent)

    @property
    def scoped_employees(self) -> list[Employee]:
        if self.employee_scope is None:
            return self.request.employees
        return [e for e in self.request.employees if e.id in self.employee_scope]

    @property
    def scoped_assignments(self) -> list[Assignment]:
        """The assignments of the employees in scope (each is judged on its own)."""
        if self.employee_scope is None:
            return self.assignments
        return [a for e in sorted(self.employee_scope) for a in self._by_employee.get(e, [])]

    @property
    def scoped_dates(self) -> list[dt.date]:
        if self.date_scope is None:
            return self.dates
        return [day for day in self.dates if day in self.date_scope]

    def in_date_scope(self, day: dt.date) -> bool:
        return self.date_scope is None or day in self.date_scope

    def day_index(self, day: dt.date) -> int:
        return (day - self.request.schedule_period.start_date).days

    def of(self, employee_id: str) -> list[Assignment]:
        return self._by_employee.get(employee_id, [])

    def employee_field(self, employee_id: str, rest: str = "") -> str:
        """The JSON path of an employee of the request, or of ``rest`` inside it."""
        return f"request.employees[{self.employee_index[employee_id]}]{rest}"

    def roster_fields(self, assignments: Sequence[Assignment]) -> list[str | None]:
        """``roster[i]`` of each assignment, in order; None for one not in the audited list
        (the new assignment of an edit)."""
        used: Counter[int] = Counter()
        found: list[str | None] = []
        for a in assignments:
            places = self.positions.get(id(a), [])
            nth = used[id(a)]
            used[id(a)] += 1
            found.append(f"roster[{places[nth]}]" if nth < len(places) else None)
        return found

    def of_on(self, employee_id: str, day: dt.date) -> list[Assignment]:
        return self._by_employee_date.get((employee_id, day), [])

    def shifts_of_on(self, employee_id: str, day: dt.date) -> set[str]:
        return {a.shift_id for a in self.of_on(employee_id, day)}

    def works(self, employee_id: str, day: dt.date) -> bool:
        return bool(self.of_on(employee_id, day))

    @property
    def joined(self) -> list[dt.date]:
        """The history's dates, then the period's."""
        return self.before + self.dates

    def worked_shifts(self, employee_id: str, day: dt.date) -> set[str]:
        """The shifts worked on ``day``: the history's before the period, else the roster's."""
        if day < self.request.schedule_period.start_date:
            earlier = self._earlier.get((employee_id, day))
            return set() if earlier is None else {earlier}
        return self.shifts_of_on(employee_id, day)

    def minutes_on(self, employee_id: str, day: dt.date) -> int:
        if day < self.request.schedule_period.start_date:
            return sum(shift_minutes(self.shifts[s]) for s in self.worked_shifts(employee_id, day))
        return sum(shift_minutes(self.shifts[a.shift_id]) for a in self.of_on(employee_id, day))

    def past(self, employee_id: str, targets: set[str]) -> int:
        """Assignments to ``targets`` before the period: the history's ledger when it has
        one, else its cells."""
        counts = self._past.get(employee_id, {})
        return sum(n for shift_id, n in counts.items() if shift_id in targets)

    def on(self, shift_id: str, day: dt.date) -> list[Assignment]:
        return self._by_shift_date.get((shift_id, day), [])

    def occupied(self) -> list[tuple[str, dt.date]]:
        """Every (shift, date) in scope with an assignment, sorted by date then shift."""
        return sorted(
            (key for key, on in self._by_shift_date.items() if on and self.in_date_scope(key[1])),
            key=lambda key: (key[1], key[0]),
        )


def _positions(
    assignments: Sequence[Assignment], known: Sequence[Assignment]
) -> dict[int, list[int]]:
    """Where each known assignment stands in the audited list, for ``roster[i]``. Keyed
    by object identity, so only objects the context keeps alive (``known``) are keyed."""
    kept = {id(a) for a in known}
    found: dict[int, list[int]] = {}
    for index, a in enumerate(assignments):
        if id(a) in kept:
            found.setdefault(id(a), []).append(index)
    return found


def _unique(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))
