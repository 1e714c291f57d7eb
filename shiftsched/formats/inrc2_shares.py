"""A week's share of the two INRC-II rules judged over the whole horizon (S6, S7).

Total assignments (S6) and working weekends (S7) are priced once, at the horizon's end;
a week planned alone sees a share of each as the soft ranges
``EmployeeSpec.total_days`` and ``EmployeeSpec.weekend_cap`` (docs/inrc2.md). How the
share is drawn is an anticipation of the weeks to come, chosen by measurement
(benchmarks/docs/inrc-ii.md, "Choices by measurement"); :data:`ANTICIPATIONS` names the
rules tried. ``prorate``, equal parts of what is left over the weeks left, stays the
default: every other rule run at the competition's time on n030w4 either gave the
same plan or raised the total by 3 % to 10 %. Every one gives the horizon's own
bounds at full weight once the modelled weeks reach the horizon's end, so the last week
and the static problem are priced exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from shiftsched.formats.inrc2 import Contract, History, NurseHistory, Scenario, WeekData
from shiftsched.formats.inrc2_eval import (
    DAYS_PER_WEEK,
    SATURDAY,
    SUNDAY,
    WEIGHT_TOTAL_ASSIGNMENTS,
    WEIGHT_WORKING_WEEKENDS,
)
from shiftsched.solving.specs import SoftRange

Ranges = tuple[SoftRange, SoftRange]  # S6 (total_days), S7 (weekend_cap)


def share(before: int, total: int, remaining: int, span: int = 1) -> int:
    """The count to reach by the end of the next ``span`` weeks, of ``total`` over the
    horizon: ``before`` plus their share of what is left, ``(total - before) x span /
    remaining`` rounded half up, and never below ``before``. Weeks that reach the
    horizon's end get ``total`` itself."""
    if span >= remaining:
        return total
    left = max(0, total - before)
    return before + (2 * left * span + remaining) // (2 * remaining)


def _part(before: int, total: int, fraction: Fraction, down: bool = False) -> int:
    """``before`` plus ``fraction`` of what is left of ``total``, rounded to the nearest
    (halves up, or down with ``down``), within ``[before, max(before, total)]``."""
    left = max(0, total - before)
    exact = left * min(Fraction(1), max(Fraction(0), fraction))
    rounded = math.ceil(exact - Fraction(1, 2)) if down else math.floor(exact + Fraction(1, 2))
    return before + rounded


@dataclass(frozen=True)
class Horizon:
    """Where the week stands: weeks left (this one included) and weeks modelled."""

    scenario: Scenario
    history: History
    week: WeekData
    remaining: int
    span: int

    @property
    def exact(self) -> bool:
        return self.span >= self.remaining

    @property
    def fraction(self) -> Fraction:
        return Fraction(self.span, self.remaining)


Rule = Callable[[Horizon, Contract, NurseHistory], Ranges]


def _exact(contract: Contract) -> Ranges:
    return (
        SoftRange(contract.min_total, contract.max_total, WEIGHT_TOTAL_ASSIGNMENTS),
        SoftRange(0, contract.max_weekends, WEIGHT_WORKING_WEEKENDS),
    )


def prorate(at: Horizon, contract: Contract, past: NurseHistory) -> Ranges:
    """What is left of each bound, in equal parts over the weeks left (:func:`share`)."""
    r, s = at.remaining, at.span
    return (
        SoftRange(
            share(past.assignments, contract.min_total, r, s),
            share(past.assignments, contract.max_total, r, s),
            WEIGHT_TOTAL_ASSIGNMENTS,
        ),
        SoftRange(0, share(past.weekends, contract.max_weekends, r, s), WEIGHT_WORKING_WEEKENDS),
    )


def weekend_half_down(at: Horizon, contract: Contract, past: NurseHistory) -> Ranges:
    """As :func:`prorate`, but a weekend share of exactly one half rounds down: two
    weekends of four give the first week none free, rather than one."""
    days, _ = prorate(at, contract, past)
    cap = _part(past.weekends, contract.max_weekends, at.fraction, down=True)
    return days, SoftRange(0, cap, WEIGHT_WORKING_WEEKENDS)


def discount(at: Horizon, contract: Contract, past: NurseHistory) -> Ranges:
    """As :func:`prorate`, each unit off the share priced at ``(1 + span / remaining) / 2``
    of its weight (half plus half the week's part of the horizon): the weeks to come can
    still make up for part of it."""
    days, weekends = prorate(at, contract, past)
    scale = (1 + at.fraction) / 2
    return (
        SoftRange(days.low, days.high, math.floor(days.weight * scale + Fraction(1, 2))),
        SoftRange(0, weekends.high, math.floor(weekends.weight * scale + Fraction(1, 2))),
    )


