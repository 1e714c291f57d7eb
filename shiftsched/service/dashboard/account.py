"""The signed-in account's pages: API keys, usage, jobs, connected apps and tier.

Each takes the signed-in user from ``signed_in`` and reads only that user's account, so
one account never sees another's keys, jobs or apps.
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shiftsched.service.dashboard.charts import units_chart
from shiftsched.service.dashboard.deps import deps_of
from shiftsched.service.dashboard.jobs_page import (
    STATUSES,
    operation_words,
    page_links,
    read_query,
    roster_operations,
    row_status,
)
from shiftsched.service.dashboard.web import (
    csrf_failed,
    error_page,
    form_with_csrf,
    go,
    render,
    signed_in,
)
from shiftsched.service.store.users import User
from shiftsched.service.threads import in_thread

TIER_FEATURES: Final = {
    "basic": "Synchronous solves of problems up to size 80,000, within 30 seconds.",
    "pro": "Everything in basic, plus queued solves of large problems and time limits "
    "up to 300 seconds.",
}


@signed_in
async def keys(request: Request, user: User) -> Response:
    """The list of keys; a POST creates one and shows it this once."""
    if request.method == "GET":
        return await _keys_page(request, user)
    form = await form_with_csrf(request)
    if form is None:
        return csrf_failed(request, user)
    created = await in_thread(
        deps_of(request).store.account_view.create_key, user.account_id, form.get("label")
    )
    return await _keys_page(request, user, new_key=created)


@signed_in
async def disable_key(request: Request, user: User) -> Response:
    form = await form_with_csrf(request)
    if form is None:
        return csrf_failed(request, user)
    key_id = request.path_params["key_id"]
    await in_thread(deps_of(request).store.account_view.disable_key, user.account_id, key_id)
    return go(request, "/keys")


@signed_in
async def usage(request: Request, user: User) -> Response:
    view = deps_of(request).store.account_view
    account = await in_thread(view.account, user.account_id)
    days = await in_thread(view.units_per_day, user.account_id)
    return render(
        request,
        "usage.html",
        user=user,
        account=account,
        days=days,
        chart=units_chart(days),
        total=sum(units for _, units in days),
    )


@signed_in
async def jobs(request: Request, user: User) -> Response:
    """The account's jobs, newest first, a page at a time, filtered by the query."""
    deps = deps_of(request)
    keys = await in_thread(deps.store.account_view.keys, user.account_id)
    query = read_query(request.query_params, {key.id for key in keys})
    listing = await in_thread(deps.store.job_list.page, user.account_id, query.where, query.page)
    newer, older = page_links(query, listing)
    return render(
        request,
        "jobs.html",
        user=user,
        listing=listing,
        query=query,
        keys=keys,
        statuses=STATUSES,
        operations=operation_words(),
        status_of=row_status,
        with_roster=roster_operations(),
        charged=sum(row.charged for row in listing.rows),
        newer=newer,
        older=older,
        retention_days=f"{deps.settings.job_retention_days:g}",
    )


@signed_in
async def job_result(request: Request, user: User) -> Response:
    """A job's answer, as the API would answer a poll (own jobs only)."""
    job_id = request.path_params["job_id"]
    store = deps_of(request).store
    job = await in_thread(store.jobs.get_job, user.account_id, job_id)
    if job is None:
        message = "No job with this id belongs to your account."
        return error_page(request, 404, "Not found", message, user)
    download = {"Content-Disposition": f'inline; filename="{job.id}.json"'}
    return JSONResponse(job.as_response(), headers={**download, "Cache-Control": "no-store"})


@signed_in
async def apps(request: Request, user: User) -> Response:
    connections = deps_of(request).store.connections
    connected = await in_thread(connections.of_account, user.account_id)
    return render(request, "apps.html", user=user, connections=connected)


@signed_in
async def revoke_app(request: Request, user: User) -> Response:
    form = await form_with_csrf(request)
    if form is None:
        return csrf_failed(request, user)
    revoke = deps_of(request).store.connections.revoke_connection
    await in_thread(revoke, user.account_id, request.path_params["app_id"])
    return go(request, "/apps")


@signed_in
async def tier(request: Request, user: User) -> Response:
    view = deps_of(request).store.account_view
    account = await in_thread(view.account, user.account_id)
    return render(request, "tier.html", user=user, account=account, features=TIER_FEATURES)


async def _keys_page(request: Request, user: User, **extra: Any) -> Response:
    view = deps_of(request).store.account_view
    listed = await in_thread(view.keys, user.account_id)
    welcome = request.query_params.get("welcome") == "1"
    return render(request, "keys.html", user=user, keys=listed, welcome=welcome, **extra)
