"""A v1 request as the plain facts of the Timefold model: heads to fill, people, limits.

The shape is that of Timefold's employee-scheduling quickstart: one planning entity per
demanded head (a *slot*), whose planning variable is the employee who fills it. Here a
slot may stay empty, since a missing head is a shortage, not an error
(docs/semantics.md, "Demand and shortages"). Per shift and date that is not a holiday:

- one pinned slot per fixed assignment there, its employee set and never moved;
- free slots up to the demand's maximum, and :data:`EXCESS_SLOTS` more, so that a head
  over the maximum can still be proposed when it pays (it costs its excess weight).

A fixed assignment on a holiday gets its pinned slot too (the hard rule it breaks is
then the model's to price). Weekly and monthly limits become one fact per employee and
week or month that overlaps the period, the minimum prorated as the semantics say.
Nothing here imports Timefold: the translation is tested without the JVM.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from benchmarks.timefold_model.support import check_supported
from shiftsched.contract.horizon import Bucket, Horizon
from shiftsched.contract.v1 import Employee, Range, SolveRequest

#: Free slots beyond a demand's maximum: room for one head over it per shift and date.
EXCESS_SLOTS = 1
#: The cap on consecutive working days when the request leaves it out.
DEFAULT_MAX_CONSECUTIVE_DAYS = 6


@dataclass(frozen=True)
class LimitSpec:
    """One employee's range of worked dates in one ISO week or calendar month."""

    key: str
    bucket: int
    minimum: int  # prorated for a week or month only partly inside the period
    maximum: int


@dataclass(frozen=True)
class EmployeeSpec:
    id: str
    index: int
    assignable: frozenset[str]
    weekdays: frozenset[int]  # Monday = 0; all seven when the request gives none
    weeks: tuple[LimitSpec, ...]  # empty without working_days_per_week
    months: tuple[LimitSpec, ...]  # empty without working_days_per_month


@dataclass(frozen=True)
class DemandSpec:
    """Heads wanted on one shift and date; ``maximum`` None on a holiday (nothing counts)."""

    key: str
    shift_id: str
    day: int
    minimum: int
    maximum: int | None


@dataclass(frozen=True)
class SlotSpec:
    """One head of a demand; ``fixed`` is the employee index a fixed assignment pins there."""

    key: str
    demand: int
    fixed: int | None = None


@dataclass(frozen=True)
class TransitionSpec:
    index: int
    from_shift: str
    to_shift: str
    forbid: bool
    hard: bool


@dataclass(frozen=True)
class PreferenceSpec:
    """``kind`` is day_off, preferred_shift or avoided_shift; ``shift_id`` None for a day off."""

    employee: int
    kind: str
    day: int
    shift_id: str | None


@dataclass(frozen=True)
class ModelInput:
    dates: tuple[dt.date, ...]
    holidays: frozenset[int]
    weeks: tuple[int, ...]  # per day, the index of its ISO week
    months: tuple[int, ...]  # per day, the index of its calendar month
    max_run: int
    employees: tuple[EmployeeSpec, ...]
    demands: tuple[DemandSpec, ...]
    slots: tuple[SlotSpec, ...]
    transitions: tuple[TransitionSpec, ...]
    preferences: tuple[PreferenceSpec, ...]

    @property
    def last_day(self) -> int:
        return len(self.dates) - 1


def _bucket_of_day(buckets: tuple[Bucket, ...], days: int) -> tuple[int, ...]:
    of_day = [0] * days
    for position, bucket in enumerate(buckets):
        for day in bucket.days:
            of_day[day] = position
    return tuple(of_day)


def _limits(
    employee_id: str, bounds: Range | None, buckets: tuple[Bucket, ...]
) -> tuple[LimitSpec, ...]:
    if bounds is None:
        return ()
    return tuple(
        LimitSpec(f"{employee_id}:{b.key}", i, b.prorate_min(bounds.min), bounds.max)
        for i, b in enumerate(buckets)
    )


