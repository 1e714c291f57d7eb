"""How each operation of the service is admitted (``shiftsched.service.http.operations``):
its size, the units it costs and its time limit, now or on the queue, or refused.

Why apart from the declarations: these are the rules the tiers and the units are made
of (docs/semantics.md, "Size and units"), and their numbers (a recommendation's units,
the deadlines of work that solves nothing) are said in the operations' docs too
(``shiftsched.service.http.operation_notes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from shiftsched.contract.size import LARGE_SIZE_THRESHOLD, request_size, size_class
from shiftsched.service.billing.admission import SYNC_TIME_LIMIT_SECONDS, Admission, admit
from shiftsched.service.errors import TierLimitExceeded

if TYPE_CHECKING:
    from shiftsched.contract.planning import PlanRequest, RecommendRequest, ReplanRequest
    from shiftsched.contract.v1 import SolveRequest
    from shiftsched.questions.inquiry import (
        AuditRequest,
        CompareRequest,
        ExplainRequest,
        WhyRequest,
    )
    from shiftsched.service.http.pipeline import Payer

RECOMMEND_UNITS: Final = 1
#: Past these seconds from its start, work that solves nothing is stopped (504, nothing
#: charged). The largest audit a valid body allows takes about a second; a
#: recommendation's deadline falls well inside the lease of its unit.
FREE_DEADLINE_SECONDS: Final = 10.0
RECOMMEND_DEADLINE_SECONDS: Final = 20.0


def admit_solve(request: SolveRequest, payer: Payer | None) -> Admission:
    assert payer is not None, "a solve is paid for"
    return admit(request, may_queue=payer.may_queue, why_not=payer.why_not)


def admit_plan(ask: PlanRequest, payer: Payer | None) -> Admission:
    """As a solve of its request (the history is not billed): now, or queued when large
    or long on a pro key."""
    return admit_solve(ask.request, payer)


def admit_replan(ask: ReplanRequest, payer: Payer | None) -> Admission:
    return admit_synchronous(ask.request, "a re-plan")


def admit_synchronous(request: SolveRequest, what: str) -> Admission:
    """Synchronous on any tier, the time limit capped at the synchronous one;
    TierLimitExceeded for a large request."""
    size = request_size(request)
    if size_class(size) == "large":
        raise TierLimitExceeded(
            f"size {size:,} exceeds {LARGE_SIZE_THRESHOLD:,}: {what} runs synchronously "
            "only, and large problems are solved on the queued path only"
        )
    timeout = min(request.options.solver_timeout_seconds, SYNC_TIME_LIMIT_SECONDS)
    return Admission.of_solve(size, float(timeout))


def admit_recommend(ask: RecommendRequest, payer: Payer | None) -> Admission:
    """Synchronous on any tier, like every question of a roster: a large request is
    TierLimitExceeded at once. Its lease covers its deadline (``time_limit``)."""
    size = request_size(ask.request)
    if size_class(size) == "large":
        raise TierLimitExceeded(
            f"size {size:,} exceeds {LARGE_SIZE_THRESHOLD:,}: a recommendation runs "
            "synchronously only, and large problems are solved on the queued path only"
        )
    return Admission(size, RECOMMEND_UNITS, time_limit=RECOMMEND_DEADLINE_SECONDS)


def admit_validate(request: SolveRequest, payer: Payer | None) -> Admission:
    return Admission(request_size(request), units=0, time_limit=0.0)


def admit_free(ask: AuditRequest | CompareRequest, payer: Payer | None) -> Admission:
    return Admission(request_size(ask.request), units=0, time_limit=0.0)


def admit_explain(ask: ExplainRequest, payer: Payer | None) -> Admission:
    return admit_synchronous(ask.request, "an explanation")


def admit_why(ask: WhyRequest, payer: Payer | None) -> Admission:
    return admit_synchronous(ask.request, "a why-not question")
