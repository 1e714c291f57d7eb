"""The MCP tools an assistant can afford: a small tool list, compact results given once,
and the API's own faults, through the SDK's client against the real app."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment
from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.http.operations import OPERATIONS
from shiftsched.service.http.problems import API_ROOT
from shiftsched.service.mcp.server import MCP_PATH, create_mcp_app, create_mcp_server
from tests.audited import solved_and_audited
from tests.factories import employee_dict, minimal_request_dict

KEY = "sk_test_" + "e" * 64
BASE = "http://localhost:8123"
TOOL_LIST_LIMIT = 30_000
ANSWER_LIMIT = 5_000


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Any, Any]]:
    """The public API (started, real store and solver) and the MCP app wired to it."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'service.db'}",
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
        public_url=BASE,
    )
    public = create_app(settings)
    server = create_mcp_server(public, BASE)
    app = create_mcp_app(server)
    async with public.router.lifespan_context(public), server.session_manager.run():
        yield public, app


def http_client(app: Any, **options: Any) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {KEY}"}
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app, **options),
        base_url=BASE,
        headers=headers,
        timeout=120,
    )


def wire(value: Any) -> str:
    """``value`` as the wire carries it: compact JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def result_size(result: Any) -> int:
    """What a result costs an assistant's context: its text and its structured content."""
    texts = sum(len(block.text) for block in result.content)
    return texts + len(wire(result.structured_content or {}))


def roster_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    solution = solved_and_audited(parse_request(data))
    return [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]


def four_employees() -> dict[str, Any]:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    return data


@pytest.mark.anyio
async def test_the_tool_list_is_small_and_describes_the_request_once(
    served: tuple[Any, Any],
) -> None:
    _, app = served
    async with (
        http_client(app) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        listed = await client.list_tools()
    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
    assert len(wire({"tools": tools})) < TOOL_LIST_LIMIT
    # The request's schema (its fairness groups among them) is in one tool; every other
    # tool's request argument says where it is.
    carrying = [t["name"] for t in tools if "fairness_groups" in wire(t["inputSchema"])]
    assert carrying == ["validate_shift_input"]
    for tool in tools:
        assert tool["description"].strip()
        request = tool["inputSchema"]["properties"].get("request")
        if request is not None and tool["name"] != "validate_shift_input":
            assert "validate_shift_input's `request`" in request["description"]
    by_name = {t["name"]: t for t in tools}
    for name in ("replan_shift", "explain_shortages", "why_not"):
        assert by_name[name]["inputSchema"]["properties"]["include_roster"]["type"] == "boolean"
    planning = by_name["plan_shift"]["inputSchema"]
    assert "horizon" in planning["properties"]
    assert all(field in wire(planning) for field in ("min_days", "max_weekends", "day_weight"))


@pytest.mark.anyio
async def test_every_tool_answers_a_misspelt_field_with_the_apis_own_errors(
    served: tuple[Any, Any],
) -> None:
    """A misspelt employee field and an impossible date: the validator says valid false
    with the errors POST /solve/validate gives, and every other tool fails with the
    problem+json its HTTP operation gives, typed under the public URL."""
    public, app = served
    data = four_employees()
    data["employees"][1]["working_days_per_mnth"] = {"min": 1, "max": 3}
    data["schedule_period"]["holidays"] = ["2027-02-30"]
    roster = [{"employee_id": "e1", "date": "2027-01-01", "shift_id": "day"}]
    fields = {
        "roster": roster,
        "before": roster,
        "after": roster,
        "slot": {"date": "2027-01-01", "shift_id": "day"},
        "employee_id": "e1",
        "date": "2027-01-01",
    }
    async with (
        http_client(public, root_path=API_ROOT) as http,
        http_client(app) as mcp_http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=mcp_http)) as client,
    ):
        for operation in OPERATIONS:
            if operation.tool.spread:
                names = operation.body.model_fields
                arguments = {"request": data} | {k: v for k, v in fields.items() if k in names}
                body: Any = arguments
            else:
                arguments, body = {"request": data}, data
            expected = await http.post(API_ROOT + operation.path, json=body)
            assert expected.status_code == 422, operation.path
            errors = expected.json()["errors"]
            assert {"working_days_per_mnth", "holidays"} <= {
                str(part) for e in errors for part in e["path"]
            }
            result = await client.call_tool(operation.tool.name, arguments)
            if operation.tool.answers_faults:
                assert not result.is_error
                assert result.structured_content == {"valid": False, "errors": errors}
                continue
            assert result.is_error, operation.tool.name
            problem = json.loads(result.content[0].text)
            assert problem["errors"] == errors
            assert problem["type"] == expected.json()["type"]
            assert problem["type"].startswith(BASE + API_ROOT + "/errors/")


@pytest.mark.slow
@pytest.mark.anyio
async def test_explanations_and_why_not_return_changes_and_rosters_only_when_asked(
    served: tuple[Any, Any],
) -> None:
    """Three heads missing: the explanation without rosters is small, given once (a line
    of words as text, the answer as structured content); with ``include_roster`` each
    fill's roster is there and keeps every hard rule."""
    _, app = served
    data = four_employees()
    request = parse_request(data)
    roster = roster_of(data)
    holed = roster[3:]
    async with (
        http_client(app) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        args = {"request": data, "roster": holed}
        compact = await client.call_tool("explain_shortages", args)
        whole = await client.call_tool("explain_shortages", {**args, "include_roster": True})
        cell = roster[0]
        question = {"request": data, "roster": roster, "employee_id": cell["employee_id"]}
        why = await client.call_tool("why_not", {**question, "date": cell["date"]})
    assert not compact.is_error and not whole.is_error and not why.is_error
    answer = compact.structured_content
    assert answer is not None and len(answer["explanations"]) == 3
    assert result_size(compact) < ANSWER_LIMIT and result_size(why) < ANSWER_LIMIT
    assert all("roster" not in e for e in answer["explanations"])
    assert "explanations: 3" in compact.content[0].text
    assert len(compact.content[0].text) < len(wire(answer))  # a summary, not a copy
    assert why.structured_content is not None and "roster" not in why.structured_content
    fills = [e for e in whole.structured_content["explanations"] if e["verdict"] == "avoidable"]
    assert fills
    for fill in fills:
        assignments = [Assignment.model_validate(a) for a in fill["roster"]]
        assert audit(request, assignments).feasible


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_queued_solve_is_followed_with_progress_when_asked(
    served: tuple[Any, Any],
) -> None:
    """A solve that takes the queued path: with a progress callback the tool follows the
    job, notifying its progress, and answers its roster; without one it answers the 202's
    job id at once, to be polled."""
    _, app = served
    data = four_employees()
    data["options"] = {"solver_timeout_seconds": 60}  # over 30 s: queued on the pro demo key
    notified: list[tuple[float, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        notified.append((value, message))

    async with (
        http_client(app) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        followed = await client.call_tool(
            "solve_shift", {"request": data}, progress_callback=progress
        )
        at_once = await client.call_tool("solve_shift", {"request": data})
    answer = followed.structured_content
    assert not followed.is_error and answer is not None
    assert answer["status"] == "completed" and answer["solution"]["assignments"]
    assignments = [Assignment.model_validate(a) for a in answer["solution"]["assignments"]]
    assert audit(parse_request(data), assignments).feasible
    assert notified and all(message and "rosters found" in message for _, message in notified)
    assert at_once.structured_content is not None
    assert at_once.structured_content["status"] == "running"
    assert at_once.structured_content["job_id"] != answer["job_id"]
