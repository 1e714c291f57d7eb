"""Relaxing a diagnosed cause: the request with one input item changed as its advice says.

A :class:`~engine.contract.Cause` of :func:`engine.diagnose.diagnose` names a hard-rule
family and the JSON path of one input item (``employees[1].fixed_assignments[0]``,
``schedule_period.holidays[2]``, ...). The diagnosis proved its ranking by re-solving
with that item's hard rule switched off, so each relaxation below switches it off at
least as fully, and changes nothing else that is hard:

- ``fixed_assignment``, ``shift_count_limit``, ``pairing_exclude``: remove the item.
  A limit with both bounds is removed whole: the diagnosis relaxed both together and
  did not find which one binds.
- ``shift_transition``, ``weekly_hours``, ``skill_support``: make the rule soft; it still
  costs its penalty, so the roster keeps to it where it can.
- ``max_consecutive_days``: raise ``max_consecutive_working_days`` to the period length.
  Raising it by one is often not enough (four fixed days in a row under a cap of 1 need
  a cap of 4); at the period length the hard cap can never bind, which is what the
  diagnosis tested, and the soft cap still discourages long runs.
- ``days_per_month_max``: raise ``working_days_per_month.max`` to the most days any
  month has inside the period, so it cannot bind; the soft minimum is kept.
- ``available_weekday``: drop ``available_weekdays`` (every weekday).
- ``assignable_shift``: allow every shift of the request (under a weekly hours limit,
  every shift with working hours: a shift without them cannot be counted).
- ``skill_level``: remove the duty's level-0 entry from ``skill_levels`` (no level:
  allowed). Raising it to 1 would make the employee a beginner, whom hard skill support
  could then forbid on that shift.
- ``holiday``: remove that date from ``holidays`` (every occurrence of it).

The request is never mutated: the result is a new request, validated again.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from engine.contract import Cause, SolveRequest
from engine.problem import DEFAULT_MAX_CONSECUTIVE_DAYS
from engine.rules import parse_request

Json = dict[str, Any]

_REMOVED: Any = object()  # marks a list item to drop once every cause is applied
_EMPLOYEE = r"employees\[(?P<e>\d+)\]"


def relax(request: SolveRequest, cause: Cause) -> SolveRequest:
    """A new request with the cause's item relaxed (see the module docstring).

    Raises ValueError, naming the path, when the family is unknown or the path does not
    resolve to a hard item of that family in ``request``.
    """
    return relax_all(request, [cause])


def relax_all(request: SolveRequest, causes: Iterable[Cause]) -> SolveRequest:
    """A new request with every cause relaxed; each path refers to the original request.

    Removals are applied last, so the indices in later causes still mean what they did.
    """
    data = request.model_dump(mode="json")
    for cause in causes:
        _apply(data, cause.cause_type, cause.field)
    _sweep(data)
    return parse_request(data)


def _apply(data: Json, family: str, field: str) -> None:
    spec = _RELAXATIONS.get(family)
    if spec is None:
        raise ValueError(f"cannot relax {field!r}: unknown cause family {family!r}")
    pattern, edit = spec
    match = pattern.fullmatch(field)
    if match is None:
        raise ValueError(f"cannot relax {field!r}: not a path of a {family} item")
    try:
        edit(data, match)
    except (IndexError, KeyError) as exc:
        raise ValueError(f"cannot relax {field!r}: the path does not resolve") from exc
    except _NotHard as exc:
        raise ValueError(f"cannot relax {field!r}: {exc}") from None


class _NotHard(Exception):
    """The path resolves, but not to a hard rule that could make the request infeasible."""


def _employee(data: Json, match: re.Match[str]) -> Json:
    employees: list[Json] = data["employees"]
    return employees[int(match["e"])]


def _remove(items: list[Any], index: int) -> None:
    if index >= len(items):
        raise IndexError(index)
    items[index] = _REMOVED


def _sweep(data: Json) -> None:
    def kept(items: list[Any]) -> list[Any]:
        return [item for item in items if item is not _REMOVED]

    period = data["schedule_period"]
    period["holidays"] = kept(period["holidays"])
    constraints = data["constraints"]
    constraints["employee_pairings"] = kept(constraints["employee_pairings"])
    for employee in data["employees"]:
        employee["fixed_assignments"] = kept(employee["fixed_assignments"])
        employee["shift_count_limits"] = kept(employee["shift_count_limits"])


def _num_days(data: Json) -> int:
    period = data["schedule_period"]
    start = dt.date.fromisoformat(period["start_date"])
    return (dt.date.fromisoformat(period["end_date"]) - start).days + 1


# ------------------------------------------------------------------- one per family


def _fixed_assignment(data: Json, match: re.Match[str]) -> None:
    _remove(_employee(data, match)["fixed_assignments"], int(match["i"]))


def _shift_count_limit(data: Json, match: re.Match[str]) -> None:
    _remove(_employee(data, match)["shift_count_limits"], int(match["i"]))


def _pairing_exclude(data: Json, match: re.Match[str]) -> None:
    pairings = data["constraints"]["employee_pairings"]
    pairing = pairings[int(match["i"])]
    if pairing is not _REMOVED and pairing["rule"] != "exclude":
        raise _NotHard("the pairing is not an exclude pairing")
    _remove(pairings, int(match["i"]))


def _make_soft(rule: Json | None, what: str) -> None:
    if rule is None:
        raise _NotHard(f"the request has no {what}")
    if rule["enforcement"] != "hard":
        raise _NotHard(f"the {what} is already soft")
    rule["enforcement"] = "soft"


def _shift_transition(data: Json, match: re.Match[str]) -> None:
    _make_soft(data["constraints"]["shift_transitions"][int(match["i"])], "transition rule")


def _max_consecutive_days(data: Json, match: re.Match[str]) -> None:
    constraints = data["constraints"]
    days = _num_days(data)
    cap = constraints["max_consecutive_working_days"] or DEFAULT_MAX_CONSECUTIVE_DAYS
    if cap >= days:
        raise _NotHard(f"a cap of {cap} cannot bind in a period of {days} days")
    constraints["max_consecutive_working_days"] = days


def _days_per_month_max(data: Json, match: re.Match[str]) -> None:
    employee = _employee(data, match)
    limit = employee["working_days_per_month"]
    if limit is None:
        raise _NotHard("the employee has no working_days_per_month")
    start = dt.date.fromisoformat(data["schedule_period"]["start_date"])
    dates = (start + dt.timedelta(days=d) for d in range(_num_days(data)))
    longest = max(Counter((day.year, day.month) for day in dates).values())
    if limit["max"] >= longest:
        raise _NotHard(f"a maximum of {limit['max']} cannot bind in this period")
    limit["max"] = longest


def _weekly_hours(data: Json, match: re.Match[str]) -> None:
    _make_soft(_employee(data, match)["weekly_working_hours_limit"], "weekly hours limit")


def _skill_support(data: Json, match: re.Match[str]) -> None:
    _make_soft(data["constraints"]["skill_support"], "skill support")


def _available_weekday(data: Json, match: re.Match[str]) -> None:
    employee = _employee(data, match)
    if employee["available_weekdays"] is None:
        raise _NotHard("the employee is available on every weekday already")
    employee["available_weekdays"] = None


def _assignable_shift(data: Json, match: re.Match[str]) -> None:
    employee = _employee(data, match)
    assignable: list[str] = employee["assignable_shift_ids"]
    counted = employee.get("weekly_working_hours_limit") is not None
    missing = [
        s["id"]
        for s in data["shifts"]
        if s["id"] not in assignable and (s.get("working_hours") or not counted)
    ]
    if not missing:
        raise _NotHard("the employee may work every shift already")
    employee["assignable_shift_ids"] = [*assignable, *missing]


def _skill_level(data: Json, match: re.Match[str]) -> None:
    levels = _employee(data, match)["skill_levels"]
    if levels[match["duty"]] != 0:
        raise _NotHard(f"the skill level is {levels[match['duty']]}, not 0")
    del levels[match["duty"]]


def _holiday(data: Json, match: re.Match[str]) -> None:
    holidays = data["schedule_period"]["holidays"]
    day = holidays[int(match["i"])]
    if day is _REMOVED:
        return
    for i, other in enumerate(holidays):
        if other == day:
            _remove(holidays, i)


Edit = Callable[[Json, re.Match[str]], None]

_RELAXATIONS: dict[str, tuple[re.Pattern[str], Edit]] = {
    family: (re.compile(pattern, re.DOTALL), edit)
    for family, pattern, edit in (
        ("fixed_assignment", _EMPLOYEE + r"\.fixed_assignments\[(?P<i>\d+)\]", _fixed_assignment),
        (
            "shift_count_limit",
            _EMPLOYEE + r"\.shift_count_limits\[(?P<i>\d+)\]",
            _shift_count_limit,
        ),
        ("pairing_exclude", r"constraints\.employee_pairings\[(?P<i>\d+)\]", _pairing_exclude),
        ("shift_transition", r"constraints\.shift_transitions\[(?P<i>\d+)\]", _shift_transition),
        (
            "max_consecutive_days",
            r"constraints\.max_consecutive_working_days",
            _max_consecutive_days,
        ),
        ("days_per_month_max", _EMPLOYEE + r"\.working_days_per_month", _days_per_month_max),
        ("weekly_hours", _EMPLOYEE + r"\.weekly_working_hours_limit", _weekly_hours),
        ("skill_support", r"constraints\.skill_support", _skill_support),
        ("available_weekday", _EMPLOYEE + r"\.available_weekdays", _available_weekday),
        ("assignable_shift", _EMPLOYEE + r"\.assignable_shift_ids", _assignable_shift),
        ("skill_level", _EMPLOYEE + r"\.skill_levels\.(?P<duty>.+)", _skill_level),
        ("holiday", r"schedule_period\.holidays\[(?P<i>\d+)\]", _holiday),
    )
}
