"""The greedy's state: which picks the hard rules allow, and what a pick costs.

A pick is allowed when it keeps every hard rule that can be checked looking backwards
(:meth:`State.can_take`); among those, the priced pass weighs the soft terms the roster
so far decides (:meth:`State.soft_cost`).
"""

from __future__ import annotations

from dataclasses import dataclass

from shiftsched.contract.horizon import SATURDAY
from shiftsched.solving import weights
from shiftsched.solving.greedy_tally import Tally
from shiftsched.solving.model.teams import BEGINNER_LEVELS, SENIOR_LEVELS


@dataclass
class State(Tally):
    """The roster so far with its counters and lookups, and the questions a pick asks."""

    priced: bool = False  # picks weigh the soft costs they can see (soft_cost)

    def can_take(self, e: int, d: int, s: int) -> bool:
        """Whether placing e on shift s of day d keeps every backward-checkable hard rule."""
        problem = self.problem
        employee = problem.employees[e]
        shift_on = self.shift_on
        if (e, d) in shift_on or s not in employee.day_options[d]:
            return False
        cap = self.run_cap[e]
        if cap is not None:
            run = self.run_before(e, d)
            after = 0
            while (e, d + after + 1) in shift_on:
                after += 1
            if run + 1 + after > cap:
                return False
        if not self._keeps_benchmark_rules(e, d, s):
            return False
        if (
            employee.days_per_month
            and self.month_count[e, self.month_of[d]] >= employee.days_per_month[1]
        ):
            return False
        if employee.weekly_hours and employee.weekly_hours[1]:
            minutes = self.week_minutes[e, self.week_of[d]] + (problem.shifts[s].minutes or 0)
            if minutes > 60 * employee.weekly_hours[0]:
                return False
        most = self.count_max.get((e, s))
        if most is not None and self.shift_count[e, s] >= most:
            return False
        if self.forbidden:
            previous = shift_on.get((e, d - 1)) if d else employee.seam.last_shift
            following = shift_on.get((e, d + 1))
            if (previous, s) in self.forbidden or (s, following) in self.forbidden:
                return False
        for employees in self.excluded.get(e, ()):
            if any(o in self.on_shift[d, s] for o in employees if o != e):
                return False
        return True

    def _keeps_benchmark_rules(self, e: int, d: int, s: int) -> bool:
        """Total minutes and weekend maxima, and no too-short run of days off created."""
        problem = self.problem
        employee = problem.employees[e]
        if employee.total_minutes is not None:
            minutes = self.total_minutes[e] + (problem.shifts[s].minutes or 0)
            if minutes > employee.total_minutes[1]:
                return False
        if (
            employee.max_weekends is not None
            and problem.horizon.weekdays[d] >= SATURDAY
            and self.week_of[d] not in self.weekends[e]
            and len(self.weekends[e]) >= employee.max_weekends
        ):
            return False
        k = employee.min_days_off_run
        for step in (-1, 1):  # a worked day within k days, past a day off, would close it
            if (e, d + step) in self.shift_on:
                continue
            for gap in range(1, k):
                if (e, d + step * (gap + 1)) in self.shift_on:
                    return False
        return True

    def continues_run(self, e: int, d: int) -> bool:
        """Whether e worked the day before, under a rule on runs (long runs leave long
        rests: fewer, longer runs fit more work between the days-off minimums)."""
        employee = self.problem.employees[e]
        return (e, d - 1) in self.shift_on and (
            employee.consecutive_shifts is not None or employee.min_days_off_run > 1
        )

    def below_minimum(self, e: int, s: int) -> bool:
        return any(
            limit.shift == s and limit.min is not None and self.shift_count[e, s] < limit.min
            for limit in self.problem.employees[e].count_limits
        )

    def soft_cost(self, e: int, d: int, s: int, duty: int | None = None) -> int:
        """What placing e on shift s of day d (holding ``duty``) adds to the soft terms
        the roster so far already decides, against e staying off: a soft transition
        from yesterday, skill support, require pairings, and the weekly soft maxima
        (the forward pass cannot see what later days will add)."""
        if not self.priced:
            return 0
        employee = self.problem.employees[e]
        cost = 0
        if self.step_cost:
            previous = self.shift_on.get((e, d - 1))
            if previous is not None:
                cost += self.step_cost.get((previous, s), 0)
        if self.problem.skill_support is not None:
            cost += self._support_cost(e, d, s, duty)
        for members in self.partners.get(e, ()):
            present = sum(1 for o in members if o != e and o in self.on_shift[d, s])
            cost += weights.PAIRING_REQUIRE * (len(members) - 1 - 2 * present)
        if employee.weekly_hours is not None and not employee.weekly_hours[1]:
            limit = 60 * employee.weekly_hours[0]
            before = self.week_minutes[e, self.week_of[d]]
            after = before + (self.problem.shifts[s].minutes or 0)
            hours = -(-max(0, after - limit) // 60) + (max(0, before - limit) // -60)
            cost += weights.WEEKLY_HOURS * hours
        if employee.days_per_week is not None:
            days = self.week_days[self.week_of[d]]
            if sum(1 for o in days if (e, o) in self.shift_on) >= employee.days_per_week[1]:
                cost += weights.DAYS_PER_WEEK
        return cost + self._share_cost(e, d)

    def _share_cost(self, e: int, d: int) -> int:
        """A horizon's share (or a benchmark's total): a day past the most worked days, or
        a new weekend past the weekend cap, costs its weight; a day while still below the
        least worked days saves it, a guess the forward pass makes so that those with
        most to reach are picked first (it cannot see whether later days will reach it).
        Without these, a period planned inside a horizon started from a roster blind to
        its shares, and a short solve kept most of what that start spent."""
        if not self.problem.start_prices_shares:
            return 0
        employee = self.problem.employees[e]
        cost = 0
        days = employee.total_days
        if days is not None:
            worked = employee.seam.days_worked + self.days_worked[e]
            if worked >= days.high:
                cost += days.weight
            elif worked < days.low:
                cost -= days.weight
        cap = employee.weekend_cap
        if (
            cap is not None
            and self.problem.horizon.weekdays[d] >= SATURDAY
            and self.week_of[d] not in self.weekends[e]
            and employee.seam.weekends_worked + len(self.weekends[e]) >= cap.high
        ):
            cost += cap.weight
        return cost

    def _support_cost(self, e: int, d: int, s: int, duty: int | None) -> int:
        """A beginner who would be the group's first, with no senior on it, leaves it
        unsupported; a senior who would be its first supports it."""
        problem = self.problem
        if problem.skill_support is not None and problem.skill_support.by_duty:
            if duty is None:
                return 0
            level = problem.employees[e].skills.get(duty)
            levels = [
                problem.employees[o].skills.get(duty)
                for o in self.on_shift[d, s]
                if self.roster[o, d, s] == duty
            ]
        else:
            level = self.level[e]
            levels = [self.level[o] for o in self.on_shift[d, s]]
        beginners = any(v in BEGINNER_LEVELS for v in levels)
        if any(v in SENIOR_LEVELS for v in levels):
            return 0
        if level in BEGINNER_LEVELS and not beginners:
            return weights.SKILL_SUPPORT
        if level in SENIOR_LEVELS and beginners:
            return -weights.SKILL_SUPPORT
        return 0

    def preference_cost(self, e: int, d: int, s: int) -> int:
        cost = 0
        for pref in self.preferences_on.get((e, d), ()):
            if pref.kind == "day_off" or (pref.kind == "avoided_shift" and pref.shift == s):
                cost += 1
        return cost
