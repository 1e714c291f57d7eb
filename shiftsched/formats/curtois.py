"""The Curtois & Qu shift scheduling benchmark: its text format and its engine mapping.

:func:`parse` reads an instance into plain frozen dataclasses that mirror the format
(day and staff indices start at 0, as in the files). :func:`to_problem` maps it onto
:class:`shiftsched.solving.problem.Problem`, using the families the benchmark needs and none of the
v1 defaults, so the model's objective is the benchmark's objective exactly.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shiftsched.contract.horizon import Horizon
from shiftsched.contract.v1 import Assignment
from shiftsched.solving.problem import Problem
from shiftsched.solving.specs import (
    CountLimitSpec,
    CoverSpec,
    Demand,
    EmployeeSpec,
    PreferenceSpec,
    ShiftSpec,
    TransitionSpec,
)

START = dt.date(2024, 1, 1)  # every instance starts on a Monday; any Monday will do
Kind = Literal["preferred_shift", "avoided_shift"]
DATASET_DIR = Path(__file__).resolve().parents[2] / "datasets" / "curtois-qu"


@dataclass(frozen=True, slots=True)
class Shift:
    id: str
    minutes: int
    cannot_follow: tuple[str, ...]  # shift ids that may not be worked the day after this one


@dataclass(frozen=True, slots=True)
class Staff:
    id: str
    max_shifts: tuple[tuple[str, int], ...]  # (shift id, most shifts of that type)
    max_total_minutes: int
    min_total_minutes: int
    max_consecutive_shifts: int
    min_consecutive_shifts: int
    min_consecutive_days_off: int
    max_weekends: int


@dataclass(frozen=True, slots=True)
class Request:
    """A shift-on (wanted) or shift-off (unwanted) request; ``weight`` if not granted."""

    staff: str
    day: int
    shift: str
    weight: int


@dataclass(frozen=True, slots=True)
class Cover:
    day: int
    shift: str
    requirement: int
    under_weight: int  # per head below the requirement
    over_weight: int  # per head above it


@dataclass(frozen=True, slots=True)
class Instance:
    horizon: int
    shifts: tuple[Shift, ...]
    staff: tuple[Staff, ...]
    days_off: tuple[tuple[str, tuple[int, ...]], ...]  # (staff id, hard days off)
    shift_on: tuple[Request, ...]
    shift_off: tuple[Request, ...]
    cover: tuple[Cover, ...]

    def days_off_of(self, staff_id: str) -> frozenset[int]:
        return frozenset(d for s, days in self.days_off if s == staff_id for d in days)


def instance_path(number: int) -> Path:
    return DATASET_DIR / f"Instance{number}.txt"


def load(number: int) -> Instance:
    """Instance ``number`` (1-24) from the repository's copy of the benchmark."""
    return parse(instance_path(number).read_text())


def _sections(text: str) -> Iterator[tuple[str, list[str]]]:
    name, lines = "", list[str]()
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("SECTION_"):
            if name:
                yield name, lines
            name, lines = line, []
        else:
            lines.append(line)
    if name:
        yield name, lines


def _fields(line: str) -> list[str]:
    return [f.strip() for f in line.split(",")]


def parse(text: str) -> Instance:
    """Parse an instance's text; unknown sections are an error (the format is fixed)."""
    sections = dict(_sections(text))
    known = {
        "SECTION_HORIZON",
        "SECTION_SHIFTS",
        "SECTION_STAFF",
        "SECTION_DAYS_OFF",
        "SECTION_SHIFT_ON_REQUESTS",
        "SECTION_SHIFT_OFF_REQUESTS",
        "SECTION_COVER",
    }
    unknown = set(sections) - known
    if unknown:
        raise ValueError(f"unknown sections: {sorted(unknown)}")
    shifts = []
    for line in sections.get("SECTION_SHIFTS", []):
        sid, minutes, *rest = _fields(line)
        following = rest[0] if rest else ""
        shifts.append(Shift(sid, int(minutes), tuple(x for x in following.split("|") if x)))
    staff = []
    for line in sections.get("SECTION_STAFF", []):
        sid, limits, *numbers = _fields(line)
        pairs = tuple(
            (k, int(v)) for k, v in (item.split("=") for item in limits.split("|") if item)
        )
        max_min, min_min, max_cons, min_cons, min_off, max_we = (int(n) for n in numbers)
        staff.append(Staff(sid, pairs, max_min, min_min, max_cons, min_cons, min_off, max_we))
    days_off = tuple(
        (f[0], tuple(int(d) for d in f[1:] if d))
        for f in (_fields(line) for line in sections.get("SECTION_DAYS_OFF", []))
    )

    def requests(section: str) -> tuple[Request, ...]:
        return tuple(
            Request(f[0], int(f[1]), f[2], int(f[3]))
            for f in (_fields(line) for line in sections.get(section, []))
        )

    cover = tuple(
        Cover(int(f[0]), f[1], int(f[2]), int(f[3]), int(f[4]))
        for f in (_fields(line) for line in sections.get("SECTION_COVER", []))
    )
    return Instance(
        horizon=int(sections["SECTION_HORIZON"][0]),
        shifts=tuple(shifts),
        staff=tuple(staff),
        days_off=days_off,
        shift_on=requests("SECTION_SHIFT_ON_REQUESTS"),
        shift_off=requests("SECTION_SHIFT_OFF_REQUESTS"),
        cover=cover,
    )


