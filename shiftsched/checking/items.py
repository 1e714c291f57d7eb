"""The input item behind a soft term or a shortage, and a soft term in plain words.

An audit names each soft term by a string (docs/semantics.md, "Soft terms, weights and
names") and each unmet minimum by a shortage marker. Someone who wants a roster to cost
less has to find the rule or demand that priced it, so these functions map a name or a
marker back to the JSON path of that item in the request
(``request.employees[3].preferences[0]``), the paths hard violations carry in
``HardViolation.field``. :func:`item_at` reads the item a path names.

The contract puts no pattern on ids, so an id may hold ``:``. A name is therefore never
split on its colons: it is matched against the ids and dates the request actually has.
Names the request cannot produce (imported benchmarks' terms, typos) resolve to None.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from shiftsched.checking.audit import DEFAULT_MAX_CONSECUTIVE_DAYS
from shiftsched.contract.v1 import Employee, Range, Shortage, SolveRequest
from shiftsched.errors import dotted

_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_MONTH: Final = re.compile(r"\d{4}-\d{2}", re.ASCII)
_WEEK: Final = re.compile(r"\d{4}-W\d{2}", re.ASCII)
_INDEX: Final = re.compile(r"0|[1-9]\d*", re.ASCII)
_SEGMENT: Final = re.compile(r"\[(\d+)\]", re.ASCII)

#: The merged shortage terms aggregate every item of one array; markers name the cell.
SHORTAGE_FIELDS: Final[Mapping[str, str]] = {
    "staffing_shortage": "request.shifts",
    "manager_shortage": "request.shifts",
    "duty_shortage": "request.duties",
    "cross_shift_shortage": "request.constraints.cross_shift_demands",
}


@dataclass(frozen=True)
class _Term:
    """A soft term's name read against the request: its family, the item behind it, and
    what the words need (who, when, which shift or duty, which week or month)."""

    family: str
    field: str
    employee: Employee | None = None
    day: dt.date | None = None
    shift_id: str | None = None
    duty_id: str | None = None
    key: str | None = None  # YYYY-MM, YYYY-Www, or a transition's rule
    index: int | None = None  # position in a constraints array
    to_shift_id: str | None = None


def _path(*segments: str | int) -> str:
    return dotted(("request", *segments))


def _date(text: str) -> dt.date | None:
    if not _DATE.fullmatch(text):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _index(text: str, items: Sequence[Any]) -> int | None:
    if not _INDEX.fullmatch(text) or int(text) >= len(items):
        return None
    return int(text)


def _employees(request: SolveRequest, rest: str) -> Iterator[tuple[int, Employee, str]]:
    """Each employee whose id and a colon begin ``rest``, with what follows (ids may hold
    colons, so several may; the caller keeps the one whose tail parses)."""
    for i, employee in enumerate(request.employees):
        if rest.startswith(employee.id + ":"):
            yield i, employee, rest[len(employee.id) + 1 :]


def _day_index(request: SolveRequest, day: dt.date, ranges: Sequence[Range] | None) -> int | None:
    """Position of ``day`` in a per-day demand array (one range per date of the period)."""
    index = (day - request.schedule_period.start_date).days
    return index if ranges is not None and 0 <= index < len(ranges) else None


# ---------------------------------------------------------------------- name families


def _preference(request: SolveRequest, kind: str, rest: str) -> _Term | None:
    """``preference:<kind>:<employee>:<date>[:<shift>]`` -> the preference it prices."""
    for i, employee, tail in _employees(request, rest):
        day = _date(tail[:10])
        if day is None:
            continue
        shift_id = None if kind == "day_off" else tail[11:]
        if tail[10:] != ("" if shift_id is None else ":" + shift_id):
            continue
        for j, pref in enumerate(employee.preferences):
            if (
                pref.type == kind
                and pref.date == day
                and getattr(pref, "shift_id", None) == shift_id
            ):
                field = _path("employees", i, "preferences", j)
                return _Term(f"preference:{kind}", field, employee, day, shift_id)
    return None


def _skill_support(request: SolveRequest, rest: str) -> _Term | None:
    """``skill_support:<date>:<shift>[:<duty>]`` -> the skill_support setting."""
    day = _date(rest[:10])
    if request.constraints.skill_support is None or day is None or rest[10:11] != ":":
        return None
    tail = rest[11:]
    field = _path("constraints", "skill_support")
    for shift in request.shifts:
        if tail == shift.id:
            return _Term("skill_support", field, day=day, shift_id=shift.id)
        if tail.startswith(shift.id + ":"):
            duty_id = tail[len(shift.id) + 1 :]
            if any(duty.id == duty_id for duty in request.duties):
                return _Term("skill_support", field, day=day, shift_id=shift.id, duty_id=duty_id)
    return None


def _shift_transition(request: SolveRequest, rest: str) -> _Term | None:
    """``shift_transition:<rule>:<from>:<to>:<employee>`` -> the first soft transition of
    that name (a transition listed twice merges into one term)."""
    transitions = list(enumerate(request.constraints.shift_transitions))
    for j, t in sorted(transitions, key=lambda item: item[1].enforcement != "soft"):
        head = f"{t.rule}:{t.from_shift_id}:{t.to_shift_id}:"
        if not rest.startswith(head):
            continue
        employee = next((e for e in request.employees if e.id == rest[len(head) :]), None)
        if employee is not None:
            field = _path("constraints", "shift_transitions", j)
            return _Term(
                "shift_transition",
                field,
                employee,
                shift_id=t.from_shift_id,
                to_shift_id=t.to_shift_id,
                key=t.rule,
            )
    return None


def _constraint_item(family: str, array: str) -> Callable[[SolveRequest, str], _Term | None]:
    """``<family>:<index>`` -> ``request.constraints.<array>[index]``."""

    def resolve(request: SolveRequest, rest: str) -> _Term | None:
        index = _index(rest, getattr(request.constraints, array))
        if index is None:
            return None
        return _Term(family, _path("constraints", array, index), index=index)

    return resolve


def _employee_limit(
    family: str, attribute: str, period_key: re.Pattern[str]
) -> Callable[[SolveRequest, str], _Term | None]:
    """``<family>:<employee>:<week or month>`` -> the employee's limit of that name."""

    def resolve(request: SolveRequest, rest: str) -> _Term | None:
        for i, employee, tail in _employees(request, rest):
            if period_key.fullmatch(tail) and getattr(employee, attribute) is not None:
                return _Term(family, _path("employees", i, attribute), employee, key=tail)
        return None

    return resolve


