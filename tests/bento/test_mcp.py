"""The MCP tools over streamable HTTP, with the SDK's own client, against the real app."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bento.api import Settings, create_app
from bento.mcp import MCP_PATH, create_mcp_app, create_mcp_server
from engine.audit import audit
from engine.contract import SolveResponse
from engine.rules import parse_request
from tests.factories import minimal_request_dict

KEY = "sk_test_" + "f" * 64
BASE = "http://localhost"
TOOLS = {"validate_shift_input", "solve_shift", "get_solve_job", "get_usage"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def mcp_http(tmp_path: Path) -> AsyncIterator[Any]:
    """An MCP streamable-HTTP app wired to a started public API (real store and solver)."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'service.db'}",
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
    )
    public = create_app(settings)
    server = create_mcp_server(public, BASE)
    app = create_mcp_app(server)
    async with public.router.lifespan_context(public), server.session_manager.run():
        yield app


def client_for(app: Any, key: str | None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url=BASE, headers=headers, timeout=120
    )


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        content: dict[str, Any] = result.structured_content
        return content.get("result", content)
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


@pytest.mark.anyio
async def test_tools_are_listed_and_solve_like_the_http_api(mcp_http: Any) -> None:
    async with (
        client_for(mcp_http, KEY) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        tools = await client.list_tools()
        assert {tool.name for tool in tools.tools} == TOOLS

        data = minimal_request_dict()
        validated = structured(await client.call_tool("validate_shift_input", {"request": data}))
        assert validated["valid"] is True and validated["employee_count"] == 3

        before = structured(await client.call_tool("get_usage", {}))
        solved = SolveResponse.model_validate(
            structured(await client.call_tool("solve_shift", {"request": data}))
        )
        assert solved.status == "completed" and solved.solution is not None
        assert audit(parse_request(data), solved.solution.assignments).feasible
        after = structured(await client.call_tool("get_usage", {}))
        assert after["available_units"] == before["available_units"] - 1

        missing = await client.call_tool("get_solve_job", {"job_id": "nope"})
        assert missing.is_error
        assert "not-found" in missing.content[0].text


@pytest.mark.anyio
async def test_a_request_breaking_a_cross_field_rule_is_an_error_with_paths(mcp_http: Any) -> None:
    data = minimal_request_dict()
    data["employees"][0]["assignable_shift_ids"] = ["nowhere"]
    async with (
        client_for(mcp_http, KEY) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        result = await client.call_tool("validate_shift_input", {"request": data})
        assert result.is_error
        assert "unknown_shift_id" in result.content[0].text


@pytest.mark.anyio
async def test_the_endpoint_needs_an_api_key(mcp_http: Any) -> None:
    async with client_for(mcp_http, None) as http:
        response = await http.post(
            MCP_PATH, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        )
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
    async with client_for(mcp_http, "sk_live_wrong") as http:
        response = await http.post(
            MCP_PATH, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        )
        assert response.status_code == 401
