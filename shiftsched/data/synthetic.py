"""Seeded synthetic v1 requests of any size, for benchmarks that sweep problem size.

The realistic datasets (``datasets/*.json``) are fixed businesses; a benchmark that
measures how solve time grows with size needs the same kind of request at any shape
``employees x shifts x duties x days``. :func:`synthetic_request` builds one as a plain
dict (a v1 request body), deterministically from its seed: the same arguments always
give byte-identical JSON, so a benchmark result names its instance by parameters alone.

What makes the requests realistic rather than random:

- Shifts are 8-hour blocks staggered around the clock from 06:00 (a night shift runs
  past midnight once there are three or more); employees work a band of neighbouring
  shifts, as people do.
- Demand is sized to capacity: each shift's daily minimum is the staff time that its
  eligible employees can give it (about five days in seven for a full-timer, three for a
  part-timer, at 80 % load), lower at weekends, so a good roster meets nearly all of it.
  Duty minimums split each shift's heads over the duties defined on it.
- Every hard input leaves the hard rules satisfiable: at most two fixed assignments per
  employee, spaced apart, on an available non-holiday date and an assignable shift (with
  a duty the employee holds); count maxima above the fixed count, count minimums of one
  only over two weeks or more; hard transitions only forbid (never require); exclude
  pairings only between employees without fixes; monthly maxima and hard weekly hours
  above what the fixes need.

``mix`` chooses the constraint families on top of demand (see :data:`MIXES`):
``coverage`` is demand alone, ``workload``, ``sequences``, ``teams`` and ``fairness``
each add one area, ``core`` has the families most rostering tools share (for a
side-by-side with one of them), and ``all`` has every family the contract defines (named as in
:data:`shiftsched.solving.model.registry.FAMILIES`). Each family draws
from its own random stream, so the same seed gives the same demand in every mix and a
mix differs from another only by its families.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable
from typing import Any

from shiftsched.contract.v1 import (
    MAX_DUTIES,
    MAX_EMPLOYEES,
    MAX_FAIRNESS_GROUPS,
    MAX_SHIFTS,
    WEEKDAYS,
)
from shiftsched.data import request_body as build

Json = dict[str, Any]

#: Families each mix adds to demand (staffing demand, and duty demand when there are duties).
WORKLOAD = frozenset(
    {
        "holidays",
        "available_weekdays",
        "fixed_assignments",
        "shift_count_limits",
        "weekly_working_hours_limit",
        "working_days_per_week",
        "working_days_per_month",
    }
)
SEQUENCES = frozenset({"max_consecutive_working_days", "shift_transitions"})
TEAMS = frozenset(
    {"skill_levels", "skill_support", "employee_pairings", "manager_demand", "cross_shift_demands"}
)
FAIRNESS = frozenset({"fairness_groups", "preferences"})
#: What most rostering tools model: demand, the calendar, fixed assignments, worked days
#: per week and month, the consecutive-days cap, transitions and preferences. No duties'
#: rules (skills), manager or cross-shift demand, pairings, hours, shift counts or
#: fairness: a side-by-side with another solver that lacks those can take it whole.
CORE = (
    frozenset(
        {
            "holidays",
            "available_weekdays",
            "fixed_assignments",
            "working_days_per_week",
            "working_days_per_month",
            "preferences",
        }
    )
    | SEQUENCES
)
MIXES: dict[str, frozenset[str]] = {
    "coverage": frozenset(),
    "workload": WORKLOAD,
    "sequences": SEQUENCES,
    "teams": TEAMS,
    "fairness": FAIRNESS,
    "core": CORE,
    "all": WORKLOAD | SEQUENCES | TEAMS | FAIRNESS,
}

START_DATE = dt.date(2026, 6, 1)  # a Monday
SHIFT_MINUTES = 8 * 60
FIRST_START_MINUTES = 6 * 60
LOAD = 0.8  # share of the staff's capacity that demand asks for
WEEKEND_FACTOR = 0.7
PART_TIME_SHARE = 0.3
MANAGER_SHARE = 0.15
MIN_REST_MINUTES = 11 * 60  # shorter rest between two shifts is a forbidden transition
HARD_REST_MINUTES = 8 * 60  # shorter still: forbidden hard
MAX_TRANSITIONS = 24


def synthetic_request(
    employees: int,
    shifts: int,
    duties: int,
    days: int,
    *,
    seed: int = 0,
    mix: str = "all",
    start: dt.date = START_DATE,
) -> Json:
    """A valid v1 request body of shape ``employees x shifts x duties x days``.

    Deterministic in its arguments. Raises ValueError for a shape outside the contract
    limits or an unknown ``mix``.
    """
    _check_shape(employees, shifts, duties, days)
    if mix not in MIXES:
        raise ValueError(f"unknown mix {mix!r}; one of {sorted(MIXES)}")
    return _Builder(employees, shifts, duties, days, seed, MIXES[mix], start).body()


def _check_shape(employees: int, shifts: int, duties: int, days: int) -> None:
    if not 1 <= employees <= MAX_EMPLOYEES:
        raise ValueError(f"employees must be 1..{MAX_EMPLOYEES}, not {employees}")
    if not 1 <= shifts <= MAX_SHIFTS:
        raise ValueError(f"shifts must be 1..{MAX_SHIFTS}, not {shifts}")
    if not 0 <= duties <= MAX_DUTIES:
        raise ValueError(f"duties must be 0..{MAX_DUTIES}, not {duties}")
    if days < 1:
        raise ValueError(f"days must be at least 1, not {days}")


def _hhmm(minutes: int) -> str:
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _band(start: int, width: int, count: int) -> list[int]:
    """``width`` neighbouring indices from ``start``, wrapping around ``count``, sorted."""
    return sorted({(start + i) % count for i in range(min(width, count))})


class _Builder:
    """Draws one request; every family has its own random stream (see the module doc)."""

    def __init__(
        self,
        employees: int,
        shifts: int,
        duties: int,
        days: int,
        seed: int,
        families: frozenset[str],
        start: dt.date,
    ) -> None:
        self.n_employees, self.n_shifts, self.n_duties = employees, shifts, duties
        self.seed, self.families = seed, families
        self.dates = [start + dt.timedelta(days=i) for i in range(days)]
        self.shift_ids = [f"s{i + 1:02d}" for i in range(shifts)]
        self.duty_ids = [f"k{i + 1:02d}" for i in range(duties)]
        self.employee_ids = [f"e{i + 1:02d}" for i in range(employees)]
        step = 24 * 60 // shifts
        self.starts = [(FIRST_START_MINUTES + i * step) // 30 * 30 for i in range(shifts)]
        base = self.rng("staff")
        self.part_time = [base.random() < PART_TIME_SHARE for _ in range(employees)]
        managers = max(1, round(MANAGER_SHARE * employees)) if employees >= 3 else 0
        self.manager = [False] * employees
        for e in base.sample(range(employees), managers):
            self.manager[e] = True
        width = min(shifts, 3 if shifts <= 6 else 5)
        self.assignable = [_band(base.randrange(shifts), width, shifts) for _ in range(employees)]
        self._cover_every_shift(base)
        self.duty_shifts = self._duty_shifts()
        self.holidays = self._holidays() if "holidays" in families else []
        self.weekdays = self._available_weekdays()
        self.levels = self._skill_levels()

    def rng(self, family: str) -> random.Random:
        return random.Random(f"{self.seed}:{family}")

    def has(self, family: str) -> bool:
        return family in self.families

    # ------------------------------------------------------------------ structure

    def _cover_every_shift(self, rng: random.Random) -> None:
        """Every shift gets at least two eligible employees (one when there is one)."""
        for s in range(self.n_shifts):
            eligible = [e for e in range(self.n_employees) if s in self.assignable[e]]
            for e in rng.sample(range(self.n_employees), self.n_employees):
                if len(eligible) >= min(2, self.n_employees):
                    break
                if e not in eligible:
                    self.assignable[e] = sorted({*self.assignable[e], s})
                    eligible.append(e)

    def _duty_shifts(self) -> list[list[int]]:
        """Each duty runs on a band of 2-5 neighbouring shifts."""
        rng = self.rng("duties")
        return [
            _band(rng.randrange(self.n_shifts), rng.randint(2, 5), self.n_shifts)
            for _ in range(self.n_duties)
        ]

    def _holidays(self) -> list[dt.date]:
        """One weekday holiday per started 30 days, for periods of two weeks or more."""
        if len(self.dates) < 14:
            return []
        rng = self.rng("holidays")
        chosen = []
        for first in range(0, len(self.dates), 30):
            block = [d for d in self.dates[first : first + 30] if d.weekday() < 5]
            if block:
                chosen.append(rng.choice(block))
        return chosen

    def _available_weekdays(self) -> list[list[int] | None]:
        """Part-timers work 3-5 fixed weekdays (workload mix); everyone else any day."""
        if not self.has("available_weekdays"):
            return [None] * self.n_employees
        rng = self.rng("weekdays")
        return [
            sorted(rng.sample(range(7), rng.randint(3, 5))) if part else None
            for part in self.part_time
        ]

    def _skill_levels(self) -> list[dict[int, int]]:
        """Trained (1-10) on about 60 % of duties, 0 elsewhere; each duty has 2 trained."""
        if not self.has("skill_levels") or not self.n_duties:
            return [{} for _ in range(self.n_employees)]
        rng = self.rng("skills")
        levels = [
            {k: (rng.randint(1, 10) if rng.random() < 0.6 else 0) for k in range(self.n_duties)}
            for _ in range(self.n_employees)
        ]
        for k in range(self.n_duties):
            trained = [e for e in range(self.n_employees) if levels[e][k]]
            for e in rng.sample(range(self.n_employees), self.n_employees):
                if len(trained) >= min(2, self.n_employees):
                    break
                if e not in trained:
                    levels[e][k] = rng.randint(4, 9)
                    trained.append(e)
        return levels

    def can_work(self, e: int, day: dt.date) -> bool:
        available = self.weekdays[e]
        return day not in self.holidays and (available is None or day.weekday() in available)

    def holds(self, e: int, k: int, s: int) -> bool:
        return s in self.duty_shifts[k] and self.levels[e].get(k, 1) > 0

    # --------------------------------------------------------------------- demand

    def capacity(self, e: int) -> float:
        """Working days per calendar day that employee e can give."""
        if not self.part_time[e]:
            return 5 / 7
        available = self.weekdays[e]
        return min(3, len(available) if available else 7) / 7

    def staffing_mins(self) -> list[list[int]]:
        """Per shift and date: the minimum heads, sized to the eligible staff's capacity."""
        rng = self.rng("demand")
        supply = [0.0] * self.n_shifts
        for e in range(self.n_employees):
            for s in self.assignable[e]:
                supply[s] += LOAD * self.capacity(e) / len(self.assignable[e])
        mins = []
        for s in range(self.n_shifts):
            offset = rng.random()
            row = []
            for day in self.dates:
                factor = WEEKEND_FACTOR if day.weekday() >= 5 else 1.0
                row.append(int(supply[s] * factor + offset))
            mins.append(row)
        return mins

    def duty_mins(self, staffing: list[list[int]]) -> dict[tuple[int, int], list[int]]:
        """Each shift's heads split over its duties, the remainder rotating by date."""
        out: dict[tuple[int, int], list[int]] = {}
        for s in range(self.n_shifts):
            on_shift = [k for k in range(self.n_duties) if s in self.duty_shifts[k]]
            for k in on_shift:
                out[k, s] = []
            for d, heads in enumerate(staffing[s]):
                share, rest = divmod(heads, len(on_shift)) if on_shift else (0, 0)
                for i, k in enumerate(on_shift):
                    extra = 1 if (i - d) % len(on_shift) < rest else 0
                    out[k, s].append(share + extra)
        return out

    def manager_mins(self) -> list[list[int]]:
        """Managers asked for as their own capacity allows; always one on the weekdays of
        the shift most managers may work (a key-holder)."""
        supply = [0.0] * self.n_shifts
        for e in range(self.n_employees):
            if self.manager[e]:
                for s in self.assignable[e]:
                    supply[s] += LOAD * self.capacity(e) / len(self.assignable[e])
        main = max(range(self.n_shifts), key=lambda s: supply[s])
        mins = []
        for s in range(self.n_shifts):
            row = []
            for day in self.dates:
                factor = WEEKEND_FACTOR if day.weekday() >= 5 else 1.0
                wanted = int(supply[s] * factor)
                if s == main and supply[s] > 0 and day.weekday() < 5:
                    wanted = max(1, wanted)
                row.append(wanted)
            mins.append(row)
        return mins

    # ---------------------------------------------------------------------- parts

    def shifts_json(self, staffing: list[list[int]]) -> list[Json]:
        managers = self.manager_mins() if self.has("manager_demand") else None
        out = []
        for s, sid in enumerate(self.shift_ids):
            hours = (_hhmm(self.starts[s]), _hhmm(self.starts[s] + SHIFT_MINUTES))
            item = build.shift(
                sid,
                [build.span(m, m + 1 + m // 3) for m in staffing[s]],
                name="-".join(hours),
                hours=hours,
                managers=None if managers is None else [build.span(m, m + 1) for m in managers[s]],
            )
            out.append(item)
        return out

    def duties_json(self, staffing: list[list[int]]) -> list[Json]:
        mins = self.duty_mins(staffing)
        return [
            build.duty(
                kid,
                {
                    self.shift_ids[s]: [build.span(m, m + 1) for m in mins[k, s]]
                    for s in self.duty_shifts[k]
                },
                name=f"Duty {k + 1}",
            )
            for k, kid in enumerate(self.duty_ids)
        ]

    def fixed_assignments(self) -> dict[int, list[Json]]:
        """About one employee in ten gets one or two fixes, at least three days apart."""
        if not self.has("fixed_assignments"):
            return {}
        rng = self.rng("fixed")
        count = max(1, self.n_employees // 10)
        out: dict[int, list[Json]] = {}
        for e in sorted(rng.sample(range(self.n_employees), count)):
            open_days = [d for d in range(len(self.dates)) if self.can_work(e, self.dates[d])]
            fixes: list[Json] = []
            last_day = -3
            for d in sorted(rng.sample(open_days, min(len(open_days), rng.randint(1, 2)))):
                if d - last_day < 3:
                    continue
                last_day = d
                s = rng.choice(self.assignable[e])
                held = [k for k in range(self.n_duties) if self.holds(e, k, s)]
                duty_id = self.duty_ids[rng.choice(held)] if held else None
                fixes.append(build.fixed(self.dates[d].isoformat(), self.shift_ids[s], duty_id))
            if fixes:
                out[e] = fixes
        return out

    def employee_json(self, e: int, fixes: list[Json], rng: random.Random) -> Json:
        part = self.part_time[e]
        item: Json = {"id": self.employee_ids[e], "name": f"Employee {e + 1}"}
        if self.manager[e] and self.has("manager_demand"):
            item["is_manager"] = True
        item["assignable_shift_ids"] = [self.shift_ids[s] for s in self.assignable[e]]
        if self.levels[e]:
            item["skill_levels"] = {self.duty_ids[k]: v for k, v in self.levels[e].items()}
        if self.has("preferences"):
            item["preferences"] = self.preferences(e, rng)
        if fixes:
            item["fixed_assignments"] = fixes
        if self.has("working_days_per_month"):
            item["working_days_per_month"] = build.span(6, 13) if part else build.span(16, 22)
        if self.has("working_days_per_week"):
            item["working_days_per_week"] = build.span(2, 3) if part else build.span(4, 5)
        available = self.weekdays[e]
        if available is not None:
            item["available_weekdays"] = [WEEKDAYS[w] for w in available]
        if self.has("shift_count_limits") and e % 4 == 0:
            item["shift_count_limits"] = self.count_limits(e, fixes)
        if self.has("weekly_working_hours_limit"):
            item["weekly_working_hours_limit"] = (
                {"hours": 24, "enforcement": "soft"}
                if part
                else {"hours": 48 if e % 2 else 40, "enforcement": "hard"}
            )
        return item

    def preferences(self, e: int, rng: random.Random) -> list[Json]:
        wishes: list[Json] = [
            {"type": "day_off", "date": day.isoformat()}
            for day in rng.sample(self.dates, min(len(self.dates), rng.randint(0, 3)))
        ]
        for kind, chance in (("avoided_shift", 0.2), ("preferred_shift", 0.15)):
            if rng.random() < chance:
                shift_id = self.shift_ids[rng.choice(self.assignable[e])]
                day = rng.choice(self.dates)
                wishes.append({"type": kind, "date": day.isoformat(), "shift_id": shift_id})
        return sorted(wishes, key=lambda w: (w["date"], w["type"]))

    def count_limits(self, e: int, fixes: list[Json]) -> list[Json]:
        """A cap on the employee's last shift, and a minimum of one over two weeks or more."""
        last = self.shift_ids[self.assignable[e][-1]]
        fixed_on_last = sum(1 for f in fixes if f["shift_id"] == last)
        limit: Json = {"shift_id": last, "max": max(fixed_on_last, len(self.dates) // 4)}
        if len(self.dates) >= 14:
            limit["min"] = min(1, limit["max"])
        return [limit]

    def transitions(self) -> list[Json]:
        """Too little rest between two shifts on consecutive dates is forbidden.

        Under 8 hours hard, under 11 hours soft; the shortest rests first. A night shift
        (or a single shift) should come in blocks: a soft ``require`` onto itself.
        """
        rests = []
        for a in range(self.n_shifts):
            end = self.starts[a] + SHIFT_MINUTES
            for b in range(self.n_shifts):
                rest = self.starts[b] + 24 * 60 - end
                if rest < MIN_REST_MINUTES:
                    rests.append((rest, a, b))
        out = [
            {
                "from_shift_id": self.shift_ids[a],
                "to_shift_id": self.shift_ids[b],
                "rule": "forbid",
                "enforcement": "hard" if rest < HARD_REST_MINUTES else "soft",
            }
            for rest, a, b in sorted(rests)[:MAX_TRANSITIONS]
        ]
        night = self.n_shifts - 1
        out.append(
            {
                "from_shift_id": self.shift_ids[night],
                "to_shift_id": self.shift_ids[night],
                "rule": "require",
                "enforcement": "soft",
            }
        )
        return out

    def pairings(self, fixed: Iterable[int], rng: random.Random) -> list[Json]:
        """An exclude pair (never both fixed) and a require pair sharing a shift."""
        if self.n_employees < 4:
            return []
        free = [e for e in range(self.n_employees) if e not in set(fixed)]
        out = []
        if len(free) >= 2:
            a, b = rng.sample(free, 2)
            out.append(
                {"employee_ids": [self.employee_ids[a], self.employee_ids[b]], "rule": "exclude"}
            )
        mentor = rng.randrange(self.n_employees)
        mates = [
            e
            for e in range(self.n_employees)
            if e != mentor and set(self.assignable[e]) & set(self.assignable[mentor])
        ]
        if mates:
            trainee = rng.choice(mates)
            out.append(
                {
                    "employee_ids": [self.employee_ids[mentor], self.employee_ids[trainee]],
                    "rule": "require",
                }
            )
        return out

    def cross_shift(self, staffing: list[list[int]], rng: random.Random) -> list[Json]:
        """Busy dates asking heads over neighbouring shifts; a duty-only and a managers one."""
        out: list[Json] = []
        for day_index in sorted(rng.sample(range(len(self.dates)), min(3, len(self.dates)))):
            s = rng.randrange(self.n_shifts)
            pair = _band(s, 2, self.n_shifts)
            heads = sum(staffing[t][day_index] for t in pair)
            item: Json = {
                "date": self.dates[day_index].isoformat(),
                "shift_ids": [self.shift_ids[t] for t in pair],
                "min": heads,
                "max": heads + 2,
            }
            out.append(item)
        if self.n_duties:
            k = rng.randrange(self.n_duties)
            out.append(
                {
                    "date": rng.choice(self.dates).isoformat(),
                    "shift_ids": [self.shift_ids[s] for s in self.duty_shifts[k]],
                    "duty_id": self.duty_ids[k],
                    "min": 1,
                }
            )
        if any(self.manager) and self.has("manager_demand"):
            out.append(
                {
                    "date": rng.choice(self.dates).isoformat(),
                    "shift_ids": list(self.shift_ids),
                    "managers_only": True,
                    "min": 1,
                }
            )
        return out

    def fairness_groups(self) -> list[Json]:
        """Nights shared in proportion to availability, the first (earliest) shift equally."""
        nights = [
            sid
            for s, sid in enumerate(self.shift_ids)
            if self.starts[s] >= 20 * 60 or self.starts[s] < 4 * 60
        ]
        groups: list[Json] = []
        if nights:
            groups.append({"target_shift_ids": nights, "policy": "proportional"})
        groups.append(
            {"target_shift_ids": [self.shift_ids[0]], "policy": "equal", "penalty_weight": 5}
        )
        return groups[:MAX_FAIRNESS_GROUPS]

    # ----------------------------------------------------------------------- body

    def body(self) -> Json:
        staffing = self.staffing_mins()
        fixes = self.fixed_assignments()
        rng = self.rng("employees")
        employees = [self.employee_json(e, fixes.get(e, []), rng) for e in range(self.n_employees)]
        constraints: Json = {}
        if self.has("shift_transitions"):
            constraints["shift_transitions"] = self.transitions()
        if self.has("max_consecutive_working_days"):
            constraints["max_consecutive_working_days"] = 5 + self.seed % 2
        teams = self.rng("teams")
        if self.has("employee_pairings"):
            constraints["employee_pairings"] = self.pairings(fixes, teams)
        if self.has("skill_support"):
            scope = "duty" if self.n_duties else "shift"
            constraints["skill_support"] = {"scope": scope, "enforcement": "soft"}
        if self.has("cross_shift_demands"):
            constraints["cross_shift_demands"] = self.cross_shift(staffing, teams)
        if self.has("fairness_groups"):
            constraints["fairness_groups"] = self.fairness_groups()
        shifts = self.shifts_json(staffing)
        return build.request_body(
            shifts,
            employees,
            start=self.dates[0],
            end=self.dates[-1],
            holidays=[d.isoformat() for d in self.holidays],
            timezone="Europe/Berlin",
            duties=self.duties_json(staffing) if self.n_duties else None,
            constraints=constraints,
            options={"solver_timeout_seconds": 30},
        )