def _consecutive_days(request: SolveRequest, rest: str) -> _Term | None:
    """``consecutive_days:<employee>`` -> the cap (also when the default applies)."""
    employee = next((e for e in request.employees if e.id == rest), None)
    if employee is None:
        return None
    return _Term("consecutive_days", _path("constraints", "max_consecutive_working_days"), employee)


def _shift_excess(family: str, attribute: str) -> Callable[[SolveRequest, str], _Term | None]:
    """``<family>:<shift>:<date>`` -> that date's range of the shift's demand array."""

    def resolve(request: SolveRequest, rest: str) -> _Term | None:
        for s, shift in enumerate(request.shifts):
            day = _date(rest[len(shift.id) + 1 :]) if rest.startswith(shift.id + ":") else None
            d = None if day is None else _day_index(request, day, getattr(shift, attribute))
            if day is not None and d is not None:
                return _Term(family, _path("shifts", s, attribute, d), day=day, shift_id=shift.id)
        return None

    return resolve


def _duty_excess(request: SolveRequest, rest: str) -> _Term | None:
    """``duty_excess:<duty>:<shift>:<date>`` -> that date's range of the duty's demand."""
    for k, duty in enumerate(request.duties):
        if not rest.startswith(duty.id + ":"):
            continue
        tail = rest[len(duty.id) + 1 :]
        for shift_id, ranges in duty.staffing_demand_by_shift.items():
            day = _date(tail[len(shift_id) + 1 :]) if tail.startswith(shift_id + ":") else None
            d = None if day is None else _day_index(request, day, ranges)
            if day is not None and d is not None:
                field = _path("duties", k, "staffing_demand_by_shift", shift_id, d)
                return _Term("duty_excess", field, day=day, shift_id=shift_id, duty_id=duty.id)
    return None


