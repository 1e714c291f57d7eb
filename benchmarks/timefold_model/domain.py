"""The Timefold domain: people, heads to fill and the facts the constraints read.

As in Timefold's employee-scheduling quickstart, the planning entity is a head to fill
(:class:`Slot`) and its planning variable the :class:`Person` who fills it, chosen from
every person of the request; here the variable may stay unassigned (a shortage). The
other classes are problem facts. :func:`to_roster` builds the planning problem from the
plain facts of :mod:`benchmarks.timefold_model.translate`. Importing this module starts
Timefold's JVM.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from timefold.solver.domain import (
    PlanningEntityCollectionProperty,
    PlanningId,
    PlanningPin,
    PlanningScore,
    PlanningVariable,
    ProblemFactCollectionProperty,
    ValueRangeProvider,
    planning_entity,
    planning_solution,
)
from timefold.solver.score import HardSoftScore

from benchmarks.timefold_model.translate import ModelInput

#: Stands for "no maximum" on a holiday's demand (nothing counts there).
UNCAPPED = 1_000_000


@dataclass
class WeekLimit:
    id: Annotated[str, PlanningId]
    person: int
    bucket: int
    minimum: int
    maximum: int


@dataclass
class MonthLimit:
    id: Annotated[str, PlanningId]
    person: int
    bucket: int
    minimum: int
    maximum: int


@dataclass
class Person:
    id: Annotated[str, PlanningId]
    index: int
    assignable: set[str]
    weekdays: set[int]
    max_run: int
    weeks: list[WeekLimit]
    months: list[MonthLimit]
    has_weeks: bool
    has_months: bool


@dataclass
class Demand:
    id: Annotated[str, PlanningId]
    minimum: int
    maximum: int


@dataclass
class Transition:
    id: Annotated[str, PlanningId]
    from_shift: str
    to_shift: str
    forbid: bool
    hard: bool
    last_day: int


@dataclass
class Preference:
    id: Annotated[str, PlanningId]
    person: Person
    kind: str
    day: int
    shift_id: str


@planning_entity
@dataclass
class Slot:
    id: Annotated[str, PlanningId]
    shift_id: str
    day: int
    weekday: int
    week: int
    month: int
    holiday: bool
    demand: Demand
    pinned: Annotated[bool, PlanningPin] = False
    person: Annotated[Person | None, PlanningVariable(allows_unassigned=True)] = None


@planning_solution
@dataclass
class Roster:
    people: Annotated[list[Person], ProblemFactCollectionProperty, ValueRangeProvider]
    demands: Annotated[list[Demand], ProblemFactCollectionProperty]
    week_limits: Annotated[list[WeekLimit], ProblemFactCollectionProperty]
    month_limits: Annotated[list[MonthLimit], ProblemFactCollectionProperty]
    transitions: Annotated[list[Transition], ProblemFactCollectionProperty]
    preferences: Annotated[list[Preference], ProblemFactCollectionProperty]
    slots: Annotated[list[Slot], PlanningEntityCollectionProperty]
    score: Annotated[HardSoftScore | None, PlanningScore] = field(default=None)


def _people(model: ModelInput) -> list[Person]:
    return [
        Person(
            e.id,
            e.index,
            set(e.assignable),
            set(e.weekdays),
            model.max_run,
            [WeekLimit(w.key, e.index, w.bucket, w.minimum, w.maximum) for w in e.weeks],
            [MonthLimit(m.key, e.index, m.bucket, m.minimum, m.maximum) for m in e.months],
            bool(e.weeks),
            bool(e.months),
        )
        for e in model.employees
    ]


def _slots(model: ModelInput, people: list[Person], demands: list[Demand]) -> list[Slot]:
    slots = []
    for spec in model.slots:
        cell = model.demands[spec.demand]
        slots.append(
            Slot(
                spec.key,
                cell.shift_id,
                cell.day,
                model.dates[cell.day].weekday(),
                model.weeks[cell.day],
                model.months[cell.day],
                cell.day in model.holidays,
                demands[spec.demand],
                pinned=spec.fixed is not None,
                person=None if spec.fixed is None else people[spec.fixed],
            )
        )
    return slots


def to_roster(model: ModelInput) -> Roster:
    """The planning problem: every slot empty but the pinned ones."""
    people = _people(model)
    demands = [
        Demand(d.key, d.minimum, UNCAPPED if d.maximum is None else d.maximum)
        for d in model.demands
    ]
    return Roster(
        people=people,
        demands=demands,
        week_limits=[w for p in people for w in p.weeks],
        month_limits=[m for p in people for m in p.months],
        transitions=[
            Transition(str(t.index), t.from_shift, t.to_shift, t.forbid, t.hard, model.last_day)
            for t in model.transitions
        ],
        preferences=[
            Preference(f"{i}", people[p.employee], p.kind, p.day, p.shift_id or "")
            for i, p in enumerate(model.preferences)
        ],
        slots=_slots(model, people, demands),
    )
