"""``validate``: check a request without solving it, and say what the solver will make of it.

Validation is free and runs no solver, so it is where a caller learns, before paying, what
is certain from the input alone: demand that holidays cancel, employees who can never
work, shortages that no roster can avoid, fixed assignments that make the problem
infeasible, defaults that apply, and how the request will be handled and billed.

Each hint comes from one small function; a hint's ``field`` is a JSON-path-like string
(``employees[3].fixed_assignments[0]``), empty when the hint is about the whole request.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator

from shiftsched.contract.horizon import Horizon
from shiftsched.contract.parse import Path, parse_request
from shiftsched.contract.size import (
    SIZE_PER_UNIT,
    request_size,
    schedule_days,
    size_class,
    units_for,
)
from shiftsched.contract.v1 import (
    WEEKDAYS,
    Employee,
    FixedAssignment,
    Hint,
    PreferredShiftPreference,
    SolveRequest,
    ValidateResponse,
)
from shiftsched.solving.problem import DEFAULT_MAX_CONSECUTIVE_DAYS

#: Longest time limit of the synchronous path; longer ones are queued or refused.
SYNC_TIMEOUT_LIMIT_SECONDS = 30


def validate(data: object | SolveRequest) -> ValidateResponse:
    """Parse ``data`` (JSON-like or a SolveRequest) and describe it; raises InvalidRequest."""
    return describe(parse_request(data))


def describe(request: SolveRequest) -> ValidateResponse:
    """What a valid request holds, with the hints that may spare a failed solve."""
    return ValidateResponse(
        valid=True,
        schedule_days=schedule_days(request.schedule_period),
        shift_count=len(request.shifts),
        duty_count=len(request.duties),
        employee_count=len(request.employees),
        hints=hints(request),
    )


def hints(request: SolveRequest) -> list[Hint]:
    """Every hint about a valid request, in a stable order."""
    period = _horizon(request)
    return [hint for source in _HINTS for hint in source(request, period)]


def field_name(path: Path) -> str:
    """``("employees", 3, "fixed_assignments", 0)`` -> ``employees[3].fixed_assignments[0]``."""
    text = ""
    for segment in path:
        text += f"[{segment}]" if isinstance(segment, int) else f".{segment}"
    return text.removeprefix(".")


def _horizon(request: SolveRequest) -> Horizon:
    period = request.schedule_period
    return Horizon(period.start_date, period.end_date, frozenset(period.holidays))


def _working_days(period: Horizon) -> list[int]:
    """Indices of the dates that are not holidays."""
    return [i for i, closed in enumerate(period.is_holiday) if not closed]


HintSource = Callable[[SolveRequest, Horizon], Iterator[Hint]]


def _holiday_index(period: Horizon, day: dt.date) -> int:
    index = period.index_of(day)
    assert index is not None, "the rules keep holidays inside the period"
    return index


def _hint(path: Path, text: str) -> Hint:
    return Hint(field=field_name(path), hint=text)


def _is_available(employee: Employee, day: dt.date) -> bool:
    weekdays = employee.available_weekdays
    return weekdays is None or WEEKDAYS[day.weekday()] in weekdays


def _eligible_days(employee: Employee, period: Horizon) -> int:
    """Dates the employee may work at all: not a holiday, an available weekday."""
    return sum(_is_available(employee, period.dates[i]) for i in _working_days(period))


def _demand_sources(request: SolveRequest, day: dt.date, index: int) -> list[str]:
    """What asks for heads on one date: shifts, duties and cross-shift demands (min > 0)."""
    sources = [
        f"shift {shift.id}"
        for shift in request.shifts
        if shift.staffing_demand[index].min > 0
        or (shift.manager_demand is not None and shift.manager_demand[index].min > 0)
    ]
    sources += [
        f"duty {duty.id}"
        for duty in request.duties
        if any(ranges[index].min > 0 for ranges in duty.staffing_demand_by_shift.values())
    ]
    sources += [
        f"cross_shift_demands[{c}]"
        for c, demand in enumerate(request.constraints.cross_shift_demands)
        if demand.date == day and (demand.min or 0) > 0
    ]
    return sources


def _holiday_demand(request: SolveRequest, period: Horizon) -> Iterator[Hint]:
    seen: set[dt.date] = set()
    for h, holiday in enumerate(request.schedule_period.holidays):
        if holiday in seen:
            continue
        seen.add(holiday)
        sources = _demand_sources(request, holiday, _holiday_index(period, holiday))
        if sources:
            yield _hint(
                ("schedule_period", "holidays", h),
                f"{holiday.isoformat()} is a holiday: nobody works and its demand "
                f"({', '.join(sources)}) is ignored (treated as zero)",
            )


def _employees_without_days(request: SolveRequest, period: Horizon) -> Iterator[Hint]:
    for e, employee in enumerate(request.employees):
        if _eligible_days(employee, period) == 0:
            yield _hint(
                ("employees", e),
                f"employee {employee.id} can work on no date of the period: every date is a "
                "holiday or a weekday outside available_weekdays",
            )


def _capacity(request: SolveRequest, period: Horizon) -> Iterator[Hint]:
    """Fewer employee-days than required heads: some shortage is unavoidable."""
    working = _working_days(period)
    required = sum(shift.staffing_demand[i].min for shift in request.shifts for i in working)
    capacity = sum(_eligible_days(employee, period) for employee in request.employees)
    if required > capacity:
        yield _hint(
            ("shifts",),
            f"minimum staffing on working days totals {required} heads but the employees can "
            f"work at most {capacity} employee-days: at least {required - capacity} "
            "shortages are certain",
        )


def _fixed_assignment_problem(employee: Employee, fixed: FixedAssignment, period: Horizon) -> str:
    """Why a fixed assignment cannot be worked, or '' when nothing in the input forbids it."""
    day = fixed.date.isoformat()
    if fixed.date in period.holidays:
        return f"{day} is a holiday"
    if not _is_available(employee, fixed.date):
        return f"{day} is a {WEEKDAYS[fixed.date.weekday()]}, not in available_weekdays"
    if fixed.shift_id not in employee.assignable_shift_ids:
        return f"shift {fixed.shift_id} is not in assignable_shift_ids"
    if fixed.duty_id is not None and employee.skill_levels.get(fixed.duty_id) == 0:
        return f"skill level 0 for duty {fixed.duty_id} forbids holding it"
    return ""


def _impossible_fixed_assignments(request: SolveRequest, period: Horizon) -> Iterator[Hint]:
    for e, employee in enumerate(request.employees):
        for j, fixed in enumerate(employee.fixed_assignments):
            problem = _fixed_assignment_problem(employee, fixed, period)
            if problem:
                yield _hint(
                    ("employees", e, "fixed_assignments", j),
                    f"cannot be worked ({problem}): the problem is infeasible",
                )


def _skill_support_without_duties(request: SolveRequest, period: Horizon) -> Iterator[Hint]:
    support = request.constraints.skill_support
    if support is not None and support.scope == "duty" and not request.duties:
        yield _hint(
            ("constraints", "skill_support", "scope"),
            "scope duty but the request has no duties: skill support has no effect",
        )


def _preferences_on_holidays(request: SolveRequest, period: Horizon) -> Iterator[Hint]:
    for e, employee in enumerate(request.employees):
        for j, preference in enumerate(employee.preferences):
            if preference.date in period.holidays:
                effect = (
                    "it can never be met and always costs its penalty"
                    if isinstance(preference, PreferredShiftPreference)
                    else "it is always met"
                )
                yield _hint(
                    ("employees", e, "preferences", j),
                    f"{preference.date.isoformat()} is a holiday, so nobody works: {effect}",
                )


def _size(request: SolveRequest, period: Horizon) -> Iterator[Hint]:
    size = request_size(request)
    units = units_for(size)
    kind = size_class(size)
    handling = (
        "synchronous solve"
        if kind == "basic"
        else "queued job (202) on a pro key, refused (422 tier-limit-exceeded) otherwise"
    )
    yield _hint(
        (),
        f"size {size:,} ({kind}): {handling}, {units} unit{'s' if units != 1 else ''} "
        f"(size = {_count(len(request.employees), 'employee')} x "
        f"{_count(len(request.shifts), 'shift')} x "
        f"{_count(max(1, len(request.duties)), 'duty', 'duties')} x {len(period.dates)} days; "
        "one unit per "
        f"started {SIZE_PER_UNIT:,})",
    )


def _count(count: int, singular: str, plural: str = "") -> str:
    """``1 duty``, ``2 duties``: the size formula's factors agreeing with their nouns."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"


def _long_timeout(request: SolveRequest, period: Horizon) -> Iterator[Hint]:
    timeout = request.options.solver_timeout_seconds
    if timeout > SYNC_TIMEOUT_LIMIT_SECONDS:
        yield _hint(
            ("options", "solver_timeout_seconds"),
            f"{timeout} s exceeds the {SYNC_TIMEOUT_LIMIT_SECONDS} s synchronous limit: a pro "
            "key gets a queued job, other credentials get 501",
        )


def _default_consecutive_days(request: SolveRequest, period: Horizon) -> Iterator[Hint]:
    if request.constraints.max_consecutive_working_days is None:
        cap = DEFAULT_MAX_CONSECUTIVE_DAYS
        yield _hint(
            ("constraints", "max_consecutive_working_days"),
            f"not set: the default applies, a hard cap of {cap} consecutive working days "
            f"with at most {cap - 1} preferred (omitting it does not mean unlimited)",
        )


_HINTS: tuple[HintSource, ...] = (
    _holiday_demand,
    _employees_without_days,
    _capacity,
    _impossible_fixed_assignments,
    _skill_support_without_duties,
    _preferences_on_holidays,
    _default_consecutive_days,
    _long_timeout,
    _size,
)
