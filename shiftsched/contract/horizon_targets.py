"""Targets over a horizon longer than the period: plan a month inside a year.

A plan may carry an optional ``horizon`` beside the v1 request (never inside it): the
horizon's dates and, per employee, limits that hold over the whole of it (at least and at
most so many worked days, hours or shifts of a kind, at most so many working weekends).
One period cannot see the
periods after it, so each limit is turned into a *share* for this period
(docs/semantics.md, "Horizon targets"):

- what is left of the limit after the counts so far (the history's ledger, or its cells)
  is divided over the days (for days, hours and shifts) or weekends (for weekends) left
  in the horizon,
  this period included, and this period's part of it, rounded half up, is its target;
- a period that reaches the horizon's end gets the limit itself, so the last period
  prices the horizon exactly;
- a count outside its share costs its weight per unit, softly: below every coverage
  term, so a share never leaves a shift short.

The counts a period hands on go into the ledger's ``horizon`` block, so the next period
reads them without the whole history.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Final

from pydantic import Field

from shiftsched.contract.faults import ErrorCode, Path
from shiftsched.contract.hints import unknown_id
from shiftsched.contract.history import History, HorizonLedger, LedgerCount
from shiftsched.contract.v1 import Date, Id, SolveRequest
from shiftsched.contract.v1 import _Model as _ContractModel
from shiftsched.errors import FieldError

#: Price of one worked day outside a period's share of a horizon's day limits: that of
#: a missing day of the month (30), below a soft transition (40) and a preference (100).
DEFAULT_DAY_WEIGHT: Final = 30
#: Price of one working weekend above a period's share of the horizon's weekend limit.
DEFAULT_WEEKEND_WEIGHT: Final = 30
#: Price of one shift of a kind outside a period's share of a horizon's shift counts:
#: that of a worked day off its share.
DEFAULT_SHIFT_WEIGHT: Final = 30
#: Price of one hour (started) outside a period's share of a horizon's hour limits:
#: an eighth of a day's 30, rounded, so an eight-hour day off the share costs 32.
DEFAULT_HOUR_WEIGHT: Final = 4
MINUTES_PER_DAY: Final = 24 * 60
SATURDAY: Final = 5  # date.weekday(): Saturday and Sunday (6) make the weekend
MAX_HORIZON_DAYS: Final = 3 * 366  # three years: any quota a roster plans against
Weight = Annotated[int, Field(ge=0, le=10_000, strict=True)]
Hours = Annotated[int, Field(ge=0, le=MAX_HORIZON_DAYS * 24, strict=True)]


class HorizonShiftCount(_ContractModel):
    """At least and at most so many of one shift over the whole horizon (a yearly quota
    of nights, say): what a v1 ``shift_count_limits`` item is over one period."""

    shift_id: Id
    min: LedgerCount | None = None
    max: LedgerCount | None = None


class HorizonTarget(_ContractModel):
    """One employee's limits over the whole horizon (each optional)."""

    employee_id: Id
    min_days: LedgerCount | None = None
    max_days: LedgerCount | None = None
    max_weekends: LedgerCount | None = None
    min_hours: Hours | None = None  # of the shifts' working hours
    max_hours: Hours | None = None
    shift_counts: list[HorizonShiftCount] = Field(default_factory=list)


class PlanHorizon(_ContractModel):
    """The horizon a period is planned inside, and the limits that span it."""

    start: Date
    end: Date
    targets: Annotated[list[HorizonTarget], Field(min_length=1)]
    day_weight: Weight = DEFAULT_DAY_WEIGHT
    weekend_weight: Weight = DEFAULT_WEEKEND_WEIGHT
    hour_weight: Weight = DEFAULT_HOUR_WEIGHT
    shift_weight: Weight = DEFAULT_SHIFT_WEIGHT


@dataclass(frozen=True)
class ShiftShare:
    """One employee's share of a shift count: the count so far and this period's range."""

    shift_id: str
    before: int
    low: int | None
    high: int | None


@dataclass(frozen=True)
class Share:
    """One employee's targets for this period: counts including those before it (hours
    in minutes, so that the shares of a shift's length stay exact)."""

    employee_id: str
    days_before: int
    weekends_before: int
    min_days: int | None
    max_days: int | None
    max_weekends: int | None
    minutes_before: int = 0
    min_minutes: int | None = None
    max_minutes: int | None = None
    shifts: tuple[ShiftShare, ...] = ()


# ------------------------------------------------------------------------ the shares


