"""Independent evaluator of a roster against docs/semantics.md.

This is the test oracle of the CP-SAT model. Both are written from the same semantics
page but share no code: this module does its own date arithmetic (periods, ISO weeks,
calendar months, proration, shift lengths) with :mod:`datetime` and plain loops, and it
never imports ``shiftsched.contract.horizon``, ``shiftsched.solving.problem`` or
``shiftsched.solving.model``. When the two disagree, one of them misreads the page.

:func:`audit` returns every broken hard rule (code from the semantics table, with who,
when and what, and ``field``, the JSON path of the input item behind it), every soft
term with a positive magnitude (merged by name, sorted by name), the objective value and
the shortage markers. :func:`compare_with_metrics` and
:func:`compare_shortages` list the differences between an audit and what a solver
reported. :func:`read_response` reads a roster from a response: its assignments strictly
(every fault with its JSON path), its metrics and shortages leniently (a roster written
by another tool can still be audited; what could not be compared is said in notes).

Readings chosen where the page leaves room:

- An assignment with an ``unknown_reference`` (employee, shift, duty or date) is reported
  once and then left out of every other rule: it cannot be placed on the calendar or
  priced. All other assignments count as listed, even those that break a hard rule (an
  employee listed twice on one date counts twice for heads, shift counts and hours).
- ``one_shift_per_date`` is reported once per employee and date listed more than once,
  however many times: its message gives the count and the distinct shifts with their
  multiplicities (the first :data:`LISTED_SHIFTS`, then how many more), its ``field`` the
  ``roster[i]`` of the second assignment of that cell. A finding per extra assignment,
  each listing them all, would grow with the square of the duplicates.
- Heads, managers and duty holders count assignments on ``(shift, date)``.
- A fixed assignment dated outside the period is not part of this roster and is ignored.
- A ``preferred_shift`` whose date is outside the period, or whose shift is unknown, is
  unmeetable and so always costs its weight (the page: "priced as written").
- Scope ``shift`` of skill support takes the highest value of ``skill_levels``, whatever
  its keys; a highest level of 0 is neither beginner nor senior.
- A ``require`` transition whose next date is a holiday still counts (``to`` is not
  worked on d+1); only the last date of the period is exempt.
- ``employee_pairings`` lists are read as sets (a repeated id counts once).
- A shift without ``working_hours`` lasts 0 minutes (the contract requires hours on every
  shift assignable to an employee with a weekly limit).
- Shortage markers sort by kind, date, ``shift_id``, ``duty_id``, cross-shift index; ids
  compare as strings and an absent id sorts first. A cross-shift marker has no
  ``shift_id``, so markers of one date sort by duty id, then by their index.
"""

from __future__ import annotations

import calendar
import copy
import datetime as dt
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field

from shiftsched.contract.history import History
from shiftsched.contract.parse import ErrorCode, parse_model
from shiftsched.contract.v1 import (
    Assignment,
    Date,
    Duty,
    Employee,
    Metrics,
    Range,
    Shift,
    Shortage,
    SoftConstraintViolation,
    SolveRequest,
)
from shiftsched.errors import FieldError, InvalidRequest, dotted

_Item = TypeVar("_Item", bound=BaseModel)

# ----------------------------------------------------------------------------- weights
# Duplicated on purpose from the table in docs/semantics.md (the model keeps its own).

SHORTAGE: Final = 10_000  # per missing head, all four demand kinds
PREFERENCE: Final = 100  # per unmet preference
SKILL_SUPPORT: Final = 50  # per unsupported (date, shift[, duty]) group
SHIFT_TRANSITION: Final = 40  # per soft transition occurrence
PAIRING_REQUIRE: Final = 40  # per missing partner
DAYS_PER_MONTH_MIN: Final = 30  # per day below the prorated monthly minimum
CONSECUTIVE_DAYS: Final = 20  # per window of N consecutive worked dates
DAYS_PER_WEEK: Final = 15  # per day below the prorated weekly min or above the max
DEMAND_EXCESS: Final = 10  # per head above a demand maximum
WEEKLY_HOURS: Final = 10  # per hour over a soft weekly limit, rounded up
FAIRNESS_DEFAULT: Final = 10  # per unit of fairness excess, unless penalty_weight

DEFAULT_MAX_CONSECUTIVE_DAYS: Final = 6

#: Weight of each soft-term family, keyed by the name (or name prefix) of the table.
WEIGHTS: Final[Mapping[str, int]] = {
    "staffing_shortage": SHORTAGE,
    "manager_shortage": SHORTAGE,
    "duty_shortage": SHORTAGE,
    "cross_shift_shortage": SHORTAGE,
    "preference:day_off": PREFERENCE,
    "preference:preferred_shift": PREFERENCE,
    "preference:avoided_shift": PREFERENCE,
    "skill_support": SKILL_SUPPORT,
    "shift_transition": SHIFT_TRANSITION,
    "pairing_require": PAIRING_REQUIRE,
    "days_per_month_min": DAYS_PER_MONTH_MIN,
    "consecutive_days": CONSECUTIVE_DAYS,
    "days_per_week": DAYS_PER_WEEK,
    "staffing_excess": DEMAND_EXCESS,
    "manager_excess": DEMAND_EXCESS,
    "duty_excess": DEMAND_EXCESS,
    "cross_shift_excess": DEMAND_EXCESS,
    "weekly_hours": WEEKLY_HOURS,
    "fairness": FAIRNESS_DEFAULT,
}

