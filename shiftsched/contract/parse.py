"""Request validation: field rules (pydantic) and cross-field rules, with JSON paths.

:func:`parse_request` is the only way a raw request becomes a :class:`SolveRequest`. It
reports *every* fault at once, each as a :class:`FieldError` whose path is a real JSON path
into the request (``("employees", 3, "assignable_shift_ids", 0)``) and whose code is one
of :class:`ErrorCode`, so that a client can fix a request in one round trip and match
errors by code rather than by message.

Cross-field rules (v1-interface.md, "Cross-field rules enforced at solve/validate time",
plus the reference and consistency rules below) run only on a request that passed the
field rules: they need typed values to compare.

Rules measured against the period (demand lengths, dates inside the period) are skipped
while ``start_date > end_date`` or the period is longer than :data:`MAX_PERIOD_DAYS`: the
period is then undefined (or refused) and every such check would fail, burying the one
real fault under noise. A period too long is refused before its arrays are validated at
all (:func:`parse_model`), so a body full of demand ranges costs its dates' reading only.

A fixed assignment to a shift outside the employee's ``assignable_shift_ids`` (or on a
holiday, or on an unavailable weekday) is *not* an error here: the request is well formed,
the problem is merely infeasible, which the solver's diagnosis and ``validate``'s hints
report.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from shiftsched.contract.size import schedule_days
from shiftsched.contract.v1 import (
    DATE_OUT_OF_RANGE,
    MAX_PERIOD_DAYS,
    AvoidedShiftPreference,
    CrossShiftDemand,
    Date,
    Employee,
    FixedAssignment,
    PreferredShiftPreference,
    Range,
    ShiftCountLimit,
    SolveRequest,
)
from shiftsched.errors import FieldError, InvalidRequest

Path = tuple[str | int, ...]
ModelT = TypeVar("ModelT", bound=BaseModel)


class ErrorCode(StrEnum):
    """Stable codes of :class:`FieldError`. Clients match on these: never rename one."""

    # Field rules, derived from pydantic's error types.
    MISSING_FIELD = "missing_field"  # a required property is absent
    UNKNOWN_FIELD = "unknown_field"  # a property the contract does not define
    WRONG_TYPE = "wrong_type"  # e.g. a string where an integer or object is expected
    TOO_SHORT = "too_short"  # string shorter than allowed (ids, names: at least 1)
    TOO_LONG = "too_long"  # string longer than allowed (ids 128, names 200)
    TOO_FEW_ITEMS = "too_few_items"  # array or map with fewer items than allowed
    TOO_MANY_ITEMS = "too_many_items"  # array with more items than allowed
    OUT_OF_RANGE = "out_of_range"  # number or date outside its bounds; a period too long
    INVALID_ENUM = "invalid_enum"  # value not among the allowed literals (incl. preference type)
    INVALID_FORMAT = "invalid_format"  # date not YYYY-MM-DD / not a calendar date; time not HH:MM
    INVALID_VALUE = "invalid_value"  # any other field-level fault
    # Cross-field rules.
    PERIOD_START_AFTER_END = "period_start_after_end"  # schedule_period.start_date > end_date
    INVALID_TIMEZONE = "invalid_timezone"  # not an IANA time zone name
    DATE_OUTSIDE_PERIOD = "date_outside_period"  # a date not within start_date..end_date
    DUPLICATE_ID = "duplicate_id"  # two shifts, duties or employees share an id
    DUPLICATE_REFERENCE = "duplicate_reference"  # an id listed twice in a pairing / cross-shift
    DEMAND_LENGTH_MISMATCH = "demand_length_mismatch"  # demand array length != days in period
    MIN_GREATER_THAN_MAX = "min_greater_than_max"  # a {min, max} with min > max
    MISSING_BOUND = "missing_bound"  # shift count limit / cross-shift demand without min or max
    UNKNOWN_SHIFT_ID = "unknown_shift_id"  # reference to a shift id that is not defined
    UNKNOWN_DUTY_ID = "unknown_duty_id"  # reference to a duty id that is not defined
    UNKNOWN_EMPLOYEE_ID = "unknown_employee_id"  # reference to an employee id not defined
    MISSING_WORKING_HOURS = "missing_working_hours"  # hours limit on a shift without hours
    DUTY_NOT_ON_SHIFT = "duty_not_on_shift"  # fixed duty not defined on the fixed shift
    CONFLICTING_FIXED_ASSIGNMENTS = "conflicting_fixed_assignments"  # two fixes, one date
    # Re-planning and recommendations (shiftsched.contract.planning).
    DUPLICATE_ASSIGNMENT = "duplicate_assignment"  # a roster lists one employee twice a date
    ROSTER_OF_ANOTHER_REQUEST = "roster_of_another_request"  # no employee or date of the request
    # Planning across periods (shiftsched.contract.history).
    NOT_BEFORE_PERIOD = "not_before_period"  # a history date on or after the period's start


def _fault(path: Path, code: ErrorCode, message: str) -> FieldError:
    return FieldError(path=path, message=message, code=code.value)


# ------------------------------------------------------------------ field rules (pydantic)

_PYDANTIC_CODES: Mapping[str, ErrorCode] = {
    "missing": ErrorCode.MISSING_FIELD,
    "union_tag_not_found": ErrorCode.MISSING_FIELD,
    "extra_forbidden": ErrorCode.UNKNOWN_FIELD,
    "string_too_short": ErrorCode.TOO_SHORT,
    "string_too_long": ErrorCode.TOO_LONG,
    "too_short": ErrorCode.TOO_FEW_ITEMS,
    "too_long": ErrorCode.TOO_MANY_ITEMS,
    "greater_than": ErrorCode.OUT_OF_RANGE,
    "greater_than_equal": ErrorCode.OUT_OF_RANGE,
    "less_than": ErrorCode.OUT_OF_RANGE,
    "less_than_equal": ErrorCode.OUT_OF_RANGE,
    DATE_OUT_OF_RANGE: ErrorCode.OUT_OF_RANGE,
    "literal_error": ErrorCode.INVALID_ENUM,
    "union_tag_invalid": ErrorCode.INVALID_ENUM,
    "value_error": ErrorCode.INVALID_FORMAT,
    "string_pattern_mismatch": ErrorCode.INVALID_FORMAT,
    **dict.fromkeys(
        (
            "model_type",
            "model_attributes_type",
            "dict_type",
            "list_type",
            "string_type",
            "string_unicode",
            "int_type",
            "int_parsing",
            "int_from_float",
            "bool_type",
            "bool_parsing",
            "date_type",
        ),
        ErrorCode.WRONG_TYPE,
    ),
}

_DISCRIMINATOR = "type"
_PREFERENCE_TAGS = frozenset({"day_off", "preferred_shift", "avoided_shift"})
_JSON_TYPE_MESSAGES: Mapping[str, str] = {
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "dict_type": "must be an object",
    "list_type": "must be an array",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "bool_type": "must be a boolean",
}


def _is_preference_tag(before: Sequence[str | int], node: Any, segment: str | int) -> bool:
    """Whether ``segment`` is the tag pydantic inserts right after ``preferences, i``."""
    return (
        len(before) >= 2
        and before[-2] == "preferences"
        and isinstance(before[-1], int)
        and segment in _PREFERENCE_TAGS
        and isinstance(node, dict)
        and node.get(_DISCRIMINATOR) == segment
    )


_ABSENT = object()
_KEY_SEGMENT = "[key]"  # pydantic's marker for a fault in a mapping key rather than its value


def _child(node: Any, segment: str | int) -> Any:
    """The value at ``segment`` inside ``node``, or _ABSENT when there is none."""
    if isinstance(node, dict):
        return node.get(segment, _ABSENT)
    if isinstance(node, list | tuple) and isinstance(segment, int) and segment < len(node):
        return node[segment]
    return _ABSENT


def _json_path(loc: Sequence[str | int], data: object) -> Path:
    """Pydantic's ``loc`` with its own segments (union tags, ``[key]``) removed.

    The loc is walked along the input, so a segment survives only when it names a real
    key or index; the last segment also survives when it names a missing property.
    """
    path: list[str | int] = []
    node: Any = data
    for position, segment in enumerate(loc):
        if _is_preference_tag(loc[:position], node, segment):
            continue
        child = _child(node, segment)
        is_missing_property = (
            position == len(loc) - 1 and isinstance(node, dict) and segment != _KEY_SEGMENT
        )
        if child is _ABSENT and not is_missing_property:
            continue
        path.append(segment)
        node = child
    return tuple(path)


def _message(error: ErrorDetails) -> str:
    """Pydantic's message, rephrased where it speaks Python rather than JSON."""
    kind, loc = error["type"], error["loc"]
    last = loc[-1] if loc else None
    if kind == "missing":
        return f"required property '{last}' is missing"
    if kind == "extra_forbidden":
        return f"unknown property '{last}'"
    if kind in _JSON_TYPE_MESSAGES:
        return _JSON_TYPE_MESSAGES[kind]
    if kind == "union_tag_not_found":
        return f"required property 'type' is missing (one of {', '.join(sorted(_PREFERENCE_TAGS))})"
    if kind == "union_tag_invalid":
        return f"'type' must be one of {', '.join(sorted(_PREFERENCE_TAGS))}"
    return error["msg"].removeprefix("Value error, ")


