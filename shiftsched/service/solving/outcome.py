"""What an operation's answer means to its caller, whoever pays.

The engine answers with typed models: a ``SolveResponse`` (or a ``ReplanResponse``, which
is one) for anything that solves, another model (a ranking) for what does not. What
counts as *delivered* (a roster, an infeasibility with its diagnosis, or any answer that
is not a solve) and which error an undelivered one raises (504 solver-timeout, else 500)
are decided here once; how a delivered one is answered (200, or 422 solver-infeasible) is
the HTTP layer's (``shiftsched.service.http.delivery``). An answer is read once, into an
:class:`Outcome` (delivered or not, its JSON body), which billing and the HTTP layer pass
on instead of asking again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio
from pydantic import BaseModel
from starlette.requests import Request

from shiftsched.contract.v1 import SolveResponse
from shiftsched.service import metrics
from shiftsched.service.errors import InternalError, SolverTimeout
from shiftsched.service.failures import SolverBusy
from shiftsched.service.settings import Settings
from shiftsched.service.solving.workers import SolvePool


async def run_in_pool(
    request: Request,
    call: str,
    ask: BaseModel,
    time_limit: float,
    path: metrics.SolvePath,
    on_start: Callable[[], None] | None = None,
) -> SolveResponse:
    """The engine's ``call`` on ``ask`` in a solver process; ``on_start`` is called (in
    the waiting thread) once a process is taken, just before it solves.

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
        ask,
        time_limit,
        settings.diagnosis_budget_seconds,
        wait_seconds=settings.solve_queue_wait_seconds,
        on_start=on_start,
        call=call,
    )
    with metrics.solving(path) as seen:
        answer: SolveResponse = seen(await anyio.to_thread.run_sync(solve, limiter=line))
    return answer


@dataclass(frozen=True)
class Outcome:
    """An answer, read once: whether it is delivered (:func:`delivered`) and its JSON body
    (:func:`answer_body`), which the job record and the response share."""

    answer: BaseModel
    delivered: bool = field(init=False)
    body: dict[str, Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "delivered", delivered(self.answer))
        object.__setattr__(self, "body", answer_body(self.answer))


def delivered(answer: BaseModel) -> bool:
    """A roster, a diagnosed infeasibility, or an answer that is not a solve: what a
    caller pays for. docs/semantics.md, "When a solve is charged"."""
    if not isinstance(answer, SolveResponse):
        return True
    error = answer.error
    return answer.status == "completed" or (
        error is not None and error.code == "no_solution" and error.diagnosis is not None
    )


def undelivered(answer: SolveResponse, note: str = "") -> SolverTimeout | InternalError:
    """The error of an answer with nothing to deliver: 504 when the solver ran out of
    time without a roster, else 500."""
    message = answer.error.message if answer.error is not None else None
    detail = f"{message or ''}{note}" or None
    if answer.error is not None and answer.error.code == "solver_timeout":
        return SolverTimeout(detail)
    return InternalError(detail)


def answer_body(answer: BaseModel) -> dict[str, Any]:
    """The JSON body of an answer, as the contract spells it (absent fields left out)."""
    return answer.model_dump(mode="json", exclude_none=True)
