"""One builder of v1 request bodies (plain dicts) for the tests, the datasets and the
synthetic generator.

The tests' factories and strategies, the model and audit tests, ``shiftsched.data.synthetic`` and
both scripts of ``datasets/`` assemble their requests here, so the shape of a body (the
period from a start and an end or a number of days, the top-level fields in the
contract's order) is decided once. Committed datasets are written from these dicts, so
key order is part of the output: a part left ``None`` is left out, never reordered, and
extra fields follow in the order given.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Json = dict[str, Any]
Date = str | dt.date


def day(start: Date, index: int) -> str:
    """The ISO date ``index`` days after ``start``."""
    first = dt.date.fromisoformat(start) if isinstance(start, str) else start
    return (first + dt.timedelta(days=index)).isoformat()


def span(low: int, high: int) -> Json:
    """One ``{min, max}`` range: a day's demand, a count or days-per-period limit."""
    return {"min": low, "max": high}


def demand(
    days: int, min_: int, max_: int, *, at: Mapping[int, tuple[int, int]] | None = None
) -> list[Json]:
    """One range per day, ``min_..max_`` except the days listed in ``at``."""
    at = at or {}
    return [span(*at.get(d, (min_, max_))) for d in range(days)]


def shift(
    shift_id: str,
    staffing: list[Json] | None,
    *,
    name: str | None = None,
    hours: tuple[str, str] | None = None,
    managers: list[Json] | None = None,
) -> Json:
    """A shift in the contract's field order; ``name`` defaults to the id."""
    out: Json = {"id": shift_id, "name": shift_id if name is None else name}
    if hours is not None:
        out["working_hours"] = {"start_time": hours[0], "end_time": hours[1]}
    if staffing is not None:
        out["staffing_demand"] = staffing
    if managers is not None:
        out["manager_demand"] = managers
    return out


def duty(duty_id: str, by_shift: Mapping[str, Any], *, name: str | None = None) -> Json:
    """A duty with its demand on each shift it exists on; ``name`` defaults to the id."""
    return {
        "id": duty_id,
        "name": duty_id if name is None else name,
        "staffing_demand_by_shift": dict(by_shift),
    }


def employee(
    employee_id: str, shift_ids: Iterable[str], *, name: str | None = None, **fields: Any
) -> Json:
    """An employee who may work ``shift_ids``; ``fields`` follow in the order given."""
    out: Json = {"id": employee_id}
    if name is not None:
        out["name"] = name
    out["assignable_shift_ids"] = list(shift_ids)
    return out | fields


def fixed(date: str, shift_id: str, duty_id: str | None = None) -> Json:
    """A fixed assignment: the employee works ``shift_id`` (holding ``duty_id``) on ``date``."""
    out: Json = {"date": date, "shift_id": shift_id}
    if duty_id is not None:
        out["duty_id"] = duty_id
    return out


def request_body(
    shifts: Sequence[Json],
    employees: Sequence[Json],
    *,
    start: Date,
    end: Date | None = None,
    days: int | None = None,
    holidays: Iterable[str] | None = None,
    timezone: str | None = None,
    duties: Sequence[Json] | None = None,
    constraints: Json | None = None,
    options: Json | None = None,
) -> Json:
    """A request body over ``start..end``, or ``days`` dates from ``start`` (one of the
    two); a part left ``None`` is left out, so the contract's default applies."""
    if days is not None and end is None:
        end = day(start, days - 1)
    elif end is None or days is not None:
        raise ValueError("give the period's end or its number of days: one of the two")
    period: Json = {"start_date": _iso(start), "end_date": _iso(end)}
    if holidays is not None:
        period["holidays"] = list(holidays)
    if timezone is not None:
        period["timezone"] = timezone
    body: Json = {"schedule_period": period, "shifts": list(shifts)}
    if duties is not None:
        body["duties"] = list(duties)
    body["employees"] = list(employees)
    if constraints is not None:
        body["constraints"] = constraints
    if options is not None:
        body["options"] = options
    return body


def _iso(date: Date) -> str:
    """A date as the body holds it; a string is kept as given (a test may want it invalid)."""
    return date if isinstance(date, str) else date.isoformat()
