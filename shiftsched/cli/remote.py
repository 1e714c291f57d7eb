"""Where a subcommand's operation runs: the engine's function in this process, or, with
``--remote URL``, the service at that address (``shiftsched.client``, its API key from
``SHIFTSCHED_API_KEY``).

Why one function: every handler reads its files, builds the typed request and prints
the answer the same way wherever the answer was computed, so only the call between
differs, and it is made here (:func:`run`). The client is imported only for a remote
call: the bare command line needs no httpx. On the service the service's limits apply
(its workers and seed, the request's own time limit), so the engine's ``limits`` are
not sent. A solve the service answers without a roster (422 ``solver-infeasible``,
504 ``solver-timeout``) is the engine's failed answer here too, so it prints and exits
as it would in this process.
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
    "from SHIFTSCHED_API_KEY. The service's limits apply (workers, seed, the request's "
    "time limit)"
)


class RemoteFailed(Exception):
    """The service refused the call, or could not be reached after the retries."""


def remote(args: argparse.Namespace) -> str | None:
    """The service's address the command line was given, or None (in this process)."""
    url: str | None = getattr(args, "remote", None)
    return url


def run(
    args: argparse.Namespace,
    name: str,
    ask: Any,
    limits: SolveLimits | None = None,
    progress: TextIO | None = None,
) -> Any:
    """The answer of the operation called ``name`` to ``ask`` (its typed request): the
    engine's function under ``limits`` (default: the engine's), or the service's
    answer with ``--remote`` (``progress``: a bar there while a queued call runs)."""
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


__all__ = ["REMOTE_HELP", "RemoteFailed", "remote", "run"]
