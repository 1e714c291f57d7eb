"""POST /solve/replan and POST /solve/recommend: changing a published roster.

Both walk the gate of ``POST /solve`` in its order: body (415, 413, 400), credential,
contract (422 with ``errors[]`` paths from :mod:`engine.planning`), then units (429).
They take an API key only: a payment (x402, mpp) buys one solve of ``POST /solve``, so a
request without a key is 401 with a Bearer challenge, as on ``GET /usage``, not the 402
offer, which would offer ways to pay that these operations do not take.

Units (docs/semantics.md, "Size and units"):

- a re-plan is a solve of its ``request``: it costs what that solve costs and is charged
  when it is *delivered*, exactly as ``POST /solve`` (a roster, or 422
  ``solver-infeasible`` with a diagnosis naming the absences and pins in conflict). It
  runs synchronously only, on any tier, in the solve pool and its waiting line (503 when
  every process stays busy): with the request's time limit, at most 30 s (a re-plan
  starts from the published roster, so it has a roster early); a large request is 422
  ``tier-limit-exceeded``, since large problems are solved on the queued path only. A
  re-plan is not kept, so its ``job_id`` cannot be polled.
- a recommendation runs no solver (milliseconds, on any request size): a flat
  :data:`RECOMMEND_UNITS`, charged when the ranking is delivered.
"""

from __future__ import annotations

import uuid
from functools import partial
from typing import Any, Final

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from bento.billing.admission import SYNC_TIME_LIMIT_SECONDS, Admission, hold_units
from bento.billing.settlement import Outbox, sync_lease_seconds
from bento.http.blocking import in_thread
from bento.http.errors import InternalError, TierLimitExceeded, Unauthorized, ValidationFailed
from bento.http.gate import REALM, bearer, json_body
from bento.ops import metrics
from bento.settings import Settings
from bento.solving.failures import SolveFailed, SolverBusy
from bento.solving.outcome import delivered, delivered_response, solvers_busy, undelivered
from bento.solving.planning_worker import replan_in_worker
from bento.solving.workers import SolvePool
from bento.store import Account, Store, StoreUnavailable
from engine.contract import SolveRequest
from engine.errors import InvalidRequest
from engine.planning import parse_recommend, parse_replan
from engine.recommend import recommend
from engine.size import LARGE_SIZE_THRESHOLD, request_size, size_class

RECOMMEND_UNITS: Final = 1
RECOMMEND_LEASE_SECONDS: Final = 60.0
"""A recommendation's hold: it runs no solver (milliseconds), so a minute is ample."""


async def replan_route(request: Request) -> Response:
    data = await json_body(request)
    account = await _key_account(request)
    try:
        ask = parse_replan(data)
    except InvalidRequest as exc:
        raise ValidationFailed(exc.errors) from None
    admitted = _admit(ask.request)
    store: Store = request.app.state.store
    reservation_id = uuid.uuid4().hex
    settings: Settings = request.app.state.settings
    lease = sync_lease_seconds(settings, admitted.time_limit)  # as a synchronous solve's
    async with hold_units(
        store, account.id, admitted.units, reservation_id, lease_seconds=lease, purpose="replan"
    ):
        try:
            result = await _replan_in_pool(request, data, admitted.time_limit)
        except SolverBusy as busy:
            raise solvers_busy(busy, "nothing was charged") from None
        except SolveFailed as exc:
            raise InternalError(f"{exc}; nothing was charged") from None
    if not delivered(result):
        await in_thread(store.release, reservation_id)
        raise undelivered(result)
    headers, remaining = await _capture(request, account, reservation_id, admitted.units)
    if result["status"] == "completed" and remaining is not None:
        consumed = int(headers["X-Units-Consumed"])
        result["usage"] = {"units_consumed": consumed, "units_remaining": remaining}
    return delivered_response(request, result, headers)