def _employee(index: int, employee: Employee, horizon: Horizon) -> EmployeeSpec:
    weekdays = (
        frozenset(range(7))
        if employee.available_weekdays is None
        else frozenset(WEEKDAY_INDEX[w] for w in employee.available_weekdays)
    )
    return EmployeeSpec(
        employee.id,
        index,
        frozenset(employee.assignable_shift_ids),
        weekdays,
        _limits(employee.id, employee.working_days_per_week, horizon.weeks),
        _limits(employee.id, employee.working_days_per_month, horizon.months),
    )


WEEKDAY_INDEX = {
    name: i for i, name in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))
}


def _fixed_cells(request: SolveRequest, horizon: Horizon) -> dict[tuple[str, int], list[int]]:
    """Per (shift, day), the employees a fixed assignment puts there (a repeat counts once)."""
    cells: dict[tuple[str, int], list[int]] = defaultdict(list)
    for e, employee in enumerate(request.employees):
        for fixed in employee.fixed_assignments:
            day = horizon.index_of(fixed.date)
            if day is not None and e not in cells[fixed.shift_id, day]:
                cells[fixed.shift_id, day].append(e)
    return cells


def _demands_and_slots(
    request: SolveRequest, horizon: Horizon
) -> tuple[tuple[DemandSpec, ...], tuple[SlotSpec, ...]]:
    fixed = _fixed_cells(request, horizon)
    demands: list[DemandSpec] = []
    slots: list[SlotSpec] = []
    for day, date in enumerate(horizon.dates):
        holiday = horizon.is_holiday[day]
        for shift in request.shifts:
            pinned = fixed.get((shift.id, day), [])
            wanted = shift.staffing_demand[day]
            if holiday and not pinned:
                continue
            key = f"{shift.id}:{date.isoformat()}"
            minimum, maximum = (0, None) if holiday else (wanted.min, wanted.max)
            demand = len(demands)
            demands.append(DemandSpec(key, shift.id, day, minimum, maximum))
            free = 0 if maximum is None else max(0, maximum - len(pinned)) + EXCESS_SLOTS
            slots += [SlotSpec(f"{key}:{i}", demand, e) for i, e in enumerate(pinned)]
            slots += [SlotSpec(f"{key}:{len(pinned) + i}", demand) for i in range(free)]
    return tuple(demands), tuple(slots)


def _preferences(request: SolveRequest, horizon: Horizon) -> tuple[PreferenceSpec, ...]:
    found = []
    for e, employee in enumerate(request.employees):
        for wish in employee.preferences:
            day = horizon.index_of(wish.date)
            if day is None:  # validation refuses it; nothing to price here
                continue
            shift_id = None if wish.type == "day_off" else wish.shift_id
            found.append(PreferenceSpec(e, wish.type, day, shift_id))
    return tuple(found)


def translate(request: SolveRequest) -> ModelInput:
    """The facts of the Timefold model; :class:`UnsupportedFamily` for a family it lacks."""
    check_supported(request)
    period = request.schedule_period
    horizon = Horizon(period.start_date, period.end_date, frozenset(period.holidays))
    demands, slots = _demands_and_slots(request, horizon)
    cap = request.constraints.max_consecutive_working_days
    return ModelInput(
        dates=horizon.dates,
        holidays=frozenset(d for d, closed in enumerate(horizon.is_holiday) if closed),
        weeks=_bucket_of_day(horizon.weeks, horizon.num_days),
        months=_bucket_of_day(horizon.months, horizon.num_days),
        max_run=DEFAULT_MAX_CONSECUTIVE_DAYS if cap is None else cap,
        employees=tuple(_employee(i, e, horizon) for i, e in enumerate(request.employees)),
        demands=demands,
        slots=slots,
        transitions=tuple(
            TransitionSpec(
                i, t.from_shift_id, t.to_shift_id, t.rule == "forbid", t.enforcement == "hard"
            )
            for i, t in enumerate(request.constraints.shift_transitions)
        ),
        preferences=_preferences(request, horizon),
    )
