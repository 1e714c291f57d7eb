"""How a delivered answer is answered over HTTP, and what billing is told of the call (its
payment credential among them).

Why here: billing settles a delivered answer into a value (``shiftsched.service.billing.call``);
only the HTTP layer knows the request and builds responses, so it hands billing a
:class:`~shiftsched.service.billing.call.Call` read off the request and renders the
:class:`~shiftsched.service.billing.call.Settled` it gets back.
"""

from __future__ import annotations

import time
from typing import Final

from pydantic import BaseModel
from starlette.background import BackgroundTask
from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.billing.call import Call, PaidCall, PaymentHeader, Settled
from shiftsched.service.billing.units import PURGE_EVERY_SECONDS, purge
from shiftsched.service.errors import SolverInfeasible
from shiftsched.service.http.gate import bearer
from shiftsched.service.http.problems import (
    API_ROOT,
    public_request_url,
    render,
    request_id,
    server_root,
)
from shiftsched.service.solving.outcome import answer_body
from shiftsched.service.threads import in_thread

X402_HEADERS: Final = ("x-payment", "payment-signature")  # an x402 payment, in either version


def billing_call(request: Request) -> Call:
    """What billing needs of ``request`` to charge an account: its app's store, settings
    and outbox."""
    state = request.app.state
    return Call(state.store, state.settings, getattr(state, "outbox", None))


def paid_call(request: Request) -> PaidCall:
    """What billing needs of ``request`` to take or offer a payment: its app's store,
    settings and gateways, its id, the API key beside it and the addresses a payment
    names."""
    state = request.app.state
    return PaidCall(
        state.store,
        state.settings,
        getattr(state, "outbox", None),
        request_id=request_id(request),
        bearer=bearer(request),
        resource_url=public_request_url(request),
        docs_url=server_root(request) + API_ROOT + "/openapi.json",
        x402=getattr(state, "x402", None),
        mpp=getattr(state, "mpp", None),
    )


def payment_header(request: Request) -> PaymentHeader | None:
    """The payment credential of the request, if it carries one."""
    for name in X402_HEADERS:
        if name in request.headers:
            return PaymentHeader("x402", request.headers[name])
    authorization = request.headers.get("authorization", "")
    if authorization[:8].lower() == "payment ":
        return PaymentHeader("mpp", authorization)
    if "payment-authorization" in request.headers:
        return PaymentHeader("mpp", request.headers["payment-authorization"])
    return None


def settled_response(request: Request, settled: Settled) -> Response:
    """The response of a settled answer, with the work billing left for after it; after a
    job ended completed, at most hourly (``PURGE_EVERY_SECONDS``), the finished jobs past
    their retention are forgotten."""
    response = delivered_response(request, settled.answer, settled.headers, settled.job_id)
    state = request.app.state
    if settled.purge_after and _purge_due(state):
        response.background = BackgroundTask(in_thread, purge, state.store, state.settings)
    elif settled.after is not None:
        response.background = BackgroundTask(settled.after)
    return response


def _purge_due(state: State) -> bool:
    if time.monotonic() < state.next_purge:
        return False
    state.next_purge = time.monotonic() + PURGE_EVERY_SECONDS
    return True


def delivered_response(
    request: Request, answer: BaseModel, headers: dict[str, str], job_id: str | None = None
) -> Response:
    """200 with the answer, or 422 solver-infeasible with the diagnosis and, when the
    charge was kept as a job, its ``job_id`` (an extension member, RFC 9457), so the
    caller can find the row of what it paid.

    The 422 is returned, not raised: a diagnosed infeasibility is a delivered answer, paid
    for like a roster and carrying the same billing headers, not an error exit."""
    if not isinstance(answer, SolveResponse) or answer.status == "completed":
        return JSONResponse(answer_body(answer), headers=headers)
    error = answer.error
    assert error is not None, "a delivered answer that is not a roster is diagnosed"
    infeasible = SolverInfeasible(
        error.message,
        headers=headers,
        solver_status=error.solver_status,
        diagnosis=None if error.diagnosis is None else answer_body(error.diagnosis),
        job_id=job_id,
    )
    return render(request, infeasible)