async def recommend_route(request: Request) -> Response:
    data = await json_body(request)
    account = await _key_account(request)
    try:
        ask = parse_recommend(data)
    except InvalidRequest as exc:
        raise ValidationFailed(exc.errors) from None
    store: Store = request.app.state.store
    reservation_id = uuid.uuid4().hex
    lease = RECOMMEND_LEASE_SECONDS
    async with hold_units(
        store, account.id, RECOMMEND_UNITS, reservation_id, lease_seconds=lease, purpose="recommend"
    ):
        answer = await in_thread(recommend, ask)
    headers, _ = await _capture(request, account, reservation_id, RECOMMEND_UNITS)
    return JSONResponse(answer.model_dump(mode="json", exclude_none=True), headers=headers)


def _admit(request: SolveRequest) -> Admission:
    """A re-plan's admission: synchronous on any tier, its time limit capped at the
    synchronous one; TierLimitExceeded for a large request."""
    size = request_size(request)
    if size_class(size) == "large":
        raise TierLimitExceeded(
            f"size {size:,} exceeds {LARGE_SIZE_THRESHOLD:,}: a re-plan runs synchronously "
            "only, and large problems are solved on the queued path only"
        )
    timeout = min(request.options.solver_timeout_seconds, SYNC_TIME_LIMIT_SECONDS)
    return Admission(size, float(timeout), queued=False)


async def _key_account(request: Request) -> Account:
    """The account of the Bearer key; Unauthorized without one or with a refused one."""
    key = bearer(request)
    if key is None:
        raise Unauthorized(
            "API key required (these operations take no payment)",
            headers={"WWW-Authenticate": f"Bearer {REALM}"},
        )
    store: Store = request.app.state.store
    account = await in_thread(store.authenticate, key)
    if account is None:
        raise Unauthorized(
            "the API key is unknown or disabled",
            headers={"WWW-Authenticate": f'Bearer {REALM}, error="invalid_token"'},
        )
    return account


async def _replan_in_pool(request: Request, data: Any, time_limit: float) -> dict[str, Any]:
    """The pool's ReplanResponse data, waiting in the synchronous solves' line (as
    :func:`bento.solving.outcome.solve_in_pool`): SolverBusy when the line is full or no process
    came free within the wait (or SolverLost, answered the same way, when its process was
    lost or the service is stopping), SolveFailed when it overran."""
    settings: Settings = request.app.state.settings
    pool: SolvePool = request.app.state.pool
    line: anyio.CapacityLimiter = request.app.state.solve_line
    if line.available_tokens < 1:
        raise SolverBusy(pool.retry_after_seconds())
    budget = settings.diagnosis_budget_seconds
    run = partial(
        pool.run,
        replan_in_worker,
        (data, time_limit, pool.cp_sat_workers, budget),
        time_limit + budget,
        settings.solve_queue_wait_seconds,
    )
    with metrics.solving("replan") as seen:
        result: dict[str, Any] = seen(await anyio.to_thread.run_sync(run, limiter=line))
    return result


async def _capture(
    request: Request, account: Account, reservation_id: str, units: int
) -> tuple[dict[str, str], int | None]:
    """Capture a delivered answer's units: the units headers and the units left (None when
    unknown). A store that fails now never withholds the answer: the headers then say
    billing failed and claim no units remaining, and the capture is kept in the outbox
    until the store takes it (``bento.billing.settlement``)."""
    store: Store = request.app.state.store
    try:
        captured = await in_thread(store.capture, reservation_id)
        _, _, remaining = await in_thread(store.usage, account.id)
    except StoreUnavailable:
        outbox: Outbox = request.app.state.outbox
        kept = await in_thread(outbox.put_capture, reservation_id)
        consumed = units if kept else 0  # not kept: the lease releases the units
        return {"X-Units-Consumed": str(consumed), "X-Service-Billing-Status": "failed"}, None
    consumed = units if captured else 0  # not captured: the lease ran out first
    return {"X-Units-Consumed": str(consumed), "X-Units-Remaining": str(remaining)}, remaining
