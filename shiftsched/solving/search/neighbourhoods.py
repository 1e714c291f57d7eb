"""Which parts of a roster to free: neighbourhoods that follow the shape of rosters.

A neighbourhood is a set of cells ``(employee, day)``; every decision of a freed cell
(its shift and duty) is re-optimised while the rest of the roster stays as it is.
Rostering rules are per employee over time (runs, rest, totals, weekends) and cover
couples employees on a day, so the useful shapes are whole rows (a few employees over
the period), whole columns (everybody over a window of days), blocks of both, and the
people who can stand in for each other (shared shifts or duties, one fairness group, a
pairing). The size of each is a fraction of all cells, chosen by the caller
(:mod:`shiftsched.solving.search.adaptive`).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from shiftsched.solving.problem import Problem

Cell = tuple[int, int]
Chooser = Callable[["Shape", random.Random, float], frozenset[Cell]]
BLOCK_DAYS = 14  # a block frees a fortnight, as published rostering searches do
SWAP_REACH = 3  # a head to spare counts for a missing one at most this many days away
PRICED_FLOOR = 0.05  # of the mean gain: a row the prices call right may still be drawn


@dataclass(frozen=True)
class Shape:
    """What a neighbourhood may free: the problem's employees, days and who is similar."""

    employees: int
    days: int
    reach: tuple[frozenset[int], ...]  # per employee: shifts they may work
    duties: tuple[frozenset[int], ...]  # per employee: duties they may hold
    groups: tuple[tuple[int, ...], ...]  # fairness groups and pairings (2+ members)
    shift_workers: tuple[tuple[int, ...], ...]  # per shift: employees who may work it
    roster: Mapping[Cell, int]  # the incumbent's shift per worked cell
    shortfalls: tuple[tuple[int, int | None, int], ...] = ()  # (day, shift, missing heads)
    # Heads each (day, shift) needs (staffing minimums and cover targets); others need none.
    required: Mapping[tuple[int, int], int] = field(default_factory=dict)
    # Per employee: how far the incumbent's row is from the best the decomposition's
    # prices allow (its reduced cost); empty until the decomposition has prices.
    gains: tuple[float, ...] = ()

    @property
    def cells(self) -> int:
        return self.employees * self.days

    def similar(self, employee: int) -> list[int]:
        """The other employees, most alike first (shared shifts, then shared duties)."""
        reach, duties = self.reach[employee], self.duties[employee]

        def likeness(other: int) -> float:
            shifts = len(reach & self.reach[other]) / max(1, len(reach | self.reach[other]))
            held = len(duties & self.duties[other]) / max(1, len(duties | self.duties[other]))
            return shifts + held

        others = [b for b in range(self.employees) if b != employee]
        others.sort(key=likeness, reverse=True)
        return others


def shape_of(problem: Problem) -> Shape:
    """The fixed part of the shape; the incumbent roster is set with :func:`with_roster`."""
    employees = problem.employees
    reach = [
        frozenset(s for options in employee.day_options for s in options) for employee in employees
    ]
    duties = [frozenset(k for ks in e.duty_options.values() for k in ks) for e in employees]
    count = len(employees)
    groups: list[tuple[int, ...]] = []
    for fairness in problem.fairness:
        members = tuple(e for e in range(count) if reach[e] & fairness.shifts)
        if len(members) >= 2:
            groups.append(members)
    for pairing in problem.pairings:
        if len(pairing.employees) >= 2:
            groups.append(tuple(pairing.employees))
    shift_workers = tuple(
        tuple(e for e in range(count) if s in reach[e]) for s in range(len(problem.shifts))
    )
    return Shape(
        count, problem.num_days, tuple(reach), tuple(duties), tuple(groups), shift_workers, {}
    )


def with_roster(shape: Shape, roster: Mapping[Cell, int]) -> Shape:
    return replace(shape, roster=roster)


def with_shortfalls(shape: Shape, shortfalls: tuple[tuple[int, int | None, int], ...]) -> Shape:
    return replace(shape, shortfalls=shortfalls)


def with_required(shape: Shape, required: Mapping[tuple[int, int], int]) -> Shape:
    return replace(shape, required=required)