HardCode = Literal[
    "unknown_reference",
    "one_shift_per_date",
    "assignable_shift",
    "holiday",
    "available_weekday",
    "duty_not_on_shift",
    "skill_level",
    "fixed_assignment",
    "shift_count_limit",
    "max_consecutive_days",
    "days_per_month_max",
    "weekly_hours",
    "shift_transition",
    "pairing_exclude",
    "skill_support",
]
HARD_CODES: Final[tuple[str, ...]] = get_args(HardCode)

WEEKDAY_NAMES: Final = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SHORTAGE_KINDS: Final = ("staffing", "manager", "duty", "cross_shift")
MINUTES_PER_DAY: Final = 24 * 60
#: The distinct shifts a one_shift_per_date message names; any more are only counted.
LISTED_SHIFTS: Final = 10
_TOLERANCE: Final = 1e-6


# ----------------------------------------------------------------------------- report


class HardViolation(BaseModel):
    """One broken hard rule: which rule, who/when/what in words, and the input behind it.

    ``field`` is the JSON path of the item to change: a request item prefixed
    ``request.`` (``request.employees[3].fixed_assignments[0]``), or ``roster[i]`` for a
    fault of the roster itself (``i`` the assignment's position in the audited list).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: HardCode
    message: str
    employee_id: str | None = None
    date: Date | None = None
    shift_id: str | None = None
    field: str | None = None


class AuditReport(BaseModel):
    """What a roster costs and breaks, in the shape of the solver's own metrics."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hard_violations: list[HardViolation]
    soft_constraint_violations: list[SoftConstraintViolation]
    objective_value: float
    shortages: list[Shortage]

    @property
    def feasible(self) -> bool:
        """True when no hard rule is broken (shortages and soft terms do not count)."""
        return not self.hard_violations

    def violation(self, name: str) -> SoftConstraintViolation | None:
        """The soft term called ``name``, or None when it is not violated."""
        return next((v for v in self.soft_constraint_violations if v.name == name), None)


# ---------------------------------------------------------------------- calendar helpers


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


# ---------------------------------------------------------------------- working state


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
    dates: list[dt.date] = field(init=False)
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


@dataclass
class _Findings:
    """Accumulates hard violations, soft magnitudes (merged by name) and shortages."""

    hard: list[HardViolation] = field(default_factory=list)
    _penalty: dict[str, int] = field(default_factory=dict)
    _magnitude: dict[str, int] = field(default_factory=dict)
    _shortages: list[tuple[tuple[Any, ...], Shortage]] = field(default_factory=list)

    def broken(
        self,
        code: HardCode,
        message: str,
        employee_id: str | None = None,
        day: dt.date | None = None,
        shift_id: str | None = None,
        *,
        at: str | None,
    ) -> None:
        """Records a broken hard rule; ``at`` is the JSON path of the input item behind it."""
        self.hard.append(
            HardViolation(
                code=code,
                message=message,
                employee_id=employee_id,
                date=day,
                shift_id=shift_id,
                field=at,
            )
        )

    def soft(self, name: str, weight: int, magnitude: int) -> None:
        """Adds ``weight x magnitude`` to the term ``name``; zero magnitudes are dropped."""
        if magnitude <= 0:
            return
        self._penalty[name] = self._penalty.get(name, 0) + weight * magnitude
        self._magnitude[name] = self._magnitude.get(name, 0) + magnitude

    def shortage(self, marker: Shortage, cross_index: int = -1) -> None:
        """Keeps a marker with its sort key: kind, date, shift id, duty id, cross index."""
        key = (
            SHORTAGE_KINDS.index(marker.kind),
            marker.date,
            marker.shift_id or "",
            marker.duty_id or "",
            cross_index,
        )
        self._shortages.append((key, marker))

    def violations(self) -> list[SoftConstraintViolation]:
        return [
            SoftConstraintViolation(
                name=name,
                penalty=float(self._penalty[name]),
                violated_by=float(self._magnitude[name]),
            )
            for name in sorted(self._penalty)
        ]

    def objective(self) -> float:
        return float(sum(self._penalty.values()))

    def shortages(self) -> list[Shortage]:
        return [marker for _, marker in sorted(self._shortages, key=lambda item: item[0])]


# ---------------------------------------------------------------- assignment-level rules


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


def _check_references(
    request: SolveRequest, assignments: Sequence[Assignment], out: _Findings
) -> list[Assignment]:
    """unknown_reference; returns the assignments that can be placed and priced."""
    period = request.schedule_period
    employees = {e.id for e in request.employees}
    shifts = {s.id for s in request.shifts}
    duties = {k.id for k in request.duties}
    known: list[Assignment] = []
    for index, a in enumerate(assignments):
        problems: list[str] = []
        if a.employee_id not in employees:
            problems.append(f"unknown employee {a.employee_id!r}")
        if a.shift_id not in shifts:
            problems.append(f"unknown shift {a.shift_id!r}")
        if a.duty_id is not None and a.duty_id not in duties:
            problems.append(f"unknown duty {a.duty_id!r}")
        if not period.start_date <= a.date <= period.end_date:
            problems.append(
                f"date outside the period {period.start_date.isoformat()}.."
                f"{period.end_date.isoformat()}"
            )
        if problems:
            out.broken(
                "unknown_reference",
                f"{_describe(a)}: {'; '.join(problems)}",
                a.employee_id,
                a.date,
                a.shift_id,
                at=f"roster[{index}]",
            )
        else:
            known.append(a)
    return known


def _listed_shifts(listed: Sequence[Assignment]) -> str:
    """The distinct shifts of a cell in roster order, each with its multiplicity when
    above one; past :data:`LISTED_SHIFTS` the rest are counted, so the words stay short."""
    tally = Counter(a.shift_id for a in listed)
    named = [f"{s} x{n:,}" if n > 1 else s for s, n in list(tally.items())[:LISTED_SHIFTS]]
    if len(tally) > LISTED_SHIFTS:
        named.append(f"and {len(tally) - LISTED_SHIFTS:,} more")
    return ", ".join(named)


