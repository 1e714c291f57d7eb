"""One INRC-II week as an engine problem, and the engine's roster back as a solution.

:func:`week_problem` maps a scenario, one week's data and the history at that week's
start onto :class:`shiftsched.solving.problem.Problem` (docs/inrc2.md, "The engine's model of a
week", has the table). The history goes into each nurse's :class:`shiftsched.solving.specs.Seam`,
the counters the rule families read at the start of a period, as the history of a v1
request does. :func:`to_solution` turns the engine's assignments into the week's
:class:`shiftsched.formats.inrc2.Solution`.

The week is priced as the competition prices it, except for the two rules judged over
the whole horizon (total assignments, S6; working weekends, S7), of which a week sees a
prorated share until the last week, which sees them exactly.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from shiftsched.contract.horizon import Horizon
from shiftsched.contract.v1 import Assignment as EngineAssignment
from shiftsched.formats.inrc2 import (
    ANY,
    Assignment,
    Contract,
    History,
    Nurse,
    NurseHistory,
    Scenario,
    Solution,
    WeekData,
)
from shiftsched.formats.inrc2_eval import (
    DAYS_PER_WEEK,
    WEIGHT_COMPLETE_WEEKEND,
    WEIGHT_CONSECUTIVE_SHIFT,
    WEIGHT_CONSECUTIVE_WORK,
    WEIGHT_DAYS_OFF,
    WEIGHT_OPTIMAL_COVERAGE,
    WEIGHT_PREFERENCE,
)
from shiftsched.formats.inrc2_shares import anticipated
from shiftsched.solving.greedy_views import Roster
from shiftsched.solving.problem import Problem
from shiftsched.solving.specs import (
    CoverSpec,
    Demand,
    DutySpec,
    EmployeeSpec,
    PreferenceSpec,
    RunBounds,
    Seam,
    ShiftSpec,
    SoftRange,
    TransitionSpec,
)

START = dt.date(2024, 1, 1)  # a Monday; stage k is the week starting 7k days later


def week_start(stage: int) -> dt.date:
    return START + dt.timedelta(days=DAYS_PER_WEEK * stage)


def week_problem(
    scenario: Scenario,
    history: History,
    week: WeekData,
    forecast: Sequence[WeekData] = (),
    anticipation: str = "prorate",
) -> Problem:
    """The engine's problem for the week that starts where ``history`` ends.

    The stage is ``history.week``; the weeks left, this one included, are
    ``scenario.weeks - history.week``, which sets the week's share of S6 and S7
    (``anticipation``: how, one of ``inrc2_shares.ANTICIPATIONS``; ``prorate`` by default,
    the one no other rule measured beat).

    ``forecast``: weeks modelled after this one, with their coverage and requests (a
    guess of what comes carries no requests, ``inrc2_plan.forecast``). The problem then
    spans ``1 + len(forecast)`` weeks and its S6 and S7 ranges that many weeks' share;
    when it reaches the horizon's end (every week known: the static problem), they are
    the horizon's own and the model prices the horizon exactly.
    """
    modelled = (week, *forecast)
    days = DAYS_PER_WEEK * len(modelled)
    start = week_start(history.week)
    horizon = Horizon(start, start + dt.timedelta(days=days - 1))
    shift_index = {s.name: i for i, s in enumerate(scenario.shift_types)}
    skill_index = {k: i for i, k in enumerate(scenario.skills)}
    nobody = Demand(mins=(0,) * days, maxs=(None,) * days)
    shifts = tuple(ShiftSpec(s.name, s.name, None, nobody) for s in scenario.shift_types)
    minimum = {(s, k): [0] * days for s in range(len(shifts)) for k in range(len(scenario.skills))}
    cover = []
    for w, data in enumerate(modelled):
        for r in data.requirements:
            s, k = shift_index[r.shift], skill_index[r.skill]
            for day in range(DAYS_PER_WEEK):
                at = w * DAYS_PER_WEEK + day
                minimum[s, k][at] = r.minimum[day]
                if r.optimal[day] > 0:
                    cover.append(CoverSpec(at, s, r.optimal[day], WEIGHT_OPTIMAL_COVERAGE, 0, k))
    duties = tuple(
        DutySpec(
            skill,
            skill,
            {s: Demand(tuple(minimum[s, k]), (None,) * days) for s in range(len(shifts))},
        )
        for k, skill in enumerate(scenario.skills)
    )
    remaining = max(1, scenario.weeks - history.week)
    context = _Week(scenario, modelled, shift_index, skill_index, remaining, len(modelled), start)
    ranges = anticipated(scenario, history, week, remaining, len(modelled), anticipation)
    employees = tuple(
        _nurse(i, nurse, history.of(nurse.name), context, ranges[nurse.name])
        for i, nurse in enumerate(scenario.nurses)
    )
    transitions = tuple(
        TransitionSpec(0, shift_index[s.name], shift_index[b], True, True, _forbid(s.name, b))
        for s in scenario.shift_types
        for b in s.forbidden_next
    )
    return Problem(
        horizon=horizon,
        shifts=shifts,
        duties=duties,
        employees=employees,
        max_consecutive_days=None,
        transitions=transitions,
        cover=tuple(cover),
        duty_required=True,
        # Its weeks are solved (nearly) to optimality, and a start guided by the week's
        # shares of S6 and S7 led the later weeks dearer: 2,125 -> 2,220 on n030w4,
        # 1,945 -> 2,000 on n035w4 and 2,020 -> 2,195 on n040w4 (benchmarks/docs/inrc-ii.md).
        start_prices_shares=False,
    )


def _forbid(before: str, after: str) -> str:
    return f"shift_transition:forbid:{before}:{after}"


def seam_of(past: NurseHistory, shift_index: Mapping[str, int]) -> Seam:
    """A nurse's history as the counters the rule families read."""
    working = past.last_shift is not None
    return Seam(
        worked_run=past.consecutive_work if working else 0,
        last_shift=shift_index[past.last_shift] if past.last_shift is not None else None,
        shift_run=past.consecutive_shift if working else 0,
        off_run=0 if working else past.consecutive_off,
        days_worked=past.assignments,
        weekends_worked=past.weekends,
    )


