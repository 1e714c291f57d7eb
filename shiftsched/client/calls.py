"""The service's operations as typed Python calls: the engine's request in, the
engine's answer out.

Why derived: each operation is declared once (``shiftsched.operations``): its name, its
request's model and its answer's. The client reads the operation list and the answer
models from there, and its path from the one rule the service's routes follow
(:func:`path_of`; the service's declarations are checked against it in the tests), so an
operation declared there is callable here as ``Client.call(name, request)``. The named
methods only add the static types.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO, TypeVar, cast

import httpx
from pydantic import BaseModel

from shiftsched.client.http import Retries, Transport
from shiftsched.client.session import Session
from shiftsched.client.waiting import Sleep, follow, job_path
from shiftsched.operations import OPERATIONS, Operation, by_name, named

if TYPE_CHECKING:
    from shiftsched.contract.planning import (
        PlanRequest,
        PlanResponse,
        RecommendRequest,
        RecommendResponse,
        ReplanRequest,
        ReplanResponse,
    )
    from shiftsched.contract.v1 import SolveRequest, SolveResponse, UsageResponse, ValidateResponse
    from shiftsched.questions.inquiry import (
        AuditRequest,
        AuditResponse,
        CompareRequest,
        CompareResponse,
        ExplainRequest,
        ExplainResponse,
        WhyRequest,
        WhyResponse,
    )

API_KEY_VARIABLE = "SHIFTSCHED_API_KEY"
DEFAULT_URL = "http://localhost:3000/v1/public"
M = TypeVar("M", bound=BaseModel)
Body = BaseModel | Mapping[str, Any]
Progress = bool | TextIO


def path_of(operation: Operation) -> str:
    """Where the service answers ``operation``, from the API root: ``POST /solve`` for
    the solve, ``POST /solve/<name>`` for every other."""
    return "/solve" if operation.name == "solve" else f"/solve/{operation.name}"


def operation_names() -> list[str]:
    """Every operation the client can call, as declared."""
    return [operation.name for operation in OPERATIONS]


def as_json(body: Body) -> Any:
    """A request as the JSON the service reads (a model dumped as the CLI prints it)."""
    if isinstance(body, BaseModel):
        return body.model_dump(mode="json", exclude_none=True)
    return dict(body)


class Client:
    """The service at ``url`` (its API root) with ``api_key`` (default: the
    ``SHIFTSCHED_API_KEY`` environment variable), over ``http`` (an ``httpx.Client`` or
    any :class:`~shiftsched.client.session.Session`, e.g. a test's app client; default:
    one of its own with ``timeout`` seconds per request, closed with this client).

    A call that the service queues (202) is followed to its end before it returns
    (``wait=False``: the running answer at once); ``progress`` shows a bar on stderr (or
    on the stream given). ``sleep`` is how the client waits for a job's next poll and
    for a retry the service answered 409 (its first attempt still runs). Errors are
    raised: :class:`shiftsched.errors.InvalidRequest` for a request that breaks the
    contract, :class:`ServiceProblem` for any other."""

    def __init__(
        self,
        url: str = DEFAULT_URL,
        api_key: str | None = None,
        *,
        http: Session | None = None,
        retries: Retries = Retries(),  # noqa: B008 (frozen)
        timeout: float | None = 120.0,
        sleep: Sleep = time.sleep,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get(API_KEY_VARIABLE)
        self._owned = http is None
        session = http or httpx.Client(timeout=timeout)
        self._transport = Transport(url, key, session, retries, sleep)
        self._sleep = sleep

    def close(self) -> None:
        if self._owned:
            self._transport.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def call(
        self, name: str, request: Body, *, wait: bool = True, progress: Progress = False
    ) -> Any:
        """The answer of the operation called ``name`` to ``request``, as its declared
        model."""
        operation = by_name(name)
        response = self._transport.call("POST", path_of(operation), as_json(request))
        answer = response.json()
        if response.status_code == 202 and wait:
            stream = sys.stderr if progress is True else progress or None
            answer = follow(self._transport, response, progress=stream, sleep=self._sleep)
        return named(operation.response).model_validate(answer)

    def validate(self, request: SolveRequest | Mapping[str, Any]) -> ValidateResponse:
        return cast("ValidateResponse", self.call("validate", request))

    def solve(
        self,
        request: SolveRequest | Mapping[str, Any],
        *,
        wait: bool = True,
        progress: Progress = False,
    ) -> SolveResponse:
        return cast("SolveResponse", self.call("solve", request, wait=wait, progress=progress))

    def plan(
        self,
        request: PlanRequest | Mapping[str, Any],
        *,
        wait: bool = True,
        progress: Progress = False,
    ) -> PlanResponse:
        return cast("PlanResponse", self.call("plan", request, wait=wait, progress=progress))

    def replan(self, request: ReplanRequest | Mapping[str, Any]) -> ReplanResponse:
        return cast("ReplanResponse", self.call("replan", request))

    def recommend(self, request: RecommendRequest | Mapping[str, Any]) -> RecommendResponse:
        return cast("RecommendResponse", self.call("recommend", request))

    def audit(self, request: AuditRequest | Mapping[str, Any]) -> AuditResponse:
        return cast("AuditResponse", self.call("audit", request))

    def compare(self, request: CompareRequest | Mapping[str, Any]) -> CompareResponse:
        return cast("CompareResponse", self.call("compare", request))

    def explain(self, request: ExplainRequest | Mapping[str, Any]) -> ExplainResponse:
        return cast("ExplainResponse", self.call("explain", request))

    def why(self, request: WhyRequest | Mapping[str, Any]) -> WhyResponse:
        return cast("WhyResponse", self.call("why", request))

    def usage(self) -> UsageResponse:
        """The account's free quota, prepaid balance and available units."""
        from shiftsched.contract.v1 import UsageResponse

        return UsageResponse.model_validate(self._transport.call("GET", "/usage").json())

    def job(self, job_id: str, answer: type[M] | None = None) -> M:
        """A job's answer as it stands (a queued call's, or a charged call's again), as
        ``answer`` (default: a SolveResponse; a plan's job is a PlanResponse)."""
        return _as(answer, self._transport.call("GET", job_path(job_id)).json())

    def progress(self, job_id: str) -> dict[str, Any]:
        """How far a queued job has come: state, elapsed_seconds, best_objective,
        best_bound, solutions, improvements."""
        report: dict[str, Any] = self._transport.call("GET", job_path(job_id) + "/progress").json()
        return report

    def stop(self, job_id: str, answer: type[M] | None = None) -> M:
        """Ask a job to stop: its answer as it stands (running while it stops, within
        about a second; ended: as it ended, so a repeated stop is harmless)."""
        return _as(answer, self._transport.call("DELETE", job_path(job_id)).json())


def _as(answer: type[M] | None, body: Any) -> M:
    if answer is None:
        from shiftsched.contract.v1 import SolveResponse

        return cast(M, SolveResponse.model_validate(body))
    return answer.model_validate(body)


__all__ = ["API_KEY_VARIABLE", "DEFAULT_URL", "Client", "as_json", "operation_names", "path_of"]
