"""The v1 public API as a Starlette app (mounted under /v1/public by the Bento).

Every request walks the same gate before any work: content type (415), size while
reading (413), JSON (400), credential (401/402), contract (422). Only then are units
reserved (429) and a solve started; units are captured when a roster (or a diagnosed
infeasibility) is delivered and released on every other outcome, so an error never
costs a unit. Every response carries ``X-Request-Id``; every error is problem+json: a
handler raises a :class:`~bento.http.errors.ServiceError` and the app's one handler answers it.

A large problem, or a time limit over 30 s, on a pro key takes the queued path instead:
the units are reserved, the job is recorded and enqueued (``bento.solving.jobs``) and the answer
is 202 with ``Retry-After``; the job settles its reservation once, when it ends.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import anyio
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Route

from bento.billing.admission import admit, hold_units
from bento.billing.paid import payment_header, payment_required, solve_paid
from bento.billing.payments.mpp_gateway import MppGateway
from bento.billing.payments.resettle import resettle_periodically
from bento.billing.payments.x402_gateway import X402Gateway
from bento.billing.settlement import (
    RECORD_JOB_LEASE_SECONDS,
    Lease,
    Outbox,
    Reconciler,
    outbox_folder,
)
from bento.http.blocking import in_thread
from bento.http.errors import (
    InternalError,
    MethodNotAllowed,
    NotFound,
    ServiceError,
    ServiceUnavailable,
    Unauthorized,
    ValidationFailed,
)
from bento.http.front import error_types_page
from bento.http.gate import REALM, RETRY_AFTER_UNAVAILABLE, bearer, json_body
from bento.http.openapi import openapi_document
from bento.http.planning_routes import recommend_route, replan_route
from bento.http.problems import API_ROOT, render, request_id, server_root, service_error
from bento.ops.logs import bound_request_id
from bento.runtime import open_queue, open_runtime
from bento.settings import Settings
from bento.solving.failures import SolveFailed, SolverBusy
from bento.solving.job_control import progress_response, stop_response
from bento.solving.jobs import RETRY_AFTER_SECONDS, JobQueue, failed_response
from bento.solving.outcome import (
    delivered,
    delivered_response,
    solve_in_pool,
    solvers_busy,
    undelivered,
)
from bento.solving.stopping import GracefulStop, take_sigterm
from bento.store import Account, Store, StoreUnavailable
from bento.store.identity import Identity
from engine.errors import InvalidRequest
from engine.rules import parse_request
from engine.size import units_for
from engine.validation import validate

_RETRY_RUNNING = {"Retry-After": str(RETRY_AFTER_SECONDS)}
PURGE_EVERY_SECONDS = 3600  # how often finished jobs past their retention are deleted

log = logging.getLogger(__name__)


async def _account(request: Request, *, paying: bool, data: Any = None) -> Account:
    """The caller's account; PaymentRequired (paying operations) or Unauthorized when
    there is none."""
    store: Store = request.app.state.store
    key = bearer(request)
    if key is None:
        if paying:
            raise payment_required(request, data)
        raise Unauthorized("API key required", headers={"WWW-Authenticate": f"Bearer {REALM}"})
    account = await in_thread(store.authenticate, key)
    if account is None:
        raise Unauthorized(
            "the API key is unknown or disabled",
            headers={"WWW-Authenticate": f'Bearer {REALM}, error="invalid_token"'},
        )
    return account


# ------------------------------------------------------------------------- operations


async def validate_route(request: Request) -> Response:
    data = await json_body(request)
    try:
        response = validate(data)
    except InvalidRequest as exc:
        raise ValidationFailed(exc.errors) from None
    return JSONResponse(response.model_dump(mode="json", exclude_none=True))


async def solve_route(request: Request) -> Response:
    data = await json_body(request)
    payment = payment_header(request)
    if payment is not None:
        return await solve_paid(request, data, payment)
    account = await _account(request, paying=True, data=data)
    try:
        solve_request = parse_request(data)
    except InvalidRequest as exc:
        raise ValidationFailed(exc.errors) from None
    admitted = admit(solve_request, may_queue=account.tier == "pro")
    if admitted.queued:
        return await _enqueue(request, account, data, admitted.size)
    return await _solve_now(request, account, data, admitted.size, admitted.time_limit)


async def _solve_now(
    request: Request, account: Account, data: Any, size: int, time_limit: float
) -> Response:
    store: Store = request.app.state.store
    units = units_for(size)
    reservation_id = uuid.uuid4().hex
    job_id = uuid.uuid4().hex
    lease = Lease(store, reservation_id, request.app.state.settings, time_limit)
    async with hold_units(
        store,
        account.id,
        units,
        reservation_id,
        lease_seconds=lease.seconds,
        purpose="solve",
        sync_job_id=job_id,
    ):
        await _keep(request, account, data, size, units, reservation_id, job_id)
        try:
            result = await solve_in_pool(request, data, time_limit, lease.renew)
        except SolverBusy as busy:
            raise solvers_busy(busy, "nothing was charged") from None
        except SolveFailed as exc:
            raise InternalError(f"{exc}; nothing was charged") from None
    result["job_id"] = job_id
    response = await _deliver(request, account, result, reservation_id, units)
    if result["status"] == "completed" and time.monotonic() >= request.app.state.next_purge:
        request.app.state.next_purge = time.monotonic() + PURGE_EVERY_SECONDS  # after the answer
        store, settings = request.app.state.store, request.app.state.settings
        response.background = BackgroundTask(in_thread, _purge, store, settings)
    return response


async def _keep(
    request: Request,
    account: Account,
    data: Any,
    size: int,
    units: int,
    reservation_id: str,
    job_id: str,
) -> None:
    """Record the synchronous solve as a running job holding its reservation, before it
    solves: every charge then traces to a job, a crash leaves a record the reconciler
    settles once the lease runs out (``bento.billing.settlement``), and the delivered answer is
    kept under the same id, so its ``job_id`` can be polled for the retention time like
    a queued job's. A store that fails here fails the request (503, nothing charged)."""
    store: Store = request.app.state.store
    await in_thread(
        store.create_job,
        account.id,
        data,
        units_reserved=units,
        reservation_id=reservation_id,
        key_id=account.key_id,
        size=size,
        kind="sync",
        job_id=job_id,
    )


