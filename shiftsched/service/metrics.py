"""Prometheus counters of what the service does: solves by outcome and how long they
took, units consumed and units refused.

Why these: they are the questions an operator asks first (are solves ending well, are
they getting slower, is the quota turning callers away), and nothing in BentoML's own
request metrics answers them, since one ``/v1/public`` mount serves every operation.

The metrics are plain ``prometheus_client`` objects (``bentoml.metrics`` is deprecated in
favour of it) on this module's own registry, so tests read exactly them. Under
``bentoml serve`` every worker runs in Prometheus' multiprocess mode
(``PROMETHEUS_MULTIPROC_DIR`` is set before the worker starts, and moved to a directory
of the instance's own by :mod:`shiftsched.service.metrics_dir`), so the values land in the
shared files that BentoML's ``/metrics`` reads, whichever registry they were made on. A
separate job consumer (``JOBS_CONSUMER=external``) counts in its own process, which
serves no ``/metrics``; its job outcomes are then seen only in the job gauges
(``shiftsched.service.ops.gauges``).

Each place where one of these happens calls one hook: :func:`solving` around a solve,
:func:`units_consumed` where a reservation is captured, :func:`units_refused` where one is
refused (429). A hook never raises into the request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Histogram

from shiftsched.contract.v1 import SolveResponse
from shiftsched.operations import OPERATIONS, SOLVE, Operation
from shiftsched.service.failures import SolveFailed
from shiftsched.service.metrics_dir import use_instance_dir

SolvePath = str
"""Where a solve is counted: ``sync`` or ``queued`` for a solve, else the name of the
operation that solved (one whose declaration says it ``solves``, ``shiftsched.operations``)."""
SYNC: Final = "sync"
QUEUED: Final = "queued"


def path_of(operation: Operation) -> SolvePath:
    """The path a synchronous run of ``operation`` is counted on."""
    return SYNC if operation.name == SOLVE.name else operation.name


def solve_paths() -> tuple[SolvePath, ...]:
    """Every path, from the declarations: a solve's two, then one per other operation
    that solves, in the engine's order."""
    others = (op.name for op in OPERATIONS if op.solves and op.name != SOLVE.name)
    return (SYNC, QUEUED, *others)


SOLVE_PATHS: Final = solve_paths()
OUTCOMES: Final = ("completed", "no_solution", "timeout", "cancelled", "error")
_OUTCOME_OF_CODE: Final = {
    "no_solution": "no_solution",
    "solver_timeout": "timeout",
    "cancelled": "cancelled",
}
# Solves last from well under a second to the 300 s a queued job may take.
DURATION_BUCKETS: Final = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)

log = logging.getLogger(__name__)

# Before the first metric of the process is created (shiftsched.service.metrics_dir).
use_instance_dir()
REGISTRY = CollectorRegistry()
SOLVES = Counter(
    "shiftsched_solves",
    "Solves that ran to an end, by path (sync, queued, replan, plan) and outcome.",
    ["path", "outcome"],
    registry=REGISTRY,
)
SOLVE_SECONDS = Histogram(
    "shiftsched_solve_duration_seconds",
    "Wall time of a solve, from asking the solver pool to its result (a wait for a free "
    "solver process included), by path and outcome.",
    ["path", "outcome"],
    buckets=DURATION_BUCKETS,
    registry=REGISTRY,
)
UNITS_CONSUMED = Counter(
    "shiftsched_units_consumed",
    "Units captured from accounts (free quota or prepaid balance) for delivered answers.",
    registry=REGISTRY,
)
UNITS_REFUSED = Counter(
    "shiftsched_units_refused",
    "Units asked for by solves refused because the account could not cover them (429).",
    registry=REGISTRY,
)
for _path in SOLVE_PATHS:  # every series exists from the start, so rates never see a gap
    for _outcome in OUTCOMES:
        SOLVES.labels(_path, _outcome)


def outcome_of(answer: SolveResponse) -> str:
    """A solve's outcome label from its SolveResponse (or ReplanResponse)."""
    if answer.status == "completed":
        return "completed"
    code = answer.error.code if answer.error is not None else None
    return _OUTCOME_OF_CODE.get(str(code), "error")


@contextmanager
def solving(path: SolvePath, job_id: str | None = None) -> Iterator[Callable[[Any], Any]]:
    """Count the solve run in the block; pass its result through the yielded function::

        with metrics.solving("sync") as seen:
            result = seen(await run_the_solve())

    A block that raises ``SolveFailed`` (the solver process died or overran) counts as
    ``error``; any other exception (no free solver process, a store fault a job retries,
    a cancelled request) means no solve ended, and nothing is counted. Each counted solve
    also logs one line, with the request's id or ``job_id``.
    """
    started = time.perf_counter()
    outcome: list[str] = []

    def seen(result: Any) -> Any:
        # An answer that is not a solve (an explanation) is delivered whatever it says.
        outcome.append(outcome_of(result) if isinstance(result, SolveResponse) else "completed")
        return result

    try:
        yield seen
    except SolveFailed:
        outcome.append("error")
        raise
    finally:
        if outcome:
            _record(path, outcome[-1], time.perf_counter() - started, job_id)


def _record(path: SolvePath, outcome: str, seconds: float, job_id: str | None) -> None:
    try:
        SOLVES.labels(path, outcome).inc()
        SOLVE_SECONDS.labels(path, outcome).observe(seconds)
        extra = {"job_id": job_id} if job_id else None
        log.info("solve path=%s outcome=%s seconds=%.3f", path, outcome, seconds, extra=extra)
    except Exception:  # a metric must never fail the solve it describes
        log.exception("solve metrics not recorded")


def units_consumed(units: int) -> None:
    """A reservation of ``units`` was captured."""
    UNITS_CONSUMED.inc(units)


def units_refused(units: int) -> None:
    """A solve needing ``units`` was refused for want of them (429 quota-exceeded)."""
    UNITS_REFUSED.inc(units)
