"""The internal problem: plain frozen dataclasses with integer indices.

The CP-SAT model is built from a :class:`Problem`, never from the v1 JSON shape, so other
sources (benchmark importers, notebooks, generators) can feed the same model. Everything
that only depends on the input is computed here once: per-day demand arrays with holidays
zeroed, and each employee's *options*: the shifts they may work on each day, and the
duties they may hold on each shift. The model creates variables for options only.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field  # EmployeeSpec has a member named field
from typing import Literal

from shiftsched.contract.horizon import Horizon, shift_minutes
from shiftsched.contract.v1 import (
    WEEKDAYS,
    AvoidedShiftPreference,
    Constraints,
    DayOffPreference,
    Employee,
    PreferredShiftPreference,
    Range,
    SolveRequest,
)
from shiftsched.solving import weights

DEFAULT_MAX_CONSECUTIVE_DAYS = 6


@dataclass(frozen=True, slots=True)
class Demand:
    """Per-day headcount bounds; a day with ``max`` None has no upper bound."""

    mins: tuple[int, ...]
    maxs: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class ShiftSpec:
    id: str
    name: str
    minutes: int | None
    staffing: Demand
    managers: Demand | None = None


@dataclass(frozen=True, slots=True)
class DutySpec:
    id: str
    name: str
    demand: Mapping[int, Demand]  # shift index -> per-day demand; the duty exists only there


@dataclass(frozen=True, slots=True)
class FixedSpec:
    day: int
    shift: int
    duty: int | None
    field: str


@dataclass(frozen=True, slots=True)
class Gate:
    """An eligibility rule that would forbid an option, kept open for diagnosis."""

    family: str  # assignable_shift | available_weekday | holiday | skill_level
    field: str  # JSON path of the input item, e.g. employees[3].available_weekdays


@dataclass(frozen=True, slots=True)
class PreferenceSpec:
    kind: Literal["day_off", "preferred_shift", "avoided_shift"]
    day: int
    shift: int | None
    name: str  # the violation name, e.g. preference:day_off:e7:2026-03-04
    weight: int = weights.PREFERENCE  # per unmet preference; tunable from Python only


@dataclass(frozen=True, slots=True)
class CountLimitSpec:
    shift: int
    min: int | None
    max: int | None
    field: str


@dataclass(frozen=True, slots=True)
class Seam:
    """What the days before the period leave to one employee's rules (shiftsched.contract.history).

    Counters, not cells: each family reads the one it needs at the start of the period.
    The week and month are the ones the start date falls in; their days before the
    start count only as far as the history covers them (``Horizon.covered_before``).
    """

    worked_run: int = 0  # worked dates in a row, ending the day before the start
    last_shift: int | None = None  # the shift worked the day before the start
    week_days: int = 0  # worked dates of the start's ISO week, before the start
    week_minutes: int = 0  # minutes worked in that week before the start
    month_days: int = 0  # worked dates of the start's month, before the start
    past: Mapping[int, int] = dataclass_field(default_factory=dict)  # shift -> count (fairness)
    # Benchmark counters (shiftsched.formats.inrc2_problem, docs/inrc2.md); 0 leaves v1 as it was.
    shift_run: int = 0  # days in a row of ``last_shift``, ending the day before the start
    off_run: int = 0  # days off in a row, ending the day before the start
    days_worked: int = 0  # worked days before the period that count towards a total
    weekends_worked: int = 0  # worked weekends before the period that count towards a cap


NO_SEAM = Seam()


@dataclass(frozen=True, slots=True)
class RunBounds:
    """Soft bounds on a run of consecutive days (imported benchmarks,
    shiftsched.solving.model.runs).

    A run that ends shorter than ``low`` costs ``weight`` per missing day; each day on
    which a run is longer than ``high`` costs ``weight``.
    """

    low: int
    high: int
    weight: int


@dataclass(frozen=True, slots=True)
class SoftRange:
    """A soft range on a count: ``weight`` per unit below ``low`` or above ``high``."""

    low: int
    high: int
    weight: int


@dataclass(frozen=True, slots=True)
class EmployeeSpec:
    id: str
    is_manager: bool
    assignable: frozenset[int]
    skills: Mapping[int, int]  # duty index -> level (absent: no level)
    day_options: tuple[tuple[int, ...], ...]  # per day: shift indices the employee may work
    duty_options: Mapping[int, tuple[int, ...]]  # shift index -> duty indices allowed on it
    fixed: tuple[FixedSpec, ...] = ()
    preferences: tuple[PreferenceSpec, ...] = ()
    days_per_month: tuple[int, int] | None = None
    days_per_week: tuple[int, int] | None = None
    count_limits: tuple[CountLimitSpec, ...] = ()
    weekly_hours: tuple[int, bool] | None = None  # (hours, hard)
    field: str = ""
    seam: Seam = NO_SEAM  # what came before the period (shiftsched.contract.history)
    # Benchmark rules (shiftsched.formats); None / 0 leaves the rule out, as v1 requests do.
    total_minutes: tuple[int, int] | None = None  # hard (min, max) worked minutes, period
    consecutive_shifts: tuple[int, int | None] | None = None  # hard (min, max) run of work
    min_days_off_run: int = 0  # hard: a run of days off between worked days is this long
    max_weekends: int | None = None  # hard: weekends with a worked Saturday or Sunday
    # Soft benchmark rules (shiftsched.solving.model.runs, shiftsched.solving.model.counts); absent
    # by default.
    work_runs: RunBounds | None = None  # runs of worked days, the seam's run included
    off_runs: RunBounds | None = None  # runs of days off, the seam's run included
    shift_runs: tuple[tuple[int, RunBounds], ...] = ()  # (shift, bounds on its runs)
    complete_weekends: int = 0  # weight per weekend worked on one of its two days only
    total_days: SoftRange | None = None  # seam.days_worked + worked days of the period
    weekend_cap: SoftRange | None = None  # seam.weekends_worked + worked weekends (high)
    # Diagnostic problems only: options that eligibility rules would forbid, and which.
    day_gates: Mapping[tuple[int, int], tuple[Gate, ...]] = dataclass_field(default_factory=dict)
    duty_gates: Mapping[tuple[int, int], Gate] = dataclass_field(default_factory=dict)

    def top_level(self) -> int | None:
        """Highest skill level over all duties (scope ``shift`` of skill support)."""
        return max(self.skills.values()) if self.skills else None


@dataclass(frozen=True, slots=True)
class TransitionSpec:
    index: int
    from_shift: int
    to_shift: int
    forbid: bool
    hard: bool
    name: str  # shift_transition:<rule>:<from>:<to>


@dataclass(frozen=True, slots=True)
class PairingSpec:
    index: int
    employees: tuple[int, ...]
    exclude: bool


@dataclass(frozen=True, slots=True)
class CrossShiftSpec:
    index: int
    day: int
    shifts: tuple[int, ...]
    duty: int | None
    managers_only: bool
    min: int
    max: int | None


@dataclass(frozen=True, slots=True)
class FairnessSpec:
    index: int
    shifts: frozenset[int]
    equal: bool
    weight: int


@dataclass(frozen=True, slots=True)
class CoverSpec:
    """A weighted headcount target: each head below or above it costs its own weight."""

    day: int
    shift: int
    target: int
    under_weight: int
    over_weight: int
    duty: int | None = None  # count the holders of this duty on the shift, not all heads


@dataclass(frozen=True, slots=True)
class SkillSupportSpec:
    by_duty: bool
    hard: bool


@dataclass(frozen=True)
class Problem:
    horizon: Horizon
    shifts: tuple[ShiftSpec, ...]
    duties: tuple[DutySpec, ...]
    employees: tuple[EmployeeSpec, ...]
    max_consecutive_days: int | None = DEFAULT_MAX_CONSECUTIVE_DAYS  # None: no period cap
    transitions: tuple[TransitionSpec, ...] = ()
    pairings: tuple[PairingSpec, ...] = ()
    skill_support: SkillSupportSpec | None = None
    cross_shift: tuple[CrossShiftSpec, ...] = ()
    fairness: tuple[FairnessSpec, ...] = ()
    timezone: str = "UTC"
    cover: tuple[CoverSpec, ...] = ()  # weighted targets (benchmarks); v1 uses Demand
    duty_required: bool = False  # every assignment holds a duty (benchmarks); v1: optional

    @property
    def num_days(self) -> int:
        return self.horizon.num_days

    def date_key(self, day: int) -> str:
        return self.horizon.dates[day].isoformat()


# ----------------------------------------------------------------- from a v1 request


def _demand(ranges: list[Range], horizon: Horizon) -> Demand:
    closed = horizon.is_holiday
    return Demand(
        mins=tuple(0 if closed[d] else r.min for d, r in enumerate(ranges)),
        maxs=tuple(0 if closed[d] else r.max for d, r in enumerate(ranges)),
    )


def from_request(request: SolveRequest, *, gated: bool = False) -> Problem:
    """Normalize a (validated) v1 request into the internal problem.

    ``gated`` builds the diagnostic variant: options that assignability, weekdays,
    holidays or skill level 0 forbid are kept, each with the :class:`Gate` that forbids
    it, so the model can post those rules as relaxable hard groups instead of absence.
    """
    period = request.schedule_period
    horizon = Horizon(period.start_date, period.end_date, frozenset(period.holidays))
    shift_index = {s.id: i for i, s in enumerate(request.shifts)}
    duty_index = {k.id: i for i, k in enumerate(request.duties)}
    employee_index = {e.id: i for i, e in enumerate(request.employees)}
    duties = _duties(request, horizon, shift_index)
    c = request.constraints
    return Problem(
        horizon=horizon,
        shifts=_shifts(request, horizon),
        duties=duties,
        employees=_employees(request, horizon, shift_index, duty_index, duties, gated=gated),
        max_consecutive_days=(
            c.max_consecutive_working_days
            if c.max_consecutive_working_days is not None
            else DEFAULT_MAX_CONSECUTIVE_DAYS
        ),
        transitions=_transitions(c, shift_index),
        pairings=tuple(
            PairingSpec(
                index=i,
                employees=tuple(dict.fromkeys(employee_index[x] for x in p.employee_ids)),
                exclude=p.rule == "exclude",
            )
            for i, p in enumerate(c.employee_pairings)
        ),
        skill_support=(
            SkillSupportSpec(
                by_duty=c.skill_support.scope == "duty", hard=c.skill_support.enforcement == "hard"
            )
            if c.skill_support
            else None
        ),
        cross_shift=_cross_shift(c, horizon, shift_index, duty_index),
        fairness=tuple(
            FairnessSpec(
                index=i,
                shifts=frozenset(shift_index[s] for s in g.target_shift_ids),
                equal=g.policy == "equal",
                weight=g.penalty_weight or weights.FAIRNESS_DEFAULT,
            )
            for i, g in enumerate(c.fairness_groups)
        ),
        timezone=period.timezone,
    )


def _shifts(request: SolveRequest, horizon: Horizon) -> tuple[ShiftSpec, ...]:
    return tuple(
        ShiftSpec(
            id=s.id,
            name=s.name,
            minutes=(
                shift_minutes(s.working_hours.start_time, s.working_hours.end_time)
                if s.working_hours
                else None
            ),
            staffing=_demand(s.staffing_demand, horizon),
            managers=_demand(s.manager_demand, horizon) if s.manager_demand else None,
        )
        for s in request.shifts
    )


def _duties(
    request: SolveRequest, horizon: Horizon, shift_index: Mapping[str, int]
) -> tuple[DutySpec, ...]:
    return tuple(
        DutySpec(
            id=k.id,
            name=k.name,
            demand={
                shift_index[sid]: _demand(r, horizon)
                for sid, r in k.staffing_demand_by_shift.items()
            },
        )
        for k in request.duties
    )


def _employees(
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


def _transitions(c: Constraints, shift_index: Mapping[str, int]) -> tuple[TransitionSpec, ...]:
    return tuple(
        TransitionSpec(
            index=i,
            from_shift=shift_index[t.from_shift_id],
            to_shift=shift_index[t.to_shift_id],
            forbid=t.rule == "forbid",
            hard=t.enforcement == "hard",
            name=f"shift_transition:{t.rule}:{t.from_shift_id}:{t.to_shift_id}",
        )
        for i, t in enumerate(c.shift_transitions)
    )


def _cross_shift(
    c: Constraints,
    horizon: Horizon,
    shift_index: Mapping[str, int],
    duty_index: Mapping[str, int],
) -> tuple[CrossShiftSpec, ...]:
    """Cross-shift demands; one on a holiday asks for nobody (the site is closed)."""
    return tuple(
        CrossShiftSpec(
            index=i,
            day=_day(horizon, x.date),
            shifts=tuple(dict.fromkeys(shift_index[s] for s in x.shift_ids)),
            duty=duty_index[x.duty_id] if x.duty_id is not None else None,
            managers_only=x.managers_only,
            min=0 if horizon.is_holiday[_day(horizon, x.date)] or x.min is None else x.min,
            max=0 if horizon.is_holiday[_day(horizon, x.date)] else x.max,
        )
        for i, x in enumerate(c.cross_shift_demands)
    )


def _day(horizon: Horizon, date: dt.date) -> int:
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
            day=_day(horizon, f.date),
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
            "day_off", _day(horizon, p.date), None, f"preference:day_off:{employee_id}:{date}"
        )
    return PreferenceSpec(
        p.type,
        _day(horizon, p.date),
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


def one_employee(problem: Problem, e: int) -> Problem:
    """Employee e alone, with the period-wide rules that bind each employee.

    Every rule that ties employees together is dropped (pairings, skill support,
    cross-shift demand, fairness, cover targets): a row re-planned with the others fixed
    (shiftsched.solving.greedy) or priced on its own (shiftsched.solving.decompose) sees only its
    own rules.
    """
    return replace(
        problem,
        employees=(problem.employees[e],),
        pairings=(),
        skill_support=None,
        cross_shift=(),
        fairness=(),
        cover=(),
    )
