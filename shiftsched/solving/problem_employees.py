"""Each employee of a v1 request as the internal problem holds them.

An employee's *options* are computed once: the shifts they may work on each day and the
duties they may hold on each shift; the model creates variables for options only. The
diagnostic (gated) variant keeps every option, each with the gates that close it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import replace

from shiftsched.contract.horizon import Horizon
from shiftsched.contract.v1 import (
    WEEKDAYS,
    AvoidedShiftPreference,
    DayOffPreference,
    Employee,
    PreferredShiftPreference,
    SolveRequest,
)
from shiftsched.solving.specs import (
    CountLimitSpec,
    DutySpec,
    EmployeeSpec,
    FixedSpec,
    Gate,
    PreferenceSpec,
)


def employee_specs(
    request: SolveRequest,
    horizon: Horizon,
    shift_index: Mapping[str, int],
    duty_index: Mapping[str, int],
    duties: tuple[DutySpec, ...],
    *,
    gated: bool,
) -> tuple[EmployeeSpec, ...]:
    """Each employee's spec; ``gated``: with every option and the gates that close it."""
    period = request.schedule_period
    holiday_fields = {
        day: f"schedule_period.holidays[{i}]"
        for i, day in reversed(list(enumerate(period.holidays)))
    }
    return tuple(
        _employee(i, e, horizon, shift_index, duty_index, duties)
        if not gated
        else _gated_employee(
            _employee(i, e, horizon, shift_index, duty_index, duties, restrict_fixed=False),
            e,
            horizon,
            shift_index,
            duties,
            holiday_fields,
        )
        for i, e in enumerate(request.employees)
    )


def day_index(horizon: Horizon, date: dt.date) -> int:
    index = horizon.index_of(date)
    if index is None:  # excluded by validation; importers must not produce it either
        raise ValueError(f"date {date} lies outside the period")
    return index


def _employee(
    position: int,
    e: Employee,
    horizon: Horizon,
    shift_index: Mapping[str, int],
    duty_index: Mapping[str, int],
    duties: tuple[DutySpec, ...],
    *,
    restrict_fixed: bool = True,
) -> EmployeeSpec:
    path = f"employees[{position}]"
    assignable = sorted({shift_index[s] for s in e.assignable_shift_ids})
    weekdays = (
        None if e.available_weekdays is None else {WEEKDAYS.index(w) for w in e.available_weekdays}
    )
    fixed = tuple(
        FixedSpec(
            day=day_index(horizon, f.date),
            shift=shift_index[f.shift_id],
            duty=duty_index[f.duty_id] if f.duty_id is not None else None,
            field=f"{path}.fixed_assignments[{i}]",
        )
        for i, f in enumerate(e.fixed_assignments)
    )
    fixed_shift_of_day: dict[int, set[int]] = {}
    for f in fixed:
        fixed_shift_of_day.setdefault(f.day, set()).add(f.shift)

    day_options: list[tuple[int, ...]] = []
    for d in range(horizon.num_days):
        if horizon.is_holiday[d] or (weekdays is not None and horizon.weekdays[d] not in weekdays):
            day_options.append(())
            continue
        allowed = fixed_shift_of_day.get(d) if restrict_fixed else None
        day_options.append(tuple(s for s in assignable if allowed is None or s in allowed))

    skills = {duty_index[k]: level for k, level in e.skill_levels.items()}
    duty_options = {
        s: tuple(k for k, duty in enumerate(duties) if s in duty.demand and skills.get(k) != 0)
        for s in assignable
    }
    return EmployeeSpec(
        id=e.id,
        is_manager=e.is_manager,
        assignable=frozenset(assignable),
        skills=skills,
        day_options=tuple(day_options),
        duty_options=duty_options,
        fixed=fixed,
        preferences=tuple(_preference(e.id, p, horizon, shift_index) for p in e.preferences),
        days_per_month=(
            (e.working_days_per_month.min, e.working_days_per_month.max)
            if e.working_days_per_month
            else None
        ),
        days_per_week=(
            (e.working_days_per_week.min, e.working_days_per_week.max)
            if e.working_days_per_week
            else None
        ),
        count_limits=tuple(
            CountLimitSpec(shift_index[c.shift_id], c.min, c.max, f"{path}.shift_count_limits[{i}]")
            for i, c in enumerate(e.shift_count_limits)
        ),
        weekly_hours=(
            (e.weekly_working_hours_limit.hours, e.weekly_working_hours_limit.enforcement == "hard")
            if e.weekly_working_hours_limit
            else None
        ),
        field=path,
    )


def _preference(
    employee_id: str,
    p: DayOffPreference | PreferredShiftPreference | AvoidedShiftPreference,
    horizon: Horizon,
    shift_index: Mapping[str, int],
) -> PreferenceSpec:
    date = p.date.isoformat()
    if isinstance(p, DayOffPreference):
        return PreferenceSpec(
            "day_off", day_index(horizon, p.date), None, f"preference:day_off:{employee_id}:{date}"
        )
    return PreferenceSpec(
        p.type,
        day_index(horizon, p.date),
        shift_index[p.shift_id],
        f"preference:{p.type}:{employee_id}:{date}:{p.shift_id}",
    )


def _gated_employee(
    spec: EmployeeSpec,
    e: Employee,
    horizon: Horizon,
    shift_index: Mapping[str, int],
    duties: tuple[DutySpec, ...],
    holiday_fields: Mapping[dt.date, str],
) -> EmployeeSpec:
    """Every (day, shift) and (shift, duty) option, each with the rules that forbid it."""
    path = spec.field
    weekdays = (
        None if e.available_weekdays is None else {WEEKDAYS.index(w) for w in e.available_weekdays}
    )
    day_gates: dict[tuple[int, int], tuple[Gate, ...]] = {}
    day_options = []
    for d, day in enumerate(horizon.dates):
        for s in range(len(shift_index)):
            gates = []
            if s not in spec.assignable:
                gates.append(Gate("assignable_shift", f"{path}.assignable_shift_ids"))
            if weekdays is not None and horizon.weekdays[d] not in weekdays:
                gates.append(Gate("available_weekday", f"{path}.available_weekdays"))
            if horizon.is_holiday[d]:
                gates.append(Gate("holiday", holiday_fields[day]))
            if gates:
                day_gates[d, s] = tuple(gates)
        day_options.append(tuple(range(len(shift_index))))
    duty_gates = {
        (s, k): Gate("skill_level", f"{path}.skill_levels.{duty.id}")
        for s in range(len(shift_index))
        for k, duty in enumerate(duties)
        if s in duty.demand and spec.skills.get(k) == 0
    }
    duty_options = {
        s: tuple(k for k, duty in enumerate(duties) if s in duty.demand)
        for s in range(len(shift_index))
    }
    return replace(
        spec,
        day_options=tuple(day_options),
        duty_options=duty_options,
        day_gates=day_gates,
        duty_gates=duty_gates,
    )
