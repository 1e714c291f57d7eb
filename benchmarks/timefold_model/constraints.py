"""The constraint streams of the Timefold model: one stream per rule, as the quickstart has.

Each soft stream weighs a match by the engine's own weight (:mod:`shiftsched.solving.weights`), so a
clean roster's soft score is minus the objective the audit computes; the names are those
of :mod:`benchmarks.timefold_model.terms`. Streams that count per group over the roster
(heads per demand, worked dates per week or month) add the groups nobody works in with
``complement``, so a demand left empty is a shortage and a week without work is under
its minimum. Worked dates are counted distinct, as the audit counts dates, not shifts.
"""

from __future__ import annotations

from typing import Any

from timefold.solver.score import (
    Constraint,
    ConstraintCollectors,
    ConstraintFactory,
    HardSoftScore,
    Joiners,
    constraint_provider,
)

from benchmarks.timefold_model.domain import (
    Demand,
    MonthLimit,
    Preference,
    Slot,
    Transition,
    WeekLimit,
)
from benchmarks.timefold_model.terms import SOFT


def _soft(name: str) -> HardSoftScore:
    return HardSoftScore.of_soft(SOFT[name][1])


def one_shift_per_date(factory: ConstraintFactory) -> Constraint:
    return (
        factory.for_each_unique_pair(
            Slot, Joiners.equal(lambda s: s.person), Joiners.equal(lambda s: s.day)
        )
        .penalize(HardSoftScore.ONE_HARD)
        .as_constraint("one_shift_per_date")
    )


def eligibility(factory: ConstraintFactory) -> list[Constraint]:
    return [
        factory.for_each(Slot)
        .filter(lambda s: s.shift_id not in s.person.assignable)
        .penalize(HardSoftScore.ONE_HARD)
        .as_constraint("assignable_shift"),
        factory.for_each(Slot)
        .filter(lambda s: s.weekday not in s.person.weekdays)
        .penalize(HardSoftScore.ONE_HARD)
        .as_constraint("available_weekday"),
        factory.for_each(Slot)
        .filter(lambda s: s.holiday)
        .penalize(HardSoftScore.ONE_HARD)
        .as_constraint("holiday"),
    ]


def staffing(factory: ConstraintFactory) -> list[Constraint]:
    heads = factory.for_each(Slot).group_by(lambda s: s.demand, ConstraintCollectors.count())
    return [
        heads.complement(Demand, lambda d: 0)
        .filter(lambda d, n: n < d.minimum)
        .penalize(_soft("staffing_shortage"), lambda d, n: d.minimum - n)
        .as_constraint("staffing_shortage"),
        heads.filter(lambda d, n: n > d.maximum)
        .penalize(_soft("staffing_excess"), lambda d, n: n - d.maximum)
        .as_constraint("staffing_excess"),
    ]


def consecutive_days(factory: ConstraintFactory) -> list[Constraint]:
    runs = (
        factory.for_each(Slot)
        .group_by(
            lambda s: s.person, ConstraintCollectors.to_consecutive_sequences(lambda s: s.day)
        )
        .flatten_last(lambda chain: chain.getConsecutiveSequences())
    )
    return [
        runs.filter(lambda p, run: run.getLength() > p.max_run)
        .penalize(HardSoftScore.ONE_HARD, lambda p, run: run.getLength() - p.max_run)
        .as_constraint("max_consecutive_days"),
        # The soft cap N-1: every window of N worked dates in a row counts once.
        runs.filter(lambda p, run: p.max_run >= 2 and run.getLength() >= p.max_run)
        .penalize(_soft("consecutive_days"), lambda p, run: run.getLength() - p.max_run + 1)
        .as_constraint("consecutive_days"),
    ]


def _forbidden(factory: ConstraintFactory, hard: bool) -> Any:
    """Pairs (transition, slot on ``from``) followed by ``to`` the next date."""
    return (
        factory.for_each(Transition)
        .filter(lambda t: t.forbid and t.hard == hard)
        .join(Slot, Joiners.equal(lambda t: t.from_shift, lambda s: s.shift_id))
        .if_exists(
            Slot,
            Joiners.equal(lambda t, a: a.person, lambda b: b.person),
            Joiners.equal(lambda t, a: a.day + 1, lambda b: b.day),
            Joiners.equal(lambda t, a: t.to_shift, lambda b: b.shift_id),
        )
    )


