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
from typing import Any, Final

import httpx2
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult
from starlette.applications import Starlette

from shiftsched.service.http.job_tools import JOB_TOOLS, JobTool
from shiftsched.service.http.operations import OPERATIONS
from shiftsched.service.http.pipeline import Operation
from shiftsched.service.http.problems import API_ROOT
from shiftsched.service.mcp.following import followed, wants_progress
from shiftsched.service.mcp.oauth import SCOPE, OAuthProvider
from shiftsched.service.mcp.results import answered, failed, without_rosters
from shiftsched.service.mcp.schemas import spread_input, whole_request_input

MCP_PATH = "/mcp"
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


Call = Callable[[str, str, Any], Awaitable[tuple[int, dict[str, Any]]]]


def create_mcp_server(public_api: Starlette, public_url: str) -> MCPServer:
    """An MCP server whose tools call ``public_api`` (already started) in-process: one
    tool per operation of the pipeline (``shiftsched.service.http.operations``) and per job tool.
    ``public_url``: where clients reach this service (``Settings.public_url``); the
    problem documents' type URIs are under it."""
    url = public_url.rstrip("/")
    call = _caller(public_api, url + API_ROOT)
    tools = [_operation_tool(operation, call) for operation in OPERATIONS]
    tools += [_job_tool(job_tool, call) for job_tool in JOB_TOOLS]
    return MCPServer(
        "shiftsched",
        version="1",
        instructions=instructions(),
        tools=tools,
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


def _caller(public_api: Starlette, base_url: str) -> Call:
    """Calls of the public API in-process, with the assistant's credential, answering
    the status and the JSON body."""

    async def call(method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        token = get_access_token()
        headers = {"Authorization": f"Bearer {token.token}"} if token else {}
        if body is not None:
            headers["Content-Type"] = "application/json"
        transport = httpx2.ASGITransport(app=public_api, root_path=API_ROOT)
        async with httpx2.AsyncClient(transport=transport, base_url=base_url) as client:
            response = await client.request(
                method,
                path,
                content=None if body is None else json.dumps(body),
                headers=headers,
                timeout=None,
            )
        payload: dict[str, Any] = response.json()
        return response.status_code, payload

    return call


def _operation_tool(operation: Operation, call: Call) -> Tool:
    """The tool of ``operation``: its body as one argument, ``request``, or (``spread``)
    its body's fields as the arguments. The arguments are taken as they come and the
    HTTP operation validates them, so a fault is the API's (its paths and codes); the
    published schema (``shiftsched.service.mcp.schemas``) describes them."""
    declared = operation.tool
    rosters = declared.rosters

    async def run(ctx: Context[Any, Any], **arguments: Any) -> CallToolResult:
        include = bool(arguments.pop("include_roster", False))
        body: Any = {name: value for name, value in arguments.items() if value is not None}
        if not declared.spread:  # the request is the body (absent: an empty one, refused)
            body = body.get("request", {})
        status, payload = await call("POST", operation.path, body)
        if status == 202 and operation.queues and wants_progress(ctx):
            status, payload = await followed(call, payload["job_id"], ctx)
        if status == 422 and declared.answers_faults:
            return answered({"valid": False, "errors": payload.get("errors", [])})
        if status >= 400:
            return failed(payload)
        return answered(payload if include else without_rosters(payload, rosters))

    names = list(operation.body.model_fields) if declared.spread else ["request"]
    run.__signature__ = _signature(  # type: ignore[attr-defined]
        [*names, *(["include_roster"] if rosters else [])], context=True
    )
    if declared.spread:
        schema = spread_input(declared.name, operation.body, include_roster=bool(rosters))
    else:
        schema = whole_request_input(declared.name)
    tool = Tool.from_function(run, name=declared.name, description=inspect.cleandoc(declared.guide))
    return tool.model_copy(update={"parameters": schema})


def _job_tool(job_tool: JobTool, call: Call) -> Tool:
    async def read(job_id: str | None = None) -> CallToolResult:
        path = job_tool.path.format(job_id=job_id) if job_id is not None else job_tool.path
        status, payload = await call(job_tool.method, path, None)
        return failed(payload) if status >= 400 else answered(payload)

    on_job = "{job_id}" in job_tool.path
    read.__signature__ = _signature(["job_id"] if on_job else [], required=on_job)  # type: ignore[attr-defined]
    return Tool.from_function(read, name=job_tool.name, description=job_tool.guide)


def _signature(
    names: list[str], *, required: bool = False, context: bool = False
) -> inspect.Signature:
    """Keyword arguments of any JSON value, each absent by default (``required``: each
    one required), so the SDK lets every body through to the operation's validation;
    ``context``: the call's MCP context first (the SDK fills it in)."""
    default = inspect.Parameter.empty if required else None
    parameters = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=Any, default=default)
        for name in names
    ]
    if context:
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        parameters.insert(0, inspect.Parameter("ctx", kind, annotation=Context[Any, Any]))
    return inspect.Signature(parameters, return_annotation=CallToolResult)


def create_mcp_app(server: MCPServer) -> Starlette:
    """The streamable-HTTP app (stateless) serving ``server`` at /mcp. Its answers are
    event streams, so a long tool call can send progress notifications before its result
    (``shiftsched.service.mcp.following``)."""
    return server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=False,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