_FAMILIES: Final[Mapping[str, Callable[[SolveRequest, str], _Term | None]]] = {
    "skill_support": _skill_support,
    "shift_transition": _shift_transition,
    "pairing_require": _constraint_item("pairing_require", "employee_pairings"),
    "days_per_month_min": _employee_limit("days_per_month_min", "working_days_per_month", _MONTH),
    "consecutive_days": _consecutive_days,
    "days_per_week": _employee_limit("days_per_week", "working_days_per_week", _WEEK),
    "staffing_excess": _shift_excess("staffing_excess", "staffing_demand"),
    "manager_excess": _shift_excess("manager_excess", "manager_demand"),
    "duty_excess": _duty_excess,
    "cross_shift_excess": _constraint_item("cross_shift_excess", "cross_shift_demands"),
    "weekly_hours": _employee_limit("weekly_hours", "weekly_working_hours_limit", _WEEK),
    "fairness": _constraint_item("fairness", "fairness_groups"),
}


def _parse(request: SolveRequest, name: str) -> _Term | None:
    if name in SHORTAGE_FIELDS:
        return _Term(name, SHORTAGE_FIELDS[name])
    family, _, rest = name.partition(":")
    if family == "preference":
        kind, _, rest = rest.partition(":")
        if kind in ("day_off", "preferred_shift", "avoided_shift"):
            return _preference(request, kind, rest)
        return None
    resolve = _FAMILIES.get(family)
    return None if resolve is None else resolve(request, rest)


# ------------------------------------------------------------------------------ paths


def term_field(request: SolveRequest, name: str) -> str | None:
    """The JSON path of the request item behind the soft term ``name``, or None for a
    name the request cannot produce (an imported benchmark's term).

    The merged shortage terms name their whole array; each shortage marker names its own
    demand cell (:func:`shortage_field`).
    """
    term = _parse(request, name)
    return None if term is None else term.field


def shortage_field(request: SolveRequest, marker: Shortage, cross_index: int | None = None) -> str:
    """The JSON path of the demand cell a shortage marker falls short of.

    A cross-shift marker does not carry its demand's index; without ``cross_index`` the
    first demand of its date, shifts, duty and minimum is taken. ValueError when the
    request has no such demand.
    """
    if marker.kind == "cross_shift":
        demands = request.constraints.cross_shift_demands
        if cross_index is None:
            cross_index = next(
                (
                    i
                    for i, c in enumerate(demands)
                    if c.date == marker.date
                    and c.shift_ids == marker.shift_ids
                    and c.duty_id == marker.duty_id
                    and c.min == marker.required
                ),
                None,
            )
        if cross_index is None or not 0 <= cross_index < len(demands):
            raise ValueError(f"no cross-shift demand matches the marker of {marker.date}")
        return _path("constraints", "cross_shift_demands", cross_index)
    if marker.kind == "duty":
        for k, duty in enumerate(request.duties):
            ranges = duty.staffing_demand_by_shift.get(marker.shift_id or "")
            d = _day_index(request, marker.date, ranges)
            if duty.id == marker.duty_id and d is not None:
                return _path("duties", k, "staffing_demand_by_shift", marker.shift_id or "", d)
        raise ValueError(f"no duty demand of {marker.duty_id} on {marker.shift_id}")
    attribute = "staffing_demand" if marker.kind == "staffing" else "manager_demand"
    for s, shift in enumerate(request.shifts):
        d = _day_index(request, marker.date, getattr(shift, attribute))
        if shift.id == marker.shift_id and d is not None:
            return _path("shifts", s, attribute, d)
    raise ValueError(f"no {attribute} of shift {marker.shift_id} on {marker.date}")