def with_gains(shape: Shape, gains: tuple[float, ...]) -> Shape:
    return replace(shape, gains=gains)


def _count(total: int, fraction: float) -> int:
    return max(1, min(total, math.ceil(fraction * total)))


def _rows(employees: Iterable[int], days: range) -> frozenset[Cell]:
    return frozenset((e, d) for e in employees for d in days)


def _window(shape: Shape, rng: random.Random, length: int) -> range:
    length = max(1, min(shape.days, length))
    start = rng.randrange(shape.days - length + 1)
    return range(start, start + length)


def random_employees(shape: Shape, rng: random.Random, fraction: float) -> frozenset[Cell]:
    """A few employees, picked at random, over the whole period."""
    chosen = rng.sample(range(shape.employees), _count(shape.employees, fraction))
    return _rows(chosen, range(shape.days))


def similar_employees(shape: Shape, rng: random.Random, fraction: float) -> frozenset[Cell]:
    """One employee and those who share most of their shifts and duties (who can swap)."""
    seed = rng.randrange(shape.employees)
    wanted = _count(shape.employees, fraction)
    return _rows([seed, *shape.similar(seed)[: wanted - 1]], range(shape.days))


def group_employees(shape: Shape, rng: random.Random, fraction: float) -> frozenset[Cell]:
    """Members of one fairness group or pairing, topped up with similar employees."""
    if not shape.groups:
        return similar_employees(shape, rng, fraction)
    group = list(rng.choice(shape.groups))
    wanted = _count(shape.employees, fraction)
    rng.shuffle(group)
    chosen = group[:wanted]
    for other in shape.similar(chosen[0]):
        if len(chosen) >= wanted:
            break
        if other not in chosen:
            chosen.append(other)
    return _rows(chosen, range(shape.days))


def day_window(shape: Shape, rng: random.Random, fraction: float) -> frozenset[Cell]:
    """Every employee over a window of consecutive days."""
    days = _window(shape, rng, max(2, math.ceil(fraction * shape.days)))
    return _rows(range(shape.employees), days)


def block(shape: Shape, rng: random.Random, fraction: float) -> frozenset[Cell]:
    """Several employees over a fortnight: more people than a row, fewer days."""
    days = _window(shape, rng, BLOCK_DAYS)
    wanted = _count(shape.employees, fraction * shape.days / len(days))
    return _rows(rng.sample(range(shape.employees), wanted), days)


def shift_type(shape: Shape, rng: random.Random, fraction: float) -> frozenset[Cell]:
    """One shift type in a window: who works it there, and who could but is off."""
    shift = rng.randrange(len(shape.shift_workers))
    workers = shape.shift_workers[shift]
    if not workers:
        return day_window(shape, rng, fraction)
    days = _window(shape, rng, max(2, math.ceil(min(1.0, 2 * fraction) * shape.days)))
    return frozenset(
        (e, d) for e in workers for d in days if shape.roster.get((e, d), shift) == shift
    )


