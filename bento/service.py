"""The Bento: BentoML serves the public API under /v1/public and the MCP tools at /mcp.

BentoML's own ``@bentoml.api`` cannot produce the v1 contract (its validation errors
are 400 plain JSON, it has no 413 or 415), so the whole API is one Starlette app
mounted with ``@bentoml.asgi_app``; BentoML runs each mounted app's lifespan (the
store, the solver pool, the MCP session manager). BentoML's traffic timeout is set far
above our own deadlines, so its plain-JSON 504 never pre-empts our problem+json one.
"""

from __future__ import annotations

import bentoml

from bento.http import create_app
from bento.mcp import create_mcp_app, create_mcp_server

TRAFFIC_TIMEOUT_SECONDS = 900

public_api = create_app()
mcp_app = create_mcp_app(create_mcp_server(public_api))


@bentoml.service(name="shiftsched", traffic={"timeout": TRAFFIC_TIMEOUT_SECONDS}, workers=1)
@bentoml.asgi_app(mcp_app, path="/")
@bentoml.asgi_app(public_api, path="/v1/public")
class ShiftScheduler:
    """Roster solving over the v1 HTTP contract, and the same operations as MCP tools."""