def share(before: int, limit: int, here: int, left: int) -> int:
    """The count to reach by this period's end: ``before`` plus this period's ``here``
    units of the ``left`` units still to come (this period's included), of what remains
    of ``limit``, rounded half up; ``limit`` itself when the period reaches the end."""
    if here >= left:
        return limit
    remaining = max(0, limit - before)
    return before + (2 * remaining * here + left) // (2 * left)


def weekends(start: dt.date, end: dt.date) -> int:
    """Weekends with a Saturday or a Sunday in ``start..end`` (an ISO week's two days, or
    the part of them inside: a weekend that a period boundary cuts counts in both)."""
    seen = set()
    day = start
    while day <= end:
        if day.weekday() >= SATURDAY:
            seen.add(day.isocalendar()[:2])
        day += dt.timedelta(days=1)
    return len(seen)


def shares(
    request: SolveRequest,
    horizon: PlanHorizon,
    history: History | None,
    minutes: Mapping[str, int] | None = None,
) -> list[Share]:
    """Each target's share for the period of ``request``, from the counts so far.
    ``minutes``: each shift's length, by id, for hour targets over history cells (the
    model and the audit each pass their own reading of the working hours)."""
    period = request.schedule_period
    start, end = period.start_date, period.end_date
    here, left = (end - start).days + 1, (horizon.end - start).days + 1
    weekends_here, weekends_left = weekends(start, end), weekends(start, horizon.end)
    before = counts_before(request, horizon, history)
    worked = minutes_before(request, horizon, history, minutes or {})
    counted = shifts_before(request, horizon, history)
    found = []
    for t in horizon.targets:
        days, weekend_count = before.get(t.employee_id, (0, 0))
        spent = worked.get(t.employee_id, 0)
        low, high = (
            None if hours is None else share(spent, 60 * hours, here, left)
            for hours in (t.min_hours, t.max_hours)
        )
        found.append(
            Share(
                t.employee_id,
                days,
                weekend_count,
                None if t.min_days is None else share(days, t.min_days, here, left),
                None if t.max_days is None else share(days, t.max_days, here, left),
                None
                if t.max_weekends is None
                else share(weekend_count, t.max_weekends, weekends_here, weekends_left),
                spent,
                low,
                high,
                tuple(
                    _shift_share(c, counted.get(t.employee_id, {}).get(c.shift_id, 0), here, left)
                    for c in t.shift_counts
                ),
            )
        )
    return found


def _shift_share(count: HorizonShiftCount, before: int, here: int, left: int) -> ShiftShare:
    low, high = (
        None if limit is None else share(before, limit, here, left)
        for limit in (count.min, count.max)
    )
    return ShiftShare(count.shift_id, before, low, high)


def shifts_before(
    request: SolveRequest, horizon: PlanHorizon, history: History | None
) -> Mapping[str, Mapping[str, int]]:
    """Worked shifts per employee and shift id from the horizon's start to the day before
    the period, as :func:`counts_before` counts days: the ledger's horizon block when it
    runs to that day, else the history's cells."""
    if history is None:
        return {}
    kept = _kept(request, horizon, history)
    if kept is not None:
        return {c.employee_id: c.shift_counts for c in kept.employees}
    start = request.schedule_period.start_date
    total: dict[str, dict[str, int]] = {}
    for a in history.assignments:
        if horizon.start <= a.date < start:
            mine = total.setdefault(a.employee_id, {})
            mine[a.shift_id] = mine.get(a.shift_id, 0) + 1
    return total


def minutes_before(
    request: SolveRequest,
    horizon: PlanHorizon,
    history: History | None,
    minutes: Mapping[str, int],
) -> Mapping[str, int]:
    """Worked minutes per employee from the horizon's start to the day before the period,
    as :func:`counts_before` counts days: the ledger's horizon block when it runs to that
    day, else the history's cells (a shift of unknown length counts 0)."""
    if history is None:
        return {}
    kept = _kept(request, horizon, history)
    if kept is not None:
        return {c.employee_id: c.minutes_worked for c in kept.employees}
    start = request.schedule_period.start_date
    total: dict[str, int] = {}
    for a in history.assignments:
        if horizon.start <= a.date < start:
            total[a.employee_id] = total.get(a.employee_id, 0) + minutes.get(a.shift_id, 0)
    return total


def _kept(request: SolveRequest, horizon: PlanHorizon, history: History) -> HorizonLedger | None:
    """The history ledger's horizon block, when it is this horizon's and runs to the day
    before the period."""
    ledger = history.ledger
    kept = None if ledger is None else ledger.horizon
    start = request.schedule_period.start_date
    if (
        ledger is not None
        and kept is not None
        and (kept.start, kept.end) == (horizon.start, horizon.end)
        and ledger.through == start - dt.timedelta(days=1)
    ):
        return kept
    return None