def _purge(store: Store, settings: Settings) -> int:
    """Forget finished jobs past their retention (at start, then at most hourly)."""
    cutoff = datetime.now(UTC) - timedelta(days=settings.job_retention_days)
    return store.purge_finished_jobs(cutoff)


async def _enqueue(request: Request, account: Account, data: Any, size: int) -> Response:
    """The queued path: hold the units (QuotaExceeded if short), record the job, enqueue
    it, 202."""
    store: Store = request.app.state.store
    units = units_for(size)
    queue: JobQueue = request.app.state.jobs
    reservation_id = "job-" + uuid.uuid4().hex
    lease, purpose = RECORD_JOB_LEASE_SECONDS, "job"  # until the job row holds it
    async with hold_units(
        store, account.id, units, reservation_id, lease_seconds=lease, purpose=purpose
    ):
        job = await in_thread(
            store.create_job,
            account.id,
            data,
            units_reserved=units,
            reservation_id=reservation_id,
            key_id=account.key_id,
            size=size,
        )
    try:
        await in_thread(queue.enqueue, job.id)
    except Exception:
        message = "the job queue is unreachable; nothing was charged"
        await in_thread(
            store.finish_job,
            job.id,
            "failed",
            response_json=failed_response(job.id, "internal_error", message),
            error_code="internal_error",
        )
        raise ServiceUnavailable(message, retry_after=RETRY_AFTER_UNAVAILABLE) from None
    return JSONResponse(job.as_response(), status_code=202, headers=_RETRY_RUNNING)