def boost(at: Horizon, contract: Contract, past: NurseHistory) -> Ranges:
    """As :func:`prorate`, each unit off the share priced at 3/2 of its weight: what a
    week leaves tends to stay, a weekend cycle or a run of heavy weeks once begun."""
    days, weekends = prorate(at, contract, past)
    return (
        SoftRange(days.low, days.high, days.weight * 3 // 2),
        SoftRange(0, weekends.high, weekends.weight * 3 // 2),
    )


def _weekly_capacity(contract: Contract) -> int:
    """Days a nurse can work in a week without breaking her runs' bounds, on average."""
    most, rest = contract.max_consecutive_work, contract.min_consecutive_off
    return min(DAYS_PER_WEEK, DAYS_PER_WEEK * most // (most + rest))


def absorb(at: Horizon, contract: Contract, past: NurseHistory) -> Ranges:
    """As :func:`prorate`, the minimum raised to what the weeks after the modelled ones
    cannot absorb at the nurse's weekly capacity (:func:`_weekly_capacity`)."""
    days, weekends = prorate(at, contract, past)
    future = (at.remaining - at.span) * _weekly_capacity(contract)
    low = max(days.low, min(contract.min_total, contract.min_total - future))
    return SoftRange(low, max(low, days.high), days.weight), weekends


def _demand(week: WeekData) -> tuple[int, int]:
    """The week's nurse-shifts at optimal coverage (at least the minimum), and the heads
    its busier weekend day asks for."""
    per_day = [0] * DAYS_PER_WEEK
    for r in week.requirements:
        for day in range(DAYS_PER_WEEK):
            per_day[day] += max(r.minimum[day], r.optimal[day])
    return sum(per_day), max(per_day[SATURDAY], per_day[SUNDAY])


def by_demand(at: Horizon, contract: Contract, past: NurseHistory) -> Ranges:
    """Each nurse's part of what she has left in proportion to the week's demand against
    what every nurse has left: the weeks to come are estimated as this one again, so the
    fraction is ``span / remaining`` scaled by (demand x weeks left) / (nurses' room left),
    the room being the middle of each nurse's range for S6 and her weekends left for S7."""
    days_asked, heads = _demand(at.week)
    room = weekends_room = Fraction(0)
    for nurse in at.scenario.nurses:
        c, h = at.scenario.contract_of(nurse.name), at.history.of(nurse.name)
        room += Fraction(max(0, c.min_total - h.assignments) + max(0, c.max_total - h.assignments))
        weekends_room += max(0, c.max_weekends - h.weekends)
    room /= 2
    days_part = _scaled(at, days_asked, room)
    weekends_part = _scaled(at, heads, weekends_room)
    return (
        SoftRange(
            _part(past.assignments, contract.min_total, days_part),
            _part(past.assignments, contract.max_total, days_part),
            WEIGHT_TOTAL_ASSIGNMENTS,
        ),
        SoftRange(
            0, _part(past.weekends, contract.max_weekends, weekends_part), WEIGHT_WORKING_WEEKENDS
        ),
    )


def weekends_by_demand(at: Horizon, contract: Contract, past: NurseHistory) -> Ranges:
    """S6 as :func:`prorate`, S7 as :func:`by_demand`."""
    return prorate(at, contract, past)[0], by_demand(at, contract, past)[1]


def _scaled(at: Horizon, asked: int, room: Fraction) -> Fraction:
    if room <= 0:
        return at.fraction
    return at.fraction * asked * at.remaining / room


ANTICIPATIONS: dict[str, Rule] = {
    "prorate": prorate,
    "demand": by_demand,
    "weekend_half_down": weekend_half_down,
    "discount": discount,
    "absorb": absorb,
    "boost": boost,
    "weekends_by_demand": weekends_by_demand,
}


def anticipated(
    scenario: Scenario,
    history: History,
    week: WeekData,
    remaining: int,
    span: int,
    how: str = "prorate",
) -> dict[str, Ranges]:
    """Each nurse's S6 and S7 ranges for the modelled weeks, by the rule ``how``."""
    if how not in ANTICIPATIONS:
        raise ValueError(f"unknown anticipation {how!r}: one of {', '.join(ANTICIPATIONS)}")
    at = Horizon(scenario, history, week, remaining, span)
    rule = ANTICIPATIONS[how]
    found = {}
    for n in scenario.nurses:
        contract, past = scenario.contract_of(n.name), history.of(n.name)
        found[n.name] = _exact(contract) if at.exact else rule(at, contract, past)
    return found
