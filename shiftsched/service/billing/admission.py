"""Admission and billing: which solves may run, how, and what they hold of an account.

One policy for every way in. The key path and the paid path ask :func:`admit` (the paid
path never queues); a queued job is admitted on the key path before it is enqueued; the
MCP tools call the HTTP operations in-process, so they pass here too. Units held for a
keyed solve go through :func:`hold_units`, which releases them when the solve does not
happen, so no failure path can forget to; and every hold it takes is bounded in time (a
lease, or its job), so neither can a crash (``shiftsched.service.billing.settlement``).

A solve the account cannot cover is refused in one of two ways. When the units are
simply not there (free quota and balance spent), 429 quota-exceeded: the contract says
waiting will not help, and it sends no Retry-After. When they are there but held by the
account's own solves under way (a burst of concurrent requests), waiting may well help:
a held solve that fails gives its units back. That is 503 with Retry-After, and it is not
counted as refused units.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Final

from shiftsched.contract.size import LARGE_SIZE_THRESHOLD, request_size, size_class, units_for
from shiftsched.contract.v1 import SolveRequest
from shiftsched.service import metrics
from shiftsched.service.errors import (
    LongSolveNotImplemented,
    QuotaExceeded,
    ServiceUnavailable,
    TierLimitExceeded,
)
from shiftsched.service.store import Store
from shiftsched.service.threads import in_thread

SYNC_TIME_LIMIT_SECONDS: Final = 30
#: What an account out of units does, said alike by the API and the dashboard.
MORE_UNITS: Final = "ask the operator of this service for prepaid units"
#: Seconds to wait before retrying a solve whose units are held by solves under way.
RETRY_AFTER_HELD_SECONDS: Final = 10


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


@asynccontextmanager
async def hold_units(
    store: Store,
    account_id: str,
    units: int,
    reservation_id: str,
    *,
    lease_seconds: float,
    purpose: str,
    sync_job_id: str | None = None,
) -> AsyncIterator[None]:
    """Hold ``units`` of the account for the block; QuotaExceeded when it cannot cover
    them, ServiceUnavailable when only units held by its solves under way are missing.
    Any exception out of the block releases the hold (nothing is charged) and goes on;
    settling a solve that did happen (capture or release) is the block's business.

    ``lease_seconds``: how long the hold may go unsettled before the reconciler settles
    it, longer than the block can take. ``sync_job_id``: the synchronous solve's record,
    which the block writes; a failure out of the block forgets it with the hold."""
    await reserve_units(
        store, account_id, units, reservation_id, lease_seconds=lease_seconds, purpose=purpose
    )
    try:
        yield
    except BaseException:
        if sync_job_id is not None:
            await in_thread(store.jobs.abandon_sync_job, sync_job_id)
        await in_thread(store.ledger.release, reservation_id)
        raise


async def reserve_units(
    store: Store,
    account_id: str,
    units: int,
    reservation_id: str,
    *,
    lease_seconds: float,
    purpose: str,
) -> None:
    """Hold ``units`` of the account until captured, released or past ``lease_seconds``;
    QuotaExceeded when it cannot cover them, ServiceUnavailable when only units held by
    its solves under way are missing."""
    reservation = await in_thread(
        store.ledger.reserve,
        account_id,
        units,
        reservation_id,
        lease_seconds=lease_seconds,
        purpose=purpose,
    )
    if reservation is None:
        raise await _short_of_units(store, account_id, units)


async def _short_of_units(
    store: Store, account_id: str, units: int
) -> QuotaExceeded | ServiceUnavailable:
    """Why a reservation of ``units`` was refused: no units (429), or units held by the
    account's solves under way (503, retry)."""
    held = await in_thread(store.ledger.held_units, account_id)
    _, _, available = await in_thread(store.ledger.usage, account_id)
    if held > 0 and available + held >= units:
        return ServiceUnavailable(
            f"this solve needs {units} unit(s) and {available} are free now; {held} more "
            "are held by this account's solves under way and come back if they fail: "
            "retry when they end; nothing was charged",
            retry_after=RETRY_AFTER_HELD_SECONDS,
        )
    metrics.units_refused(units)
    return QuotaExceeded(
        f"this solve needs {units} unit(s) and {available} are available: {MORE_UNITS}"
    )
