"""A finished job's roster as a file to download: CSV, iCalendar or XLSX.

The file is written from the job's stored request and response (``shiftsched.present.export``); the
request is read by the parser the job names (a plan's body holds its request), or for a
synchronous call by its operation's (a re-plan's body holds its request too). Only the
signed-in account's own jobs are served, and a job without a roster is as absent as
another's job. A repeat is served from the cache of rendered files, and each account
may ask for a bounded number a minute (``shiftsched.service.dashboard.downloads``); the iCalendar
DTSTAMP is the job's last update, so a file is the same bytes whether cached or not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from starlette.requests import Request
from starlette.responses import Response

from shiftsched.checking.audit import read_response
from shiftsched.errors import InvalidRequest
from shiftsched.operations import by_name, named
from shiftsched.present.export import FILE_TYPES, Format, assignments_path, export, file_name
from shiftsched.service.dashboard.deps import deps_of
from shiftsched.service.dashboard.downloads import Rendered, downloads_of, too_many
from shiftsched.service.dashboard.web import error_page, signed_in
from shiftsched.service.solving.job_records import job_input, solved_request
from shiftsched.service.store import Job
from shiftsched.service.store.users import User
from shiftsched.service.threads import in_thread

FORMATS: Final[dict[str, Format]] = {fmt: fmt for fmt in FILE_TYPES}


def _parser(operation: str | None) -> Callable[[Any], Any] | None:
    """The parser of an operation's body, from its declaration (``shiftsched.operations``):
    a synchronous call's record names none. None for an operation none declares."""
    try:
        return cast(Callable[[Any], Any], named(by_name(operation or "").parser))
    except LookupError:
        return None


def roster_file(job: Job, fmt: Format) -> bytes | None:
    """The roster of a job's stored request and response as a file, or None when the
    response holds no roster (a failed or running job) or the stored bodies cannot be
    read."""
    response_json: Any = job.response_json
    try:
        request = solved_request(_job_input(job))
        assignments = read_response(response_json).assignments
        at = assignments_path(response_json)
        return export(request, assignments, fmt, at=at, stamp=job.updated_at)
    except (InvalidRequest, ValueError, TypeError):
        return None


def _job_input(job: Job) -> Any:
    """The job's body read by its parser: the one its record names (a queued job), else
    its operation's."""
    parse = _parser(job.operation) if job.parse is None else None
    return job_input(job) if parse is None else parse(job.request_json)


@signed_in
async def job_export(request: Request, user: User) -> Response:
    """``/jobs/{job_id}/export.{fmt}``: the job's roster as an attachment (own jobs only)."""
    refused = too_many(request, user)
    if refused is not None:
        return refused
    fmt = FORMATS.get(request.path_params["fmt"])
    job = None
    if fmt is not None:
        get_job = deps_of(request).store.jobs.get_job
        job = await in_thread(get_job, user.account_id, request.path_params["job_id"])
    data = None
    if fmt is not None and job is not None and job.status == "completed":
        data = await downloads_of(request).rendered(
            (job.id, job.updated_at.isoformat(), fmt), lambda: _rendered_file(job, fmt)
        )
    if fmt is None or job is None or data is None:
        message = "No roster to export: no finished job with this id belongs to your account."
        return error_page(request, 404, "Not found", message, user)
    headers = {
        "Content-Disposition": f'attachment; filename="{file_name(f"roster-{job.id}", fmt)}"',
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
    }
    return Response(data.body, media_type=FILE_TYPES[fmt].media_type, headers=headers)


def _rendered_file(job: Job, fmt: Format) -> Rendered | None:
    data = roster_file(job, fmt)
    return None if data is None else Rendered(data)
