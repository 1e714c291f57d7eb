"""The operations of the service, each declared once on the pipeline (``bento.http.pipeline``).

A declaration says how the body is read (the engine's own parser, with JSON paths in its
faults), who pays, what the operation costs and where it runs; authentication, the hold
of units or of a payment, the run, the settlement and the errors are the pipeline's.

Units (docs/semantics.md, "Size and units"):

- a solve costs the units of its size and is charged when it is *delivered* (a roster,
  or 422 solver-infeasible with a diagnosis). A large one, or one longer than 30 s, is
  queued on a pro key (202) and refused otherwise; a payment buys a synchronous solve.
- a re-plan is a solve of its ``request``: it costs what that solve costs and is charged
  the same way. It runs synchronously only, on any tier, with the request's time limit
  capped at 30 s (it starts from the published roster, so it has a roster early); a
  large request is 422 ``tier-limit-exceeded``. It is not kept, so its ``job_id`` cannot
  be polled.
- a recommendation runs no solver (milliseconds, on any request size): a flat
  :data:`RECOMMEND_UNITS`, charged when the ranking is delivered.
- a validation is free and needs no credential.

Re-plans and recommendations take an API key only: a payment buys one solve of
``POST /solve``, so a request without a key is 401 with a Bearer challenge, not the 402
offer, which would offer ways to pay that these operations do not take.
"""

from __future__ import annotations

from typing import Final

from bento.billing.admission import SYNC_TIME_LIMIT_SECONDS, Admission, admit
from bento.http.errors import TierLimitExceeded
from bento.http.pipeline import InPool, InThread, Operation, Payer
from engine.contract import SolveRequest
from engine.planning import RecommendRequest, ReplanRequest, parse_recommend, parse_replan
from engine.recommend import recommend
from engine.rules import parse_request
from engine.size import LARGE_SIZE_THRESHOLD, request_size, size_class
from engine.validation import describe

RECOMMEND_UNITS: Final = 1


def _admit_solve(request: SolveRequest, payer: Payer | None) -> Admission:
    assert payer is not None, "a solve is paid for"
    return admit(request, may_queue=payer.may_queue, why_not=payer.why_not)


def _admit_replan(ask: ReplanRequest, payer: Payer | None) -> Admission:
    """Synchronous on any tier, the time limit capped at the synchronous one;
    TierLimitExceeded for a large request."""
    size = request_size(ask.request)
    if size_class(size) == "large":
        raise TierLimitExceeded(
            f"size {size:,} exceeds {LARGE_SIZE_THRESHOLD:,}: a re-plan runs synchronously "
            "only, and large problems are solved on the queued path only"
        )
    timeout = min(ask.request.options.solver_timeout_seconds, SYNC_TIME_LIMIT_SECONDS)
    return Admission.of_solve(size, float(timeout))


def _admit_recommend(ask: RecommendRequest, payer: Payer | None) -> Admission:
    return Admission(request_size(ask.request), RECOMMEND_UNITS, time_limit=0.0)


def _admit_validate(request: SolveRequest, payer: Payer | None) -> Admission:
    return Admission(request_size(request), units=0, time_limit=0.0)


VALIDATE = Operation(
    name="validate",
    parse=parse_request,
    admit=_admit_validate,
    run=InThread(describe),
    payment="free",
)
SOLVE = Operation(
    name="solve",
    parse=parse_request,
    admit=_admit_solve,
    run=InPool("engine.solve:solve", "sync"),
    payment="key_or_payment",
    keeps_job=True,
)
REPLAN = Operation(
    name="replan",
    parse=parse_replan,
    admit=_admit_replan,
    run=InPool("engine.replan:replan", "replan"),
)
RECOMMEND = Operation(
    name="recommend",
    parse=parse_recommend,
    admit=_admit_recommend,
    run=InThread(recommend),
)
