"""Admission: which solves may run, how, and what they cost.

One policy for every way in. The key path and the paid path ask :func:`admit` (the paid
path never queues); a queued job is admitted on the key path before it is enqueued; the
MCP tools call the HTTP operations in-process, so they pass here too. What an admitted
run then holds of an account, and how a hold is refused (429 or 503), is
``shiftsched.service.billing.units``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from shiftsched.contract.size import LARGE_SIZE_THRESHOLD, request_size, size_class, units_for
from shiftsched.contract.v1 import SolveRequest
from shiftsched.service.errors import LongSolveNotImplemented, TierLimitExceeded

SYNC_TIME_LIMIT_SECONDS: Final = 30
#: What an account out of units does, said alike by the API and the dashboard.
MORE_UNITS: Final = "ask the operator of this service for prepaid units"


@dataclass(frozen=True)
class Admission:
    """How an admitted operation runs: its size, what it costs, its time limit, and
    whether it is queued."""

    size: int
    units: int  # docs/semantics.md, "Size and units"
    time_limit: float
    queued: bool = False  # large, or longer than a synchronous solve may run

    @classmethod
    def of_solve(cls, size: int, time_limit: float, queued: bool = False) -> Admission:
        """A solve's admission: it costs the units of its size."""
        return cls(size, units_for(size), time_limit, queued)


def admit(solve_request: SolveRequest, *, may_queue: bool, why_not: str = "") -> Admission:
    """The tier/size/time policy: a large or long solve needs the queued path, which only
    a pro key may use (``may_queue``); anything else runs at once. Refused:
    TierLimitExceeded (large) or LongSolveNotImplemented (long), with ``why_not`` added."""
    size = request_size(solve_request)
    timeout = solve_request.options.solver_timeout_seconds
    large = size_class(size) == "large"
    queued = large or timeout > SYNC_TIME_LIMIT_SECONDS
    if queued and not may_queue:
        if large:
            detail = (
                f"size {size:,} exceeds {LARGE_SIZE_THRESHOLD:,}; large problems need a pro key"
            )
            raise TierLimitExceeded(detail + why_not)
        detail = (
            f"solver_timeout_seconds {timeout} exceeds {SYNC_TIME_LIMIT_SECONDS}: "
            "the asynchronous path needs a pro key"
        )
        raise LongSolveNotImplemented(detail + why_not)
    return Admission.of_solve(size, float(timeout), queued)
