"""The job page followed live: the job's event stream behind the dashboard's session, and
the page's search section alone, for the page's script (``static/job.js``) to swap in.

Why a stream of the dashboard's own: the API's ``GET /solve/jobs/{id}/events`` wants an
API key, which a browser signed in to the dashboard does not hold (and must not: a key
is shown once, to be kept by a script). ``/jobs/{job_id}/events`` finds the job as the
job page does (``job_page.load_job``: the signed-in account's or nothing) and answers
the API's very stream (``shiftsched.service.solving.job_events.event_stream``): the same
``progress`` events as the job changes, then ``end``.

Why the search section from the server: the charts are drawn here in Python
(``progress_chart``), for pages without script too; the script moves the figures from
the events at once and asks for the redrawn section now and then
(``/jobs/{job_id}/search``), so the charts are drawn in one place only.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from shiftsched.service.dashboard.deps import deps_of
from shiftsched.service.dashboard.job_page import NOT_YOURS, load_job, search_context
from shiftsched.service.dashboard.job_view import job_view
from shiftsched.service.dashboard.web import error_page, render, signed_in
from shiftsched.service.solving.job_events import event_stream
from shiftsched.service.store.users import User
from shiftsched.service.threads import in_thread


@signed_in
async def job_events(request: Request, user: User) -> Response:
    """``/jobs/{job_id}/events``: the account's job as server-sent events, to its end."""
    store = deps_of(request).store
    found = await in_thread(load_job, store, user.account_id, request.path_params["job_id"])
    if found is None:
        return error_page(request, 404, "Not found", NOT_YOURS, user)
    job, _ = found
    return event_stream(store, user.account_id, job)


@signed_in
async def job_search(request: Request, user: User) -> Response:
    """``/jobs/{job_id}/search``: the job page's search section (its charts and table)."""
    store = deps_of(request).store
    found = await in_thread(load_job, store, user.account_id, request.path_params["job_id"])
    if found is None:
        return error_page(request, 404, "Not found", NOT_YOURS, user)
    return render(request, "job_search.html", user=user, **search_context(job_view(*found)))
