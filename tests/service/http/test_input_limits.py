"""Hostile input over HTTP: deeply nested JSON and integers beyond their bounds.

Both once ended in a 500 (a RecursionError in the JSON parser; CP-SAT refusing a model
whose objective could overflow). Each must be the same problem+json as any other bad
input: 400 invalid-json, or 422 with the JSON path of the fault, and nothing charged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from shiftsched.contract.v1 import MAX_COUNT, MAX_PENALTY_WEIGHT
from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.http.gate import MAX_JSON_DEPTH, text_depth
from tests.factories import full_request_dict, minimal_request_dict, replaced

KEY = "sk_test_" + "n" * 64
JSON = {"Content-Type": "application/json"}
AUTH = {**JSON, "Authorization": f"Bearer {KEY}"}
OPERATIONS = (
    "/solve/validate",
    "/solve",
    "/solve/replan",
    "/solve/recommend",
    "/solve/audit",
    "/solve/compare",
    "/solve/explain",
    "/solve/why",
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = tmp_path_factory.mktemp("db") / "service.db"
    settings = Settings(
        database_url=f"sqlite:///{database}",
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
        errors_base="https://api.test/v1/public/errors",
    )
    with TestClient(create_app(settings)) as client:
        yield client


def available(client: TestClient) -> int:
    units: int = client.get("/usage", headers=AUTH).json()["available_units"]
    return units


def assert_problem(response: Any, status: int, slug: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["type"] == f"https://api.test/v1/public/errors/{slug}"
    return body


def json_depth(data: Any) -> int:
    """How many arrays and objects nest in ``data`` (0 for a scalar), by walking it: the
    reference the service's reading of the text is checked against."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((item, depth + 1) for item in value if isinstance(item, (dict, list)))
    return deepest


def nested(depth: int, inner: str = "0") -> str:
    return "[" * depth + inner + "]" * depth


def test_json_depth_counts_arrays_and_objects() -> None:
    assert json_depth(0) == 0
    assert json_depth([]) == 1
    assert json_depth({"a": [{"b": 1}], "c": 2}) == 3
    assert json_depth(json.loads(nested(500))) == 500


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab'),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet='[]{}"\\k', max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(_JSON_VALUES, st.booleans())
def test_the_depth_read_off_the_text_is_the_depth_of_the_value(
    value: Any, ascii_only: bool
) -> None:
    """Strings full of brackets, quotes and backslashes never count as structure."""
    text = json.dumps(value, ensure_ascii=ascii_only, indent=None if ascii_only else 1)
    assert text_depth(text.encode()) == json_depth(value)


@pytest.mark.parametrize("path", OPERATIONS)
@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 10_000, 150_000])
def test_deeply_nested_json_is_400_invalid_json(client: TestClient, path: str, depth: int) -> None:
    before = available(client)
    for body in (nested(depth), '{"a":' * depth + "0" + "}" * depth):
        response = client.post(path, content=body, headers=AUTH)
        problem = assert_problem(response, 400, "invalid-json")
        assert "nest" in problem["detail"]
    assert available(client) == before


def test_json_at_the_depth_limit_is_read(client: TestClient) -> None:
    """At the limit the body is parsed and judged by the contract (422, not 400)."""
    response = client.post("/solve/validate", content=nested(MAX_JSON_DEPTH), headers=JSON)
    assert_problem(response, 422, "validation-error")


HUGE = [10**18, 2**62, 2**63, 10**20]
FIELDS: list[tuple[tuple[str | int, ...], int]] = [
    (("shifts", 0, "staffing_demand", 0, "min"), MAX_COUNT),
    (("shifts", 0, "staffing_demand", 0, "max"), MAX_COUNT),
    (("constraints", "fairness_groups", 0, "penalty_weight"), MAX_PENALTY_WEIGHT),
    (("employees", 0, "shift_count_limits", 0, "max"), MAX_COUNT),
    (("constraints", "max_consecutive_working_days"), MAX_COUNT),
]


@pytest.mark.parametrize("path", ["/solve/validate", "/solve"])
@pytest.mark.parametrize(("field", "bound"), FIELDS, ids=[str(f[0][-1]) for f in FIELDS])
def test_an_integer_beyond_its_bound_is_422_with_its_path(
    client: TestClient, path: str, field: tuple[str | int, ...], bound: int
) -> None:
    before = available(client)
    for value in [bound + 1, *HUGE]:
        body = replaced(full_request_dict(), field, value)
        response = client.post(path, content=json.dumps(body), headers=AUTH)
        problem = assert_problem(response, 422, "validation-error")
        assert {"path": list(field), "code": "out_of_range"}.items() <= problem["errors"][0].items()
        assert "overflow" not in response.text.lower()
    assert available(client) == before


def test_a_demand_at_its_bound_solves(client: TestClient) -> None:
    """The largest allowed minimum is a shortage, not a solver failure."""
    data = minimal_request_dict()
    data["shifts"][0]["staffing_demand"][0] = {"min": MAX_COUNT, "max": MAX_COUNT}
    data["options"] = {"solver_timeout_seconds": 30}
    response = client.post("/solve", content=json.dumps(data), headers=AUTH)
    assert response.status_code == 200, response.text
    shortages = response.json()["solution"]["shortages"]
    assert {"kind": "staffing", "shift_id": "day", "required": MAX_COUNT}.items() <= shortages[
        0
    ].items()


def test_the_openapi_document_states_the_bounds(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert schemas["Range"]["properties"]["min"]["maximum"] == MAX_COUNT
    weight = json.dumps(schemas["FairnessGroup"]["properties"]["penalty_weight"])
    assert f'"maximum": {MAX_PENALTY_WEIGHT}' in weight