def _field_error(error: ErrorDetails, data: object, at: Path = ()) -> FieldError:
    path = (*at, *_json_path(error["loc"], data))
    if error["type"] in ("union_tag_not_found", "union_tag_invalid"):
        path = (*path, _DISCRIMINATOR)
    code = _PYDANTIC_CODES.get(error["type"], ErrorCode.INVALID_VALUE)
    return _fault(path, code, _message(error))


def load_json(text: str | bytes, source: str = "the request") -> Any:
    """Decode JSON text, or raise InvalidRequest (code ``invalid_json``) naming the source."""
    try:
        return json.loads(text)
    except RecursionError:  # thousands of nested brackets: the parser's own depth limit
        raise InvalidRequest(
            [FieldError((), f"{source} nests arrays and objects too deeply", "invalid_json")]
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        where = f": {exc.msg} at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise InvalidRequest(
            [FieldError((), f"{source} is not valid JSON{where}", "invalid_json")]
        ) from None


_DATE: TypeAdapter[dt.date] = TypeAdapter(Date)
_REQUEST_FIELD = "request"  # where an operation's body holds its SolveRequest


def _period_too_long(path: Path, days: int) -> FieldError:
    return _fault(
        path,
        ErrorCode.OUT_OF_RANGE,
        f"the period has {days:,} days; at most {MAX_PERIOD_DAYS} are planned at once. "
        "Plan a longer horizon period by period, each with the history of the ones "
        "before it (POST /solve/plan, history)",
    )


