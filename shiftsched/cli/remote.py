"""Where a subcommand's operation runs: the engine's function in this process, or, with
``--remote URL``, the service at that address (``shiftsched.client``, its API key from
``SHIFTSCHED_API_KEY``).

Why one function: every handler reads its files, builds the typed request and prints
the answer the same way wherever the answer was computed, so only the call between
differs, and it is made here (:func:`run`). The client is imported only for a remote
call: the bare command line needs no httpx. A solve the service answers without a roster
(422 ``solver-infeasible``, 504 ``solver-timeout``) is the engine's failed answer here
too, so it prints and exits as it would in this process.

Why ``--workers`` and ``--seed`` are refused with ``--remote`` (:func:`check`), not
dropped: the v1 request carries no field for them (the service solves with its own
workers and seed, and refuses a body with a field it does not know), and a user who
asked for a seed expects it used. The one limit the request carries is its time limit,
``options.solver_timeout_seconds`` (whole seconds, 1 to 300), so ``--time-limit`` is
sent as that (:func:`with_time_limit`); the service still applies its own caps (30 s on
the synchronous path, a longer limit only queued on a pro key).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, TextIO

from shiftsched.operations import by_name, named

if TYPE_CHECKING:
    from shiftsched.solving.solve import SolveLimits

REMOTE_HELP = (
    "run the operation on the service at URL (its API root, e.g. "
    "http://localhost:3000/v1/public) instead of in this process; the API key is read "
    "from SHIFTSCHED_API_KEY. --time-limit is sent as the request's "
    "options.solver_timeout_seconds (whole seconds, 1 to 300; the service caps a "
    "synchronous call at 30 s); --workers and --seed are refused: the service chooses "
    "them"
)
# The options of this process the v1 request cannot carry, and why each is refused.
UNSENT = {
    "workers": ("--workers", "the service solves with its own CP-SAT workers"),
    "seed": ("--seed", "the service solves with its own random seed"),
}


class RemoteFailed(Exception):
    """The service refused the call, or could not be reached after the retries."""


class UnsentOption(Exception):
    """An option given with ``--remote`` that the request cannot carry to the service."""


def remote(args: argparse.Namespace) -> str | None:
    """The service's address the command line was given, or None (in this process)."""
    url: str | None = getattr(args, "remote", None)
    return url


def check(args: argparse.Namespace) -> None:
    """Nothing, unless ``--remote`` goes with an option the service cannot be sent:
    then UnsentOption, naming it and why (before any file is read or call made)."""
    if remote(args) is None:
        return
    for name, (flag, why) in UNSENT.items():
        if getattr(args, name, None) is not None:
            raise UnsentOption(
                f"{flag} cannot go with --remote: {why}, and the v1 request has no field "
                f"for it; leave {flag} out, or run without --remote"
            )
    seconds: float | None = getattr(args, "time_limit", None)
    if seconds is not None:
        from shiftsched.contract.v1 import MAX_SOLVER_TIMEOUT_SECONDS as MOST

        if not (seconds.is_integer() and 1 <= seconds <= MOST):
            raise UnsentOption(
                f"--time-limit {seconds:g} cannot go with --remote: it is sent as the "
                f"request's options.solver_timeout_seconds, whole seconds from 1 to {MOST}"
            )


def with_time_limit(ask: Any, seconds: float | None) -> Any:
    """``ask`` with its request's ``options.solver_timeout_seconds`` set to ``seconds``
    (None: as it is): the request itself, or the ``request`` of a plan, re-plan or
    question."""
    if seconds is None:
        return ask
    from shiftsched.contract.v1 import SolveRequest

    if isinstance(ask, SolveRequest):
        options = ask.options.model_copy(update={"solver_timeout_seconds": int(seconds)})
        return ask.model_copy(update={"options": options})
    return ask.model_copy(update={"request": with_time_limit(ask.request, seconds)})


def run(
    args: argparse.Namespace,
    name: str,
    ask: Any,
    limits: SolveLimits | None = None,
    progress: TextIO | None = None,
) -> Any:
    """The answer of the operation called ``name`` to ``ask`` (its typed request): the
    engine's function under ``limits`` (default: the engine's), or the service's
    answer with ``--remote``, ``--time-limit`` in the request (``progress``: a bar there
    while a queued call runs)."""
    url = remote(args)
    operation = by_name(name)
    if url is None:
        function = named(operation.function)
        if not operation.solves:
            return function(ask)
        if limits is None:
            from shiftsched.solving.solve import SolveLimits

            limits = SolveLimits()
        return function(ask, limits)
    ask = with_time_limit(ask, getattr(args, "time_limit", None))
    return _on_service(url, name, ask, progress)


def _on_service(url: str, name: str, ask: Any, progress: TextIO | None) -> Any:
    from shiftsched.client import Client, ServiceProblem
    from shiftsched.client.session import transport_errors

    try:
        with Client(url) as client:
            return client.call(name, ask, progress=progress or False)
    except ServiceProblem as exc:
        failed = _no_roster(name, exc)
        if failed is None:
            raise RemoteFailed(f"the service answered {exc}") from exc
        return failed
    except transport_errors() as exc:
        raise RemoteFailed(f"cannot reach the service at {url}: {exc}") from exc


# The problems that are a solve's answer without a roster, and the engine's code for each.
NO_ROSTER = {"solver-infeasible": "no_solution", "solver-timeout": "solver_timeout"}


def _no_roster(name: str, problem: Exception) -> Any:
    """A solve's answer without a roster, as the engine gives it (status failed, its
    error with the diagnosis), from the problem the service answers it with; None for
    any other problem, or an operation whose answer is no SolveResponse."""
    from shiftsched.client import ServiceProblem
    from shiftsched.contract.v1 import Diagnosis, ErrorInfo, SolveResponse

    model = named(by_name(name).response)
    code = NO_ROSTER.get(problem.slug) if isinstance(problem, ServiceProblem) else None
    if code is None or not issubclass(model, SolveResponse):
        return None
    assert isinstance(problem, ServiceProblem)
    found = problem.body.get("diagnosis")
    error = ErrorInfo(
        code=code,
        message=problem.detail,
        solver_status=problem.body.get("solver_status"),
        diagnosis=None if found is None else Diagnosis.model_validate(found),
    )
    job_id = problem.body.get("job_id") or problem.request_id or ""
    return model(job_id=job_id, status="failed", solution=None, error=error)


__all__ = [
    "REMOTE_HELP",
    "RemoteFailed",
    "UnsentOption",
    "check",
    "remote",
    "run",
    "with_time_limit",
]