# ------------------------------------------------------------------- onto the engine


def to_problem(instance: Instance, start: dt.date = START) -> Problem:
    """The engine's problem for an instance: benchmark rules only, benchmark weights.

    A shift type whose maximum is 0 and a hard day off are options the employee does not
    have (no variable); the v1 period-wide consecutive-days cap is switched off.
    """
    horizon = Horizon(start, start + dt.timedelta(days=instance.horizon - 1))
    index = {s.id: i for i, s in enumerate(instance.shifts)}
    nobody = Demand(mins=(0,) * instance.horizon, maxs=(None,) * instance.horizon)
    shifts = tuple(ShiftSpec(s.id, s.id, s.minutes, nobody) for s in instance.shifts)
    on = _by_staff(instance.shift_on)
    off = _by_staff(instance.shift_off)
    employees = tuple(
        _employee(p, staff, instance, index, horizon, on.get(staff.id, ()), off.get(staff.id, ()))
        for p, staff in enumerate(instance.staff)
    )
    # The succession table is one rule of the instance: every pair shares index 0, so it
    # is one hard group per employee, posted as a few rows per day
    # (shiftsched.solving.model.sequences).
    transitions = tuple(
        TransitionSpec(
            index=0,
            from_shift=index[a],
            to_shift=index[b],
            forbid=True,
            hard=True,
            name=f"shift_transition:forbid:{a}:{b}",
        )
        for a, b in ((s.id, b) for s in instance.shifts for b in s.cannot_follow)
    )
    cover = tuple(
        CoverSpec(c.day, index[c.shift], c.requirement, c.under_weight, c.over_weight)
        for c in instance.cover
    )
    return Problem(
        horizon=horizon,
        shifts=shifts,
        duties=(),
        employees=employees,
        max_consecutive_days=None,
        transitions=transitions,
        cover=cover,
    )


def _by_staff(requests: tuple[Request, ...]) -> dict[str, tuple[Request, ...]]:
    grouped: dict[str, list[Request]] = {}
    for r in requests:
        grouped.setdefault(r.staff, []).append(r)
    return {k: tuple(v) for k, v in grouped.items()}


def _employee(
    position: int,
    staff: Staff,
    instance: Instance,
    index: dict[str, int],
    horizon: Horizon,
    on: tuple[Request, ...],
    off: tuple[Request, ...],
) -> EmployeeSpec:
    path = f"staff[{position}]"
    maxima = dict(staff.max_shifts)
    assignable = sorted(index[s.id] for s in instance.shifts if maxima.get(s.id, 1) > 0)
    days_off = instance.days_off_of(staff.id)
    day_options = tuple(() if d in days_off else tuple(assignable) for d in range(instance.horizon))

    def preference(kind: Kind, r: Request) -> PreferenceSpec:
        name = f"preference:{kind}:{staff.id}:{horizon.dates[r.day].isoformat()}:{r.shift}"
        return PreferenceSpec(kind, r.day, index[r.shift], name, r.weight)

    return EmployeeSpec(
        id=staff.id,
        is_manager=False,
        assignable=frozenset(assignable),
        skills={},
        day_options=day_options,
        duty_options={s: () for s in assignable},
        preferences=(
            *(preference("preferred_shift", r) for r in on),
            *(preference("avoided_shift", r) for r in off),
        ),
        count_limits=tuple(
            CountLimitSpec(index[sid], None, most, f"{path}.max_shifts.{sid}")
            for sid, most in staff.max_shifts
            if most > 0
        ),
        field=path,
        total_minutes=(staff.min_total_minutes, staff.max_total_minutes),
        consecutive_shifts=(staff.min_consecutive_shifts, staff.max_consecutive_shifts),
        min_days_off_run=staff.min_consecutive_days_off,
        max_weekends=staff.max_weekends,
    )


def to_roster(problem: Problem, assignments: Iterable[Assignment]) -> dict[str, list[str]]:
    """The benchmark's roster shape: per staff id, a shift id or "" for each day."""
    roster = {e.id: [""] * problem.num_days for e in problem.employees}
    for a in assignments:
        day = problem.horizon.index_of(a.date)
        if day is None:
            raise ValueError(f"assignment on {a.date} lies outside the horizon")
        roster[a.employee_id][day] = a.shift_id
    return roster
