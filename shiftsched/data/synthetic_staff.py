"""The staff and structure a synthetic request is drawn on (shiftsched.data.synthetic).

Shift start times, who is part-time or a manager, the band of neighbouring shifts each
employee works, which shifts each duty is on, holidays, available weekdays and skill
levels; every family draws from its own random stream (:meth:`Staff.rng`).
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any


class Staff:
    """Draws the staff and the shape of one request; the other draws build on it."""

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
        self.assignable = [band(base.randrange(shifts), width, shifts) for _ in range(employees)]
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
            band(rng.randrange(self.n_shifts), rng.randint(2, 5), self.n_shifts)
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


SHIFT_MINUTES = 8 * 60
FIRST_START_MINUTES = 6 * 60
PART_TIME_SHARE = 0.3
MANAGER_SHARE = 0.15


def hhmm(minutes: int) -> str:
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def band(start: int, width: int, count: int) -> list[int]:
    """``width`` neighbouring indices from ``start``, wrapping around ``count``, sorted."""
    return sorted({(start + i) % count for i in range(min(width, count))})


Json = dict[str, Any]
