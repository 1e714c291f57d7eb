"""How a delivered answer is answered over HTTP, and what billing is told of a paid call.

Why here: billing settles a delivered answer into a value (``shiftsched.service.billing.call``);
only the HTTP layer knows the request and builds responses, so it hands billing a
:class:`~shiftsched.service.billing.call.PaidCall` read off the request (a key's
:class:`~shiftsched.service.billing.call.Call` is the pipeline's) and renders the
:class:`~shiftsched.service.billing.call.Settled` it gets back, whose body was read once
(``shiftsched.service.solving.outcome``, :class:`Outcome`).
"""

from __future__ import annotations

import time

from starlette.background import BackgroundTask
from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.billing.call import PaidCall, Settled
from shiftsched.service.billing.units import PURGE_EVERY_SECONDS, purge
from shiftsched.service.errors import SolverInfeasible
from shiftsched.service.http.problems import (
    API_ROOT,
    public_request_url,
    render,
    request_id,
    server_root,
)
from shiftsched.service.solving.outcome import Outcome, answer_body
from shiftsched.service.threads import in_thread


def paid_call(request: Request, key: str | None) -> PaidCall:
    """What billing needs of ``request`` to take or offer a payment: its app's store,
    settings and gateways, its id, the API key beside it (``key``) and the addresses a
    payment names."""
    state = request.app.state
    return PaidCall(
        state.store,
        state.settings,
        getattr(state, "outbox", None),
        request_id=request_id(request),
        bearer=key,
        resource_url=public_request_url(request),
        docs_url=server_root(request) + API_ROOT + "/openapi.json",
        x402=getattr(state, "x402", None),
        mpp=getattr(state, "mpp", None),
    )


def settled_response(request: Request, settled: Settled) -> Response:
    """The response of a settled answer, with the work billing left for after it; after a
    job ended completed, at most hourly (``PURGE_EVERY_SECONDS``), the finished jobs past
    their retention are forgotten."""
    response = delivered_response(request, settled.outcome, settled.headers, settled.job_id)
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
    request: Request, outcome: Outcome, headers: dict[str, str], job_id: str | None = None
) -> Response:
    """200 with the answer, or 422 solver-infeasible with the diagnosis and, when the
    charge was kept as a job, its ``job_id`` (an extension member, RFC 9457), so the
    caller can find the row of what it paid.

    The 422 is returned, not raised: a diagnosed infeasibility is a delivered answer, paid
    for like a roster and carrying the same billing headers, not an error exit."""
    answer = outcome.answer
    if not isinstance(answer, SolveResponse) or answer.status == "completed":
        return JSONResponse(outcome.body, headers=headers)
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
