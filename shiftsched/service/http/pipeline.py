"""The one path every operation of the service takes, from the HTTP body to the answer.

An operation (``shiftsched.service.http.operations``) is a declaration: how its body becomes the
engine's typed request, what it costs, and where it runs. :func:`serve` walks it in one
order, the same for all, so that each step is written once:

0. the rate limit, before the body is read: per client address without a key, per key
   with one (429 ``rate-limited`` with Retry-After; ``shiftsched.service.http.rate_limits``);
1. the body: content type (415), size while reading (413), JSON (400)
   (``shiftsched.service.http.gate``);
2. the payer: an API key, a payment where the operation takes one, or none for a free
   operation (401; 402 with the offer when a payable operation came with no credential);
3. the request, parsed once into the engine's typed model (422 with JSON paths), in a
   thread, so a large body never stalls the event loop;
4. admission: its size, units and time limit, and whether it is queued (422, 501);
5. the hold: units reserved, or the payment claimed and verified (429, 503, 401);
6. the run: in a solver process, or in a light process for what solves nothing
   (``shiftsched.service.solving.light``), each under a deadline (503 when the processes stay busy,
   504 past a light task's deadline, 500 when one fails; either way the hold is
   released, and a deadline always falls inside the hold's lease);
7. the settlement: a delivered answer is charged and answered (200, or 422
   solver-infeasible with its diagnosis), anything else released (504, 500).

A queued run leaves the path at step 5: its units are held by its job, which is
enqueued and answered 202 (``shiftsched.service.solving.jobs``). The job records the body as
accepted and the names of the operation's parser and engine function, so a consumer runs what
the operation declares. Every error on the way is a
:class:`~shiftsched.service.errors.ServiceError` the app's one handler renders.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Final, Literal

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shiftsched.errors import InvalidRequest
from shiftsched.service.billing.admission import Admission
from shiftsched.service.billing.call import Call, Payer
from shiftsched.service.billing.paid import PaymentPayer, paying_with, payment_required
from shiftsched.service.billing.settlement import RECORD_JOB_LEASE_SECONDS
from shiftsched.service.billing.units import KeyPayer, hold_units
from shiftsched.service.errors import (
    InternalError,
    InvalidJson,
    RateLimited,
    ServiceError,
    ServiceUnavailable,
    Unauthorized,
    ValidationFailed,
    WorkTimeout,
)
from shiftsched.service.failures import DeadlineMissed, SolveFailed, SolverBusy
from shiftsched.service.http.callbacks import callback_of
from shiftsched.service.http.delivery import paid_call, settled_response
from shiftsched.service.http.free_work import answer_free, name_of
from shiftsched.service.http.gate import (
    REALM,
    RETRY_AFTER_UNAVAILABLE,
    Credential,
    bearer,
    credential_of,
    discard_body,
    json_body,
    raw_body,
)
from shiftsched.service.http.idempotency import key_of, once, once_paid
from shiftsched.service.http.job_names import job_name
from shiftsched.service.http.problems import server_root
from shiftsched.service.http.rate_limits import rate_limits_of
from shiftsched.service.metrics import SolvePath
from shiftsched.service.solving.job_records import checked_name, engine_name, failed_response
from shiftsched.service.solving.jobs import RETRY_AFTER_SECONDS, JobQueue
from shiftsched.service.solving.light import LightPool, run_named
from shiftsched.service.solving.outcome import Outcome, answer_body, run_in_pool
from shiftsched.service.store import Account, Store
from shiftsched.service.threads import in_thread

STOP_OPERATION_ID: Final = "stop_solve_job"
"""The OpenAPI operationId of ``DELETE /solve/jobs/{id}``, which stops a job."""

Payment = Literal["free", "key", "key_or_payment"]
"""Who may pay: nobody needs to (free); an API key only; a key or a payment per request."""


@dataclass(frozen=True)
class InPool:
    """Runs in a solver process: the engine's function, named (``module:function``) so
    the web worker never imports the solver, and the metrics path it is counted under."""

    call: str
    path: SolvePath


@dataclass(frozen=True)
class InThread:
    """Runs in a thread of the web worker: what is cheap on any body it may get."""

    function: Callable[[Any], BaseModel]


@dataclass(frozen=True)
class InLightPool:
    """Runs in a light process (``shiftsched.service.solving.light``): what solves nothing but may
    be real work on a large body. The engine's function is named (``module:function``);
    past ``deadline_seconds`` from its start its process is stopped (504, nothing
    charged)."""

    call: str
    deadline_seconds: float


@dataclass(frozen=True)
class Tool:
    """How an operation is offered to assistants (``shiftsched.service.mcp.server``): its name, what
    it does, and whether the tool takes the body's fields as its arguments (``spread``)
    or the whole body as one argument, ``request``. The server's instructions say it in
    one sentence per ``topic`` (building a roster, changing one, asking about one):
    ``said``, with ``{tool}`` for its name, at ``said_at`` (ties: the API's order).
    ``rosters``: where its answer holds whole rosters (dotted paths, through lists),
    left out of the tool's result unless the caller asks (``include_roster``);
    ``answers_faults``: a 422 is its answer (``valid`` false with the errors), not a
    failure."""

    name: str
    guide: str
    spread: bool = False
    rosters: tuple[str, ...] = ()
    answers_faults: bool = False
    said: str = "{tool}"
    topic: Literal["build", "change", "ask"] = "ask"
    said_at: int = 0


@dataclass(frozen=True)
class Docs:
    """How an operation is described in the OpenAPI document (``shiftsched.service.http.openapi``):
    what the pipeline may answer is derived from the declaration; these are the words
    only the operation can say, ``notes`` by status."""

    summary: str
    answered: str  # what its 200 holds
    description: str | None = None
    notes: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Operation:
    """One operation: how its body is read, who pays, what it costs and where it runs."""

    name: str  # the purpose of its hold
    path: str  # where it is served, under the API root (POST)
    body: type[BaseModel]  # the body's model, whose fields the contract names
    answer: type[BaseModel]  # the model of its 200
    tool: Tool
    docs: Docs
    parse: Callable[[Any], Any]  # the body into the engine's typed request; InvalidRequest
    admit: Callable[[Any, Payer | None], Admission]  # NotAdmitted when it may not run
    run: InPool | InLightPool | InThread
    payment: Payment = "key"
    queues: bool = False  # a large or long one goes to the job queue (202)
    key_required: str = "API key required (these operations take no payment)"
    called: str = ""  # what a person calls one run of it ("re-plan"); default: its name

    def __post_init__(self) -> None:
        """A queued run is a job a consumer runs from its record: it solves in the pool,
        and its parser and engine function are found again by their names."""
        if isinstance(self.run, InLightPool):
            checked_name(self.run.call)
            name_of(self.parse)  # a free one is parsed in the light process, by name
        if self.queues:
            if not isinstance(self.run, InPool):
                raise ValueError(f"{self.name}: only a run in the solver pool is queued")
            engine_name(self.parse)
            checked_name(self.run.call)

    @property
    def keeps_job(self) -> bool:
        """Whether a run on an account is kept as a job: every one that is paid for, so
        every charge belongs to a job row its caller can open
        (``shiftsched.service.billing.units``)."""
        return self.payment != "free"

    @property
    def called_as(self) -> str:
        """What a person calls one run of it, on the Jobs page and in its jobs' names."""
        return self.called or self.name


async def serve(operation: Operation, request: Request) -> Response:
    """The answer to ``request`` for ``operation``, in the order of the module docstring.
    What the request sends (its credential, then its body) is read once and passed on,
    and a paid run enters its payer once (``Payer.pay``), so the walk between the
    service's modules stays short (``tests/service/http/test_request_walk.py``)."""
    sent = credential_of(request)
    try:
        await _count(operation, request, sent.key)
    except RateLimited:
        await discard_body(request)
        raise
    if operation.payment == "free" and isinstance(operation.run, InLightPool):
        return await _answer_free(operation, operation.run, request)
    data = await json_body(request)
    payer = await _payer(operation, request, sent, data)
    key = key_of(request) if isinstance(payer, KeyPayer | PaymentPayer) else None
    if isinstance(payer, KeyPayer) and key is not None:  # a retry is answered, not run
        keyed = partial(_keyed_run, operation, request, payer, data)
        return await once(request, payer.account, operation.name, key, data, keyed)
    if isinstance(payer, PaymentPayer) and key is not None:  # keyed by its payment
        paid = partial(_parsed_and_run, operation, request, data=data)
        return await once_paid(request, payer, operation.name, key, data, paid)
    return await _parsed_and_run(operation, request, payer, data)


async def _keyed_run(
    operation: Operation, request: Request, payer: KeyPayer, data: Any, job_id: str
) -> Response:
    """The run of a call whose idempotency key was claimed: its job is ``job_id``."""
    return await _parsed_and_run(operation, request, replace(payer, job_id=job_id), data)


async def _parsed_and_run(
    operation: Operation, request: Request, payer: Payer | None, data: Any
) -> Response:
    """Steps 3 to 7 for a body ``data`` that ``payer`` pays for."""
    try:
        ask = await in_thread(operation.parse, data)  # a large body: off the event loop
    except InvalidRequest as exc:
        raise ValidationFailed(exc.errors) from None
    admission = operation.admit(ask, payer)
    if payer is None:
        answer = await _run_failing_as_errors(operation, request, ask, admission, None, "")
        return await in_thread(JSONResponse, answer_body(answer))
    if admission.queued:
        assert operation.queues and isinstance(payer, KeyPayer), "only a key may queue"
        name = job_name(operation.called_as, ask)
        return await _enqueue(operation, request, payer, data, admission, name)
    leased = not isinstance(operation.run, InThread)

    async def run(on_start: Callable[[], None] | None, nothing_charged: str) -> Outcome:
        return Outcome(
            await _run_failing_as_errors(
                operation, request, ask, admission, on_start, nothing_charged
            )
        )

    named = partial(job_name, operation.called_as, ask)  # called where the job is recorded
    settled = await payer.pay(operation.name, admission, run, solves=leased, data=data, name=named)
    return settled_response(request, settled)


def endpoint(operation: Operation) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of ``operation``."""

    async def route(request: Request) -> Response:
        return await serve(operation, request)

    route.__name__ = f"{operation.name}_route"
    return route


async def account_for(request: Request, missing: str = "API key required") -> Account:
    """The account of the request's API key; Unauthorized (``missing``) without one, or
    with one that is unknown or disabled."""
    return await _account_of(request, bearer(request), missing)


async def _account_of(request: Request, key: str | None, missing: str) -> Account:
    """The account of ``key``, the request's API key; Unauthorized as :func:`account_for`."""
    if key is None:
        raise Unauthorized(missing, headers={"WWW-Authenticate": f"Bearer {REALM}"})
    store: Store = request.app.state.store
    account = await in_thread(store.accounts.authenticate, key)
    if account is None:
        raise Unauthorized(
            "the API key is unknown or disabled",
            headers={"WWW-Authenticate": f'Bearer {REALM}, error="invalid_token"'},
        )
    return account


async def _count(operation: Operation, request: Request, key: str | None) -> None:
    """Step 0, before the body is read: the request counts against its rate limit. A
    free call with a valid API key ``key`` (an assistant's, through the MCP tools) counts
    against the key's; any other call without a key against its client address. A keyed
    call to a paid operation is counted once its key is known (:func:`_payer`)."""
    if key is not None and operation.payment != "free":
        return
    limits = rate_limits_of(request)
    if key is None:
        await limits.check_address(request, operation.called_as)
    else:
        store: Store = request.app.state.store
        account = await in_thread(store.accounts.authenticate, key)
        if account is None:
            await limits.check_address(request, operation.called_as)
        else:
            await limits.check_key(account.key_id or account.id)


async def _payer(
    operation: Operation, request: Request, sent: Credential, data: Any
) -> Payer | None:
    """Step 2: who pays, of what the request ``sent``. A payable operation without any
    credential is the 402 offer."""
    if operation.payment == "free":
        return None
    if operation.payment == "key_or_payment":
        if sent.payment is not None:
            return await paying_with(paid_call(request, sent.key), data, sent.payment)
        if sent.key is None:
            raise payment_required(paid_call(request, sent.key), data)
    account = await _account_of(request, sent.key, operation.key_required)
    await rate_limits_of(request).check_key(account.key_id or account.id)
    state = request.app.state  # what billing needs to charge the account
    return KeyPayer(Call(state.store, state.settings, getattr(state, "outbox", None)), account)


async def _answer_free(operation: Operation, run: InLightPool, request: Request) -> Response:
    """A free operation that runs in a light process: the body's bytes go there, are
    parsed there and answered there (``shiftsched.service.http.free_work``); this worker only checks
    the content type and size and moves bytes. Its faults are answered as any other's."""
    body = await raw_body(request)
    light: LightPool = request.app.state.light_pool
    work = (name_of(operation.parse), run.call, body)
    try:
        kind, value = await light.run(answer_free, work, run.deadline_seconds)
    except (SolverBusy, SolveFailed) as failure:
        raise _failure_error(operation, failure, "; nothing was charged") from None
    if kind == "invalid_json":
        raise InvalidJson(value)
    if kind == "invalid":
        raise ValidationFailed(value)
    return Response(value, media_type="application/json")


def _failure_error(
    operation: Operation, failure: SolverBusy | SolveFailed, said: str
) -> ServiceError:
    """The error a failed run is answered with: 503 busy or lost (Retry-After), 504 past
    a light task's deadline, 500 otherwise."""
    if isinstance(failure, SolverBusy):  # SolverLost too: nothing was started, or is left
        return ServiceUnavailable(f"{failure}{said}", retry_after=failure.retry_after_seconds)
    if isinstance(failure, DeadlineMissed):
        if not isinstance(operation.run, InLightPool):
            return InternalError(f"the solve missed its deadline and was stopped{said}")
        seconds = operation.run.deadline_seconds
        return WorkTimeout(
            f"the {operation.called_as} ran past its deadline of {seconds:g} s and was "
            f"stopped{said}"
        )
    return InternalError(f"{failure}{said}")


async def _run_failing_as_errors(
    operation: Operation,
    request: Request,
    ask: Any,
    admission: Admission,
    on_start: Callable[[], None] | None,
    nothing_charged: str,
) -> BaseModel:
    """Step 6: the run, its failures as the errors they are answered with (503 busy or
    lost, 504 past a light task's deadline, 500 otherwise); ``nothing_charged`` is said
    in each."""
    said = f"; {nothing_charged}" if nothing_charged else "; nothing was charged"
    try:
        return await _run(operation, request, ask, admission, on_start)
    except (SolverBusy, SolveFailed) as failure:
        raise _failure_error(operation, failure, said) from None


async def _run(
    operation: Operation,
    request: Request,
    ask: Any,
    admission: Admission,
    on_start: Callable[[], None] | None,
) -> BaseModel:
    run = operation.run
    if isinstance(run, InThread):
        return await in_thread(run.function, ask)
    if isinstance(run, InLightPool):
        light: LightPool = request.app.state.light_pool
        work = (run.call, ask)
        answer: BaseModel = await light.run(run_named, work, run.deadline_seconds, on_start)
        return answer
    return await run_in_pool(request, run.call, ask, admission.time_limit, run.path, on_start)


async def _enqueue(
    operation: Operation,
    request: Request,
    payer: KeyPayer,
    data: Any,
    admission: Admission,
    name: str,
) -> Response:
    """The queued path: hold the units (QuotaExceeded if short), record the job with what
    runs it (under the payer's job id, if it has one), enqueue it, 202. The job holds the
    units from then on and settles them once, when it ends."""
    assert isinstance(operation.run, InPool), "only a run in the solver pool is queued"
    account = payer.account
    callback = await callback_of(request, account)
    store: Store = request.app.state.store
    queue: JobQueue = request.app.state.jobs
    reservation_id = "job-" + uuid.uuid4().hex
    lease, purpose = RECORD_JOB_LEASE_SECONDS, "job"  # until the job row holds it
    async with hold_units(
        store, account.id, admission.units, reservation_id, lease_seconds=lease, purpose=purpose
    ):
        job = await in_thread(
            store.jobs.create_job,
            account.id,
            data,
            units_reserved=admission.units,
            reservation_id=reservation_id,
            key_id=account.key_id,
            size=admission.size,
            parse=engine_name(operation.parse),
            call=operation.run.call,
            operation=operation.name,
            name=name,
            job_id=payer.job_id,
        )
    if callback is not None:
        await in_thread(store.webhooks.name_callback, job.id, callback)
    try:
        await in_thread(queue.enqueue, job.id)
    except Exception:
        message = "the job queue is unreachable; nothing was charged"
        await in_thread(
            store.jobs.finish_job,
            job.id,
            "failed",
            response_json=failed_response(job.id, "internal_error", message),
            error_code="internal_error",
        )
        raise ServiceUnavailable(message, retry_after=RETRY_AFTER_UNAVAILABLE) from None
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS), **job_links(request, job.id)}
    return JSONResponse(job.as_response(), status_code=202, headers=headers)


