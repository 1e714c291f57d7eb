"""An operation is one declaration on the pipeline, and every face follows from it.

The operations the service ships are each routed, documented and offered as a tool. A
new one, declared here and nowhere else, is authenticated, parsed with JSON paths in its
faults, charged and released like the others, documented with the statuses its
declaration implies, and offered to assistants, all without code of its own.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size
from shiftsched.contract.v1 import SolveRequest, ValidateResponse
from shiftsched.questions.validation import describe
from shiftsched.service.billing.admission import Admission
from shiftsched.service.http.api import create_app
from shiftsched.service.http.openapi import openapi_document
from shiftsched.service.http.openapi_paths import operation_item
from shiftsched.service.http.operations import OPERATIONS
from shiftsched.service.http.pipeline import (
    Docs,
    InPool,
    InThread,
    Operation,
    Payer,
    Tool,
    endpoint,
)
from shiftsched.service.mcp.server import _operation_tool
from shiftsched.service.settings import Settings
from shiftsched.service.store import Store
from tests.factories import minimal_request_dict
from tests.service.http.test_http import assert_problem, bearer, fresh_key, post


def _one_unit(request: SolveRequest, payer: Payer | None) -> Admission:
    return Admission(request_size(request), units=1, time_limit=0.0)


DESCRIBE = Operation(
    name="describe",
    path="/solve/describe",
    body=SolveRequest,
    answer=ValidateResponse,
    tool=Tool("describe_shift_input", "What a request holds, for one unit."),
    docs=Docs("Describe a request (1 unit)", answered="what the request holds"),
    parse=parse_request,
    admit=_one_unit,
    run=InThread(describe),
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home: Path = tmp_path_factory.mktemp("operations")
    settings = Settings(
        database_url=f"sqlite:///{home / 'store.db'}",
        jobs_db_path=str(home / "jobs.db"),
        solve_processes=1,
        errors_base="https://api.test/v1/public/errors",
    )
    app = create_app(settings)
    app.router.routes.insert(0, Route(DESCRIBE.path, endpoint(DESCRIBE), methods=["POST"]))
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def store(client: TestClient) -> Store:
    return client.app.state.store  # type: ignore[no-any-return,attr-defined]


def test_every_shipped_operation_is_routed_documented_and_a_tool(client: TestClient) -> None:
    document = openapi_document("http://testserver/v1/public")
    routed = {
        route.path
        for route in client.app.routes
        if isinstance(route, Route)  # type: ignore[attr-defined]
    }
    for operation in OPERATIONS:
        assert operation.path in routed
        item = document["paths"][operation.path]["post"]
        assert item["operationId"] == operation.tool.name
        tool = _operation_tool(operation, _never_called)
        assert tool.name == operation.tool.name and tool.description


def test_a_new_declaration_is_authenticated_parsed_and_charged(
    client: TestClient, store: Store
) -> None:
    data = minimal_request_dict()
    assert_problem(post(client, DESCRIBE.path, data), 401, "unauthorized")
    key = fresh_key(store, free=3)
    broken = {**data, "shifts": "none"}
    faults = assert_problem(
        post(client, DESCRIBE.path, broken, bearer(key)), 422, "validation-error"
    )
    assert any(fault["path"][0] == "shifts" for fault in faults["errors"])
    answered = post(client, DESCRIBE.path, data, bearer(key))
    assert answered.status_code == 200, answered.text
    assert answered.json()["employee_count"] == 3
    assert answered.headers["X-Units-Consumed"] == "1"
    assert answered.headers["X-Units-Remaining"] == "2"
    post(client, DESCRIBE.path, data, bearer(key))
    post(client, DESCRIBE.path, data, bearer(key))
    assert_problem(post(client, DESCRIBE.path, data, bearer(key)), 429, "quota-exceeded")
    assert client.get("/usage", headers=bearer(key)).json()["available_units"] == 0


def test_a_new_declaration_is_documented_from_what_it_declares() -> None:
    item = operation_item(DESCRIBE)["post"]
    assert item["operationId"] == "describe_shift_input"
    assert item["security"] == [{"apiKey": []}]
    # keyed, in a thread: no payment offer, no queue, no solver statuses
    assert set(item["responses"]) == {"200", "400", "401", "409", "413", "415", "422", "429", "503"}
    assert item["responses"]["422"]["description"].startswith("validation-error: ")
    assert "X-Units-Consumed" in item["responses"]["200"]["headers"]


def test_a_new_declaration_is_a_tool_taking_the_request() -> None:
    tool = _operation_tool(DESCRIBE, _never_called)
    assert list(inspect.signature(tool.fn, eval_str=True).parameters) == ["ctx", "request"]
    assert list(tool.parameters["properties"]) == ["request"]
    assert tool.name == "describe_shift_input"


async def _never_called(method: str, path: str, body: object) -> tuple[int, dict[str, object]]:
    raise AssertionError("building a tool calls nothing")


def test_a_queued_declaration_is_run_by_name_from_its_job() -> None:
    """A consumer runs a queued job from its record, so a declaration that queues must
    solve in the pool, with a parser and an engine function found by their names."""
    with pytest.raises(ValueError, match="solver pool"):
        dataclasses.replace(DESCRIBE, queues=True)
    pooled = dataclasses.replace(
        DESCRIBE, run=InPool("shiftsched.questions.validation:describe", "sync")
    )
    dataclasses.replace(pooled, queues=True)  # accepted
    with pytest.raises(ValueError):
        dataclasses.replace(pooled, queues=True, parse=lambda data: parse_request(data))
    with pytest.raises(ValueError, match="no function of the engine"):
        dataclasses.replace(pooled, queues=True, run=InPool("os:system", "sync"))


def test_every_queued_operation_answers_202_and_its_job_answers_as_it_does() -> None:
    document = openapi_document("http://testserver/v1/public")
    polled = document["paths"]["/solve/jobs/{id}"]["get"]["responses"]["200"]
    schema = polled["content"]["application/json"]["schema"]
    answers = {ref["$ref"].rsplit("/", 1)[1] for ref in schema["anyOf"]}
    queued = [operation for operation in OPERATIONS if operation.queues]
    assert {operation.path for operation in queued} == {"/solve", "/solve/plan"}
    for operation in queued:
        responses = document["paths"][operation.path]["post"]["responses"]
        accepted = responses["202"]["content"]["application/json"]["schema"]["$ref"]
        assert accepted.endswith("/" + operation.answer.__name__)
        assert "501" in responses
        assert operation.answer.__name__ in answers
