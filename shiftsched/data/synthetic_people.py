"""A synthetic request's employees: fixed assignments, limits and preferences.

Every hard input leaves the hard rules satisfiable: at most two fixed assignments per
employee, spaced apart, on an available non-holiday date and an assignable shift; count
maxima above the fixed count; monthly maxima and hard weekly hours above what the fixes
need.
"""

from __future__ import annotations

import random

from shiftsched.contract.v1 import WEEKDAYS
from shiftsched.data import request_body as build
from shiftsched.data.synthetic_staff import Json, Staff


class PeopleDraws(Staff):
    """Each employee as v1 JSON, with the fixes, limits and wishes of its families."""

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