def _check_one_shift_per_date(ctx: _Context, out: _Findings) -> None:
    """An employee works at most one shift per date: one finding per cell listed twice
    or more, whatever the count, so the report grows with the roster, not its square.

    ``field`` is the ``roster[i]`` of the cell's second assignment; the others beyond
    the first are in the message's count.
    """
    counts = Counter((a.employee_id, a.date) for a in ctx.scoped_assignments)
    for (employee_id, day), count in sorted(counts.items(), key=lambda item: item[0]):
        if count > 1:
            listed = ctx.of_on(employee_id, day)
            out.broken(
                "one_shift_per_date",
                f"{employee_id} has {count:,} assignments on {day.isoformat()} "
                f"({_listed_shifts(listed)}): at most one shift per date",
                employee_id,
                day,
                at=ctx.roster_fields(listed[:2])[1],
            )


def _check_assignable_shift(ctx: _Context, out: _Findings) -> None:
    for a in ctx.scoped_assignments:
        if a.shift_id not in ctx.employees[a.employee_id].assignable_shift_ids:
            out.broken(
                "assignable_shift",
                f"{_describe(a)}: shift not in the employee's assignable_shift_ids",
                a.employee_id,
                a.date,
                a.shift_id,
                at=ctx.employee_field(a.employee_id, ".assignable_shift_ids"),
            )


def _check_holiday(ctx: _Context, out: _Findings) -> None:
    for a in ctx.scoped_assignments:
        if a.date in ctx.holidays:
            out.broken(
                "holiday",
                f"{_describe(a)}: the date is a holiday",
                a.employee_id,
                a.date,
                a.shift_id,
                at=f"request.schedule_period.holidays[{ctx.holiday_index[a.date]}]",
            )


def _check_available_weekday(ctx: _Context, out: _Findings) -> None:
    """Judged on the start date, so a night shift counts for the day it starts."""
    for a in ctx.scoped_assignments:
        allowed = ctx.employees[a.employee_id].available_weekdays
        if allowed is not None and _weekday_name(a.date) not in allowed:
            out.broken(
                "available_weekday",
                f"{_describe(a)}: {_weekday_name(a.date)} is not an available weekday",
                a.employee_id,
                a.date,
                a.shift_id,
                at=ctx.employee_field(a.employee_id, ".available_weekdays"),
            )


def _check_duty_on_shift(ctx: _Context, out: _Findings) -> None:
    """A duty exists only on the shifts keyed in its staffing_demand_by_shift."""
    for a in ctx.scoped_assignments:
        if a.duty_id is None:
            continue
        if a.shift_id not in ctx.duties[a.duty_id].staffing_demand_by_shift:
            out.broken(
                "duty_not_on_shift",
                f"{_describe(a)}: duty {a.duty_id} is not defined on shift {a.shift_id}",
                a.employee_id,
                a.date,
                a.shift_id,
                at=f"request.duties[{ctx.duty_index[a.duty_id]}].staffing_demand_by_shift",
            )


def _check_skill_level(ctx: _Context, out: _Findings) -> None:
    """Level 0 forbids the duty; a duty absent from skill_levels is allowed."""
    for a in ctx.scoped_assignments:
        if a.duty_id is None:
            continue
        if ctx.employees[a.employee_id].skill_levels.get(a.duty_id) == 0:
            out.broken(
                "skill_level",
                f"{_describe(a)}: skill level 0 for duty {a.duty_id}",
                a.employee_id,
                a.date,
                a.shift_id,
                at=ctx.employee_field(a.employee_id, ".skill_levels"),
            )


def _check_fixed_assignments(ctx: _Context, out: _Findings) -> None:
    """Each fixed assignment inside the period is worked, with its duty when named."""
    period = ctx.request.schedule_period
    for employee in ctx.scoped_employees:
        cells: dict[dt.date, set[tuple[str, str | None]]] = {}  # read once per date
        for j, fixed in enumerate(employee.fixed_assignments):
            if not period.start_date <= fixed.date <= period.end_date:
                continue
            if fixed.date not in cells:
                on_date = ctx.of_on(employee.id, fixed.date)
                cells[fixed.date] = {(a.shift_id, a.duty_id) for a in on_date}
            worked = any(
                shift_id == fixed.shift_id and fixed.duty_id in (None, duty_id)
                for shift_id, duty_id in cells[fixed.date]
            )
            if not worked:
                duty = f" with duty {fixed.duty_id}" if fixed.duty_id is not None else ""
                out.broken(
                    "fixed_assignment",
                    f"{employee.id} is fixed to shift {fixed.shift_id}{duty} on "
                    f"{fixed.date.isoformat()} but does not work it",
                    employee.id,
                    fixed.date,
                    fixed.shift_id,
                    at=ctx.employee_field(employee.id, f".fixed_assignments[{j}]"),
                )


def _check_shift_count_limits(ctx: _Context, out: _Findings) -> None:
    """Per employee and shift, the count over the whole period lies in [min, max]."""
    for employee in ctx.scoped_employees:
        counts = Counter(a.shift_id for a in ctx.of(employee.id))
        for j, limit in enumerate(employee.shift_count_limits):
            at = ctx.employee_field(employee.id, f".shift_count_limits[{j}]")
            count = counts.get(limit.shift_id, 0)
            if limit.min is not None and count < limit.min:
                out.broken(
                    "shift_count_limit",
                    f"{employee.id} works shift {limit.shift_id} {count} times, "
                    f"below the minimum {limit.min}",
                    employee.id,
                    shift_id=limit.shift_id,
                    at=at,
                )
            if limit.max is not None and count > limit.max:
                out.broken(
                    "shift_count_limit",
                    f"{employee.id} works shift {limit.shift_id} {count} times, "
                    f"above the maximum {limit.max}",
                    employee.id,
                    shift_id=limit.shift_id,
                    at=at,
                )


