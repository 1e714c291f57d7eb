"""A queued job followed to its end inside a tool call, with MCP progress notifications.

Why: a large solve or plan answers 202 with a job id, and an assistant then has to poll.
When the caller asked for progress (its request carries a progress token), the tool
instead follows the job: each :data:`EVERY_SECONDS` it reads the job's progress and sends
it as a progress notification (elapsed seconds, best objective and bound so far), and
once the job ends it answers the job's answer, as ``get_solve_job`` would. A job still
running after :data:`MOST_SECONDS` is answered as it stands (status running, its
job_id), to be polled from there. A caller that asked for no progress gets the 202's
answer at once, as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

import anyio
from mcp.server.mcpserver import Context

EVERY_SECONDS: Final = 2.0
MOST_SECONDS: Final = 600.0

Call = Callable[[str, str, Any], Awaitable[tuple[int, dict[str, Any]]]]


def wants_progress(ctx: Context[Any, Any] | None) -> bool:
    """Whether the caller of this tool call sent a progress token."""
    if ctx is None:
        return False
    try:
        meta = ctx.request_context.meta
    except (ValueError, AttributeError):  # outside a request
        return False
    if not isinstance(meta, Mapping):
        return False
    return meta.get("progress_token", meta.get("progressToken")) is not None


def progress_words(progress: dict[str, Any]) -> str:
    """One notification's message: the job's state and figures so far."""
    best, bound = progress.get("best_objective"), progress.get("best_bound")
    parts = [str(progress.get("state", "queued"))]
    if best is not None:
        parts.append(f"best objective {best:,.0f}")
    if bound is not None:
        parts.append(f"bound {bound:,.0f}")
    parts.append(f"{progress.get('solutions', 0)} rosters found")
    return ", ".join(parts)


async def followed(call: Call, job_id: str, ctx: Context[Any, Any]) -> tuple[int, dict[str, Any]]:
    """The job's answer once it ended (or as it stands after :data:`MOST_SECONDS`),
    with a progress notification at each look."""
    job = f"/solve/jobs/{job_id}"
    waited = 0.0
    while True:
        status, progress = await call("GET", job + "/progress", None)
        if status != 200:
            return status, progress
        await ctx.report_progress(
            float(progress.get("elapsed_seconds", 0.0)), None, progress_words(progress)
        )
        if progress.get("state") == "finished" or waited >= MOST_SECONDS:
            return await call("GET", job, None)
        await anyio.sleep(EVERY_SECONDS)
        waited += EVERY_SECONDS
