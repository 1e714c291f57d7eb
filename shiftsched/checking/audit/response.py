"""A roster read from a response: its assignments strictly, its metrics and shortages
leniently (a roster written by another tool can still be audited)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from shiftsched.contract.parse import ErrorCode, parse_model
from shiftsched.contract.v1 import Assignment, Metrics, Shortage, SoftConstraintViolation
from shiftsched.errors import FieldError, InvalidRequest, dotted

_Item = TypeVar("_Item", bound=BaseModel)


class ReportedMetrics(BaseModel):
    """The part of ``solution.metrics`` the comparison reads; other fields are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    objective_value: float | None = None
    soft_constraint_violations: list[SoftConstraintViolation] = Field(default_factory=list)


@dataclass(frozen=True)
class ReadResponse:
    """A roster read from a response, with what the response reported about it.

    ``metrics`` and ``shortages`` are None when the response does not carry them in a
    readable form; ``notes`` then says why. ``notes`` also names the fields of
    ``solution.metrics`` that the contract does not define (left out of the comparison).
    """

    assignments: list[Assignment]
    metrics: ReportedMetrics | None = None
    shortages: list[Shortage] | None = None
    notes: list[str] = field(default_factory=list)


def _fault(path: tuple[str | int, ...], message: str, code: ErrorCode) -> InvalidRequest:
    return InvalidRequest([FieldError(path, message, code.value)])


def _items(model: type[_Item], raw: object, at: tuple[str | int, ...]) -> list[_Item]:
    """Every item of the array found at ``at``, validated; the error lists every fault."""
    if not isinstance(raw, list):
        raise _fault(at, "must be an array", ErrorCode.WRONG_TYPE)
    items: list[_Item] = []
    errors: list[FieldError] = []
    for index, item in enumerate(raw):
        try:
            items.append(parse_model(model, item, (*at, index)))
        except InvalidRequest as exc:
            errors.extend(exc.errors)
    if errors:
        raise InvalidRequest(errors)
    return items


def _skipped(what: str, reason: str) -> str:
    return f"comparison with the reported {what} skipped: {reason}"


def _unreadable(exc: InvalidRequest) -> str:
    return "; ".join(f"{dotted(e.path)}: {e.message}" for e in exc.errors)


def _read_metrics(solution: Mapping[str, Any], notes: list[str]) -> ReportedMetrics | None:
    raw = solution.get("metrics")
    if raw is None:
        notes.append(_skipped("metrics", "solution.metrics is missing"))
        return None
    if not isinstance(raw, dict):
        notes.append(_skipped("metrics", "solution.metrics is not an object"))
        return None
    unknown = sorted(set(raw) - set(Metrics.model_fields))
    if unknown:
        notes.append(
            "solution.metrics: fields the contract does not define, left out of the "
            f"comparison: {', '.join(unknown)}"
        )
    try:
        return parse_model(ReportedMetrics, raw, ("solution", "metrics"))
    except InvalidRequest as exc:
        notes.append(_skipped("metrics", _unreadable(exc)))
        return None


def _read_shortages(solution: Mapping[str, Any], notes: list[str]) -> list[Shortage] | None:
    if solution.get("shortages") is None:
        notes.append(_skipped("shortages", "solution.shortages is missing"))
        return None
    try:
        return _items(Shortage, solution["shortages"], ("solution", "shortages"))
    except InvalidRequest as exc:
        notes.append(_skipped("shortages", _unreadable(exc)))
        return None


def read_response(data: object) -> ReadResponse:
    """The roster of a SolveResponse, of ``{"assignments": [...]}`` or of a bare list.

    The assignments must follow the contract: otherwise InvalidRequest names every fault
    by its JSON path (``solution.assignments[3].date``). Of a SolveResponse nothing else
    is required: ``solution.metrics`` and ``solution.shortages`` are read when they can be,
    whatever else the response holds (a roster written by another tool).
    """
    if isinstance(data, list):
        notes = [_skipped("metrics", "the input is a bare list of assignments")]
        return ReadResponse(_items(Assignment, data, ()), notes=notes)
    if not isinstance(data, Mapping) or not {"solution", "assignments"} & set(data):
        raise _fault(
            (),
            'expected a SolveResponse, {"assignments": [...]} or a list of assignments',
            ErrorCode.WRONG_TYPE,
        )
    if "solution" not in data:
        notes = [_skipped("metrics", "the input has no solution.metrics")]
        return ReadResponse(_items(Assignment, data["assignments"], ("assignments",)), notes=notes)
    solution = data["solution"]
    if solution is None:
        raise _fault(
            ("solution",),
            "the response has no solution to audit (solution is null)",
            ErrorCode.WRONG_TYPE,
        )
    if not isinstance(solution, Mapping):
        raise _fault(("solution",), "must be an object", ErrorCode.WRONG_TYPE)
    if "assignments" not in solution:
        raise _fault(
            ("solution", "assignments"),
            "required property 'assignments' is missing",
            ErrorCode.MISSING_FIELD,
        )
    assignments = _items(Assignment, solution["assignments"], ("solution", "assignments"))
    notes = []
    metrics = _read_metrics(solution, notes)
    shortages = _read_shortages(solution, notes)
    return ReadResponse(assignments, metrics, shortages, notes)
