"""The operations as MCP tools for assistants, over streamable HTTP at /mcp.

Each tool is the HTTP operation of the same name, called in-process through the public
API app with the caller's own API key: same validation, same billing, same errors, no
second implementation to drift. A tool's result is the operation's JSON body; an error
status becomes an error result carrying the problem+json document.

Authentication is ``Authorization: Bearer <API key>``, or an OAuth access token of a
connected app (``bento.mcp.oauth``: the SDK's authorization server, with sign-in and
approval in the dashboard); the SDK answers 401 with a WWW-Authenticate challenge naming
the protected-resource metadata when the credential is missing, unknown or revoked.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from bento.http.problems import API_ROOT
from bento.mcp.oauth import SCOPE, OAuthProvider
from engine.contract import Assignment, Date, SolveRequest
from engine.planning import DEFAULT_CHANGE_WEIGHT, DEFAULT_TOP, Absence, Slot

MCP_PATH = "/mcp"
INTERNAL_BASE = "http://internal" + API_ROOT  # routed like a request to the mounted API


def create_mcp_server(public_api: Starlette, public_url: str) -> MCPServer:
    """An MCP server whose tools call ``public_api`` (already started) in-process.
    ``public_url``: where clients reach this service (``Settings.public_url``)."""
    url = public_url.rstrip("/")
    server = MCPServer(
        "shiftsched",
        version="1",
        instructions=(
            "Build shift rosters. Call validate_shift_input first (free), then solve_shift "
            "(consumes units); poll get_solve_job for queued (large) problems every ~15 s "
            "(get_solve_job_progress shows how the search goes, stop_solve_job ends it early). "
            "To change a published roster: recommend_employees ranks who could fill one "
            "slot (no solve), replan_shift re-plans after absences with the fewest changes."
        ),
        auth_server_provider=OAuthProvider(public_api, url),
        auth=AuthSettings(
            issuer_url=url,
            resource_server_url=url + MCP_PATH,
            required_scopes=[SCOPE],
            validate_token_resource=False,
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
            revocation_options=RevocationOptions(enabled=True),
            service_documentation_url=url + "/dashboard/",
        ),
    )

    async def call(method: str, path: str, body: Any = None) -> dict[str, Any]:
        token = get_access_token()
        headers = {"Authorization": f"Bearer {token.token}"} if token else {}
        if body is not None:
            headers["Content-Type"] = "application/json"
        transport = httpx2.ASGITransport(app=public_api, root_path=API_ROOT)
        async with httpx2.AsyncClient(transport=transport, base_url=INTERNAL_BASE) as client:
            response = await client.request(
                method,
                path,
                content=None if body is None else json.dumps(body),
                headers=headers,
                timeout=None,
            )
        payload: dict[str, Any] = response.json()
        if response.status_code >= 400:  # the problem+json document reaches the assistant
            raise ToolError(json.dumps(payload))
        return payload

    @server.tool(name="validate_shift_input")
    async def validate_shift_input(request: SolveRequest) -> dict[str, Any]:
        """Check a scheduling request without solving it (free): counts and hints."""
        return await call("POST", "/solve/validate", request.model_dump(mode="json"))

    @server.tool(name="solve_shift")
    async def solve_shift(request: SolveRequest) -> dict[str, Any]:
        """Solve a scheduling request; consumes max(1, ceil(size / 10,000)) units.

        Small problems return the roster (status completed); large ones on a pro key
        return a job_id (status running) to poll with get_solve_job.
        """
        return await call("POST", "/solve", request.model_dump(mode="json", exclude_none=True))

    @server.tool(name="get_solve_job")
    async def get_solve_job(job_id: str) -> dict[str, Any]:
        """Poll a queued solve of your account (about every 15 s while running)."""
        return await call("GET", f"/solve/jobs/{job_id}")

    @server.tool(name="get_solve_job_progress")
    async def get_solve_job_progress(job_id: str) -> dict[str, Any]:
        """How a queued solve of your account is going: state (queued, solving,
        finished), elapsed seconds, best objective and bound so far, solutions found and
        the last improvements. Cheap to call; the roster itself comes from get_solve_job."""
        return await call("GET", f"/solve/jobs/{job_id}/progress")

    @server.tool(name="stop_solve_job")
    async def stop_solve_job(job_id: str) -> dict[str, Any]:
        """Stop a queued solve of your account early. A job that already has a roster
        completes with its best roster so far (and is charged as completed); one without
        a roster yet fails with code cancelled and costs nothing. Returns the job's
        answer (status running while it stops: poll get_solve_job); stopping an ended
        job changes nothing."""
        return await call("DELETE", f"/solve/jobs/{job_id}")

    @server.tool(name="replan_shift")
    async def replan_shift(
        request: SolveRequest,
        roster: list[Assignment],
        absences: list[Absence] | None = None,
        pinned: list[Assignment] | None = None,
        pin_before: Date | None = None,
        change_weight: int = DEFAULT_CHANGE_WEIGHT,
    ) -> dict[str, Any]:
        """Re-plan a published roster after a change, moving as few people as possible.

        ``request``: the scheduling request (edited since, if anything changed);
        ``roster``: the published roster's assignments (a solve's solution.assignments).
        Hard: an absent employee works none of the listed ``absences`` dates; each
        ``pinned`` assignment stays; with ``pin_before`` (YYYY-MM-DD) every cell before
        that date stays as published, days off included. Each changed (employee, date)
        cell costs ``change_weight`` in the objective (default 500: above a preference,
        far below a missing head). Returns the new roster with ``changes`` (every cell
        that differs). Consumes the units of a solve of ``request``; when the absences
        and pins cannot all hold, the error's diagnosis names them (absences[i].dates[j],
        pinned[i], pin_before).
        """
        body: dict[str, Any] = {
            "request": request.model_dump(mode="json", exclude_none=True),
            "roster": [a.model_dump(mode="json", exclude_none=True) for a in roster],
            "absences": [a.model_dump(mode="json") for a in absences or []],
            "pinned": [a.model_dump(mode="json", exclude_none=True) for a in pinned or []],
            "change_weight": change_weight,
        }
        if pin_before is not None:
            body["pin_before"] = pin_before.isoformat()
        return await call("POST", "/solve/replan", body)

    @server.tool(name="recommend_employees")
    async def recommend_employees(
        request: SolveRequest,
        roster: list[Assignment],
        slot: Slot,
        absences: list[Absence] | None = None,
        top: int = DEFAULT_TOP,
    ) -> dict[str, Any]:
        """Rank who could fill ``slot`` (a shift on a date, optionally a duty) in a
        published ``roster``, best first, without re-solving (milliseconds, 1 unit).

        Each candidate's move (taking the slot, leaving the shift they work that date) is
        priced by the audit of the edited roster: the hard rules it would break
        (``feasible`` false), the objective delta and the soft terms it moves. Employees
        absent that date (``absences``) or already in the slot are not candidates.
        ``top``: how many to return (1-50, default 10). Nothing is re-planned: apply the
        chosen move yourself, or call replan_shift for a roster that keeps every rule.
        """
        body = {
            "request": request.model_dump(mode="json", exclude_none=True),
            "roster": [a.model_dump(mode="json", exclude_none=True) for a in roster],
            "slot": slot.model_dump(mode="json", exclude_none=True),
            "absences": [a.model_dump(mode="json") for a in absences or []],
            "top": top,
        }
        return await call("POST", "/solve/recommend", body)

    @server.tool(name="get_usage")
    async def get_usage() -> dict[str, Any]:
        """Units left on your API key: free quota, prepaid balance, available."""
        return await call("GET", "/usage")

    return server


def create_mcp_app(server: MCPServer) -> Starlette:
    """The streamable-HTTP app (stateless, JSON responses) serving ``server`` at /mcp."""
    return server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