def item_at(document: Mapping[str, Any], path: str) -> Any:
    """The value a path names in a JSON document (``{"request": ..., "roster": ...}``).

    A key of an object may itself hold ``.`` or ``[`` (a shift id in
    ``staffing_demand_by_shift``), so the longest key that fits is taken. KeyError when
    the path names nothing.
    """
    value: Any = document
    rest = "." + path
    while rest:
        if rest.startswith("["):
            match = _SEGMENT.match(rest)
            if match is None or not isinstance(value, list) or int(match[1]) >= len(value):
                raise KeyError(path)
            value, rest = value[int(match[1])], rest[match.end() :]
            continue
        if not rest.startswith(".") or not isinstance(value, Mapping):
            raise KeyError(path)
        fits = [
            key
            for key in value
            if rest[1:].startswith(key) and rest[1 + len(key) : 2 + len(key)] in ("", ".", "[")
        ]
        if not fits:
            raise KeyError(path)
        key = max(fits, key=len)
        value, rest = value[key], rest[1 + len(key) :]
    return value


# ------------------------------------------------------------------------------ words


def _who(employee: Employee | None) -> str:
    if employee is None:
        return "someone"
    if employee.name and employee.name != employee.id:
        return f"{employee.name} ({employee.id})"
    return employee.id


def _shift(request: SolveRequest, shift_id: str | None) -> str:
    return next((s.name for s in request.shifts if s.id == shift_id), shift_id or "?")


def _duty(request: SolveRequest, duty_id: str | None) -> str:
    return next((k.name for k in request.duties if k.id == duty_id), duty_id or "?")


def _many(amount: float | None, singular: str, plural: str | None = None) -> str:
    """``2 heads``, ``1 head``, or the bare plural when the amount is not given."""
    plural = plural or singular + "s"
    if amount is None:
        return plural
    shown = int(amount) if float(amount).is_integer() else amount
    return f"{shown} {singular if shown == 1 else plural}"


def _some(amount: float | None, singular: str) -> str:
    """``3 days `` before a comparison, or nothing when the amount is not given."""
    return "" if amount is None else _many(amount, singular) + " "


def _day(term: _Term) -> str:
    return term.day.isoformat() if term.day is not None else "?"


def _preference_words(request: SolveRequest, term: _Term, amount: float | None) -> str:
    who, day, shift = _who(term.employee), _day(term), _shift(request, term.shift_id)
    if term.family == "preference:day_off":
        return f"{who} works {day}, asked off"
    if term.family == "preference:preferred_shift":
        return f"{who} is not on {shift} on {day}, asked for it"
    return f"{who} is on {shift} on {day}, asked to avoid it"


def _shortage_words(request: SolveRequest, term: _Term, amount: float | None) -> str:
    what = {
        "staffing_shortage": ("head", "the shifts' staffing minimums"),
        "manager_shortage": ("manager", "the shifts' manager minimums"),
        "duty_shortage": ("duty holder", "the duties' minimums"),
        "cross_shift_shortage": ("head", "the cross-shift minimums"),
    }
    unit, against = what[term.family]
    return f"{_many(amount, unit)} missing against {against}"


def _team_words(request: SolveRequest, term: _Term, amount: float | None) -> str:
    if term.family == "skill_support":
        duty = f" ({_duty(request, term.duty_id)})" if term.duty_id is not None else ""
        return f"{_shift(request, term.shift_id)}{duty} on {_day(term)}: a beginner with no senior"
    if term.family == "pairing_require":
        assert term.index is not None
        ids = request.constraints.employee_pairings[term.index].employee_ids
        people = ", ".join(
            _who(next((e for e in request.employees if e.id == i), None)) for i in ids
        )
        return f"pairing {term.index} ({people}): {_many(amount, 'missing partner')}"
    assert term.index is not None
    targets = request.constraints.fairness_groups[term.index].target_shift_ids
    shifts = ", ".join(_shift(request, s) for s in targets)
    excess = f" (excess {_many(amount, 'assignment')})" if amount is not None else ""
    return f"fairness group {term.index} (shifts {shifts}): burden shared unevenly{excess}"


