"""Cross-field rules of a parsed request: references, periods, duplicates, bounds.

They run only on a request that passed the field rules (they need typed values to
compare), and the rules measured against the period are skipped while the period is
undefined or too long (see shiftsched.contract.parse). Each fault carries a real JSON path.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from shiftsched.contract.faults import ErrorCode, Path, fault, period_too_long
from shiftsched.contract.hints import unknown_id
from shiftsched.contract.size import schedule_days
from shiftsched.contract.v1 import (
    MAX_PERIOD_DAYS,
    AvoidedShiftPreference,
    CrossShiftDemand,
    Employee,
    FixedAssignment,
    PreferredShiftPreference,
    Range,
    ShiftCountLimit,
    SolveRequest,
)
from shiftsched.errors import FieldError


@dataclass(frozen=True, slots=True)
class _Index:
    """Facts about a request that several rules look up."""

    start: dt.date
    end: dt.date
    days: int
    shift_ids: frozenset[str]
    duty_shifts: Mapping[str, frozenset[str]]  # duty id -> shifts the duty is defined on
    employee_ids: frozenset[str]
    shifts_with_hours: frozenset[str]

    @property
    def period_valid(self) -> bool:
        """Whether the rules measured against the period apply: it runs forwards and is
        not longer than the ceiling."""
        return 0 < self.days <= MAX_PERIOD_DAYS

    @classmethod
    def of(cls, request: SolveRequest) -> _Index:
        period = request.schedule_period
        return cls(
            start=period.start_date,
            end=period.end_date,
            days=schedule_days(period),
            shift_ids=frozenset(s.id for s in request.shifts),
            duty_shifts={d.id: frozenset(d.staffing_demand_by_shift) for d in request.duties},
            employee_ids=frozenset(e.id for e in request.employees),
            shifts_with_hours=frozenset(s.id for s in request.shifts if s.working_hours),
        )


Rule = Callable[[SolveRequest, _Index], Iterator[FieldError]]


def _date_in_period(path: Path, day: dt.date, index: _Index) -> Iterator[FieldError]:
    if index.period_valid and not index.start <= day <= index.end:
        yield fault(
            path,
            ErrorCode.DATE_OUTSIDE_PERIOD,
            f"{day.isoformat()} is outside the period "
            f"{index.start.isoformat()}..{index.end.isoformat()}",
        )


def _shift_ref(path: Path, shift_id: str, index: _Index) -> Iterator[FieldError]:
    if shift_id not in index.shift_ids:
        yield fault(
            path, ErrorCode.UNKNOWN_SHIFT_ID, unknown_id("shift", shift_id, index.shift_ids)
        )


def _duty_ref(path: Path, duty_id: str, index: _Index) -> Iterator[FieldError]:
    if duty_id not in index.duty_shifts:
        yield fault(path, ErrorCode.UNKNOWN_DUTY_ID, unknown_id("duty", duty_id, index.duty_shifts))


def _range(path: Path, value: Range) -> Iterator[FieldError]:
    if value.min > value.max:
        yield fault(
            path, ErrorCode.MIN_GREATER_THAN_MAX, f"min {value.min} is greater than max {value.max}"
        )


def _bounds(path: Path, item: ShiftCountLimit | CrossShiftDemand) -> Iterator[FieldError]:
    """Optional min/max pairs: at least one bound, and min <= max when both are given."""
    if item.min is None and item.max is None:
        yield fault(path, ErrorCode.MISSING_BOUND, "needs min, max or both")
    elif item.min is not None and item.max is not None and item.min > item.max:
        yield fault(
            path, ErrorCode.MIN_GREATER_THAN_MAX, f"min {item.min} is greater than max {item.max}"
        )


def _demand(path: Path, ranges: Sequence[Range], index: _Index) -> Iterator[FieldError]:
    """A per-day demand array: one range per day of the period, each with min <= max."""
    if index.period_valid and len(ranges) != index.days:
        yield fault(
            path,
            ErrorCode.DEMAND_LENGTH_MISMATCH,
            f"has {len(ranges)} items; the period has {index.days} days (one range per day)",
        )
    for day, value in enumerate(ranges):
        yield from _range((*path, day), value)


def _period(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rule 3, the period's ceiling, the time zone, and holidays inside the period."""
    period = request.schedule_period
    if index.days <= 0:
        yield fault(
            ("schedule_period", "start_date"),
            ErrorCode.PERIOD_START_AFTER_END,
            f"start_date {period.start_date.isoformat()} is after "
            f"end_date {period.end_date.isoformat()}",
        )
    elif index.days > MAX_PERIOD_DAYS:
        yield period_too_long(("schedule_period", "end_date"), index.days)
    if not _is_timezone(period.timezone):
        yield fault(
            ("schedule_period", "timezone"),
            ErrorCode.INVALID_TIMEZONE,
            f"'{period.timezone}' is not an IANA time zone name",
        )
    for h, holiday in enumerate(period.holidays):
        yield from _date_in_period(("schedule_period", "holidays", h), holiday, index)


