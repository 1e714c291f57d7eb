"""How a delivered answer is answered over HTTP, and what billing is told of the call.

Why here: billing settles a delivered answer into a value (``shiftsched.service.billing.call``);
only the HTTP layer knows the request and builds responses, so it hands billing a
:class:`~shiftsched.service.billing.call.Call` read off the request and renders the
:class:`~shiftsched.service.billing.call.Settled` it gets back.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel
from starlette.background import BackgroundTask
from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.billing.call import Call, Settled
from shiftsched.service.billing.units import PURGE_EVERY_SECONDS
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


def billing_call(request: Request) -> Call:
    """What billing needs of ``request``: its app's store, settings, gateways and outbox,
    its id, its API key and the addresses a payment names."""
    state = request.app.state
    return Call(
        store=state.store,
        settings=state.settings,
        request_id=request_id(request),
        bearer=bearer(request),
        resource_url=public_request_url(request),
        docs_url=server_root(request) + API_ROOT + "/openapi.json",
        x402=getattr(state, "x402", None),
        mpp=getattr(state, "mpp", None),
        outbox=getattr(state, "outbox", None),
        purge_due=_purge_clock(state),
    )


def _purge_clock(state: State) -> Callable[[], bool]:
    """True at most once an hour (``PURGE_EVERY_SECONDS``) per app: finished jobs past
    their retention are then forgotten, after the answer."""

    def due() -> bool:
        if time.monotonic() < state.next_purge:
            return False
        state.next_purge = time.monotonic() + PURGE_EVERY_SECONDS
        return True

    return due


def settled_response(request: Request, settled: Settled) -> Response:
    """The response of a settled answer, with the work billing left for after it."""
    response = delivered_response(request, settled.answer, settled.headers, settled.job_id)
    if settled.after is not None:
        response.background = BackgroundTask(settled.after)
    return response


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