def _sequence_words(request: SolveRequest, term: _Term, amount: float | None) -> str:
    who = _who(term.employee)
    if term.family == "shift_transition":
        joint = "then" if term.key == "forbid" else "without"
        times = f", {_many(amount, 'time')}" if amount is not None else ""
        first, then = _shift(request, term.shift_id), _shift(request, term.to_shift_id)
        return f"{who} works {first} {joint} {then} the next date{times}"
    cap = request.constraints.max_consecutive_working_days or DEFAULT_MAX_CONSECUTIVE_DAYS
    windows = f" ({_many(amount, 'window')} of {cap} dates)" if amount is not None else ""
    return f"{who} works more than {cap - 1} consecutive dates{windows}"


def _workload_words(request: SolveRequest, term: _Term, amount: float | None) -> str:
    who, key, employee = _who(term.employee), term.key, term.employee
    assert employee is not None
    if term.family == "days_per_month_min":
        return f"{who} is {_some(amount, 'day')}below the monthly minimum in {key}"
    if term.family == "days_per_week" and employee.working_days_per_week is not None:
        bounds = employee.working_days_per_week
        return (
            f"{who} is {_some(amount, 'day')}off the weekly range of "
            f"{bounds.min}..{bounds.max} days in {key}"
        )
    limit = employee.weekly_working_hours_limit
    assert limit is not None  # the term exists only with a limit
    return f"{who} works {_some(amount, 'hour')}over the {limit.hours}-hour weekly limit in {key}"


def _excess_words(request: SolveRequest, term: _Term, amount: float | None) -> str:
    if term.family == "cross_shift_excess":
        assert term.index is not None
        demand = request.constraints.cross_shift_demands[term.index]
        shifts = ", ".join(_shift(request, s) for s in demand.shift_ids)
        where = f"cross-shift demand {term.index} ({shifts}, {demand.date.isoformat()})"
        return f"{_many(amount, 'head')} above the maximum of {where}"
    unit = {
        "staffing_excess": _many(amount, "head"),
        "manager_excess": _many(amount, "manager"),
        "duty_excess": f"{_many(amount, 'holder')} of {_duty(request, term.duty_id)}",
    }[term.family]
    return f"{unit} above the maximum on {_shift(request, term.shift_id)}, {_day(term)}"


_WORDS: Final[Mapping[str, Callable[[SolveRequest, _Term, float | None], str]]] = {
    **dict.fromkeys(SHORTAGE_FIELDS, _shortage_words),
    **dict.fromkeys(
        ("preference:day_off", "preference:preferred_shift", "preference:avoided_shift"),
        _preference_words,
    ),
    **dict.fromkeys(("skill_support", "pairing_require", "fairness"), _team_words),
    **dict.fromkeys(("shift_transition", "consecutive_days"), _sequence_words),
    **dict.fromkeys(("days_per_month_min", "days_per_week", "weekly_hours"), _workload_words),
    **dict.fromkeys(
        ("staffing_excess", "manager_excess", "duty_excess", "cross_shift_excess"), _excess_words
    ),
}


def term_words(request: SolveRequest, name: str, violated_by: float | None = None) -> str:
    """One short sentence a manager can read for the soft term ``name`` (people and shifts
    by name when the request names them); ``violated_by`` adds the amount. A name the
    request cannot produce is returned as it is."""
    term = _parse(request, name)
    if term is None:
        return name
    return _WORDS[term.family](request, term, violated_by)