def shortfall(shape: Shape, rng: random.Random, fraction: float) -> frozenset[Cell]:
    """Around a demand the incumbent leaves short: who could work it, a week either side.

    Uncovered demand is usually the costliest part of a roster, and covering it means
    moving several people's runs at once; the slot is drawn in proportion to its missing
    heads. A roster with nothing missing gets a block instead.
    """
    if not shape.shortfalls:
        return block(shape, rng, fraction)
    day, shift, _ = rng.choices(shape.shortfalls, [m for _, _, m in shape.shortfalls])[0]
    length = min(shape.days, BLOCK_DAYS)
    start = max(0, min(shape.days - length, day - length // 2 + rng.randint(-2, 2)))
    days = range(start, start + length)
    workers = list(shape.shift_workers[shift]) if shift is not None else []
    workers = workers or list(range(shape.employees))
    wanted = _count(len(workers), fraction * shape.cells / (len(days) * len(workers)))
    return _rows(rng.sample(workers, wanted), days)


def spare_heads(shape: Shape) -> dict[tuple[int, int], int]:
    """Per (day, shift) of the incumbent, the heads above what the slot needs."""
    heads = Counter((d, s) for (_, d), s in shape.roster.items())
    spare = {slot: n - shape.required.get(slot, 0) for slot, n in heads.items()}
    return {slot: n for slot, n in spare.items() if n > 0}


def cover_swap(shape: Shape, rng: random.Random, fraction: float) -> frozenset[Cell]:
    """Around a missing head, the employees who could fill it with a head spared nearby.

    A roster short on one day and shift often has, within a few days, a slot with more
    heads than it needs. An employee who works that slot and may work the short shift can
    move a day of work (or change shift on the day itself) and keep their totals, so
    cover moves where it is missing at no cost to their own rules. Such donors are freed
    over a week around the missing head, the nearest in days first; employees off that
    day who could simply take it come after them. Without a roster or a shortfall this is
    the shortfall neighbourhood.
    """
    if not shape.shortfalls or not shape.roster:
        return shortfall(shape, rng, fraction)
    day, shift, _ = rng.choices(shape.shortfalls, [m for _, _, m in shape.shortfalls])[0]
    days = range(max(0, day - SWAP_REACH), min(shape.days, day + SWAP_REACH + 1))
    spare = spare_heads(shape)
    roster = shape.roster
    workers = shape.shift_workers[shift] if shift is not None else range(shape.employees)
    ranked: list[tuple[int, float, int]] = []
    for e in workers:
        today = roster.get((e, day))
        if today is not None and (shift is None or today == shift):
            continue  # already counted there
        distances = [abs(d - day) for d in days if spare.get((d, roster.get((e, d), -1)), 0) > 0]
        if distances:
            ranked.append((min(distances), rng.random(), e))
        elif today is None:  # off that day: may take it if their totals allow
            ranked.append((SWAP_REACH + 1, rng.random(), e))
    if not ranked:
        return shortfall(shape, rng, fraction)
    ranked.sort()
    wanted = _count(len(ranked), fraction * shape.cells / (len(days) * len(ranked)))
    return _rows([e for _, _, e in ranked[:wanted]], days)


def priced_rows(shape: Shape, rng: random.Random, fraction: float) -> frozenset[Cell]:
    """The employees whose rows the decomposition's prices say are furthest from right.

    An employee's reduced cost at the master LP's duals is what their row costs beyond
    the best mix of rosters for them at those prices: zero for a row the LP would keep,
    large for one that works where heads are plentiful or rests where they are missing.
    Employees are drawn in proportion to it (a weighted draw without replacement: each
    takes ``log(u) / w`` for a uniform ``u`` in (0, 1], the largest keys win) and freed
    over a fortnight, as a block: whole rows did worse on Curtois & Qu 8 at 60 s (median
    1,543 against 1,441, three runs each). Without prices this is the random-employees
    neighbourhood.
    """
    gains = shape.gains
    positive = [g for g in gains if g > 0]
    if len(gains) != shape.employees or not positive:
        return random_employees(shape, rng, fraction)
    floor = PRICED_FLOOR * sum(positive) / len(positive)
    keys = [(math.log(1.0 - rng.random()) / (max(0.0, g) + floor), e) for e, g in enumerate(gains)]
    keys.sort(reverse=True)
    days = _window(shape, rng, BLOCK_DAYS)
    wanted = _count(shape.employees, fraction * shape.days / len(days))
    return _rows([e for _, e in keys[:wanted]], days)


NEIGHBOURHOODS: dict[str, Chooser] = {
    "shortfall": shortfall,
    "cover_swap": cover_swap,
    "random_employees": random_employees,
    "similar_employees": similar_employees,
    "group_employees": group_employees,
    "day_window": day_window,
    "block": block,
    "shift_type": shift_type,
    "priced_rows": priced_rows,
}


def applicable(shape: Shape) -> list[str]:
    """The neighbourhoods worth trying on this problem (no groups: no group search; no
    prices from the decomposition: no priced rows, until it has them)."""
    names = list(NEIGHBOURHOODS)
    if not shape.gains:
        names.remove("priced_rows")
    if not shape.groups:
        names.remove("group_employees")
    if len(shape.shift_workers) < 2:
        names.remove("shift_type")  # one shift type: the same as a day window
    return names
