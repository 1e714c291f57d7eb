"""Watching and stopping a queued job: ``GET /solve/jobs/{id}/progress`` and
``DELETE /solve/jobs/{id}``.

Why apart from ``shiftsched.service.http.api``: these operations only read and write the job store
(the process solving the job does the rest, ``shiftsched.service.solving.job_watch``), so the API
module keeps only their routes and the authentication it shares with every operation.

Stop outcomes (documented in the OpenAPI document, ``STOP_OUTCOMES``):

- the job has ended: 200 with its final SolveResponse; nothing changes (a repeated stop
  is harmless);
- it has not started solving (waiting in the queue or for a solver process): it fails at
  once with ``error.code`` ``cancelled``, its units are released, 200 with that answer;
- it is solving: the stop is recorded, 202 with the job as it stands (running). Within
  a second or so the job ends as usual: completed with its best roster so far (charged
  like any completed job), or failed ``cancelled`` when it had none (nothing charged).
  The job settles once whichever way it ends, also when it ends on its own meanwhile.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shiftsched.service.errors import NotFound
from shiftsched.service.solving.job_records import failed_response
from shiftsched.service.solving.jobs import RETRY_AFTER_SECONDS
from shiftsched.service.store import Account, Job, StopOutcome, Store
from shiftsched.service.threads import in_thread

STOP_RETRY_AFTER_SECONDS: Final = 1
"""Polling hint after a stop: the job ends within about a second of it."""
CANCELLED_MESSAGE: Final = "the job was stopped before it started solving; nothing was charged"
_NOT_FOUND: Final = "no job with this id belongs to your account"


class Improvement(BaseModel):
    """A better roster found during the search."""

    model_config = ConfigDict(extra="forbid")

    elapsed_seconds: float = Field(description="seconds since the job started solving")
    objective: float = Field(description="the search's objective of that roster")


class JobProgress(BaseModel):
    """How far a job's solve has come; any replica of the service answers the same."""

    model_config = ConfigDict(extra="forbid")

    job_id: str
    status: Literal["running", "completed", "failed"] = Field(
        description="as GET /solve/jobs/{id} reports it"
    )
    state: Literal["queued", "solving", "finished"] = Field(
        description="queued: not solving yet; solving: a solver works on it; finished: ended"
    )
    elapsed_seconds: float = Field(
        description="seconds spent solving so far (0 while queued); updated about every second"
    )
    best_objective: float | None = Field(
        description="the best roster's objective so far; null before the first roster. A "
        "finished, completed job reports its roster's priced objective (metrics.objective_"
        "value), which may be lower than the search's own value of the same roster"
    )
    best_bound: float | None = Field(
        description="the best proven lower bound on the objective; null while unknown"
    )
    solutions: int = Field(ge=0, description="improving rosters found so far")
    improvements: list[Improvement] = Field(
        description="the last (at most 10) improvements, oldest first"
    )


def progress_of(job: Job) -> JobProgress:
    """The progress of a job, from its progress record and, once ended, its answer."""
    record: dict[str, Any] = job.progress if isinstance(job.progress, dict) else {}
    state: Literal["queued", "solving", "finished"] = "solving" if record else "queued"
    if job.status != "running":
        state = "finished"
    progress = JobProgress(
        job_id=job.id,
        status=job.status,
        state=state,
        elapsed_seconds=float(record.get("elapsed_seconds", 0.0)),
        best_objective=record.get("best_objective"),
        best_bound=record.get("best_bound"),
        solutions=int(record.get("solutions", 0)),
        improvements=[Improvement(**item) for item in record.get("improvements", [])],
    )
    return _with_final_metrics(progress, job) if job.status == "completed" else progress


def _with_final_metrics(progress: JobProgress, job: Job) -> JobProgress:
    """A completed job's figures are its answer's (a synchronous solve has no record)."""
    try:
        metrics = job.response_json["solution"]["metrics"]
    except (KeyError, TypeError):
        return progress
    solver = metrics.get("solver") or {}
    return progress.model_copy(
        update={
            "elapsed_seconds": max(
                progress.elapsed_seconds, float(metrics.get("solver_runtime_seconds", 0.0))
            ),
            "best_objective": metrics.get("objective_value", progress.best_objective),
            "best_bound": metrics.get("best_bound", progress.best_bound),
            "solutions": max(progress.solutions, int(solver.get("solutions_found") or 0)),
        }
    )


async def progress_response(request: Request, account: Account) -> Response:
    """The job's progress (404 unless it is the account's); Retry-After while running."""
    store: Store = request.app.state.store
    job = await in_thread(store.jobs.get_job, account.id, request.path_params["id"])
    if job is None:
        raise NotFound(_NOT_FOUND)
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if job.status == "running" else None
    return JSONResponse(progress_of(job).model_dump(mode="json"), headers=headers)


def request_stop(store: Store, account_id: str, job_id: str) -> tuple[Job, StopOutcome] | None:
    """Ask for the account's job to stop (module docstring); None: no such job. The API's
    ``DELETE`` and the dashboard's Stop button both come here, so they stop alike."""
    cancelled = failed_response(job_id, "cancelled", CANCELLED_MESSAGE)
    return store.jobs.stop_job(account_id, job_id, cancelled)


async def stop_response(request: Request, account: Account) -> Response:
    """Ask for the job to stop (module docstring): 202 while it stops, else 200."""
    store: Store = request.app.state.store
    stopped = await in_thread(request_stop, store, account.id, request.path_params["id"])
    if stopped is None:
        raise NotFound(_NOT_FOUND)
    job, outcome = stopped
    if outcome == "stopping":
        headers = {"Retry-After": str(STOP_RETRY_AFTER_SECONDS)}
        return JSONResponse(job.as_response(), status_code=202, headers=headers)
    return JSONResponse(job.as_response())