def counts_before(
    request: SolveRequest, horizon: PlanHorizon, history: History | None
) -> Mapping[str, tuple[int, int]]:
    """(worked days, working weekends) per employee from the horizon's start to the day
    before the period: the ledger's horizon block when it is this horizon's and runs to
    that day, else the history's cells from the horizon's start (none: nothing so far)."""
    start = request.schedule_period.start_date
    if history is None:
        return {}
    kept = _kept(request, horizon, history)
    if kept is not None:
        return {c.employee_id: (c.days_worked, c.weekends_worked) for c in kept.employees}
    worked: dict[str, set[dt.date]] = {}
    for a in history.assignments:
        if horizon.start <= a.date < start:
            worked.setdefault(a.employee_id, set()).add(a.date)
    return {
        employee: (
            len(dates),
            len({d.isocalendar()[:2] for d in dates if d.weekday() >= SATURDAY}),
        )
        for employee, dates in worked.items()
    }


# ------------------------------------------------------------------------ the faults


def horizon_faults(request: SolveRequest, horizon: PlanHorizon, at: Path) -> list[FieldError]:
    """Every way ``horizon`` contradicts ``request``, each at its JSON path under ``at``."""
    return [*_date_faults(request, horizon, at), *_target_faults(request, horizon, at)]


def _date_faults(request: SolveRequest, horizon: PlanHorizon, at: Path) -> Iterator[FieldError]:
    period = request.schedule_period
    if horizon.start > period.start_date:
        yield FieldError(
            (*at, "start"),
            f"the horizon starts on {horizon.start.isoformat()}, after the period's start "
            f"{period.start_date.isoformat()}: a horizon holds the period",
            ErrorCode.OUT_OF_RANGE,
        )
    if horizon.end < period.end_date:
        yield FieldError(
            (*at, "end"),
            f"the horizon ends on {horizon.end.isoformat()}, before the period's end "
            f"{period.end_date.isoformat()}: a horizon holds the period",
            ErrorCode.OUT_OF_RANGE,
        )
    if (horizon.end - horizon.start).days + 1 > MAX_HORIZON_DAYS:
        yield FieldError(
            (*at, "end"),
            f"a horizon spans at most {MAX_HORIZON_DAYS} days",
            ErrorCode.OUT_OF_RANGE,
        )


def _target_faults(request: SolveRequest, horizon: PlanHorizon, at: Path) -> Iterator[FieldError]:
    ids = [e.id for e in request.employees]
    first: dict[str, int] = {}
    for i, t in enumerate(horizon.targets):
        path: Path = (*at, "targets", i)
        yield from _reference_faults(
            ("employee", t.employee_id, ids, ErrorCode.UNKNOWN_EMPLOYEE_ID),
            (first, i, "targets"),
            (*path, "employee_id"),
        )
        yield from _upside_down(path, ("min_days", t.min_days), ("max_days", t.max_days))
        yield from _upside_down(path, ("min_hours", t.min_hours), ("max_hours", t.max_hours))
        yield from _shift_count_faults(request, t, path)


def _shift_count_faults(
    request: SolveRequest, target: HorizonTarget, path: Path
) -> Iterator[FieldError]:
    ids = [s.id for s in request.shifts]
    first: dict[str, int] = {}
    for j, count in enumerate(target.shift_counts):
        item: Path = (*path, "shift_counts", j)
        yield from _reference_faults(
            ("shift", count.shift_id, ids, ErrorCode.UNKNOWN_SHIFT_ID),
            (first, j, "shift_counts"),
            (*item, "shift_id"),
        )
        yield from _upside_down(item, ("min", count.min), ("max", count.max))


def _reference_faults(
    named: tuple[str, str, list[str], ErrorCode],
    seen: tuple[dict[str, int], int, str],
    at: Path,
) -> Iterator[FieldError]:
    """An id that names nothing of its ``kind`` in ``ids``, or one named before in the
    same list (``first`` maps each id to the index it first came at)."""
    kind, value, ids, code = named
    first, index, listing = seen
    if value not in ids:
        yield FieldError(at, unknown_id(kind, value, ids), code)
    earlier = first.setdefault(value, index)
    if earlier != index:
        yield FieldError(
            at, f"{value} already has {listing}[{earlier}]", ErrorCode.DUPLICATE_REFERENCE
        )


