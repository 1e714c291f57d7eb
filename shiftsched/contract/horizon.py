"""The scheduling horizon: dates, weekdays, ISO weeks, calendar months, holidays.

Every per-week or per-month rule works on *buckets* of day indices. A bucket knows how
many of its calendar days fall inside the period, so a minimum can be prorated at the
edges (rounded down) while a maximum stays a cap (see docs/semantics.md, Calendar).
"""

from __future__ import annotations

import calendar as _stdlib_calendar
import datetime as dt
from dataclasses import dataclass
from functools import cached_property

MINUTES_PER_DAY = 24 * 60
SATURDAY = 5  # date.weekday(): Saturday and Sunday (6) make the weekend


@dataclass(frozen=True, slots=True)
class Bucket:
    """A week or month that overlaps the period, with the day indices it covers."""

    key: str
    days: tuple[int, ...]
    calendar_days: int
    before: int = (
        0  # its days before the period that a history covers (shiftsched.contract.history)
    )

    def prorate_min(self, minimum: int, absent: int = 0) -> int:
        """A minimum scaled to the share of the bucket the period and its history cover,
        less the ``absent`` dates of one employee in it, rounded down once."""
        available = max(0, len(self.days) + self.before - absent)
        return minimum * available // self.calendar_days


@dataclass(frozen=True)
class Horizon:
    """The inclusive date range of a request, indexed from 0."""

    start: dt.date
    end: dt.date
    holidays: frozenset[dt.date] = frozenset()
    covered_before: int = 0  # dates right before the start that a history covers

    @cached_property
    def dates(self) -> tuple[dt.date, ...]:
        count = (self.end - self.start).days + 1
        return tuple(self.start + dt.timedelta(days=i) for i in range(count))

    @property
    def num_days(self) -> int:
        return len(self.dates)

    def index_of(self, day: dt.date) -> int | None:
        """Day index of a date, or None when it lies outside the period."""
        offset = (day - self.start).days
        return offset if 0 <= offset < self.num_days else None

    @cached_property
    def weekdays(self) -> tuple[int, ...]:
        """Weekday per day index, Monday = 0."""
        return tuple(d.weekday() for d in self.dates)

    @cached_property
    def is_holiday(self) -> tuple[bool, ...]:
        return tuple(d in self.holidays for d in self.dates)

    @cached_property
    def weeks(self) -> tuple[Bucket, ...]:
        """ISO weeks (Monday..Sunday) overlapping the period, keyed ``YYYY-Www``."""
        return self._buckets(lambda d: "{}-W{:02d}".format(*d.isocalendar()[:2]), lambda _: 7)

    @cached_property
    def months(self) -> tuple[Bucket, ...]:
        """Calendar months overlapping the period, keyed ``YYYY-MM``."""
        return self._buckets(
            lambda d: f"{d.year:04d}-{d.month:02d}",
            lambda d: _stdlib_calendar.monthrange(d.year, d.month)[1],
        )

    def _buckets(self, key_of, length_of) -> tuple[Bucket, ...]:  # type: ignore[no-untyped-def]
        grouped: dict[str, list[int]] = {}
        first_date: dict[str, dt.date] = {}
        for index, day in enumerate(self.dates):
            key = key_of(day)
            grouped.setdefault(key, []).append(index)
            first_date.setdefault(key, day)
        buckets = [
            Bucket(key, tuple(days), length_of(first_date[key])) for key, days in grouped.items()
        ]
        if buckets and self.covered_before:
            # Only the first week or month can begin before the start.
            first = buckets[0]
            earlier = sum(
                1
                for back in range(1, self.covered_before + 1)
                if key_of(self.start - dt.timedelta(days=back)) == first.key
            )
            buckets[0] = Bucket(first.key, first.days, first.calendar_days, earlier)
        return tuple(buckets)


def parse_hhmm(value: str) -> int:
    """Minutes after midnight of an ``HH:MM`` time."""
    hours, minutes = value.split(":")
    return int(hours) * 60 + int(minutes)


def shift_minutes(start_time: str, end_time: str) -> int:
    """Length of a shift; ``end <= start`` means it ends the next day (a night shift)."""
    start, end = parse_hhmm(start_time), parse_hhmm(end_time)
    return end - start if end > start else end - start + MINUTES_PER_DAY
