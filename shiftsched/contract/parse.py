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
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from shiftsched.contract.cross_field import check
from shiftsched.contract.faults import ErrorCode, Path, fault, period_too_long
from shiftsched.contract.hints import did_you_mean, fields_at
from shiftsched.contract.v1 import DATE_OUT_OF_RANGE, MAX_PERIOD_DAYS, Date, SolveRequest
from shiftsched.errors import FieldError, InvalidRequest

__all__ = ["ErrorCode", "Path", "load_json", "parse_model", "parse_request"]

ModelT = TypeVar("ModelT", bound=BaseModel)


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


def _message(error: ErrorDetails, model: type[BaseModel]) -> str:
    """Pydantic's message, rephrased where it speaks Python rather than JSON; an unknown
    property names the known one it is closest to."""
    kind, loc = error["type"], error["loc"]
    last = loc[-1] if loc else None
    if kind == "missing":
        return f"required property '{last}' is missing"
    if kind == "extra_forbidden":
        return f"unknown property '{last}'{did_you_mean(str(last), fields_at(model, loc))}"
    if kind in _JSON_TYPE_MESSAGES:
        return _JSON_TYPE_MESSAGES[kind]
    if kind == "union_tag_not_found":
        return f"required property 'type' is missing (one of {', '.join(sorted(_PREFERENCE_TAGS))})"
    if kind == "union_tag_invalid":
        return f"'type' must be one of {', '.join(sorted(_PREFERENCE_TAGS))}"
    return error["msg"].removeprefix("Value error, ")


def _field_error(
    error: ErrorDetails, data: object, model: type[BaseModel], at: Path = ()
) -> FieldError:
    path = (*at, *_json_path(error["loc"], data))
    if error["type"] in ("union_tag_not_found", "union_tag_invalid"):
        path = (*path, _DISCRIMINATOR)
    code = _PYDANTIC_CODES.get(error["type"], ErrorCode.INVALID_VALUE)
    return fault(path, code, _message(error, model))


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
    return period_too_long((*at, "schedule_period", "end_date"), (end - start).days + 1)


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
        raise InvalidRequest(
            [_field_error(error, data, model, at) for error in exc.errors()]
        ) from None


def parse_request(data: object) -> SolveRequest:
    """Validate a JSON-like value into a :class:`SolveRequest`, or raise InvalidRequest.

    Field rules run first; the cross-field rules (shiftsched.contract.cross_field) run
    only when every field is well formed. No other exception escapes, whatever the input.
    """
    request = parse_model(SolveRequest, data)
    errors = check(request)
    if errors:
        raise InvalidRequest(errors)
    return request