# ------------------------------------------------------------------------- sequences


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


# -------------------------------------------------------------------------- workload


def _seam_groups(ctx: _Context, key: Any) -> dict[str, list[dt.date]]:
    """Weeks or months of the history and the period that reach a date of the period,
    each with its dates in both."""
    inside = {key(day) for day in ctx.dates}
    return {k: days for k, days in _group_dates(ctx.joined, key).items() if k in inside}


def _days_per_month(ctx: _Context, out: _Findings) -> None:
    """Max hard per month (not prorated); min soft, prorated for partial months. A month
    the history already filled past the max may get no more days from the period."""
    months = _seam_groups(ctx, _month_key)
    start = ctx.request.schedule_period.start_date
    for employee in ctx.scoped_employees:
        bounds = employee.working_days_per_month
        if bounds is None:
            continue
        for key, days in months.items():
            earlier = sum(1 for d in days if d < start and ctx.worked_shifts(employee.id, d))
            worked = sum(1 for day in days if ctx.worked_shifts(employee.id, day))
            if worked > max(bounds.max, earlier):
                out.broken(
                    "days_per_month_max",
                    f"{employee.id} works {worked} dates in {key}, more than {bounds.max}",
                    employee.id,
                    max(days[0], start),
                    at=ctx.employee_field(employee.id, ".working_days_per_month"),
                )
            minimum = _prorate(bounds.min, len(days), _days_in_month(days[0]))
            out.soft(
                f"days_per_month_min:{employee.id}:{key}",
                DAYS_PER_MONTH_MIN,
                max(0, minimum - worked),
            )


def _days_per_week(ctx: _Context, out: _Findings) -> None:
    """Both soft: days below the prorated minimum plus days above the maximum."""
    weeks = _seam_groups(ctx, _week_key)
    for employee in ctx.scoped_employees:
        bounds = employee.working_days_per_week
        if bounds is None:
            continue
        for key, days in weeks.items():
            worked = sum(1 for day in days if ctx.worked_shifts(employee.id, day))
            minimum = _prorate(bounds.min, len(days), 7)
            magnitude = max(0, minimum - worked) + max(0, worked - bounds.max)
            out.soft(f"days_per_week:{employee.id}:{key}", DAYS_PER_WEEK, magnitude)


def _weekly_hours(ctx: _Context, out: _Findings) -> None:
    """Minutes per ISO week (of each shift's start date) against 60 x hours. A week the
    history already took past a hard limit may get no more minutes from the period."""
    weeks = _seam_groups(ctx, _week_key)
    start = ctx.request.schedule_period.start_date
    for employee in ctx.scoped_employees:
        limit = employee.weekly_working_hours_limit
        if limit is None:
            continue
        for key, days in weeks.items():
            minutes = sum(ctx.minutes_on(employee.id, day) for day in days)
            earlier = sum(ctx.minutes_on(employee.id, day) for day in days if day < start)
            over = minutes - 60 * limit.hours
            if over <= 0:
                continue
            if limit.enforcement == "soft":
                out.soft(f"weekly_hours:{employee.id}:{key}", WEEKLY_HOURS, _ceil_div(over, 60))
            elif minutes > earlier:
                out.broken(
                    "weekly_hours",
                    f"{employee.id} works {minutes} minutes in {key}, more than "
                    f"{limit.hours} h ({60 * limit.hours} minutes)",
                    employee.id,
                    max(days[0], start),
                    at=ctx.employee_field(employee.id, ".weekly_working_hours_limit"),
                )


# ----------------------------------------------------------------------------- teams


