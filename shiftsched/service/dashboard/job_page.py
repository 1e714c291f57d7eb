"""One job's pages: where it stands (live while it runs), its Stop button, and its roster
as a sheet to print.

Why a page that follows itself: while the job runs, the page's script (``static/job.js``)
reads the job's event stream and moves the figures and charts in place
(``shiftsched.service.dashboard.job_live``); without script, or when the stream fails,
the page is read again every few seconds instead (a ``<meta http-equiv="refresh">``
inside ``<noscript>``, or the script's own reload). Neither is there once the job has
ended, so a finished page stays still. Stop asks for the same stop as the API's ``DELETE``
(``shiftsched.service.solving.job_control.request_stop``). Only the signed-in account's own jobs are
shown; another account's job is as absent as one that never was.
"""

from __future__ import annotations

from typing import Any, Final

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from shiftsched.service.dashboard.deps import DashboardDeps, deps_of
from shiftsched.service.dashboard.downloads import Rendered, downloads_of, too_many
from shiftsched.service.dashboard.job_view import JobView, job_view
from shiftsched.service.dashboard.progress_chart import (
    TracePoint,
    gap_chart,
    objective_chart,
    trace_of,
)
from shiftsched.service.dashboard.roster_print import roster_sheet
from shiftsched.service.dashboard.web import (
    csrf_failed,
    error_page,
    form_with_csrf,
    go,
    render,
    signed_in,
)
from shiftsched.service.solving.job_control import request_stop
from shiftsched.service.store import Job, Reservation, Store
from shiftsched.service.store.users import User
from shiftsched.service.threads import in_thread

REFRESH_SECONDS: Final = 2  # while a job runs
STOPPING_REFRESH_SECONDS: Final = 1  # a stopped job ends within about a second
NOT_YOURS: Final = "No job with this id belongs to your account."


def load_job(store: Store, account_id: str, job_id: str) -> tuple[Job, Reservation | None] | None:
    """The account's job with its ledger hold, or None when it is not the account's."""
    job = store.jobs.get_job(account_id, job_id)
    if job is None:
        return None
    hold = None if job.reservation_id is None else store.ledger.get_reservation(job.reservation_id)
    return job, hold


@signed_in
async def job_page(request: Request, user: User) -> Response:
    """``/jobs/{job_id}``: status, request, units, live progress, Stop, the outcome."""
    store = deps_of(request).store
    found = await in_thread(load_job, store, user.account_id, request.path_params["job_id"])
    if found is None:
        return error_page(request, 404, "Not found", NOT_YOURS, user)
    view = job_view(*found)
    return render(
        request,
        "job.html",
        user=user,
        page="jobs",  # the navigation's current page
        view=view,
        job=view.job,
        figures=view.figures,
        refresh_seconds=_refresh_seconds(view),
        **search_context(view),
    )


def search_context(view: JobView) -> dict[str, Any]:
    """What ``job_search.html`` draws: the trace as a table and its two charts."""
    points = trace_of(view.job.progress, _final_point(view))
    now = max([view.figures.elapsed_seconds, *(p.seconds for p in points)])
    return {
        "points": points,
        "objective_chart": objective_chart(points, now),
        "gap_chart": gap_chart(points, now),
    }


@signed_in
async def stop_job(request: Request, user: User) -> Response:
    """POST ``/jobs/{job_id}/stop``: ask the job to stop, then show its page."""
    form = await form_with_csrf(request)
    if form is None:
        return csrf_failed(request, user)
    job_id = request.path_params["job_id"]
    stopped = await in_thread(request_stop, deps_of(request).store, user.account_id, job_id)
    if stopped is None:
        return error_page(request, 404, "Not found", NOT_YOURS, user)
    return go(request, f"/jobs/{job_id}")


@signed_in
async def roster_page(request: Request, user: User) -> Response:
    """``/jobs/{job_id}/roster``: a completed job's roster as a sheet to print. The sheet
    is rendered once per job and kept; only the page around it is rendered each time."""
    refused = too_many(request, user)
    if refused is not None:
        return refused
    deps = deps_of(request)
    job = await in_thread(deps.store.jobs.get_job, user.account_id, request.path_params["job_id"])
    sheet = None
    if job is not None:
        root = str(request.scope.get("root_path", ""))
        key = (job.id, job.updated_at.isoformat(), "print", root)
        sheet = await downloads_of(request).rendered(key, lambda: _sheet_html(deps, job, root))
    if job is None or sheet is None:
        message = "No roster to show: no finished job with this id belongs to your account."
        return error_page(request, 404, "Not found", message, user)
    sheet_html = Markup(sheet.body.decode())  # rendered (and escaped) by roster_sheet.html
    return render(
        request, "roster.html", user=user, page="jobs", title=sheet.title, sheet_html=sheet_html
    )


def _sheet_html(deps: DashboardDeps, job: Job, root: str) -> Rendered | None:
    """The print sheet of ``job`` as HTML (``roster_sheet.html``), titled, or None."""
    sheet = roster_sheet(job)
    if sheet is None:
        return None
    template = deps.templates.get_template("roster_sheet.html")
    html = template.render(root=root, job=job, sheet=sheet)
    return Rendered(html.encode(), sheet.title)


def _final_point(view: JobView) -> TracePoint | None:
    """An ended job's own figures (its answer's, for a completed one), closing the trace."""
    if view.phase != "finished":
        return None
    figures = view.figures
    return TracePoint(figures.elapsed_seconds, figures.objective, figures.bound)


def _refresh_seconds(view: JobView) -> int | None:
    if view.phase == "finished":
        return None
    return STOPPING_REFRESH_SECONDS if view.phase == "stopping" else REFRESH_SECONDS
