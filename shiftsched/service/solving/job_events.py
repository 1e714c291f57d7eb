"""A live stream of a job: ``GET /solve/jobs/{id}/events``, server-sent events.

Why: a queued job takes minutes, and polling its progress every few seconds is slow to
notice a better roster and wasteful when nothing changes. The stream sends the job's
progress (the body of ``GET /solve/jobs/{id}/progress``) each time it changes, then one
``end`` event with the job's final status, and closes. The roster is not streamed: it is
fetched from the job, as after polling.

Every replica answers the same: the stream reads the job store (where the solving process
records its progress about every second), checking it every :data:`CHECK_SECONDS`, so
the first roster reaches the client within about a second of being found. A client that
reconnects with ``Last-Event-ID`` gets the progress as it stands, and the stream goes on
from there. Comments keep the connection open through proxies (:data:`PING_SECONDS`).

The dashboard's job page follows a job through the same stream (:func:`event_stream`),
behind its session instead of the API key (``shiftsched.service.dashboard.job_live``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, Final

import anyio
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request

from shiftsched.service.errors import NotFound
from shiftsched.service.solving.job_control import progress_of
from shiftsched.service.store import Account, Job, Store
from shiftsched.service.threads import in_thread

CHECK_SECONDS: Final = 0.5
PING_SECONDS: Final = 15
PROGRESS: Final = "progress"
END: Final = "end"
_NOT_FOUND: Final = "no job with this id belongs to your account"


async def events_response(request: Request, account: Account) -> EventSourceResponse:
    """The job's stream (404 unless it is the account's)."""
    store: Store = request.app.state.store
    job_id = request.path_params["id"]
    job = await in_thread(store.jobs.get_job, account.id, job_id)
    if job is None:
        raise NotFound(_NOT_FOUND)
    return event_stream(store, account.id, job)


def event_stream(store: Store, account_id: str, job: Job) -> EventSourceResponse:
    """The stream of ``job``, already found to be ``account_id``'s: whoever asked for it
    (an API key, a dashboard session), the events are the same."""
    return EventSourceResponse(
        _events(store, account_id, job),
        ping=PING_SECONDS,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _events(store: Store, account_id: str, job: Job | None) -> AsyncIterator[ServerSentEvent]:
    """Each change of the job's progress, then its end; ``job`` as first read."""
    sent: dict[str, Any] | None = None
    number = 0
    while job is not None:
        progress = progress_of(job).model_dump(mode="json")
        if progress != sent:
            number += 1
            yield ServerSentEvent(data=_json(progress), event=PROGRESS, id=str(number))
            sent = progress
        if job.status != "running":
            number += 1
            ended = {"job_id": job.id, "status": job.status, "error_code": job.error_code}
            yield ServerSentEvent(data=_json(ended), event=END, id=str(number))
            return
        await anyio.sleep(CHECK_SECONDS)
        job = await in_thread(store.jobs.get_job, account_id, job.id)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