def _upside_down(
    at: Path, low: tuple[str, int | None], high: tuple[str, int | None]
) -> Iterator[FieldError]:
    (low_name, least), (high_name, most) = low, high
    if least is not None and most is not None and least > most:
        yield FieldError(
            (*at, low_name),
            f"{low_name} {least} is above {high_name} {most}",
            ErrorCode.MIN_GREATER_THAN_MAX,
        )


# ------------------------------------------------------------------------ the answer


class ShiftProgress(_ContractModel):
    """Where one employee stands against one shift count of their targets."""

    shift_id: str
    worked: int  # from the horizon's start through the period's end
    min: int | None = None  # the horizon's limits, as asked
    max: int | None = None
    period_min: int | None = None  # this period's shares (counts so far included)
    period_max: int | None = None
    to_minimum: int = 0  # shifts still owed to reach min
    left_to_maximum: int | None = None  # shifts max still allows


class TargetProgress(_ContractModel):
    """Where one employee stands against their horizon targets after this period."""

    employee_id: str
    days_worked: int  # from the horizon's start through the period's end
    weekends_worked: int
    min_days: int | None = None  # the horizon's limits, as asked
    max_days: int | None = None
    max_weekends: int | None = None
    period_min_days: int | None = None  # this period's shares (counts so far included)
    period_max_days: int | None = None
    period_max_weekends: int | None = None
    days_to_minimum: int = 0  # worked days still owed to reach min_days
    days_left_to_maximum: int | None = None  # worked days max_days still allows
    weekends_left: int | None = None  # working weekends max_weekends still allows
    minutes_worked: int = 0  # of the shifts' working hours, as days_worked
    min_hours: int | None = None
    max_hours: int | None = None
    period_min_minutes: int | None = None  # this period's shares of the hour limits
    period_max_minutes: int | None = None
    minutes_to_minimum: int = 0  # worked minutes still owed to reach min_hours
    minutes_left_to_maximum: int | None = None  # worked minutes max_hours still allows
    shift_counts: list[ShiftProgress] = Field(default_factory=list)


def progress(
    horizon: PlanHorizon,
    found: list[Share],
    after: Mapping[str, tuple[int, int, int]],
    shifts_after: Mapping[str, Mapping[str, int]] | None = None,
) -> list[TargetProgress]:
    """Each target's standing once the period's counts ``after`` (worked days, working
    weekends and worked minutes from the horizon's start, this period included) and
    ``shifts_after`` (worked shifts by id, likewise) are in."""
    asked = {t.employee_id: t for t in horizon.targets}
    shifts_after = shifts_after or {}
    rows = []
    for s in found:
        t = asked[s.employee_id]
        days, weekend_count, minutes = after.get(
            s.employee_id, (s.days_before, s.weekends_before, s.minutes_before)
        )
        rows.append(
            TargetProgress(
                employee_id=s.employee_id,
                days_worked=days,
                weekends_worked=weekend_count,
                min_days=t.min_days,
                max_days=t.max_days,
                max_weekends=t.max_weekends,
                period_min_days=s.min_days,
                period_max_days=s.max_days,
                period_max_weekends=s.max_weekends,
                days_to_minimum=0 if t.min_days is None else max(0, t.min_days - days),
                days_left_to_maximum=None if t.max_days is None else t.max_days - days,
                weekends_left=None if t.max_weekends is None else t.max_weekends - weekend_count,
                minutes_worked=minutes,
                min_hours=t.min_hours,
                max_hours=t.max_hours,
                period_min_minutes=s.min_minutes,
                period_max_minutes=s.max_minutes,
                minutes_to_minimum=0 if t.min_hours is None else max(0, 60 * t.min_hours - minutes),
                minutes_left_to_maximum=None if t.max_hours is None else 60 * t.max_hours - minutes,
                shift_counts=_shift_progress(t, s, shifts_after.get(s.employee_id, {})),
            )
        )
    return rows


def _shift_progress(
    target: HorizonTarget, found: Share, after: Mapping[str, int]
) -> list[ShiftProgress]:
    shares_of = {c.shift_id: c for c in found.shifts}
    rows = []
    for count in target.shift_counts:
        mine = shares_of[count.shift_id]
        worked = after.get(count.shift_id, mine.before)
        rows.append(
            ShiftProgress(
                shift_id=count.shift_id,
                worked=worked,
                min=count.min,
                max=count.max,
                period_min=mine.low,
                period_max=mine.high,
                to_minimum=0 if count.min is None else max(0, count.min - worked),
                left_to_maximum=None if count.max is None else count.max - worked,
            )
        )
    return rows