def _unfollowed(factory: ConstraintFactory, hard: bool) -> Any:
    """Pairs (transition, slot on ``from`` before the last date) not followed by ``to``."""
    return (
        factory.for_each(Transition)
        .filter(lambda t: not t.forbid and t.hard == hard)
        .join(Slot, Joiners.equal(lambda t: t.from_shift, lambda s: s.shift_id))
        .filter(lambda t, a: a.day < t.last_day)
        .if_not_exists(
            Slot,
            Joiners.equal(lambda t, a: a.person, lambda b: b.person),
            Joiners.equal(lambda t, a: a.day + 1, lambda b: b.day),
            Joiners.equal(lambda t, a: t.to_shift, lambda b: b.shift_id),
        )
    )


def transitions(factory: ConstraintFactory) -> list[Constraint]:
    return [
        _forbidden(factory, True)
        .penalize(HardSoftScore.ONE_HARD)
        .as_constraint("shift_transition:forbid (hard)"),
        _unfollowed(factory, True)
        .penalize(HardSoftScore.ONE_HARD)
        .as_constraint("shift_transition:require (hard)"),
        _forbidden(factory, False)
        .penalize(_soft("shift_transition:forbid"))
        .as_constraint("shift_transition:forbid"),
        _unfollowed(factory, False)
        .penalize(_soft("shift_transition:require"))
        .as_constraint("shift_transition:require"),
    ]


def working_days(factory: ConstraintFactory) -> list[Constraint]:
    weeks = (
        factory.for_each(WeekLimit)
        .join(
            Slot,
            Joiners.equal(lambda w: w.person, lambda s: s.person.index),
            Joiners.equal(lambda w: w.bucket, lambda s: s.week),
        )
        .group_by(lambda w, s: w, ConstraintCollectors.count_distinct(lambda w, s: s.day))
        .complement(WeekLimit, lambda w: 0)
    )
    months = (
        factory.for_each(MonthLimit)
        .join(
            Slot,
            Joiners.equal(lambda m: m.person, lambda s: s.person.index),
            Joiners.equal(lambda m: m.bucket, lambda s: s.month),
        )
        .group_by(lambda m, s: m, ConstraintCollectors.count_distinct(lambda m, s: s.day))
        .complement(MonthLimit, lambda m: 0)
    )
    return [
        weeks.filter(lambda w, n: n < w.minimum or n > w.maximum)
        .penalize(
            _soft("days_per_week"),
            lambda w, n: (
                (w.minimum - n if n < w.minimum else 0) + (n - w.maximum if n > w.maximum else 0)
            ),
        )
        .as_constraint("days_per_week"),
        months.filter(lambda m, n: n < m.minimum)
        .penalize(_soft("days_per_month_min"), lambda m, n: m.minimum - n)
        .as_constraint("days_per_month_min"),
        months.filter(lambda m, n: n > m.maximum)
        .penalize(HardSoftScore.ONE_HARD, lambda m, n: n - m.maximum)
        .as_constraint("days_per_month_max"),
    ]


def _worked(kind: str) -> list[Any]:
    """Joiners of a preference and the slots of its person on its date (and shift)."""
    joiners = [
        Joiners.equal(lambda p: p.person, lambda s: s.person),
        Joiners.equal(lambda p: p.day, lambda s: s.day),
    ]
    if kind != "day_off":
        joiners.append(Joiners.equal(lambda p: p.shift_id, lambda s: s.shift_id))
    return joiners


def preferences(factory: ConstraintFactory) -> list[Constraint]:
    def wishes(kind: str) -> Any:
        return factory.for_each(Preference).filter(lambda p: p.kind == kind)

    return [
        wishes("day_off")
        .if_exists(Slot, *_worked("day_off"))
        .penalize(_soft("preference:day_off"))
        .as_constraint("preference:day_off"),
        wishes("preferred_shift")
        .if_not_exists(Slot, *_worked("preferred_shift"))
        .penalize(_soft("preference:preferred_shift"))
        .as_constraint("preference:preferred_shift"),
        wishes("avoided_shift")
        .if_exists(Slot, *_worked("avoided_shift"))
        .penalize(_soft("preference:avoided_shift"))
        .as_constraint("preference:avoided_shift"),
    ]


@constraint_provider
def roster_constraints(factory: ConstraintFactory) -> list[Constraint]:
    return [
        one_shift_per_date(factory),
        *eligibility(factory),
        *staffing(factory),
        *consecutive_days(factory),
        *transitions(factory),
        *working_days(factory),
        *preferences(factory),
    ]
