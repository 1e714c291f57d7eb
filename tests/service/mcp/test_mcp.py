"""The MCP tools over streamable HTTP, with the SDK's own client, against the real app."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from shiftsched.checking.audit import audit
from shiftsched.contract.history import History
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import PlanResponse, ReplanResponse, roster_changes
from shiftsched.contract.v1 import Assignment, SolveResponse
from shiftsched.questions.inquiry import parse_audit
from shiftsched.questions.review import audit_roster
from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.mcp.server import MCP_PATH, create_mcp_app, create_mcp_server
from tests.audited import solved_and_audited
from tests.factories import employee_dict, minimal_request_dict

KEY = "sk_test_" + "f" * 64
BASE = "http://localhost"
TOOLS = {
    "validate_shift_input",
    "solve_shift",
    "plan_shift",
    "get_solve_job",
    "get_usage",
    "replan_shift",
    "recommend_employees",
    "get_solve_job_progress",
    "stop_solve_job",
    "audit_roster",
    "compare_rosters",
    "explain_shortages",
    "why_not",
}


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


@pytest.mark.slow
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

        # A finished job: its progress says so, and stopping it changes nothing.
        progress = structured(
            await client.call_tool("get_solve_job_progress", {"job_id": solved.job_id})
        )
        assert progress["status"] == "completed" and progress["state"] == "finished"
        stopped = structured(await client.call_tool("stop_solve_job", {"job_id": solved.job_id}))
        assert SolveResponse.model_validate(stopped).solution == solved.solution
        assert structured(await client.call_tool("get_usage", {})) == after
        for tool in ("get_solve_job_progress", "stop_solve_job"):
            unknown = await client.call_tool(tool, {"job_id": "nope"})
            assert unknown.is_error and "not-found" in unknown.content[0].text


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_plan_tool_never_assigns_an_absence(mcp_http: Any) -> None:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    day = data["schedule_period"]["start_date"]
    absences = [{"employee_id": "e2", "dates": [day]}]
    async with (
        client_for(mcp_http, KEY) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        planned = PlanResponse.model_validate(
            structured(
                await client.call_tool("plan_shift", {"request": data, "absences": absences})
            )
        )
        assert planned.status == "completed" and planned.solution is not None
        cells = {(a.employee_id, a.date.isoformat()) for a in planned.solution.assignments}
        assert ("e2", day) not in cells
        assert audit(parse_request(data), planned.solution.assignments).feasible
        unknown = [{"employee_id": "nobody", "dates": [day]}]
        faulty = await client.call_tool("plan_shift", {"request": data, "absences": unknown})
        assert faulty.is_error and "unknown_employee_id" in faulty.content[0].text


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_plan_tool_reads_a_history_and_answers_the_ledger(mcp_http: Any) -> None:
    """e1 worked the 3 days before the period, the most in a row, and wants the day shift
    on its first date: the plan refuses it, and the ledger counts the history's days."""
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    data.setdefault("constraints", {})["max_consecutive_working_days"] = 3
    start = dt.date.fromisoformat(data["schedule_period"]["start_date"])
    data["employees"][0]["preferences"] = [
        {"type": "preferred_shift", "date": start.isoformat(), "shift_id": "day"}
    ]
    history = {
        "assignments": [
            {"employee_id": "e1", "date": (start - dt.timedelta(days=back)).isoformat()}
            | {"shift_id": "day"}
            for back in (3, 2, 1)
        ]
    }
    async with (
        client_for(mcp_http, KEY) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        planned = PlanResponse.model_validate(
            structured(await client.call_tool("plan_shift", {"request": data, "history": history}))
        )
        assert planned.status == "completed" and planned.solution is not None
        roster = planned.solution.assignments
        assert not any(a.employee_id == "e1" and a.date == start for a in roster)
        report = audit(parse_request(data), roster, history=History.model_validate(history))
        assert report.hard_violations == []
        assert planned.ledger is not None
        e1 = next(e for e in planned.ledger.employees if e.employee_id == "e1")
        assert e1.days_worked == 3 + sum(a.employee_id == "e1" for a in roster)
        inside = [{**history["assignments"][0], "date": start.isoformat()}]
        faulty = await client.call_tool(
            "plan_shift", {"request": data, "history": {"assignments": inside}}
        )
        assert faulty.is_error
        text = faulty.content[0].text
        problem = json.loads(text[text.index("{") :])
        assert ["history", "assignments", 0, "date"] in [e["path"] for e in problem["errors"]]


@pytest.mark.slow
@pytest.mark.anyio
async def test_replan_and_recommend_tools_answer_like_the_http_operations(mcp_http: Any) -> None:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    solution = solved_and_audited(parse_request(data))
    roster = [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]
    sick = roster[0]
    absences = [{"employee_id": sick["employee_id"], "dates": [sick["date"]]}]
    async with (
        client_for(mcp_http, KEY) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        before = structured(await client.call_tool("get_usage", {}))
        ranked = structured(
            await client.call_tool(
                "recommend_employees",
                {
                    "request": data,
                    "roster": roster,
                    "slot": {"date": sick["date"], "shift_id": sick["shift_id"]},
                    "absences": absences,
                    "top": 2,
                },
            )
        )
        assert len(ranked["recommendations"]) == 2 and ranked["candidates"] == 3
        args = {"request": data, "roster": roster, "absences": absences}
        compact = structured(await client.call_tool("replan_shift", args))
        assert "assignments" not in compact["solution"]  # the changes only, unless asked
        replanned = ReplanResponse.model_validate(
            structured(await client.call_tool("replan_shift", {**args, "include_roster": True}))
        )
        # Any re-plan moves the sick cell, so the compact answer's changes hold it.
        left = {(c["employee_id"], c["date"]) for c in compact["changes"]}
        assert (sick["employee_id"], sick["date"]) in left
        assert replanned.status == "completed" and replanned.solution is not None
        new = replanned.solution.assignments
        assert audit(parse_request(data), new).feasible
        published = [Assignment.model_validate(a) for a in roster]
        assert replanned.changes == roster_changes(published, new)
        after = structured(await client.call_tool("get_usage", {}))
        assert after["available_units"] == before["available_units"] - 3  # 1 + two solves' 1

        unknown = [{"employee_id": "nobody", "dates": [sick["date"]]}]
        faulty = await client.call_tool("replan_shift", {**args, "absences": unknown})
        assert faulty.is_error
        problem = json.loads(faulty.content[0].text)  # the problem+json document
        assert ["absences", 0, "employee_id"] in [e["path"] for e in problem["errors"]]


@pytest.mark.anyio
async def test_a_request_breaking_a_cross_field_rule_is_invalid_with_paths(mcp_http: Any) -> None:
    data = minimal_request_dict()
    data["employees"][0]["assignable_shift_ids"] = ["nowhere"]
    async with (
        client_for(mcp_http, KEY) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        result = structured(await client.call_tool("validate_shift_input", {"request": data}))
        assert result["valid"] is False
        assert [e["code"] for e in result["errors"]] == ["unknown_shift_id"]
        assert result["errors"][0]["path"] == ["employees", 0, "assignable_shift_ids", 0]


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


@pytest.mark.slow
@pytest.mark.anyio
async def test_question_tools_answer_like_the_engine(mcp_http: Any) -> None:
    """audit_roster and compare_rosters are the engine's answers, free; explain_shortages
    and why_not are charged as a solve each and keep the hard rules."""
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    request = parse_request(data)
    solution = solved_and_audited(request)
    roster = [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]
    holed = roster[1:]
    async with (
        client_for(mcp_http, KEY) as http,
        Client(streamable_http_client(BASE + MCP_PATH, http_client=http)) as client,
    ):
        before = structured(await client.call_tool("get_usage", {}))
        audited = structured(
            await client.call_tool("audit_roster", {"request": data, "roster": holed})
        )
        direct = audit_roster(parse_audit({"request": data, "roster": holed}))
        assert audited == direct.model_dump(mode="json", exclude_none=True)
        compared = structured(
            await client.call_tool(
                "compare_rosters", {"request": data, "before": roster, "after": holed}
            )
        )
        assert [c["change"] for c in compared["changes"]] == ["removed"]
        explained = structured(
            await client.call_tool(
                "explain_shortages", {"request": data, "roster": holed, "include_roster": True}
            )
        )
        [explanation] = explained["explanations"]
        assert explanation["verdict"] == "avoidable"
        assert audit(
            request, [Assignment.model_validate(a) for a in explanation["roster"]]
        ).feasible
        cell = roster[0]
        answer = structured(
            await client.call_tool(
                "why_not",
                {
                    "request": data,
                    "roster": roster,
                    "employee_id": cell["employee_id"],
                    "date": cell["date"],
                },
            )
        )
        assert answer["verdict"] == "possible"
        after = structured(await client.call_tool("get_usage", {}))
        assert after["available_units"] == before["available_units"] - 2  # two solves' 1
