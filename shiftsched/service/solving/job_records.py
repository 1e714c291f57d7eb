"""What a queued job runs and what its record says when it ends without a roster.

A job's record names what runs it (``module:function``, a parser and an engine function)
rather than the task naming it, so a consumer runs what the operation declared; these
names are checked to be the engine's, outside the service, so a record can make a
consumer import nothing else. Kept apart from the queue (``shiftsched.service.solving.jobs``),
so the HTTP face and the dashboard read job records without the queue's machinery.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Final

from shiftsched.contract.v1 import ErrorInfo, SolveRequest, SolveResponse
from shiftsched.service.store import Job

MAX_ATTEMPTS: Final = 2
"""Runs a job gets: its first, and one more if the first one's consumer dies."""
INTERRUPTED_MESSAGE: Final = (
    "the service stopped before this job finished; nothing was charged, submit again"
)
SOLVE_PARSER: Final = "shiftsched.contract.parse:parse_request"
"""The parser of a job whose record names none: a v1 solve's."""
ENGINE: Final = "shiftsched."
"""A job record names functions of the engine only: a module of this prefix ..."""
SERVICE: Final = "shiftsched.service."
"""... outside the service's own package."""


def failed_answer(job_id: str, code: str, message: str) -> SolveResponse:
    """A failed job's SolveResponse when the solver produced none."""
    return SolveResponse(
        job_id=job_id, status="failed", solution=None, error=ErrorInfo(code=code, message=message)
    )


def stored(answer: SolveResponse) -> dict[str, Any]:
    """A job's answer as its record keeps it: the contract's body, with ``solution``
    null (the contract requires the field) when there is none."""
    body = answer.model_dump(mode="json", exclude_none=True)
    body.setdefault("solution", None)
    return body


def failed_response(job_id: str, code: str, message: str) -> dict[str, Any]:
    """A failed job's record when the solver produced no answer."""
    return stored(failed_answer(job_id, code, message))


def orphan_response(job_id: str, code: str) -> dict[str, Any]:
    """The answer of a job whose run died and that is not run again (``code``:
    interrupted or cancelled)."""
    if code == "cancelled":
        message = "the job was stopped and its consumer stopped with it; nothing was charged"
    else:
        message = (
            f"the job's consumer stopped before it finished, {MAX_ATTEMPTS} times; "
            "nothing was charged, submit again"
        )
    return failed_response(job_id, code, message)


def engine_name(function: Callable[..., Any]) -> str:
    """The name (module:function) a job record keeps for ``function``; ValueError unless
    it is a module-level function of the engine, found again by that name."""
    module = getattr(function, "__module__", None)
    name = f"{module}:{getattr(function, '__qualname__', None)}"
    if engine_function(name) is not function:
        raise ValueError(f"{name} is not found again by its name")
    return name


def checked_name(name: str) -> str:
    """``name`` when it names a function of the engine (module:function); ValueError
    otherwise, so a record can make a consumer import nothing else."""
    module, _, function = name.partition(":")
    engine = module.startswith(ENGINE) and not module.startswith(SERVICE)
    if not engine or not function.isidentifier():
        raise ValueError(f"{name!r} names no function of the engine")
    return name


def engine_function(name: str) -> Callable[..., Any]:
    """The engine function named ``name`` (module:function), imported here."""
    module, _, function = checked_name(name).partition(":")
    found = getattr(importlib.import_module(module), function, None)
    if not callable(found):
        raise ValueError(f"{name!r} names no function of the engine")
    return found  # type: ignore[no-any-return]


def job_input(job: Job) -> Any:
    """The job's stored body read by its parser: what its engine function takes."""
    return engine_function(job.parse or SOLVE_PARSER)(job.request_json)


def solved_request(ask: Any) -> SolveRequest:
    """The v1 request a job's input solves: the input itself (a solve's), or the request
    it holds (a plan's)."""
    request = ask if isinstance(ask, SolveRequest) else getattr(ask, "request", None)
    if not isinstance(request, SolveRequest):
        raise TypeError(f"a {type(ask).__name__} holds no request to solve")
    return request
