"""Every integer of a SolveRequest has an upper bound, and the solver accepts any request
within the bounds (docs/semantics.md, "Bounds of numbers").

Without bounds a staffing minimum of 10^18 passed validation and made CP-SAT refuse the
model ("possible integer overflow"), a 500 on /solve. Here every integer field of the
contract is found in the schema and must carry a maximum; every integer of a request that
uses each field is set to its bound (the model must build and solve, or be proven
infeasible, never be refused) and just above it, and to 2^62 and 10^20 (a 422 fault
``out_of_range`` at its JSON path).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import (
    MAX_COUNT,
    MAX_PENALTY_WEIGHT,
    MAX_SKILL_LEVEL,
    MAX_SOLVER_TIMEOUT_SECONDS,
    MAX_WEEKLY_HOURS,
    SolveRequest,
)
from shiftsched.questions.validation import validate
from shiftsched.solving.solve import SolveLimits, solve
from tests.factories import faults, full_request_dict, replaced

JsonPath = tuple[str | int, ...]

#: The bound of an integer, by the name of its field (a skill level is keyed by duty id).
BOUNDS = {
    "min": MAX_COUNT,
    "max": MAX_COUNT,
    "max_consecutive_working_days": MAX_COUNT,
    "penalty_weight": MAX_PENALTY_WEIGHT,
    "hours": MAX_WEEKLY_HOURS,
    "solver_timeout_seconds": MAX_SOLVER_TIMEOUT_SECONDS,
}


def every_field_request() -> dict[str, Any]:
    """The full request with the optional integers it leaves out present too."""
    data = full_request_dict()
    data["constraints"]["fairness_groups"][0]["penalty_weight"] = 20
    data["constraints"]["cross_shift_demands"][0]["max"] = 2
    return data


def integer_paths(value: Any, path: JsonPath = ()) -> Iterator[JsonPath]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from integer_paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from integer_paths(item, (*path, i))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path


def bound_of(path: JsonPath) -> int:
    return MAX_SKILL_LEVEL if "skill_levels" in path else BOUNDS[str(path[-1])]


def schema_integers(schema: dict[str, Any], where: str = "") -> Iterator[tuple[str, Any]]:
    """(place, subschema) of every integer in a JSON schema, ``anyOf`` branches included."""
    if schema.get("type") == "integer":
        yield where, schema
    for key, item in schema.items():
        if isinstance(item, dict):
            yield from schema_integers(item, f"{where}.{key}")
        elif isinstance(item, list):
            for i, branch in enumerate(item):
                if isinstance(branch, dict):
                    yield from schema_integers(branch, f"{where}.{key}[{i}]")


PATHS = list(integer_paths(every_field_request()))


def test_every_integer_of_the_contract_has_a_maximum() -> None:
    found = list(schema_integers(SolveRequest.model_json_schema()))
    assert len(found) >= 8
    unbounded = [where for where, schema in found if "maximum" not in schema]
    assert not unbounded


def test_the_request_reaches_every_integer_field() -> None:
    names = {"skill_levels" if "skill_levels" in p else p[-1] for p in PATHS}
    assert names == {*BOUNDS, "skill_levels"}


@pytest.mark.parametrize("path", PATHS, ids=[".".join(map(str, p)) for p in PATHS])
def test_an_integer_above_its_bound_is_a_fault_at_its_path(path: JsonPath) -> None:
    data = every_field_request()
    for value in (bound_of(path) + 1, 2**62, 10**18, 10**20):
        assert (path, "out_of_range") in faults(replaced(data, path, value))


def _at_bound(path: JsonPath) -> dict[str, Any]:
    """The request with the integer at ``path`` at its bound; a range's other end too,
    so that min <= max still holds."""
    data = replaced(every_field_request(), path, bound_of(path))
    if path[-1] in ("min", "max"):
        other = "max" if path[-1] == "min" else "min"
        data = replaced(data, (*path[:-1], other), bound_of(path))
    return data


@pytest.mark.parametrize("path", PATHS, ids=[".".join(map(str, p)) for p in PATHS])
def test_an_integer_at_its_bound_validates_and_solves(path: JsonPath) -> None:
    data = _at_bound(path)
    assert validate(data).valid
    limits = SolveLimits(time_limit_seconds=60, num_workers=1, diagnosis_budget_seconds=0)
    response = solve(parse_request(data), limits)
    if response.status == "completed":
        return
    # A hard minimum at the bound (say 10,000 night shifts in a week) admits no roster:
    # the solver must prove it, not refuse the model.
    assert response.error is not None
    assert response.error.code == "no_solution", response.error


def test_every_integer_at_its_bound_at_once_still_builds_a_valid_model() -> None:
    data = every_field_request()
    for path in PATHS:
        data = replaced(data, path, bound_of(path))
    assert validate(data).valid
    limits = SolveLimits(time_limit_seconds=60, num_workers=1, diagnosis_budget_seconds=0)
    response = solve(parse_request(data), limits)
    assert response.status == "completed" or (
        response.error is not None and response.error.code == "no_solution"
    ), response.error


def test_the_largest_basic_request_with_every_demand_at_its_bound_builds_a_valid_model() -> None:
    from pathlib import Path

    from shiftsched.solving.model.build import build
    from shiftsched.solving.problem import from_request

    data = json.loads(
        (Path(__file__).parent.parent.parent / "datasets" / "max_size.json").read_text()
    )
    for path in list(integer_paths(data)):
        if path[-1] in ("min", "max"):
            node = data
            for segment in path[:-1]:
                node = node[segment]
            node[path[-1]] = MAX_COUNT
    compiled = build(from_request(parse_request(data)))
    assert compiled.model.validate() == ""
