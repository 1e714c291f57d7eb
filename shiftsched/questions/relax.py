"""Relaxing a diagnosed cause: the request with one input item changed as its advice says.

A :class:`~shiftsched.contract.v1.Cause` of :func:`shiftsched.solving.diagnose.diagnose` names a
hard rule (``cause_type``) and the JSON path of one input item
(``employees[1].fixed_assignments[0]``, ``schedule_period.holidays[2]``, ...). Each hard rule says
how it is relaxed (:attr:`shiftsched.solving.model.family.HardRule.relax`, beside the family's
model): the diagnosis proved its ranking by re-solving with that item's hard rule switched off, so
each relaxation switches it off at least as fully and changes nothing else that is hard.
Items of a list are removed, rules with an ``enforcement`` are made soft (they still
cost their penalty), and caps are raised to where they cannot bind.

The request is never mutated: the result is a new request, validated again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Cause, SolveRequest
from shiftsched.solving.model.family import REMOVED, Json, NotHard
from shiftsched.solving.model.registry import hard_rule


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
    rule = hard_rule(family)
    if rule is None or rule.relax is None:
        raise ValueError(f"cannot relax {field!r}: unknown cause family {family!r}")
    match = rule.match(field)
    if match is None:
        raise ValueError(f"cannot relax {field!r}: not a path of a {family} item")
    try:
        rule.relax(data, match)
    except (IndexError, KeyError) as exc:
        raise ValueError(f"cannot relax {field!r}: the path does not resolve") from exc
    except NotHard as exc:
        raise ValueError(f"cannot relax {field!r}: {exc}") from None


def _sweep(data: Json) -> None:
    def kept(items: list[Any]) -> list[Any]:
        return [item for item in items if item is not REMOVED]

    period = data["schedule_period"]
    period["holidays"] = kept(period["holidays"])
    constraints = data["constraints"]
    constraints["employee_pairings"] = kept(constraints["employee_pairings"])
    for employee in data["employees"]:
        employee["fixed_assignments"] = kept(employee["fixed_assignments"])
        employee["shift_count_limits"] = kept(employee["shift_count_limits"])
