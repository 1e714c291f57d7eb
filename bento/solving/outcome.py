"""One synchronous solve and what its result means to the caller, whoever pays.

The key path (units) and the payment path (x402, mpp) differ only in how they charge;
what counts as *delivered* (a roster, or an infeasibility with its diagnosis), which
error an undelivered result raises (504 solver-timeout, else 500) and how a delivered one
is answered (200, or 422 solver-infeasible) is decided here once.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from bento.http.errors import InternalError, ServiceUnavailable, SolverInfeasible, SolverTimeout
from bento.http.problems import render
from bento.ops import metrics
from bento.settings import Settings
from bento.solving.failures import SolverBusy
from bento.solving.workers import SolvePool


async def solve_in_pool(
    request: Request,
    data: Any,
    time_limit: float,
    on_start: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """The worker pool's result for ``data``; ``on_start`` is called (in the waiting
    thread) once a solver process is taken, just before it solves.

    Raises ``SolverBusy`` when no solver process came free within the configured wait,
    or when the waiting line is full; ``SolverLost`` (a ``SolverBusy`` too, answered 503
    the same way) when the process was lost or the service is stopping; and
    ``SolveFailed`` if the worker overran or failed otherwise.
    A request waits in a thread of its own line (``app.state.solve_line``), so waiting
    solves never hold the threads the store and the rest of the service run on.
    """
    settings: Settings = request.app.state.settings
    pool: SolvePool = request.app.state.pool
    line: anyio.CapacityLimiter = request.app.state.solve_line
    if line.available_tokens < 1:
        raise SolverBusy(pool.retry_after_seconds())
    solve = partial(
        pool.solve,
        data,
        time_limit,
        settings.diagnosis_budget_seconds,
        wait_seconds=settings.solve_queue_wait_seconds,
        on_start=on_start,
    )
    with metrics.solving("sync") as seen:
        result: dict[str, Any] = seen(await anyio.to_thread.run_sync(solve, limiter=line))
    return result


def solvers_busy(busy: SolverBusy, note: str) -> ServiceUnavailable:
    """503 with Retry-After: every solver process stayed busy; nothing was started."""
    return ServiceUnavailable(f"{busy}; {note}", retry_after=busy.retry_after_seconds)


def delivered(result: dict[str, Any]) -> bool:
    """A roster, or a diagnosed infeasibility: what a caller pays for.

    docs/semantics.md, "When a solve is charged".
    """
    error = result.get("error") or {}
    return result["status"] == "completed" or (
        error.get("code") == "no_solution" and error.get("diagnosis") is not None
    )


def undelivered(result: dict[str, Any], note: str = "") -> SolverTimeout | InternalError:
    """The error of a result with nothing to deliver: 504 when the solver ran out of time
    without a roster, else 500."""
    error = result.get("error") or {}
    detail = f"{error.get('message') or ''}{note}" or None
    if error.get("code") == "solver_timeout":
        return SolverTimeout(detail)
    return InternalError(detail)


def delivered_response(
    request: Request, result: dict[str, Any], headers: dict[str, str]
) -> Response:
    """200 with the roster, or 422 solver-infeasible with the diagnosis.

    The 422 is returned, not raised: a diagnosed infeasibility is a delivered answer, paid
    for like a roster and carrying the same billing headers, not an error exit."""
    if result["status"] == "completed":
        return JSONResponse(result, headers=headers)
    error = result.get("error") or {}
    infeasible = SolverInfeasible(
        error.get("message"),
        headers=headers,
        solver_status=error.get("solver_status"),
        diagnosis=error.get("diagnosis"),
    )
    return render(request, infeasible)
