"""The internal problem: plain frozen dataclasses with integer indices.

The CP-SAT model is built from a :class:`Problem`, never from the v1 JSON shape, so other
sources (benchmark importers, notebooks, generators) can feed the same model. Everything
that only depends on the input is computed here once: per-day demand arrays with holidays
zeroed, and each employee's *options*: the shifts they may work on each day, and the
duties they may hold on each shift (shiftsched.solving.problem_employees). The model
creates variables for options only. The parts a problem holds are in
shiftsched.solving.specs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from shiftsched.contract.horizon import Horizon, shift_minutes
from shiftsched.contract.v1 import Constraints, Range, SolveRequest
from shiftsched.solving import weights
from shiftsched.solving.problem_employees import day_index, employee_specs
from shiftsched.solving.specs import (
    CoverSpec,
    CrossShiftSpec,
    Demand,
    DutySpec,
    EmployeeSpec,
    FairnessSpec,
    PairingSpec,
    ShiftSpec,
    SkillSupportSpec,
    TransitionSpec,
)

DEFAULT_MAX_CONSECUTIVE_DAYS = 6


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
    # The greedy start prices the employees' total_days and weekend_cap ranges
    # (shiftsched.solving.greedy_state); INRC-II turns it off, where it measured dearer.
    start_prices_shares: bool = True

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
        employees=employee_specs(request, horizon, shift_index, duty_index, duties, gated=gated),
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
            day=day_index(horizon, x.date),
            shifts=tuple(dict.fromkeys(shift_index[s] for s in x.shift_ids)),
            duty=duty_index[x.duty_id] if x.duty_id is not None else None,
            managers_only=x.managers_only,
            min=0 if horizon.is_holiday[day_index(horizon, x.date)] or x.min is None else x.min,
            max=0 if horizon.is_holiday[day_index(horizon, x.date)] else x.max,
        )
        for i, x in enumerate(c.cross_shift_demands)
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


def with_absences(problem: Problem, absences: Iterable[tuple[str, Iterable[dt.date]]]) -> Problem:
    """``problem`` with each absent employee's dates of the period on their spec.

    ``absences``: (employee id, dates) pairs, as a plan or re-plan lists them; unknown
    ids and dates outside the period are ignored (the inputs' own checks report them).
    The dates only lower the day minimums pro rata (``EmployeeSpec.owed``); keeping the
    employee off them is the caller's hard rule, so a diagnosis can name each one.
    """
    days: dict[str, set[int]] = {}
    for employee_id, dates in absences:
        mine = days.setdefault(employee_id, set())
        mine.update(d for day in dates if (d := problem.horizon.index_of(day)) is not None)
    if not any(days.values()):
        return problem
    employees = tuple(
        replace(e, absent=e.absent | frozenset(days[e.id])) if days.get(e.id) else e
        for e in problem.employees
    )
    return replace(problem, employees=employees)
