"""The v1 public API as a Starlette app (mounted under /v1/public by the Bento).

Every request walks the same gate before any work: content type (415), size while
reading (413), JSON (400), credential (401/402), contract (422). Only then are units
reserved (429) and a solve started; units are captured when a roster (or a diagnosed
infeasibility) is delivered and released on every other outcome, so an error never
costs a unit. Every response carries ``X-Request-Id``; every error is problem+json: a
handler raises a :class:`~shiftsched.service.errors.ServiceError` and the app's one handler
answers it.

A large problem, or a time limit over 30 s, on a pro key takes the queued path instead:
the units are reserved, the job is recorded and enqueued (``shiftsched.service.solving.jobs``) and
the answer is 202 with ``Retry-After``, ``Location`` (the job) and ``Link`` (its progress and its
stop); the job settles its reservation once, when it ends. Every other call paid with a key is
kept as a job too, so ``GET /solve/jobs/{id}`` answers the job_id of any charged answer.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import timedelta
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Route

from shiftsched.service.billing.payments.mpp_gateway import MppGateway
from shiftsched.service.billing.payments.resettle import resettle_periodically
from shiftsched.service.billing.payments.x402_gateway import X402Gateway
from shiftsched.service.billing.settlement import Outbox, Reconciler, outbox_folder
from shiftsched.service.billing.units import PURGE_EVERY_SECONDS, purge
from shiftsched.service.errors import (
    InternalError,
    MethodNotAllowed,
    NotFound,
    ServiceError,
    ServiceUnavailable,
)
from shiftsched.service.http.front import error_types_page
from shiftsched.service.http.gate import RETRY_AFTER_UNAVAILABLE
from shiftsched.service.http.not_found import api_not_found
from shiftsched.service.http.openapi import openapi_document
from shiftsched.service.http.operations import OPERATIONS
from shiftsched.service.http.pipeline import account_for, endpoint
from shiftsched.service.http.problems import (
    API_ROOT,
    record_public_url,
    render,
    request_id,
    server_root,
    service_error,
)
from shiftsched.service.http.rate_limits import RateLimits, rate_limits_of
from shiftsched.service.http.webhook_routes import webhook_routes
from shiftsched.service.ops.demo import announce_demo
from shiftsched.service.ops.logs import bound_request_id
from shiftsched.service.settings import Settings
from shiftsched.service.solving.job_control import progress_response, stop_response
from shiftsched.service.solving.job_events import events_response
from shiftsched.service.solving.jobs import RETRY_AFTER_SECONDS, JobQueue
from shiftsched.service.solving.light import LightPool
from shiftsched.service.solving.runtime import open_queue, open_runtime
from shiftsched.service.solving.stopping import GracefulStop, take_sigterm
from shiftsched.service.store import Store, StoreUnavailable
from shiftsched.service.threads import in_thread
from shiftsched.service.webhooks.sender import send_periodically

_RETRY_RUNNING = {"Retry-After": str(RETRY_AFTER_SECONDS)}

log = logging.getLogger(__name__)


# ------------------------------------------------------------------------- operations


async def job_route(request: Request) -> Response:
    account = await account_for(request)
    store: Store = request.app.state.store
    job = await in_thread(store.jobs.get_job, account.id, request.path_params["id"])
    if job is None:
        raise NotFound("no job with this id belongs to your account")
    headers = _RETRY_RUNNING if job.status == "running" else None
    return JSONResponse(job.as_response(), headers=headers)


async def job_progress_route(request: Request) -> Response:
    return await progress_response(request, await account_for(request))


async def job_events_route(request: Request) -> Response:
    return await events_response(request, await account_for(request))


async def stop_job_route(request: Request) -> Response:
    return await stop_response(request, await account_for(request))


async def usage_route(request: Request) -> Response:
    account = await account_for(request)
    store: Store = request.app.state.store
    free, balance, available = await in_thread(store.ledger.usage, account.id)
    return JSONResponse(
        {"free_quota_remaining": free, "balance_units": balance, "available_units": available}
    )


async def index_route(request: Request) -> Response:
    """The API root: where the reference lives and every operation, so a client (or a
    person following the README) that opens it finds its way instead of a 404."""
    base = server_root(request) + API_ROOT
    return JSONResponse(
        {
            "service": "shiftsched",
            "openapi": base + "/openapi.json",
            "errors": base + "/errors/",
            "front_page": server_root(request) + "/",
            "operations": [
                {"method": "POST", "path": API_ROOT + op.path, "summary": op.docs.summary}
                for op in OPERATIONS
            ],
        }
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
    return api_not_found(request)


async def not_found(request: Request) -> Response:
    """The catch-all route: every path no operation matched (counted against the
    client address's rate limit, as every call without a key is)."""
    await rate_limits_of(request).check_address(request, "a path nothing serves")
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


def _purge_expired(store: Store, settings: Settings) -> None:
    """At start: sessions, parked requests, codes, tokens and idempotency keys past their
    expiry (paid answers kept for retries included), and finished jobs past their
    retention."""
    store.sessions.purge_expired()
    store.authorizations.purge_expired()
    store.tokens.purge_expired()
    store.idempotency.purge_expired()
    store.payments.purge_paid_answers(timedelta(hours=settings.idempotency_ttl_hours))
    purge(store, settings)


def _background_tasks(
    store: Store, settings: Settings, gateways: list[Any]
) -> list[asyncio.Task[None]]:
    """What runs beside the app: payments settled again, and the webhooks' sender."""
    tasks = [asyncio.create_task(resettle_periodically(store, gateways))]
    if settings.webhook_every_seconds is not None:
        tasks.append(asyncio.create_task(send_periodically(store, settings)))
    return tasks


def create_app(settings: Settings | None = None) -> Starlette:
    """The public API app; its lifespan opens the store, the demo account and the pool."""
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        runtime = open_runtime(settings)
        store, pool = runtime.store, runtime.pool
        _purge_expired(store, settings)
        app.state.next_purge = time.monotonic() + PURGE_EVERY_SECONDS
        announce_demo(store, settings)  # prints the demo key and sign-in when made now
        app.state.store = store
        app.state.settings = settings
        app.state.outbox = Outbox(outbox_folder(settings))
        reconciler = Reconciler(store, app.state.outbox)
        app.state.errors_base = settings.errors_base
        app.state.pool = pool
        _open_lines(app, settings)
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
        beside = _background_tasks(store, settings, gateways)
        app.state.stop = GracefulStop(pool, queue.stop_taking_jobs, settings.shutdown_grace_seconds)
        take_sigterm(
            app.state.stop
        )  # served: SIGTERM stops gracefully (shiftsched.service.solving.stopping)
        try:
            yield
        finally:
            for task in beside:
                task.cancel()
                with suppress(asyncio.CancelledError):
                    await task
            for gateway in gateways:
                await gateway.http.aclose()
            await in_thread(queue.stop_consumer, store)
            reconciler.stop()
            app.state.light_pool.close()
            pool.close()
            store.close()

    app = Starlette(
        routes=[
            *(Route(op.path, endpoint(op), methods=["POST"]) for op in OPERATIONS),
            Route("/solve/jobs/{id}", job_route, methods=["GET"]),
            Route("/solve/jobs/{id}", stop_job_route, methods=["DELETE"]),
            Route("/solve/jobs/{id}/progress", job_progress_route, methods=["GET"]),
            Route("/solve/jobs/{id}/events", job_events_route, methods=["GET"]),
            Route("/usage", usage_route, methods=["GET"]),
            *webhook_routes(),
            Route("/", index_route, methods=["GET"]),
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
    _configure(app, settings)
    return app


def _open_lines(app: Starlette, settings: Settings) -> None:
    """Where runs wait: threads for synchronous solves (one per process plus the waiting
    line), and the light processes for work that solves nothing, apart from the solvers."""
    app.state.solve_line = anyio.CapacityLimiter(
        settings.solve_processes + max(0, settings.solve_queue_length)
    )
    app.state.light_pool = LightPool(settings.light_processes, settings.light_queue_length)
    if settings.light_prestart:
        app.state.light_pool.prestart()


def _configure(app: Starlette, settings: Settings) -> None:
    """What the app holds from its creation on (before its lifespan): where its links
    point, its rate limits, its payment gateways, and its middleware."""
    record_public_url(app, settings.public_url)  # links: from PUBLIC_URL, never from Host
    app.state.rate_limits = RateLimits(
        anonymous=settings.anonymous_rate_limit,
        keyed=settings.key_rate_limit,
        storage_uri=settings.rate_limit_storage or settings.sign_in_limit_storage,
        trusted_hops=settings.trusted_proxy_hops,
    )
    app.state.x402 = X402Gateway(settings.x402) if settings.x402 else None
    app.state.mpp = MppGateway(settings.mpp) if settings.mpp else None
    app.add_middleware(_LastResort)  # inside the id's middleware: a 500 names its request
    app.add_middleware(_RequestIdMiddleware)


class _HttpMiddleware(ABC):
    """ASGI middleware that acts on HTTP requests (:meth:`handle`) and lets every other
    kind of scope (the lifespan) through as it is."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    @abstractmethod
    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        """Serve one HTTP request."""


class _LastResort(_HttpMiddleware):
    """A bug answers problem+json 500 here, inside the app, and is not raised further.

    Starlette's outermost error middleware answers a bug too, but then raises it again to
    the server, which closes the connection: the client's next request on that
    connection would be reset. Caught here, the connection stays open like after any
    other answer. Once an answer has begun, nothing can be said any more: raised on."""

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        started = False

        async def tracked(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            if started:
                raise
            response = await internal_error(Request(scope, receive), exc)
            await response(scope, receive, send)


class _RequestIdMiddleware(_HttpMiddleware):
    """A request id on every request (state), every response (X-Request-Id) and every
    line logged while the request is served (``shiftsched.service.ops.logs``)."""

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        rid = uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = rid

        async def send_with_id(message: Any) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", []).append((b"x-request-id", rid.encode()))
            await send(message)

        with bound_request_id(rid):
            await self.app(scope, receive, send_with_id)
