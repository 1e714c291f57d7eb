"""Plan a period with hard absences on dates: vacations, sick leave, training.

A v1 request has no way to say that someone cannot work on a date; a plan input does
(``engine.planning.PlanRequest``). Planning is a re-plan with nothing published: the same
hard absences, the same search from a greedy start, and, when they cannot all hold, the
same diagnosis naming the absences in conflict by their JSON paths
(``absences[i].dates[j]``). With no published roster there is no change to price, so the
answer is a plain SolveResponse, its metrics the request's own, its bound a bound on them
(docs/semantics.md, "Planning with absences").
"""

from __future__ import annotations

from engine.contract import SolveResponse
from engine.planning import PlanRequest, ReplanRequest
from engine.replan import replan
from engine.solve import SolveLimits


def plan(
    ask: PlanRequest, limits: SolveLimits | None = None, job_id: str | None = None
) -> SolveResponse:
    """A roster of ``ask.request`` in which no absent employee works an absent date."""
    planned = replan(
        ReplanRequest(request=ask.request, roster=[], absences=ask.absences, change_weight=0),
        limits,
        job_id,
    )
    return SolveResponse(**{name: getattr(planned, name) for name in SolveResponse.model_fields})
