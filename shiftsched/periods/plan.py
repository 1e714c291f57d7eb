"""Plan a period with hard absences on dates: vacations, sick leave, training.

A v1 request has no way to say that someone cannot work on a date; a plan input does
(``shiftsched.contract.planning.PlanRequest``). Planning is a re-plan with nothing published: the
same hard absences, the same search from a greedy start, and, when they cannot all hold, the
same diagnosis naming the absences in conflict by their JSON paths
(``absences[i].dates[j]``). With no published roster there is no change to price, so the
answer is a SolveResponse, its metrics the request's own, its bound a bound on them
(docs/semantics.md, "Planning with absences"). A history (shiftsched.contract.history) is read at
the seam, and the answer adds the ledger to hand to the next period ("Planning across
periods"). A horizon (shiftsched.contract.horizon_targets) gives the period its share of
limits that span longer ("Horizon targets"), and the ledger carries the counts towards them.
"""

from __future__ import annotations

from shiftsched.contract.planning import PlanRequest, PlanResponse, ReplanRequest
from shiftsched.contract.v1 import SolveResponse
from shiftsched.periods.horizon import horizon_after
from shiftsched.periods.replan import replan
from shiftsched.periods.seam import ledger_after
from shiftsched.solving.solve import SolveLimits


def plan(
    ask: PlanRequest, limits: SolveLimits | None = None, job_id: str | None = None
) -> PlanResponse:
    """A roster of ``ask.request`` in which no absent employee works an absent date,
    following ``ask.history``; with a roster, the ledger for the next period."""
    planned = replan(
        ReplanRequest(
            request=ask.request,
            roster=[],
            absences=ask.absences,
            change_weight=0,
            history=ask.history,
        ),
        limits,
        job_id,
        horizon=ask.horizon,
    )
    fields = {name: getattr(planned, name) for name in SolveResponse.model_fields}
    if planned.solution is not None:
        roster = planned.solution.assignments
        ledger = ledger_after(ask.request, roster, ask.history)
        if ask.horizon is not None:
            kept, standing = horizon_after(ask.request, roster, ask.history, ask.horizon)
            ledger = ledger.model_copy(update={"horizon": kept})
            fields["horizon_progress"] = standing
        fields["ledger"] = ledger
    return PlanResponse(**fields)