async def _deliver(
    request: Request, account: Account, result: Any, reservation_id: str, units: int
) -> Response:
    """End the solve's job and settle its units together: captured when delivered (a
    roster, or a diagnosed infeasibility), else the record is forgotten and the units
    released. A store that fails now never withholds a delivered answer: the headers say
    billing failed, the end is kept in the outbox and written (and the units captured)
    once the store is back; no units remaining are claimed then, since none are known
    (docs/semantics.md, "When a solve is charged")."""
    store: Store = request.app.state.store
    job_id = result["job_id"]
    if not delivered(result):
        await in_thread(store.abandon_sync_job, job_id)
        await in_thread(store.release, reservation_id)  # a hold whose record is missing
        raise undelivered(result)
    status: Literal["completed", "failed"] = (
        "completed" if result["status"] == "completed" else "failed"
    )
    code = None if status == "completed" else (result.get("error") or {}).get("code")
    headers = {"X-Units-Consumed": str(units)}
    try:
        _, _, remaining = await in_thread(store.usage, account.id)  # the units are held
        if status == "completed":
            result["usage"] = {"units_consumed": units, "units_remaining": remaining}
        ended = await in_thread(
            store.finish_job, job_id, status, response_json=result, error_code=code, charged=True
        )
        if not ended:  # the lease ran out first: the reconciler released the units
            log.warning("job %s: delivered after its lease; not charged", job_id)
            _, _, remaining = await in_thread(store.usage, account.id)
            headers["X-Units-Consumed"] = "0"
            if status == "completed":
                result["usage"] = {"units_consumed": 0, "units_remaining": remaining}
        headers["X-Units-Remaining"] = str(remaining)
    except StoreUnavailable:
        result.pop("usage", None)
        outbox: Outbox = request.app.state.outbox
        kept = await in_thread(outbox.put, job_id, status, result, error_code=code, charged=True)
        if not kept:  # the lease will release the units: nothing is consumed
            headers["X-Units-Consumed"] = "0"
        headers["X-Service-Billing-Status"] = "failed"
    return delivered_response(request, result, headers)


async def job_route(request: Request) -> Response:
    account = await _account(request, paying=False)
    store: Store = request.app.state.store
    job = await in_thread(store.get_job, account.id, request.path_params["id"])
    if job is None:
        raise NotFound("no job with this id belongs to your account")
    headers = _RETRY_RUNNING if job.status == "running" else None
    return JSONResponse(job.as_response(), headers=headers)


async def job_progress_route(request: Request) -> Response:
    return await progress_response(request, await _account(request, paying=False))


async def stop_job_route(request: Request) -> Response:
    return await stop_response(request, await _account(request, paying=False))


async def usage_route(request: Request) -> Response:
    account = await _account(request, paying=False)
    store: Store = request.app.state.store
    free, balance, available = await in_thread(store.usage, account.id)
    return JSONResponse(
        {"free_quota_remaining": free, "balance_units": balance, "available_units": available}
    )


async def openapi_route(request: Request) -> Response:
    return JSONResponse(openapi_document(server_root(request) + API_ROOT))


def _unrouted(request: Request) -> NotFound | MethodNotAllowed:
    """Unknown path: 404; known path with another method: 405 with Allow."""
    allowed = sorted(
        method
        for route in request.app.routes
        if isinstance(route, Route)
        and route.endpoint is not not_found
        and route.matches(request.scope)[0] == Match.PARTIAL
        for method in route.methods or ()
    )
    if allowed:
        return MethodNotAllowed(f"{request.method} is not supported here", allowed)
    return NotFound(f"no operation at {request.url.path}")


async def not_found(request: Request) -> Response:
    """The catch-all route: every path no operation matched."""
    raise _unrouted(request)


async def routing_error(request: Request, exc: Exception) -> Response:
    """Starlette's own 404/405 (a path no route pattern accepts, e.g. with a newline in it)
    answer problem+json like every other error; anything else is a bug."""
    if isinstance(exc, HTTPException) and exc.status_code in (404, 405):
        return render(request, _unrouted(request))
    return await internal_error(request, exc)


async def store_unavailable(request: Request, exc: Exception) -> Response:
    """The account store cannot be reached: 503, before anything was charged."""
    detail = "the account store is unreachable; nothing was charged"
    log.warning("%s: %s", detail, exc, extra={"request_id": request_id(request)})
    return render(request, ServiceUnavailable(detail, retry_after=RETRY_AFTER_UNAVAILABLE))