@dataclass(frozen=True)
class _Week:
    """What every nurse's mapping reads: the scenario and the week being planned."""

    scenario: Scenario
    modelled: tuple[WeekData, ...]  # this week, then the forecast ones
    shift_index: Mapping[str, int]
    skill_index: Mapping[str, int]
    remaining: int  # weeks left in the horizon, this one included
    span: int  # weeks the problem models, this one and the forecast ones
    start: dt.date


def _nurse(
    position: int,
    nurse: Nurse,
    past: NurseHistory,
    week: _Week,
    ranges: tuple[SoftRange, SoftRange],
) -> EmployeeSpec:
    contract = week.scenario.contract_of(nurse.name)
    shift_index = week.shift_index
    own = tuple(sorted(week.skill_index[k] for k in nurse.skills))
    every = tuple(range(len(shift_index)))
    days = DAYS_PER_WEEK * week.span
    spec = EmployeeSpec(
        id=nurse.name,
        is_manager=False,
        assignable=frozenset(every),
        skills=dict.fromkeys(own, 1),
        day_options=(every,) * days,
        duty_options=dict.fromkeys(every, own),
        preferences=_requests(nurse.name, week.modelled, shift_index, week.start),
        field=f"employees[{position}]",
        seam=seam_of(past, shift_index),
    )
    return _with_contract(spec, contract, week.scenario, week, ranges)


def _with_contract(
    spec: EmployeeSpec,
    contract: Contract,
    scenario: Scenario,
    week: _Week,
    ranges: tuple[SoftRange, SoftRange],
) -> EmployeeSpec:
    """``spec`` with the soft rules S2, S3 and S5 of the nurse's contract, and S6 and S7
    as ``ranges`` (:func:`anticipated`)."""
    total_days, weekend_cap = ranges
    return replace(
        spec,
        work_runs=RunBounds(
            contract.min_consecutive_work, contract.max_consecutive_work, WEIGHT_CONSECUTIVE_WORK
        ),
        off_runs=RunBounds(
            contract.min_consecutive_off, contract.max_consecutive_off, WEIGHT_DAYS_OFF
        ),
        shift_runs=tuple(
            (
                week.shift_index[s.name],
                RunBounds(s.min_consecutive, s.max_consecutive, WEIGHT_CONSECUTIVE_SHIFT),
            )
            for s in scenario.shift_types
        ),
        complete_weekends=WEIGHT_COMPLETE_WEEKEND if contract.complete_weekends else 0,
        total_days=total_days,
        weekend_cap=weekend_cap,
    )


def _requests(
    nurse: str, modelled: Sequence[WeekData], shift_index: Mapping[str, int], start: dt.date
) -> tuple[PreferenceSpec, ...]:
    """S4 of every modelled week: a request for the whole day is a day-off wish, one for
    a shift an avoided shift."""
    found = []
    for q, at in (
        (q, w * DAYS_PER_WEEK + q.day)
        for w, data in enumerate(modelled)
        for q in data.requests
        if q.nurse == nurse
    ):
        day = (start + dt.timedelta(days=at)).isoformat()
        if q.shift == ANY:
            name = f"preference:day_off:{nurse}:{day}"
            found.append(PreferenceSpec("day_off", at, None, name, WEIGHT_PREFERENCE))
        else:
            name = f"preference:avoided_shift:{nurse}:{day}:{q.shift}"
            found.append(
                PreferenceSpec("avoided_shift", at, shift_index[q.shift], name, WEIGHT_PREFERENCE)
            )
    return tuple(found)


def to_solution(
    scenario: Scenario, stage: int, assignments: Iterable[EngineAssignment]
) -> Solution:
    """The week's solution file from the engine's assignments (each holds its skill);
    the days after the week (forecast weeks, :func:`week_problem`) are left out."""
    start = week_start(stage)
    found = []
    for a in assignments:
        day = (a.date - start).days
        if day >= DAYS_PER_WEEK:
            continue
        if day < 0:
            raise ValueError(f"assignment on {a.date} lies before week {stage}")
        if a.duty_id is None:
            raise ValueError(f"{a.employee_id} works {a.shift_id} on {a.date} with no skill")
        found.append(Assignment(a.employee_id, day, a.shift_id, a.duty_id))
    found.sort(key=lambda a: (a.day, a.nurse))
    return Solution(stage, scenario.name, tuple(found), f"<planned week {stage}>")


def roster_of(problem: Problem, assignments: Sequence[EngineAssignment]) -> Roster:
    """``assignments`` as a roster of ``problem``'s indices (the inverse of
    ``shiftsched.solving.greedy.roster_assignments``); dates outside it are left out."""
    employee = {e.id: i for i, e in enumerate(problem.employees)}
    day = {d: i for i, d in enumerate(problem.horizon.dates)}
    shift = {s.id: i for i, s in enumerate(problem.shifts)}
    duty = {k.id: i for i, k in enumerate(problem.duties)}
    return {
        (employee[a.employee_id], day[a.date], shift[a.shift_id]): (
            None if a.duty_id is None else duty[a.duty_id]
        )
        for a in assignments
        if a.date in day
    }
