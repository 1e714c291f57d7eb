"""The operations as MCP tools for assistants, over streamable HTTP at /mcp.

Each tool is the HTTP operation of the same name, called in-process through the public
API app with the caller's own API key: same validation, same billing, same errors, no
second implementation to drift. A tool's result is the operation's JSON body; an error
status becomes an error result carrying the problem+json document.

Authentication is ``Authorization: Bearer <API key>``, or an OAuth access token of a
connected app (``shiftsched.service.mcp.oauth``: the SDK's authorization server, with sign-in and
approval in the dashboard); the SDK answers 401 with a WWW-Authenticate challenge naming
the protected-resource metadata when the credential is missing, unknown or revoked.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Final

import httpx2
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel
from starlette.applications import Starlette

from shiftsched.contract.v1 import SolveRequest
from shiftsched.service.http.operations import OPERATIONS
from shiftsched.service.http.pipeline import Operation
from shiftsched.service.http.problems import API_ROOT
from shiftsched.service.mcp.oauth import SCOPE, OAuthProvider

MCP_PATH = "/mcp"
INTERNAL_BASE = "http://internal" + API_ROOT  # routed like a request to the mounted API
INTRODUCTION: Final = "Build shift rosters."
TOPICS: Final = {
    "build": (
        "Call ",
        ", ",
        "; poll get_solve_job for queued (large) problems every ~15 s "
        "(get_solve_job_progress shows how the search goes, stop_solve_job ends it early).",
    ),
    "change": ("To change a published roster: ", ", ", "."),
    "ask": ("To answer questions about a roster: ", "; ", "."),
}
"""Each topic's sentence of the instructions: how it starts, joins its tools' clauses and
ends."""


def instructions() -> str:
    """What the server tells an assistant first: one sentence per topic, each saying
    what its operations' tools are for (their declarations' ``said``)."""
    sentences = [INTRODUCTION]
    for topic, (start, joiner, end) in TOPICS.items():
        tools = [op.tool for op in OPERATIONS if op.tool.topic == topic]
        clauses = [t.said.format(tool=t.name) for t in sorted(tools, key=lambda t: t.said_at)]
        if clauses:
            sentences.append(start + joiner.join(clauses) + end)
    return " ".join(sentences)


Call = Callable[[str, str, Any], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class JobTool:
    """A tool on a queued job of the caller's account (or, without ``{job_id}`` in its
    path, on the account itself): one HTTP read or stop, no body."""

    name: str
    method: str
    path: str
    guide: str


JOB_TOOLS = (
    JobTool(
        "get_solve_job",
        "GET",
        "/solve/jobs/{job_id}",
        "Poll a queued solve or plan of your account (about every 15 s while running), "
        "or fetch again the answer of any call your account paid for, by its job_id.",
    ),
    JobTool(
        "get_solve_job_progress",
        "GET",
        "/solve/jobs/{job_id}/progress",
        "How a queued solve of your account is going: state (queued, solving, finished), "
        "elapsed seconds, best objective and bound so far, solutions found and the last "
        "improvements. Cheap to call; the roster itself comes from get_solve_job.",
    ),
    JobTool(
        "stop_solve_job",
        "DELETE",
        "/solve/jobs/{job_id}",
        "Stop a queued solve of your account early. A job that already has a roster "
        "completes with its best roster so far (and is charged as completed); one without "
        "a roster yet fails with code cancelled and costs nothing. Returns the job's "
        "answer (status running while it stops: poll get_solve_job); stopping an ended "
        "job changes nothing.",
    ),
    JobTool(
        "get_usage",
        "GET",
        "/usage",
        "Units left on your API key: free quota, prepaid balance, available.",
    ),
)


def create_mcp_server(public_api: Starlette, public_url: str) -> MCPServer:
    """An MCP server whose tools call ``public_api`` (already started) in-process: one
    tool per operation of the pipeline (``shiftsched.service.http.operations``) and per job tool.
    ``public_url``: where clients reach this service (``Settings.public_url``)."""
    url = public_url.rstrip("/")
    server = MCPServer(
        "shiftsched",
        version="1",
        instructions=instructions(),
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
    call = _caller(public_api)
    for operation in OPERATIONS:
        tool = operation.tool
        server.add_tool(
            _operation_tool(operation, call),
            name=tool.name,
            description=inspect.cleandoc(tool.guide),
        )
    for job_tool in JOB_TOOLS:
        server.add_tool(_job_tool(job_tool, call), name=job_tool.name, description=job_tool.guide)
    return server


def _caller(public_api: Starlette) -> Call:
    """Calls of the public API in-process, with the assistant's credential."""

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

    return call


def _operation_tool(operation: Operation, call: Call) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The tool of ``operation``: its body as one argument, ``request``, or (``spread``)
    its body's fields as the arguments, typed as the contract types them."""
    if not operation.tool.spread:

        async def whole(request: SolveRequest) -> dict[str, Any]:
            return await call("POST", operation.path, _json(request))

        whole.__name__ = operation.tool.name  # names its arguments' schema
        return whole
    model = operation.body

    async def spread(**arguments: Any) -> dict[str, Any]:
        given = {name: value for name, value in arguments.items() if value is not None}
        return await call("POST", operation.path, _json(model.model_construct(**given)))

    spread.__signature__ = _signature(model)  # type: ignore[attr-defined]
    spread.__name__ = operation.tool.name
    return spread


def _job_tool(job_tool: JobTool, call: Call) -> Callable[..., Awaitable[dict[str, Any]]]:
    if "{job_id}" not in job_tool.path:

        async def on_account() -> dict[str, Any]:
            return await call(job_tool.method, job_tool.path, None)

        on_account.__name__ = job_tool.name
        return on_account

    async def on_job(job_id: str) -> dict[str, Any]:
        return await call(job_tool.method, job_tool.path.format(job_id=job_id), None)

    on_job.__name__ = job_tool.name
    return on_job


def _signature(model: type[BaseModel]) -> inspect.Signature:
    """The fields of ``model`` as keyword arguments, with their types, constraints and
    defaults, so the tool's input schema is the contract's. A list that defaults to
    empty may also be sent as null (absent), as assistants often do."""
    parameters = []
    for name, field in model.model_fields.items():
        kind: Any = field.annotation
        if field.metadata:
            kind = Annotated[(kind, *field.metadata)]
        default = field.get_default(call_default_factory=True)
        if field.is_required():
            default = inspect.Parameter.empty
        elif default == []:
            kind, default = kind | None, None
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=default
            )
        )
    return inspect.Signature(parameters, return_annotation=dict[str, Any])


def _json(body: BaseModel) -> Any:
    """A body as the contract spells it (absent fields left out)."""
    return body.model_dump(mode="json", exclude_none=True)


def create_mcp_app(server: MCPServer) -> Starlette:
    """The streamable-HTTP app (stateless, JSON responses) serving ``server`` at /mcp."""
    return server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