def _unique(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _pairings(ctx: _Context, out: _Findings) -> None:
    """exclude: at most one listed employee per (shift, date). require: missing partners."""
    pairings = ctx.request.constraints.employee_pairings
    if not pairings:
        return
    # who works each occupied cell, read once for all pairings
    cells = [(key, {a.employee_id for a in ctx.on(*key)}) for key in ctx.occupied()]
    for index, pairing in enumerate(pairings):
        members = _unique(pairing.employee_ids)
        missing = 0
        for (shift_id, day), working in cells:
            present = [m for m in members if m in working]
            if pairing.rule == "exclude" and len(present) > 1:
                out.broken(
                    "pairing_exclude",
                    f"{', '.join(present)} work together on shift {shift_id} on "
                    f"{day.isoformat()} (employee_pairings[{index}] excludes it)",
                    None,
                    day,
                    shift_id,
                    at=f"request.constraints.employee_pairings[{index}]",
                )
            if pairing.rule == "require":
                missing += len(present) * (len(members) - len(present))
        if pairing.rule == "require":
            out.soft(f"pairing_require:{index}", PAIRING_REQUIRE, missing)


def _is_beginner(level: int | None) -> bool:
    return level is not None and 1 <= level <= 3


def _is_senior(level: int | None) -> bool:
    return level is not None and 7 <= level <= 10


def _highest_level(employee: Employee) -> int | None:
    return max(employee.skill_levels.values()) if employee.skill_levels else None


def _skill_support(ctx: _Context, out: _Findings) -> None:
    """A group with a beginner (1..3) and no senior (7..10) is unsupported."""
    support = ctx.request.constraints.skill_support
    if support is None:
        return
    groups: list[tuple[dt.date, str, str | None, list[int | None]]] = []
    for shift_id, day in ctx.occupied():
        on_shift = ctx.on(shift_id, day)
        if support.scope == "shift":
            levels = [_highest_level(ctx.employees[a.employee_id]) for a in on_shift]
            groups.append((day, shift_id, None, levels))
            continue
        for held in sorted({a.duty_id for a in on_shift if a.duty_id is not None}):
            levels = [
                ctx.employees[a.employee_id].skill_levels.get(held)
                for a in on_shift
                if a.duty_id == held
            ]
            groups.append((day, shift_id, held, levels))

    for day, shift_id, duty_id, levels in groups:
        if not any(map(_is_beginner, levels)) or any(map(_is_senior, levels)):
            continue
        name = f"skill_support:{day.isoformat()}:{shift_id}"
        if duty_id is not None:
            name += f":{duty_id}"
        if support.enforcement == "soft":
            out.soft(name, SKILL_SUPPORT, 1)
        else:
            where = f"shift {shift_id}" + (f" duty {duty_id}" if duty_id else "")
            out.broken(
                "skill_support",
                f"{where} on {day.isoformat()} has a beginner and no senior",
                None,
                day,
                shift_id,
                at="request.constraints.skill_support",
            )


# ---------------------------------------------------------------------------- demand


def _range_on(ranges: Sequence[Range] | None, index: int) -> Range | None:
    if ranges is None or index >= len(ranges):
        return None
    return ranges[index]


def _demand(ctx: _Context, out: _Findings) -> None:
    """Staffing, manager and duty demand per (shift, date); holidays demand nothing."""
    staffing_missing = manager_missing = duty_missing = 0
    for day in ctx.scoped_dates:
        if day in ctx.holidays:
            continue
        index = ctx.day_index(day)
        for shift in ctx.request.shifts:
            on_shift = ctx.on(shift.id, day)

            demand = _range_on(shift.staffing_demand, index)
            heads = len(on_shift)
            if demand is not None:
                staffing_missing += _missing(out, "staffing", day, demand, heads, shift.id)
                out.soft(
                    f"staffing_excess:{shift.id}:{day.isoformat()}",
                    DEMAND_EXCESS,
                    heads - demand.max,
                )

            demand = _range_on(shift.manager_demand, index)
            managers = sum(1 for a in on_shift if ctx.employees[a.employee_id].is_manager)
            if demand is not None:
                manager_missing += _missing(out, "manager", day, demand, managers, shift.id)
                out.soft(
                    f"manager_excess:{shift.id}:{day.isoformat()}",
                    DEMAND_EXCESS,
                    managers - demand.max,
                )

        for duty in ctx.request.duties:
            for shift_id, ranges in duty.staffing_demand_by_shift.items():
                demand = _range_on(ranges, index)
                if demand is None:
                    continue
                holders = sum(1 for a in ctx.on(shift_id, day) if a.duty_id == duty.id)
                duty_missing += _missing(out, "duty", day, demand, holders, shift_id, duty.id)
                out.soft(
                    f"duty_excess:{duty.id}:{shift_id}:{day.isoformat()}",
                    DEMAND_EXCESS,
                    holders - demand.max,
                )

    out.soft("staffing_shortage", SHORTAGE, staffing_missing)
    out.soft("manager_shortage", SHORTAGE, manager_missing)
    out.soft("duty_shortage", SHORTAGE, duty_missing)


def _missing(
    out: _Findings,
    kind: Literal["staffing", "manager", "duty"],
    day: dt.date,
    demand: Range,
    assigned: int,
    shift_id: str,
    duty_id: str | None = None,
) -> int:
    """Records a shortage marker when ``assigned < min``; returns the missing heads."""
    missing = max(0, demand.min - assigned)
    if missing:
        out.shortage(
            Shortage(
                kind=kind,
                date=day,
                shift_id=shift_id,
                duty_id=duty_id,
                required=demand.min,
                assigned=assigned,
                missing=missing,
            )
        )
    return missing


def _cross_shift_demand(ctx: _Context, out: _Findings) -> None:
    """Heads on one date over several shifts, optionally only duty holders or managers."""
    total_missing = 0
    counted: dict[tuple[str, dt.date, str | None, bool], int] = {}  # demands may repeat a cell
    for index, demand in enumerate(ctx.request.constraints.cross_shift_demands):
        if demand.date not in ctx.dates or demand.date in ctx.holidays:
            continue
        if not ctx.in_date_scope(demand.date):
            continue
        heads = 0
        for shift_id in _unique(demand.shift_ids):
            key = (shift_id, demand.date, demand.duty_id, demand.managers_only)
            if key not in counted:
                counted[key] = sum(
                    1
                    for a in ctx.on(shift_id, demand.date)
                    if (demand.duty_id is None or a.duty_id == demand.duty_id)
                    and (not demand.managers_only or ctx.employees[a.employee_id].is_manager)
                )
            heads += counted[key]
        if demand.min is not None and heads < demand.min:
            missing = demand.min - heads
            total_missing += missing
            out.shortage(
                Shortage(
                    kind="cross_shift",
                    date=demand.date,
                    shift_ids=list(demand.shift_ids),
                    duty_id=demand.duty_id,
                    required=demand.min,
                    assigned=heads,
                    missing=missing,
                ),
                cross_index=index,
            )
        if demand.max is not None:
            out.soft(f"cross_shift_excess:{index}", DEMAND_EXCESS, heads - demand.max)
    out.soft("cross_shift_shortage", SHORTAGE, total_missing)


# -------------------------------------------------------------------------- fairness


def _proportional_weight(ctx: _Context, employee: Employee, targets: set[str]) -> int:
    """min + max of working_days_per_month, else 2 x the dates e may work a target shift."""
    if employee.working_days_per_month is not None:
        return employee.working_days_per_month.min + employee.working_days_per_month.max
    fixed_elsewhere = {f.date for f in employee.fixed_assignments if f.shift_id not in targets}
    available = employee.available_weekdays
    open_dates = 0
    for day in ctx.dates:
        if day in ctx.holidays:
            continue
        if available is not None and _weekday_name(day) not in available:
            continue
        if day in fixed_elsewhere:
            continue
        open_dates += 1
    return 2 * open_dates


def _fairness(ctx: _Context, out: _Findings) -> None:
    """excess = ceil(sum_e max(0, count_e x W - total x w_e) / W) per group."""
    for index, group in enumerate(ctx.request.constraints.fairness_groups):
        targets = set(group.target_shift_ids)
        eligible = [e for e in ctx.request.employees if targets & set(e.assignable_shift_ids)]
        if not eligible:
            continue
        counts = {
            e.id: sum(1 for a in ctx.of(e.id) if a.shift_id in targets) + ctx.past(e.id, targets)
            for e in eligible
        }
        total = sum(counts.values())
        if group.policy == "equal":
            weights = {e.id: 1 for e in eligible}
        else:
            weights = {e.id: _proportional_weight(ctx, e, targets) for e in eligible}
        if sum(weights.values()) == 0:
            weights = {e.id: 1 for e in eligible}
        weight_sum = sum(weights.values())
        over = sum(max(0, counts[e.id] * weight_sum - total * weights[e.id]) for e in eligible)
        penalty_weight = group.penalty_weight or FAIRNESS_DEFAULT
        out.soft(f"fairness:{index}", penalty_weight, _ceil_div(over, weight_sum))


# ----------------------------------------------------------------------- preferences


def _preferences(ctx: _Context, out: _Findings) -> None:
    """Priced as written, even on holidays or for shifts the employee can never work."""
    for employee in ctx.scoped_employees:
        worked: dict[dt.date, set[str]] = {}  # several preferences may name one date
        for pref in employee.preferences:
            if pref.date not in worked:
                worked[pref.date] = ctx.shifts_of_on(employee.id, pref.date)
            worked_shifts = worked[pref.date]
            day = pref.date.isoformat()
            if pref.type == "day_off":
                name = f"preference:day_off:{employee.id}:{day}"
                out.soft(name, ctx.preference_weight, 1 if worked_shifts else 0)
            elif pref.type == "preferred_shift":
                name = f"preference:preferred_shift:{employee.id}:{day}:{pref.shift_id}"
                out.soft(name, ctx.preference_weight, 0 if pref.shift_id in worked_shifts else 1)
            else:
                name = f"preference:avoided_shift:{employee.id}:{day}:{pref.shift_id}"
                out.soft(name, ctx.preference_weight, 1 if pref.shift_id in worked_shifts else 0)


# ------------------------------------------------------------------------------ audit

_RULES = (
    _check_one_shift_per_date,
    _check_assignable_shift,
    _check_holiday,
    _check_available_weekday,
    _check_duty_on_shift,
    _check_skill_level,
    _check_fixed_assignments,
    _check_shift_count_limits,
    _consecutive_days,
    _days_per_month,
    _weekly_hours,
    _shift_transitions,
    _pairings,
    _skill_support,
    _days_per_week,
    _demand,
    _cross_shift_demand,
    _fairness,
    _preferences,
)


def audit(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    *,
    preference_weight: int = PREFERENCE,
    history: History | None = None,
) -> AuditReport:
    """Evaluates a roster: hard violations, soft terms, objective value and shortages.

    ``preference_weight`` prices an unmet preference, for rosters solved with a tuned
    weight (shiftsched.questions.variants.with_preference_weight); v1 always uses the default.
    ``history``: the days before the period (docs/semantics.md, "Planning across
    periods"), read across the seam; its cells are facts and are never reported.
    """
    out = _Findings()
    known = _check_references(request, assignments, out)
    ctx = _Context(
        request, known, preference_weight, history=history, positions=_positions(assignments, known)
    )
    for rule in _RULES:
        rule(ctx, out)
    return AuditReport(
        hard_violations=out.hard,
        soft_constraint_violations=out.violations(),
        objective_value=out.objective(),
        shortages=out.shortages(),
    )


class TermChange(BaseModel):
    """How one soft term's price moves with a change (exact, in objective units)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    penalty_delta: float
    violated_by_delta: float


@dataclass(frozen=True)
class ChangeEffect:
    """The audit of an edited roster minus the audit of the original."""

    hard_violations: list[HardViolation]  # broken in the edited roster and not before
    objective_delta: float
    changed_terms: list[TermChange]


def _findings(ctx: _Context) -> _Findings:
    out = _Findings()
    for rule in _RULES:
        rule(ctx, out)
    return out


def _violation_key(v: HardViolation) -> tuple[Any, ...]:
    return (v.code, v.message, v.employee_id, v.date, v.shift_id, v.field)


class ChangeEvaluator:
    """The audit's verdict on many one-cell edits of one roster, without re-auditing it.

    Replacing one employee's assignment on one date can change only the rules about that
    employee, the rules about that date, and fairness (which compares everyone). Both
    rosters are evaluated by the same rules narrowed to that scope, so every term outside
    it cancels and the difference equals ``audit(edited) - audit(original)`` exactly. On
    ``datasets/max_size.json`` (50 employees, 31 days) one edit costs about 1.5 ms, a
    tenth of a full audit (benchmarks/README.md, re-planning).
    """

    def __init__(
        self,
        request: SolveRequest,
        assignments: Sequence[Assignment],
        *,
        preference_weight: int = PREFERENCE,
        history: History | None = None,
    ) -> None:
        out = _Findings()
        known = _check_references(request, assignments, out)
        self._base = _Context(
            request,
            known,
            preference_weight,
            history=history,
            positions=_positions(assignments, known),
        )

    def effect(self, employee_id: str, day: dt.date, new: Assignment | None) -> ChangeEffect:
        """Replace ``employee_id``'s assignments on ``day`` by ``new`` (None: a day off).

        ``new`` must name a known employee, shift and duty on a date of the period
        (ValueError otherwise): an unknown reference cannot be priced.
        """
        if new is not None:
            probe = _Findings()
            if not _check_references(self._base.request, [new], probe):
                raise ValueError(probe.hard[0].message)
            if (new.employee_id, new.date) != (employee_id, day):
                raise ValueError("the new assignment must be the same employee's, same date")
        scope = (frozenset({employee_id}), frozenset({day}))
        before = _findings(self._base.scoped(*scope))
        after = _findings(self._base.replaced(employee_id, day, new).scoped(*scope))
        had = Counter(_violation_key(v) for v in before.hard)
        broken = []
        for violation in after.hard:
            key = _violation_key(violation)
            if had[key]:
                had[key] -= 1
            else:
                broken.append(violation)
        changed = [
            TermChange(
                name=name,
                penalty_delta=float(after._penalty.get(name, 0) - before._penalty.get(name, 0)),
                violated_by_delta=float(
                    after._magnitude.get(name, 0) - before._magnitude.get(name, 0)
                ),
            )
            for name in sorted(set(before._penalty) | set(after._penalty))
            if after._penalty.get(name, 0) != before._penalty.get(name, 0)
        ]
        return ChangeEffect(
            hard_violations=broken,
            objective_delta=after.objective() - before.objective(),
            changed_terms=changed,
        )


def audit_json(
    request_data: Mapping[str, Any],
    response_data: Mapping[str, Any] | Sequence[Mapping[str, Any]],
) -> AuditReport:
    """Audits JSON-shaped data: a SolveResponse, ``{"assignments": [...]}`` or a list.

    Raises ValueError when the response holds no readable roster (see :func:`read_response`).
    """
    request = SolveRequest.model_validate(request_data)
    try:
        assignments = read_response(response_data).assignments
    except InvalidRequest as exc:
        raise ValueError(str(exc)) from None
    return audit(request, assignments)


# ----------------------------------------------------------------------- read a response


class ReportedMetrics(BaseModel):
    """The part of ``solution.metrics`` the comparison reads; other fields are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    objective_value: float | None = None
    soft_constraint_violations: list[SoftConstraintViolation] = Field(default_factory=list)


@dataclass(frozen=True)
class ReadResponse:
    """A roster read from a response, with what the response reported about it.

    ``metrics`` and ``shortages`` are None when the response does not carry them in a
    readable form; ``notes`` then says why. ``notes`` also names the fields of
    ``solution.metrics`` that the contract does not define (left out of the comparison).
    """

    assignments: list[Assignment]
    metrics: ReportedMetrics | None = None
    shortages: list[Shortage] | None = None
    notes: list[str] = field(default_factory=list)


def _fault(path: tuple[str | int, ...], message: str, code: ErrorCode) -> InvalidRequest:
    return InvalidRequest([FieldError(path, message, code.value)])


def _items(model: type[_Item], raw: object, at: tuple[str | int, ...]) -> list[_Item]:
    """Every item of the array found at ``at``, validated; the error lists every fault."""
    if not isinstance(raw, list):
        raise _fault(at, "must be an array", ErrorCode.WRONG_TYPE)
    items: list[_Item] = []
    errors: list[FieldError] = []
    for index, item in enumerate(raw):
        try:
            items.append(parse_model(model, item, (*at, index)))
        except InvalidRequest as exc:
            errors.extend(exc.errors)
    if errors:
        raise InvalidRequest(errors)
    return items


def _skipped(what: str, reason: str) -> str:
    return f"comparison with the reported {what} skipped: {reason}"


def _unreadable(exc: InvalidRequest) -> str:
    return "; ".join(f"{dotted(e.path)}: {e.message}" for e in exc.errors)


def _read_metrics(solution: Mapping[str, Any], notes: list[str]) -> ReportedMetrics | None:
    raw = solution.get("metrics")
    if raw is None:
        notes.append(_skipped("metrics", "solution.metrics is missing"))
        return None
    if not isinstance(raw, dict):
        notes.append(_skipped("metrics", "solution.metrics is not an object"))
        return None
    unknown = sorted(set(raw) - set(Metrics.model_fields))
    if unknown:
        notes.append(
            "solution.metrics: fields the contract does not define, left out of the "
            f"comparison: {', '.join(unknown)}"
        )
    try:
        return parse_model(ReportedMetrics, raw, ("solution", "metrics"))
    except InvalidRequest as exc:
        notes.append(_skipped("metrics", _unreadable(exc)))
        return None


def _read_shortages(solution: Mapping[str, Any], notes: list[str]) -> list[Shortage] | None:
    if solution.get("shortages") is None:
        notes.append(_skipped("shortages", "solution.shortages is missing"))
        return None
    try:
        return _items(Shortage, solution["shortages"], ("solution", "shortages"))
    except InvalidRequest as exc:
        notes.append(_skipped("shortages", _unreadable(exc)))
        return None


def read_response(data: object) -> ReadResponse:
    """The roster of a SolveResponse, of ``{"assignments": [...]}`` or of a bare list.

    The assignments must follow the contract: otherwise InvalidRequest names every fault
    by its JSON path (``solution.assignments[3].date``). Of a SolveResponse nothing else
    is required: ``solution.metrics`` and ``solution.shortages`` are read when they can be,
    whatever else the response holds (a roster written by another tool).
    """
    if isinstance(data, list):
        notes = [_skipped("metrics", "the input is a bare list of assignments")]
        return ReadResponse(_items(Assignment, data, ()), notes=notes)
    if not isinstance(data, Mapping) or not {"solution", "assignments"} & set(data):
        raise _fault(
            (),
            'expected a SolveResponse, {"assignments": [...]} or a list of assignments',
            ErrorCode.WRONG_TYPE,
        )
    if "solution" not in data:
        notes = [_skipped("metrics", "the input has no solution.metrics")]
        return ReadResponse(_items(Assignment, data["assignments"], ("assignments",)), notes=notes)
    solution = data["solution"]
    if solution is None:
        raise _fault(
            ("solution",),
            "the response has no solution to audit (solution is null)",
            ErrorCode.WRONG_TYPE,
        )
    if not isinstance(solution, Mapping):
        raise _fault(("solution",), "must be an object", ErrorCode.WRONG_TYPE)
    if "assignments" not in solution:
        raise _fault(
            ("solution", "assignments"),
            "required property 'assignments' is missing",
            ErrorCode.MISSING_FIELD,
        )
    assignments = _items(Assignment, solution["assignments"], ("solution", "assignments"))
    notes = []
    metrics = _read_metrics(solution, notes)
    shortages = _read_shortages(solution, notes)
    return ReadResponse(assignments, metrics, shortages, notes)


# ---------------------------------------------------------------------------- compare


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0.0, abs_tol=_TOLERANCE)