async def internal_error(request: Request, exc: Exception) -> Response:
    """Last resort: a bug answers problem+json 500, never a traceback (it is logged, with
    the request id the answer names; this handler runs outside the id's middleware)."""
    log.error("unexpected error", exc_info=exc, extra={"request_id": request_id(request)})
    return render(request, InternalError("an unexpected error occurred"))


# -------------------------------------------------------------------------------- app


def create_app(settings: Settings | None = None) -> Starlette:
    """The public API app; its lifespan opens the store, the demo account and the pool."""
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        runtime = open_runtime(settings)
        store, pool = runtime.store, runtime.pool
        Identity(store).purge_expired()
        _purge(store, settings)
        app.state.next_purge = time.monotonic() + PURGE_EVERY_SECONDS
        _, key = store.ensure_demo_account(settings.demo_api_key)
        if key is not None:
            print(f"Demo account ready. API key (shown once): {key}", flush=True)
        app.state.store = store
        app.state.settings = settings
        app.state.outbox = Outbox(outbox_folder(settings))
        reconciler = Reconciler(store, app.state.outbox)
        app.state.errors_base = settings.errors_base
        app.state.pool = pool
        # Threads for synchronous solves: one per process plus the waiting line.
        app.state.solve_line = anyio.CapacityLimiter(
            settings.solve_processes + max(0, settings.solve_queue_length)
        )
        queue = JobQueue(open_queue(settings), lambda: runtime)
        app.state.jobs = queue
        interrupted = queue.recover(store)
        if interrupted:
            print(f"{len(interrupted)} job(s) left running earlier marked interrupted", flush=True)
        if settings.jobs_consumer:
            queue.start_consumer(settings.job_threads)
        gateways = [g for g in (app.state.x402, app.state.mpp) if g is not None]
        for gateway in gateways:
            await gateway.http.open()
        reconciler.start()  # settles stale holds at start, then every few seconds
        resettling = asyncio.create_task(resettle_periodically(store, gateways))
        app.state.stop = GracefulStop(pool, queue.stop_taking_jobs, settings.shutdown_grace_seconds)
        take_sigterm(app.state.stop)  # served: SIGTERM stops gracefully (bento.solving.stopping)
        try:
            yield
        finally:
            resettling.cancel()
            with suppress(asyncio.CancelledError):
                await resettling
            for gateway in gateways:
                await gateway.http.aclose()
            await in_thread(queue.stop_consumer, store)
            reconciler.stop()
            pool.close()
            store.close()

    app = Starlette(
        routes=[
            Route("/solve/validate", validate_route, methods=["POST"]),
            Route("/solve", solve_route, methods=["POST"]),
            Route("/solve/replan", replan_route, methods=["POST"]),
            Route("/solve/recommend", recommend_route, methods=["POST"]),
            Route("/solve/jobs/{id}", job_route, methods=["GET"]),
            Route("/solve/jobs/{id}", stop_job_route, methods=["DELETE"]),
            Route("/solve/jobs/{id}/progress", job_progress_route, methods=["GET"]),
            Route("/usage", usage_route, methods=["GET"]),
            Route("/openapi.json", openapi_route, methods=["GET"]),
            Route("/errors/", error_types_page, methods=["GET"]),
            Route("/errors/{slug}", error_types_page, methods=["GET"]),
            Route(
                "/{path:path}",
                not_found,
                methods=["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"],
            ),
        ],
        lifespan=lifespan,
        exception_handlers={
            ServiceError: service_error,
            StoreUnavailable: store_unavailable,
            HTTPException: routing_error,
            Exception: internal_error,
        },
    )
    app.state.x402 = X402Gateway(settings.x402) if settings.x402 else None
    app.state.mpp = MppGateway(settings.mpp) if settings.mpp else None
    app.add_middleware(_RequestIdMiddleware)
    return app


class _RequestIdMiddleware:
    """A request id on every request (state), every response (X-Request-Id) and every
    line logged while the request is served (``bento.ops.logs``)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = rid

        async def send_with_id(message: Any) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", []).append((b"x-request-id", rid.encode()))
            await send(message)

        with bound_request_id(rid):
            await self.app(scope, receive, send_with_id)