def _raw_date(period: Mapping[str, Any], name: str) -> dt.date | None:
    try:
        return _DATE.validate_python(period.get(name))
    except ValidationError:
        return None


def _raw_period_fault(data: object, at: Path) -> FieldError | None:
    """The fault of a period too long, read from the raw body's two dates alone (None
    when it is not, or when a date is malformed: the field rules then report it)."""
    period = data.get("schedule_period") if isinstance(data, dict) else None
    if not isinstance(period, dict):
        return None
    start, end = _raw_date(period, "start_date"), _raw_date(period, "end_date")
    if start is None or end is None or (end - start).days + 1 <= MAX_PERIOD_DAYS:
        return None
    return _period_too_long((*at, "schedule_period", "end_date"), (end - start).days + 1)


def _request_at(model: type[BaseModel], data: object, at: Path) -> tuple[object, Path] | None:
    """The SolveRequest inside ``data`` (itself, or its ``request``) and its path."""
    if model is SolveRequest:
        return data, at
    field = model.model_fields.get(_REQUEST_FIELD)
    if field is not None and field.annotation is SolveRequest and isinstance(data, dict):
        return data.get(_REQUEST_FIELD), (*at, _REQUEST_FIELD)
    return None


def parse_model(model: type[ModelT], data: object, at: Path = ()) -> ModelT:
    """Validate a JSON-like value into one contract model, or raise InvalidRequest.

    Field rules only, except one: a period longer than :data:`MAX_PERIOD_DAYS` in the
    request (``data`` itself, or the ``request`` of an operation's body) is refused from
    its two dates before anything is validated, with the fault :func:`check` reports.
    Each fault's path starts with ``at``, the place of ``data`` in the document it was
    read from (``("solution", "assignments", 3)``).
    """
    inner = _request_at(model, data, at)
    fault = None if inner is None else _raw_period_fault(*inner)
    if fault is not None:
        raise InvalidRequest([fault])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidRequest([_field_error(error, data, at) for error in exc.errors()]) from None