def compare_with_metrics(
    report: AuditReport,
    metrics: Metrics | ReportedMetrics | Mapping[str, Any],
    shortages: Sequence[Shortage | Mapping[str, Any]] | None = None,
) -> list[str]:
    """Differences between the audit and a solver's ``solution.metrics`` (empty: agree).

    Violations are compared as multisets keyed by name: a name reported twice, missing on
    one side, or with another penalty/violated_by is a difference. When ``shortages`` is
    given, the reported markers are compared too (see :func:`compare_shortages`).
    """
    reported = (
        metrics
        if isinstance(metrics, Metrics | ReportedMetrics)
        else Metrics.model_validate(metrics)
    )
    differences: list[str] = []

    if reported.objective_value is None:
        differences.append(f"objective_value: audit {report.objective_value}, reported none")
    elif not _close(reported.objective_value, report.objective_value):
        differences.append(
            f"objective_value: audit {report.objective_value}, reported {reported.objective_value}"
        )

    audited_by_name: dict[str, list[SoftConstraintViolation]] = defaultdict(list)
    for v in report.soft_constraint_violations:
        audited_by_name[v.name].append(v)
    reported_by_name: dict[str, list[SoftConstraintViolation]] = defaultdict(list)
    for v in reported.soft_constraint_violations:
        reported_by_name[v.name].append(v)

    for name in sorted(set(audited_by_name) | set(reported_by_name)):
        mine, theirs = audited_by_name.get(name, []), reported_by_name.get(name, [])
        if len(mine) != len(theirs):
            differences.append(
                f"{name}: audit has {len(mine)} entr{'y' if len(mine) == 1 else 'ies'}, "
                f"reported {len(theirs)}"
                + (f" (audit penalty {mine[0].penalty})" if mine else "")
                + (f" (reported penalty {theirs[0].penalty})" if theirs else "")
            )
            continue
        for a, r in zip(mine, theirs, strict=True):
            if not _close(a.penalty, r.penalty):
                differences.append(f"{name}: penalty audit {a.penalty}, reported {r.penalty}")
            if r.violated_by is None or a.violated_by is None:
                if r.violated_by != a.violated_by:
                    differences.append(
                        f"{name}: violated_by audit {a.violated_by}, reported {r.violated_by}"
                    )
            elif not _close(a.violated_by, r.violated_by):
                differences.append(
                    f"{name}: violated_by audit {a.violated_by}, reported {r.violated_by}"
                )

    if shortages is not None:
        differences.extend(compare_shortages(report, shortages))
    return differences


