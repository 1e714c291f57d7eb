"""What an ended job's webhook event says: its type and its data (never the roster).

``job.completed``, ``job.failed`` or ``job.stopped`` (a stop the client asked for, whether
the job then completed with its best roster or failed without one); the data names the
job, its operation and status, the units it charged and where to fetch it.
"""

from __future__ import annotations

from typing import Any

from shiftsched.service.store.rows import aware

API_ROOT = "/v1/public"
TEST_EVENT = "webhook.test"


def check_event(endpoint_id: str, sent_from: str) -> tuple[str, dict[str, Any]]:
    """The event an endpoint is sent on request, to check that it receives and verifies."""
    return TEST_EVENT, {"endpoint_id": endpoint_id, "message": f"a test event, sent {sent_from}"}


def job_event(public_url: str, job: Any, charged: int) -> tuple[str, dict[str, Any]]:
    """The event of ``job`` (a jobs row), which charged ``charged`` units."""
    root = public_url.rstrip("/")
    if job.stop_requested_at is not None:
        kind = "job.stopped"
    else:
        kind = "job.completed" if job.status == "completed" else "job.failed"
    path = f"{API_ROOT}/solve/jobs/{job.id}"
    data = {
        "job_id": job.id,
        "operation": job.operation or "solve",
        "status": job.status,
        "error_code": job.error_code,
        "units_charged": charged,
        "ended_at": aware(job.updated_at).isoformat(),
        "links": {
            "job": root + path,
            "progress": root + path + "/progress",
            "page": f"{root}/dashboard/jobs/{job.id}",
        },
    }
    return kind, data