def parse_request(data: object) -> SolveRequest:
    """Validate a JSON-like value into a :class:`SolveRequest`, or raise InvalidRequest.

    Field rules run first; the cross-field rules of :func:`check` run only when every
    field is well formed. No other exception escapes, whatever the input.
    """
    request = parse_model(SolveRequest, data)
    errors = check(request)
    if errors:
        raise InvalidRequest(errors)
    return request


# ------------------------------------------------------------------------ cross-field rules


@dataclass(frozen=True, slots=True)
class _Index:
    """Facts about a request that several rules look up."""

    start: dt.date
    end: dt.date
    days: int
    shift_ids: frozenset[str]
    duty_shifts: Mapping[str, frozenset[str]]  # duty id -> shifts the duty is defined on
    employee_ids: frozenset[str]
    shifts_with_hours: frozenset[str]

    @property
    def period_valid(self) -> bool:
        """Whether the rules measured against the period apply: it runs forwards and is
        not longer than the ceiling."""
        return 0 < self.days <= MAX_PERIOD_DAYS

    @classmethod
    def of(cls, request: SolveRequest) -> _Index:
        period = request.schedule_period
        return cls(
            start=period.start_date,
            end=period.end_date,
            days=schedule_days(period),
            shift_ids=frozenset(s.id for s in request.shifts),
            duty_shifts={d.id: frozenset(d.staffing_demand_by_shift) for d in request.duties},
            employee_ids=frozenset(e.id for e in request.employees),
            shifts_with_hours=frozenset(s.id for s in request.shifts if s.working_hours),
        )


Rule = Callable[[SolveRequest, _Index], Iterator[FieldError]]


def _date_in_period(path: Path, day: dt.date, index: _Index) -> Iterator[FieldError]:
    if index.period_valid and not index.start <= day <= index.end:
        yield _fault(
            path,
            ErrorCode.DATE_OUTSIDE_PERIOD,
            f"{day.isoformat()} is outside the period "
            f"{index.start.isoformat()}..{index.end.isoformat()}",
        )


def _shift_ref(path: Path, shift_id: str, index: _Index) -> Iterator[FieldError]:
    if shift_id not in index.shift_ids:
        yield _fault(path, ErrorCode.UNKNOWN_SHIFT_ID, f"no shift has id '{shift_id}'")


def _duty_ref(path: Path, duty_id: str, index: _Index) -> Iterator[FieldError]:
    if duty_id not in index.duty_shifts:
        yield _fault(path, ErrorCode.UNKNOWN_DUTY_ID, f"no duty has id '{duty_id}'")


def _range(path: Path, value: Range) -> Iterator[FieldError]:
    if value.min > value.max:
        yield _fault(
            path, ErrorCode.MIN_GREATER_THAN_MAX, f"min {value.min} is greater than max {value.max}"
        )


def _bounds(path: Path, item: ShiftCountLimit | CrossShiftDemand) -> Iterator[FieldError]:
    """Optional min/max pairs: at least one bound, and min <= max when both are given."""
    if item.min is None and item.max is None:
        yield _fault(path, ErrorCode.MISSING_BOUND, "needs min, max or both")
    elif item.min is not None and item.max is not None and item.min > item.max:
        yield _fault(
            path, ErrorCode.MIN_GREATER_THAN_MAX, f"min {item.min} is greater than max {item.max}"
        )


def _demand(path: Path, ranges: Sequence[Range], index: _Index) -> Iterator[FieldError]:
    """A per-day demand array: one range per day of the period, each with min <= max."""
    if index.period_valid and len(ranges) != index.days:
        yield _fault(
            path,
            ErrorCode.DEMAND_LENGTH_MISMATCH,
            f"has {len(ranges)} items; the period has {index.days} days (one range per day)",
        )
    for day, value in enumerate(ranges):
        yield from _range((*path, day), value)


