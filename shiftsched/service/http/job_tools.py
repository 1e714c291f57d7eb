"""The tools on queued jobs and on the account: HTTP reads (and a stop) without a body.

They are declared here, beside the pipeline's operations, so every face that lists the
tools (the MCP server, the front page) reads one registry: :func:`tool_names`.
"""

from __future__ import annotations

from dataclasses import dataclass

from shiftsched.service.http.operations import OPERATIONS


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


def tool_names() -> list[str]:
    """Every MCP tool's name: the operations' in the API's order, then the job tools'."""
    return [operation.tool.name for operation in OPERATIONS] + [t.name for t in JOB_TOOLS]