def job_links(request: Request, job_id: str) -> dict[str, str]:
    """Where a queued job is followed: ``Location``, the job (``GET`` polls it); ``Link``,
    its progress (``rel="monitor"``, RFC 5989), its stop (``DELETE`` on the job) and
    its page in the dashboard (``rel="alternate"``), which shows that progress live and
    has a Stop button. No relation is registered for a stop, so its relation type is a
    URI (RFC 8288, 2.1.2): the OpenAPI document of this API, at the operation's id. The
    targets are paths from the server's root (where the API is mounted, ``/v1/public``
    in the service), so they hold behind a proxy that changes the scheme or host."""
    api = request.scope.get("root_path", "")
    job = f"{api}/solve/jobs/{job_id}"
    stop = f"{server_root(request)}{api}/openapi.json#{STOP_OPERATION_ID}"
    page = f"/dashboard/jobs/{job_id}"
    links = (
        f'<{job}/progress>; rel="monitor", <{job}>; rel="{stop}", '
        f'<{page}>; rel="alternate"; type="text/html"'
    )
    return {"Location": job, "Link": links}


__all__ = [
    "Docs",
    "InLightPool",
    "InPool",
    "InThread",
    "Operation",
    "Payer",
    "Tool",
    "account_for",
    "endpoint",
    "serve",
]
