"""A synthetic request's demand, sized to its staff's capacity, and its shifts and duties.

Each shift's daily minimum is the staff time its eligible employees can give it (about
five days in seven for a full-timer, three for a part-timer, at 80 % load), lower at
weekends; duty minimums split each shift's heads over the duties defined on it.
"""

from __future__ import annotations

from shiftsched.data import request_body as build
from shiftsched.data.synthetic_staff import SHIFT_MINUTES, Json, Staff, hhmm

LOAD = 0.8  # share of the staff's capacity that demand asks for
WEEKEND_FACTOR = 0.7


class DemandDraws(Staff):
    """Demand, managers and duties per shift and date, as v1 JSON."""

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
            hours = (hhmm(self.starts[s]), hhmm(self.starts[s] + SHIFT_MINUTES))
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
