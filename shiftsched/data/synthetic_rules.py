"""A synthetic request's rules between shifts and employees: transitions, pairings,
cross-shift demand and fairness groups.

Hard transitions only forbid (never require), and exclude pairings are drawn only
between employees without fixes, so the hard rules stay satisfiable.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from shiftsched.contract.v1 import MAX_FAIRNESS_GROUPS
from shiftsched.data.synthetic_staff import SHIFT_MINUTES, Json, Staff, band

MIN_REST_MINUTES = 11 * 60  # shorter rest between two shifts is a forbidden transition
HARD_REST_MINUTES = 8 * 60  # shorter still: forbidden hard
MAX_TRANSITIONS = 24


class RuleDraws(Staff):
    """The constraints that tie shifts or employees together, as v1 JSON."""

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
            pair = band(s, 2, self.n_shifts)
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