def _period(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rule 3, the period's ceiling, the time zone, and holidays inside the period."""
    period = request.schedule_period
    if index.days <= 0:
        yield _fault(
            ("schedule_period", "start_date"),
            ErrorCode.PERIOD_START_AFTER_END,
            f"start_date {period.start_date.isoformat()} is after "
            f"end_date {period.end_date.isoformat()}",
        )
    elif index.days > MAX_PERIOD_DAYS:
        yield _period_too_long(("schedule_period", "end_date"), index.days)
    if not _is_timezone(period.timezone):
        yield _fault(
            ("schedule_period", "timezone"),
            ErrorCode.INVALID_TIMEZONE,
            f"'{period.timezone}' is not an IANA time zone name",
        )
    for h, holiday in enumerate(period.holidays):
        yield from _date_in_period(("schedule_period", "holidays", h), holiday, index)


def _is_timezone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: e.g. a directory name
        return False
    return True


def _duplicates(section: str, ids: Iterable[str]) -> Iterator[FieldError]:
    seen: set[str] = set()
    for position, item_id in enumerate(ids):
        if item_id in seen:
            yield _fault(
                (section, position, "id"),
                ErrorCode.DUPLICATE_ID,
                f"id '{item_id}' is already used by an earlier item of {section}",
            )
        seen.add(item_id)


def _duplicate_ids(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    yield from _duplicates("shifts", (s.id for s in request.shifts))
    yield from _duplicates("duties", (d.id for d in request.duties))
    yield from _duplicates("employees", (e.id for e in request.employees))


def _shifts(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rules 1, 2 and 7 for shifts: staffing and manager demand per day."""
    for s, shift in enumerate(request.shifts):
        yield from _demand(("shifts", s, "staffing_demand"), shift.staffing_demand, index)
        if shift.manager_demand is not None:
            yield from _demand(("shifts", s, "manager_demand"), shift.manager_demand, index)


def _duties(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rules 1 and 2 for duties; each demand key must be a shift id."""
    for k, duty in enumerate(request.duties):
        for shift_id, ranges in duty.staffing_demand_by_shift.items():
            path: Path = ("duties", k, "staffing_demand_by_shift", shift_id)
            yield from _shift_ref(path, shift_id, index)
            yield from _demand(path, ranges, index)


def _employee_shifts(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    """Rules 4 and 8: assignable shifts exist and, under an hours limit, have hours."""
    for j, shift_id in enumerate(employee.assignable_shift_ids):
        item: Path = (*path, "assignable_shift_ids", j)
        yield from _shift_ref(item, shift_id, index)
        if (
            shift_id in index.shift_ids
            and employee.weekly_working_hours_limit
            and shift_id not in index.shifts_with_hours
        ):
            yield _fault(
                item,
                ErrorCode.MISSING_WORKING_HOURS,
                f"shift '{shift_id}' has no working_hours, "
                "which weekly_working_hours_limit needs to count hours",
            )


def _employee_limits(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    """Rules 2 and 9 for an employee's ranges and shift count limits; skill duty ids."""
    for duty_id in employee.skill_levels:
        yield from _duty_ref((*path, "skill_levels", duty_id), duty_id, index)
    for name in ("working_days_per_month", "working_days_per_week"):
        value = getattr(employee, name)
        if value is not None:
            yield from _range((*path, name), value)
    for j, limit in enumerate(employee.shift_count_limits):
        item: Path = (*path, "shift_count_limits", j)
        yield from _shift_ref((*item, "shift_id"), limit.shift_id, index)
        yield from _bounds(item, limit)


def _preferences(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    for j, preference in enumerate(employee.preferences):
        item: Path = (*path, "preferences", j)
        yield from _date_in_period((*item, "date"), preference.date, index)
        if isinstance(preference, PreferredShiftPreference | AvoidedShiftPreference):
            yield from _shift_ref((*item, "shift_id"), preference.shift_id, index)


def _fixed_assignments(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    """References of each fixed assignment, and that the duty exists on the shift."""
    for j, fixed in enumerate(employee.fixed_assignments):
        item: Path = (*path, "fixed_assignments", j)
        yield from _date_in_period((*item, "date"), fixed.date, index)
        yield from _shift_ref((*item, "shift_id"), fixed.shift_id, index)
        duty_id = fixed.duty_id
        if duty_id is None:
            continue
        yield from _duty_ref((*item, "duty_id"), duty_id, index)
        shifts = index.duty_shifts.get(duty_id)
        if shifts is not None and fixed.shift_id in index.shift_ids - shifts:
            yield _fault(
                (*item, "duty_id"),
                ErrorCode.DUTY_NOT_ON_SHIFT,
                f"duty '{duty_id}' is not defined on shift '{fixed.shift_id}' "
                "(it is not a key of the duty's staffing_demand_by_shift)",
            )


def _compatible(a: FixedAssignment, b: FixedAssignment) -> bool:
    """Same shift, and not two different duties (one duty per shift)."""
    return a.shift_id == b.shift_id and (a.duty_id == b.duty_id or None in (a.duty_id, b.duty_id))


def _fixed_conflicts(path: Path, employee: Employee, index: _Index) -> Iterator[FieldError]:
    """One shift per date and one duty per shift: a later fix may not contradict an earlier."""
    by_date: dict[dt.date, list[int]] = {}
    fixes = employee.fixed_assignments
    for j, fixed in enumerate(fixes):
        earlier = by_date.setdefault(fixed.date, [])
        clash = next((k for k in earlier if not _compatible(fixes[k], fixed)), None)
        if clash is not None:
            yield _fault(
                (*path, "fixed_assignments", j),
                ErrorCode.CONFLICTING_FIXED_ASSIGNMENTS,
                f"contradicts fixed_assignments[{clash}] on {fixed.date.isoformat()}: an "
                "employee works at most one shift per date and holds at most one duty on it",
            )
        earlier.append(j)


_EMPLOYEE_RULES = (
    _employee_shifts,
    _employee_limits,
    _preferences,
    _fixed_assignments,
    _fixed_conflicts,
)


def _employees(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    for e, employee in enumerate(request.employees):
        for rule in _EMPLOYEE_RULES:
            yield from rule(("employees", e), employee, index)


def _transitions(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    for t, transition in enumerate(request.constraints.shift_transitions):
        path: Path = ("constraints", "shift_transitions", t)
        yield from _shift_ref((*path, "from_shift_id"), transition.from_shift_id, index)
        yield from _shift_ref((*path, "to_shift_id"), transition.to_shift_id, index)


def _pairings(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    for p, pairing in enumerate(request.constraints.employee_pairings):
        seen: set[str] = set()
        for j, employee_id in enumerate(pairing.employee_ids):
            path: Path = ("constraints", "employee_pairings", p, "employee_ids", j)
            if employee_id not in index.employee_ids:
                yield _fault(
                    path, ErrorCode.UNKNOWN_EMPLOYEE_ID, f"no employee has id '{employee_id}'"
                )
            elif employee_id in seen:
                yield _fault(
                    path, ErrorCode.DUPLICATE_REFERENCE, f"'{employee_id}' is listed twice"
                )
            seen.add(employee_id)


def _cross_shift_demands(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rule 6: bounds, shift and duty references, date inside the period."""
    for c, demand in enumerate(request.constraints.cross_shift_demands):
        path: Path = ("constraints", "cross_shift_demands", c)
        yield from _bounds(path, demand)
        yield from _date_in_period((*path, "date"), demand.date, index)
        seen: set[str] = set()
        for j, shift_id in enumerate(demand.shift_ids):
            yield from _shift_ref((*path, "shift_ids", j), shift_id, index)
            if shift_id in seen:
                yield _fault(
                    (*path, "shift_ids", j),
                    ErrorCode.DUPLICATE_REFERENCE,
                    f"'{shift_id}' is listed twice",
                )
            seen.add(shift_id)
        if demand.duty_id is not None:
            yield from _duty_ref((*path, "duty_id"), demand.duty_id, index)


def _fairness_groups(request: SolveRequest, index: _Index) -> Iterator[FieldError]:
    """Rule 5: every target shift exists."""
    for g, group in enumerate(request.constraints.fairness_groups):
        for j, shift_id in enumerate(group.target_shift_ids):
            path: Path = ("constraints", "fairness_groups", g, "target_shift_ids", j)
            yield from _shift_ref(path, shift_id, index)


_RULES: tuple[Rule, ...] = (
    _period,
    _duplicate_ids,
    _shifts,
    _duties,
    _employees,
    _transitions,
    _pairings,
    _cross_shift_demands,
    _fairness_groups,
)


def check(request: SolveRequest) -> list[FieldError]:
    """Every cross-field fault of a parsed request, in request order per rule family."""
    index = _Index.of(request)
    return [error for rule in _RULES for error in rule(request, index)]
