"""The re-plan that runs in a solver process of the pool (``bento.solving.workers``).

A re-plan is a solve, so it runs where solves run: in a pool process with its own
deadline and memory cap, never in the web worker. This module imports nothing at the
top, so a pool process that is handed :func:`replan_in_worker` loads only the engine.
"""

from __future__ import annotations

from typing import Any


def replan_in_worker(
    data: Any, time_limit: float, cp_sat_workers: int, diagnosis: float
) -> dict[str, Any]:
    """The ReplanResponse for the re-plan input ``data`` (already validated by the
    handler; parsed again here, as a solve's request is), as JSON data."""
    import signal

    from engine.planning import parse_replan
    from engine.replan import replan
    from engine.solve import SolveLimits

    # As for a solve (bento.solving.workers): a stop of an overrunning process takes effect at once.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    limits = SolveLimits(
        time_limit_seconds=time_limit,
        num_workers=cp_sat_workers,
        diagnosis_budget_seconds=diagnosis,
    )
    response = replan(parse_replan(data), limits)
    return response.model_dump(mode="json", exclude_none=True)