def _is_timezone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: e.g. a directory name
        return False
    return True


def _duplicates(section: str, ids: Iterable[str]) -> Iterator[FieldError]:
    seen: set[str] = set()
    for position, item_id in enumerate(ids):
        if item_id in seen:
            yield fault(
                (section, position, "id"),
                ErrorCode.DUPLICATE_ID,
                f"id '{item_id}' is already used by an earlier item of {section}",
            )
        seen.add(item_id)


def _duplicate_ids(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    yield from _duplicates("shifts", (s.id for s in request.shifts))
    yield from _duplicates("duties", (d.id for d in request.duties))
    yield from _duplicates("employees", (e.id for e in request.employees))


def _shifts(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rules 1, 2 and 7 for shifts: staffing and manager demand per day."""
    for s, shift in enumerate(request.shifts):
        yield from _demand(("shifts", s, "staffing_demand"), shift.staffing_demand, index)
        if shift.manager_demand is not None:
            yield from _demand(("shifts", s, "manager_demand"), shift.manager_demand, index)


def _duties(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rules 1 and 2 for duties; each demand key must be a shift id."""
    for k, duty in enumerate(request.duties):
        for shift_id, ranges in duty.staffing_demand_by_shift.items():
            path: Path = ("duties", k, "staffing_demand_by_shift", shift_id)
            yield from _shift_ref(path, shift_id, index)
            yield from _demand(path, ranges, index)


def _employee_shifts(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    """Rules 4 and 8: assignable shifts exist and, under an hours limit, have hours."""
    for j, shift_id in enumerate(employee.assignable_shift_ids):
        item: Path = (*path, "assignable_shift_ids", j)
        yield from _shift_ref(item, shift_id, index)
        if (
            shift_id in index.shift_ids
            and employee.weekly_working_hours_limit
            and shift_id not in index.shifts_with_hours
        ):
            yield fault(
                item,
                ErrorCode.MISSING_WORKING_HOURS,
                f"shift '{shift_id}' has no working_hours, "
                "which weekly_working_hours_limit needs to count hours",
            )


def _employee_limits(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    """Rules 2 and 9 for an employee's ranges and shift count limits; skill duty ids."""
    for duty_id in employee.skill_levels:
        yield from _duty_ref((*path, "skill_levels", duty_id), duty_id, index)
    for name in ("working_days_per_month", "working_days_per_week"):
        value = getattr(employee, name)
        if value is not None:
            yield from _range((*path, name), value)
    for j, limit in enumerate(employee.shift_count_limits):
        item: Path = (*path, "shift_count_limits", j)
        yield from _shift_ref((*item, "shift_id"), limit.shift_id, index)
        yield from _bounds(item, limit)


def _preferences(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    for j, preference in enumerate(employee.preferences):
        item: Path = (*path, "preferences", j)
        yield from _date_in_period((*item, "date"), preference.date, index)
        if isinstance(preference, PreferredShiftPreference | AvoidedShiftPreference):
            yield from _shift_ref((*item, "shift_id"), preference.shift_id, index)


def _fixed_assignments(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    """References of each fixed assignment, and that the duty exists on the shift."""
    for j, fixed in enumerate(employee.fixed_assignments):
        item: Path = (*path, "fixed_assignments", j)
        yield from _date_in_period((*item, "date"), fixed.date, index)
        yield from _shift_ref((*item, "shift_id"), fixed.shift_id, index)
        duty_id = fixed.duty_id
        if duty_id is None:
            continue
        yield from _duty_ref((*item, "duty_id"), duty_id, index)
        shifts = index.duty_shifts.get(duty_id)
        if shifts is not None and fixed.shift_id in index.shift_ids - shifts:
            yield fault(
                (*item, "duty_id"),
                ErrorCode.DUTY_NOT_ON_SHIFT,
                f"duty '{duty_id}' is not defined on shift '{fixed.shift_id}' "
                "(it is not a key of the duty's staffing_demand_by_shift)",
            )


def _compatible(a: FixedAssignment, b: FixedAssignment) -> bool:
    """Same shift, and not two different duties (one duty per shift)."""
    return a.shift_id == b.shift_id and (a.duty_id == b.duty_id or None in (a.duty_id, b.duty_id))


def _fixed_conflicts(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    """One shift per date and one duty per shift: a later fix may not contradict an earlier."""
    by_date: dict[dt.date, list[int]] = {}
    fixes = employee.fixed_assignments
    for j, fixed in enumerate(fixes):
        earlier = by_date.setdefault(fixed.date, [])
        clash = next((k for k in earlier if not _compatible(fixes[k], fixed)), None)
        if clash is not None:
            yield fault(
                (*path, "fixed_assignments", j),
                ErrorCode.CONFLICTING_FIXED_ASSIGNMENTS,
                f"contradicts fixed_assignments[{clash}] on {fixed.date.isoformat()}: an "
                "employee works at most one shift per date and holds at most one duty on it",
            )
        earlier.append(j)


_EMPLOYEE_RULES = (
    _employee_shifts,
    _employee_limits,
    _preferences,
    _fixed_assignments,
    _fixed_conflicts,
)


def _employees(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    for e, employee in enumerate(request.employees):
        for rule in _EMPLOYEE_RULES:
            yield from rule(("employees", e), employee, index)


def _transitions(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    for t, transition in enumerate(request.constraints.shift_transitions):
        path: Path = ("constraints", "shift_transitions", t)
        yield from _shift_ref((*path, "from_shift_id"), transition.from_shift_id, index)
        yield from _shift_ref((*path, "to_shift_id"), transition.to_shift_id, index)


def _pairings(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    for p, pairing in enumerate(request.constraints.employee_pairings):
        seen: set[str] = set()
        for j, employee_id in enumerate(pairing.employee_ids):
            path: Path = ("constraints", "employee_pairings", p, "employee_ids", j)
            if employee_id not in index.employee_ids:
                yield fault(
                    path, ErrorCode.UNKNOWN_EMPLOYEE_ID, f"no employee has id '{employee_id}'"
                )
            elif employee_id in seen:
                yield fault(path, ErrorCode.DUPLICATE_REFERENCE, f"'{employee_id}' is listed twice")
            seen.add(employee_id)


def _cross_shift_demands(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rule 6: bounds, shift and duty references, date inside the period."""
    for c, demand in enumerate(request.constraints.cross_shift_demands):
        path: Path = ("constraints", "cross_shift_demands", c)
        yield from _bounds(path, demand)
        yield from _date_in_period((*path, "date"), demand.date, index)
        seen: set[str] = set()
        for j, shift_id in enumerate(demand.shift_ids):
            yield from _shift_ref((*path, "shift_ids", j), shift_id, index)
            if shift_id in seen:
                yield fault(
                    (*path, "shift_ids", j),
                    ErrorCode.DUPLICATE_REFERENCE,
                    f"'{shift_id}' is listed twice",
                )
            seen.add(shift_id)
        if demand.duty_id is not None:
            yield from _duty_ref((*path, "duty_id"), demand.duty_id, index)


def _fairness_groups(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rule 5: every target shift exists."""
    for g, group in enumerate(request.constraints.fairness_groups):
        for j, shift_id in enumerate(group.target_shift_ids):
            path: Path = ("constraints", "fairness_groups", g, "target_shift_ids", j)
            yield from _shift_ref(path, shift_id, index)


_RULES: tuple[Rule, ...] = (
    _period,
    _duplicate_ids,
    _shifts,
    _duties,
    _employees,
    _transitions,
    _pairings,
    _cross_shift_demands,
    _fairness_groups,
)


def check(request: SolveRequest) -> list[FieldError]:
    """Every cross-field fault of a parsed request, in request order per rule family."""
    index = _Index.of(request)
    return [error for rule in _RULES for error in rule(request, index)]