def _shortage_key(marker: Shortage) -> tuple[Any, ...]:
    return (
        marker.kind,
        marker.date.isoformat(),
        marker.shift_id,
        tuple(marker.shift_ids) if marker.shift_ids is not None else None,
        marker.duty_id,
        marker.required,
        marker.assigned,
        marker.missing,
    )


def compare_shortages(
    report: AuditReport,
    shortages: Sequence[Shortage | Mapping[str, Any]],
    *,
    check_order: bool = True,
) -> list[str]:
    """Differences between audited and reported shortage markers (multiset, then order)."""
    reported = [m if isinstance(m, Shortage) else Shortage.model_validate(m) for m in shortages]
    mine = Counter(_shortage_key(m) for m in report.shortages)
    theirs = Counter(_shortage_key(m) for m in reported)
    differences = [
        f"shortage only in the audit: {key}" for key in sorted((mine - theirs).elements(), key=repr)
    ]
    differences += [
        f"shortage only in the report: {key}"
        for key in sorted((theirs - mine).elements(), key=repr)
    ]
    reported_order = [_shortage_key(m) for m in reported]
    audited_order = [_shortage_key(m) for m in report.shortages]
    if check_order and not differences and reported_order != audited_order:
        differences.append("shortages: same markers, reported in another order")
    return differences
