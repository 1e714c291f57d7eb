"""The operations of the service, each declared once on the pipeline
(``shiftsched.service.http.pipeline``).

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
  large request is 422 ``tier-limit-exceeded``.
- a plan is a solve of its ``request`` with hard absences on dates and, optionally, the
  history before its period (not billed): it costs, is admitted, queued and charged as
  that solve. A large or long one is queued on a pro key (202), its job running
  ``shiftsched.periods.plan:plan`` on the stored plan body, and refused otherwise.
- a recommendation runs no solver: a flat :data:`RECOMMEND_UNITS`, charged when the
  ranking is delivered. It is admitted by size like a question (a large request is 422
  ``tier-limit-exceeded``) and runs in a light process under
  :data:`RECOMMEND_DEADLINE_SECONDS`, well inside the lease of its unit: past it, it is
  stopped, answered 504 and not charged.
- a validation, an audit and a comparison of two rosters are free and need no
  credential (no solver runs; the body cap and the period's ceiling of every request
  apply). They are rate-limited per client address; the audit and the comparison run in
  a light process under :data:`FREE_DEADLINE_SECONDS` (``shiftsched.service.solving.light``).
- an explanation of a roster's shortages and a why-not question each cost what a solve
  of their request costs, and run synchronously only, like a re-plan (a large request is
  422 ``tier-limit-exceeded``; the time limit is capped at 30 s). Their answer is always
  delivered (a verdict per shortage, or for the cell asked about), so it is charged.

Every call paid with an API key is kept as a job (``shiftsched.service.billing.units``): its answer
carries its ``job_id`` (a 422 solver-infeasible too, as a member of the problem), which
``GET /solve/jobs/{id}`` answers again and the dashboard's Jobs page lists with the units
it charged.

Plans, re-plans and recommendations take an API key only: a payment buys one solve of
``POST /solve``, so a request without a key is 401 with a Bearer challenge, not the 402
offer, which would offer ways to pay that these operations do not take.
"""

from __future__ import annotations

from typing import Final

from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import (
    PlanRequest,
    PlanResponse,
    RecommendRequest,
    RecommendResponse,
    ReplanRequest,
    ReplanResponse,
    parse_plan,
    parse_recommend,
    parse_replan,
)
from shiftsched.contract.size import LARGE_SIZE_THRESHOLD, request_size, size_class
from shiftsched.contract.v1 import SolveRequest, SolveResponse, ValidateResponse
from shiftsched.questions.inquiry import (
    AuditRequest,
    AuditResponse,
    CompareRequest,
    CompareResponse,
    ExplainRequest,
    ExplainResponse,
    WhyRequest,
    WhyResponse,
    parse_audit,
    parse_compare,
    parse_explain,
    parse_why,
)
from shiftsched.questions.validation import describe
from shiftsched.service.billing.admission import SYNC_TIME_LIMIT_SECONDS, Admission, admit
from shiftsched.service.errors import TierLimitExceeded
from shiftsched.service.http.pipeline import (
    Docs,
    InLightPool,
    InPool,
    InThread,
    Operation,
    Payer,
    Tool,
)

RECOMMEND_UNITS: Final = 1
#: Past these seconds from its start, work that solves nothing is stopped (504, nothing
#: charged). The largest audit a valid body allows takes about a second; a
#: recommendation's deadline falls well inside the lease of its unit.
FREE_DEADLINE_SECONDS: Final = 10.0
RECOMMEND_DEADLINE_SECONDS: Final = 20.0
KEY_ONLY: Final = (
    "no API key, or an unknown or disabled one (these operations take no payment, so a "
    "missing credential is 401, not the 402 offer of POST /solve)"
)
QUOTA: Final = (
    "free quota and balance cannot cover the units, even once the account's solves under "
    "way have ended (no Retry-After: waiting will not help)"
)
REPLAN_DESCRIPTION: Final = (
    "Re-plan a published roster after a change, moving as few people as possible. The "
    "body holds the request (perhaps edited since), the published roster (its "
    "assignments), absences (an absent employee works none of those dates: hard), pins "
    "(each listed assignment is kept: hard; pin_before keeps every cell before that date, "
    "days off included) and change_weight, the objective price of each changed (employee, "
    "date) cell (default 500: above a preference, far below a missing head), and "
    "optionally the history of the days before the period (as POST /solve/plan reads "
    "it). The answer is "
    "a SolveResponse whose metrics are the request's own (the change penalty is not in "
    "them), plus changes[], every cell that differs from the published roster. Costs what "
    "a solve of the request costs, charged as POST /solve: a roster, or 422 "
    "solver-infeasible whose diagnosis names the absences and pins in conflict by their "
    "JSON paths (absences[i].dates[j], pinned[i], pin_before). Runs synchronously only, "
    "on any tier, with the request's time limit capped at 30 s (a large request is 422 "
    "tier-limit-exceeded); on an API key only. Kept as a job: GET /solve/jobs/{job_id} "
    "answers it again."
)
PLAN_DESCRIPTION: Final = (
    "Plan a period: the body holds the request, absences[] (each an employee_id and the "
    "dates they cannot work: vacations, sick leave, training) and, optionally, the history "
    "of the days before the period: the previous period's SolveResponse as it stands, or "
    "{start_date?, assignments, ledger?}. Every rule that spans the boundary (the run of "
    "worked days, a transition from the last shift, the week and month the start cuts in "
    "two) reads the history, and fairness counts the past too. The answer is a "
    "SolveResponse like POST /solve's, plus ledger: per employee, the running counts to "
    "hand to the next period. No absent employee works an absent date. Costs what a solve "
    "of the request costs (the history is not billed), charged as POST /solve: a roster, "
    "or 422 solver-infeasible whose diagnosis names the absences and rules in conflict by "
    "their JSON paths. Admitted as POST /solve: a large request (size over 80,000) or a "
    "time limit over 30 s is queued on a pro key (202 with a job_id and status running; "
    "poll GET /solve/jobs/{id}, whose answer, once completed, has the ledger too; its "
    "progress and stop as a queued solve's; its units held from acceptance and settled "
    "once when the job ends), and refused on a basic key (422 tier-limit-exceeded, 501). "
    "On an API key only; a synchronous answer is kept as a job too (its job_id)."
)
RECOMMEND_DESCRIPTION: Final = (
    "Rank the employees who could fill a slot (a shift on a date, optionally a duty) in "
    "a published roster, without solving: each candidate's move (taking the slot, leaving "
    "the shift they work that date) is priced by the independent audit of the edited "
    "roster: the hard rules it breaks, the objective delta and the soft terms it moves. "
    "Feasible moves first, then the smallest objective delta. Employees already in the "
    "slot and those absent on its date are not candidates. Costs "
    f"{RECOMMEND_UNITS} unit, on an API key only. Runs synchronously only, on any tier (a "
    "large request is 422 tier-limit-exceeded), and is stopped past "
    f"{RECOMMEND_DEADLINE_SECONDS:g} s (504, nothing charged)."
)


def _admit_solve(request: SolveRequest, payer: Payer | None) -> Admission:
    assert payer is not None, "a solve is paid for"
    return admit(request, may_queue=payer.may_queue, why_not=payer.why_not)


def _admit_plan(ask: PlanRequest, payer: Payer | None) -> Admission:
    """As a solve of its request (the history is not billed): now, or queued when large
    or long on a pro key."""
    return _admit_solve(ask.request, payer)


def _admit_replan(ask: ReplanRequest, payer: Payer | None) -> Admission:
    return _admit_synchronous(ask.request, "a re-plan")


def _admit_synchronous(request: SolveRequest, what: str) -> Admission:
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


def _keyed_solve_notes(what: str) -> dict[int, str]:
    """The notes a solve on a key only shares with the others (the re-plan, the plan):
    all but its 422, which says what its own input can get wrong."""
    return {
        401: KEY_ONLY,
        429: QUOTA,
        500: f"the {what} failed; nothing was charged",
        503: "every solver process stayed busy for the queue wait or the waiting line is "
        f"full (Retry-After), the {what}'s process was lost or the service is stopping, "
        "the account store is unreachable, or the units are held by the account's "
        "solves under way; nothing was charged",
        504: "no roster within the time limit",
    }


def _admit_recommend(ask: RecommendRequest, payer: Payer | None) -> Admission:
    """Synchronous on any tier, like every question of a roster: a large request is
    TierLimitExceeded at once. Its lease covers its deadline (``time_limit``)."""
    size = request_size(ask.request)
    if size_class(size) == "large":
        raise TierLimitExceeded(
            f"size {size:,} exceeds {LARGE_SIZE_THRESHOLD:,}: a recommendation runs "
            "synchronously only, and large problems are solved on the queued path only"
        )
    return Admission(size, RECOMMEND_UNITS, time_limit=RECOMMEND_DEADLINE_SECONDS)


def _admit_validate(request: SolveRequest, payer: Payer | None) -> Admission:
    return Admission(request_size(request), units=0, time_limit=0.0)


def _admit_free(ask: AuditRequest | CompareRequest, payer: Payer | None) -> Admission:
    return Admission(request_size(ask.request), units=0, time_limit=0.0)


def _admit_explain(ask: ExplainRequest, payer: Payer | None) -> Admission:
    return _admit_synchronous(ask.request, "an explanation")


def _admit_why(ask: WhyRequest, payer: Payer | None) -> Admission:
    return _admit_synchronous(ask.request, "a why-not question")


ANONYMOUS_429: Final = (
    "too many requests from this client address (or with this key) in a short window; "
    "Retry-After says when to try again"
)
FREE_NOTES: Final = {
    422: "the body breaks the contract, or a roster does not fit its request (unknown "
    "employee, shift or duty, a date outside the period, or a roster of another request "
    "as one fault); errors[] has JSON paths, e.g. [roster, 3, employee_id]",
    429: ANONYMOUS_429,
    503: "the light processes stayed busy for their wait, or their waiting line is full "
    "(Retry-After)",
    504: f"the work ran past its deadline of {FREE_DEADLINE_SECONDS:g} s and was stopped",
}
QUESTION_422: Final = (
    "the body breaks the contract or the roster does not fit its request (errors[] with "
    "JSON paths, e.g. [roster, 3, date], [dates, 0]); or a large request (it runs "
    "synchronously only, on any tier); nothing is charged"
)


VALIDATE = Operation(
    name="validate",
    path="/solve/validate",
    body=SolveRequest,
    answer=ValidateResponse,
    docs=Docs(
        "Check a request without solving it (free, no authentication)",
        answered="valid, with hints",
        notes={422: "the request breaks the contract; errors[] has JSON paths", 429: ANONYMOUS_429},
    ),
    tool=Tool(
        "validate_shift_input",
        "Check a scheduling request without solving it (free): counts and hints.",
    ),
    parse=parse_request,
    admit=_admit_validate,
    run=InThread(describe),
    payment="free",
)
SOLVE = Operation(
    name="solve",
    path="/solve",
    body=SolveRequest,
    answer=SolveResponse,
    docs=Docs(
        "Solve a request; consumes max(1, ceil(size / 10,000)) units",
        answered="a roster (status completed); the units headers on the API-key path, the "
        "payment headers on a paid solve",
        notes={
            401: "invalid or disabled API key (also one sent beside a payment), a malformed "
            "or refused payment (wrong price, recipient or network, refused by the "
            "facilitator/provider, or used before), or a payment of a scheme not configured "
            "here; WWW-Authenticate names the rejecting scheme: a Bearer, X402 (with "
            "PAYMENT-REQUIRED) or Payment challenge. A payment is used before when it paid "
            "a solve, or is held by a request in flight (until that request ends, or its "
            "claim's lease runs out if it died); one x402 authorization is one payment "
            "whether it comes as X-PAYMENT or PAYMENT-SIGNATURE. Also a payment whose "
            "settlement the facilitator/provider refused after the solve "
            "(X-Service-Settle-Status: failed): the roster is withheld",
            422: "the request breaks the contract (errors[] has JSON paths); a large "
            "problem on a basic key, or any large problem paid by x402/mpp (a payment buys "
            "a synchronous solve only); or the hard rules admit no roster (with "
            "solver_status and diagnosis; units are consumed, a payment is settled)",
            429: "free quota and balance cannot cover the solve, even once the account's "
            "solves under way have ended (a queued job reserves its units when accepted); "
            "no Retry-After: waiting will not help",
            500: "the solve failed (it overran its deadline, or a bug); nothing was charged",
            501: "a time limit over 30 s needs the queued path, which needs a pro key",
            503: "every solver process stayed busy for the queue wait, "
            "SOLVE_QUEUE_WAIT_SECONDS, or the waiting line is full: Retry-After says when a "
            "process is expected to free up; the solve's process was lost, e.g. killed for "
            "its memory; the service is stopping (SHUTDOWN_GRACE_SECONDS ran out, or the "
            "solve was asked for after the stop began); the units this solve needs are held "
            "by the account's own solves under way, which give them back if they fail; "
            "account store or job queue unreachable, the x402 facilitator or mpp payment "
            "provider unreachable at verification, or payments misconfigured on this "
            "server, e.g. an invalid network identifier; nothing was charged",
            504: "no roster within the time limit",
        },
    ),
    tool=Tool(
        "solve_shift",
        """Solve a scheduling request; consumes max(1, ceil(size / 10,000)) units.

        Small problems return the roster (status completed); large ones on a pro key
        return a job_id (status running) to poll with get_solve_job.
        """,
    ),
    parse=parse_request,
    admit=_admit_solve,
    run=InPool("shiftsched.solving.solve:solve", "sync"),
    payment="key_or_payment",
    queues=True,
)
REPLAN = Operation(
    name="replan",
    path="/solve/replan",
    body=ReplanRequest,
    answer=ReplanResponse,
    docs=Docs(
        "Re-plan a published roster after absences, with pins; consumes the units of a "
        "solve of its request",
        answered="the new roster (status completed), its usage and changes[]",
        description=REPLAN_DESCRIPTION,
        notes={
            **_keyed_solve_notes("re-plan"),
            422: "the request breaks the contract (errors[] with JSON paths, e.g. "
            "[absences, 0, employee_id]); a large request (a re-plan runs synchronously "
            "only, on any tier); or the hard rules admit no roster (with solver_status and "
            "diagnosis; units are consumed, as on POST /solve)",
        },
    ),
    tool=Tool(
        "replan_shift",
        """Re-plan a published roster after a change, moving as few people as possible.

        ``request``: the scheduling request (edited since, if anything changed);
        ``roster``: the published roster's assignments (a solve's solution.assignments).
        Hard: an absent employee works none of the listed ``absences`` dates; each
        ``pinned`` assignment stays; with ``pin_before`` (YYYY-MM-DD) every cell before
        that date stays as published, days off included. Each changed (employee, date)
        cell costs ``change_weight`` in the objective (default 500: above a preference,
        far below a missing head). Returns the new roster with ``changes`` (every cell
        that differs). Consumes the units of a solve of ``request``; when the absences
        and pins cannot all hold, the error's diagnosis names them (absences[i].dates[j],
        pinned[i], pin_before).
        """,
        spread=True,
    ),
    parse=parse_replan,
    admit=_admit_replan,
    run=InPool("shiftsched.periods.replan:replan", "replan"),
    called="re-plan",
)
PLAN = Operation(
    name="plan",
    path="/solve/plan",
    body=PlanRequest,
    answer=PlanResponse,
    docs=Docs(
        "Plan a period with absences and the history before it; consumes the units of a "
        "solve of its request",
        answered="a roster (status completed) in which no absent employee works an absent "
        "date, and the ledger for the next period",
        description=PLAN_DESCRIPTION,
        notes={
            **_keyed_solve_notes("plan"),
            422: "the request breaks the contract (errors[] with JSON paths, e.g. "
            "[absences, 0, dates, 1], [history, assignments, 3, date]); a large request on "
            "a basic key; or the hard rules and the absences admit no roster (the diagnosis "
            "names the absences in conflict; units are consumed, as on POST /solve)",
            429: QUOTA + "; a queued plan holds its units from acceptance",
            501: "a time limit over 30 s needs the queued path, which needs a pro key",
            503: _keyed_solve_notes("plan")[503] + "; or the job queue is unreachable",
        },
    ),
    tool=Tool(
        "plan_shift",
        """Plan a period with absences (vacations, sick leave, training) after a history.

        ``request``: the scheduling request; ``absences``: who cannot work when (each an
        employee_id and its dates, hard: the roster never assigns them); ``history``
        (optional): the days before the period, either the previous period's solve
        answer as it stands or {start_date?, assignments, ledger?}. Rules across the
        boundary (runs of worked days, transitions, the week and month cut in two) and
        fairness read it. Returns the roster like solve_shift plus ``ledger``, the counts
        to pass on as the next period's history; consumes the units of a solve of
        ``request``. When the absences and the hard rules cannot all hold, the error's
        diagnosis names them (absences[i].dates[j], request.employees[k]...).
        Like solve_shift, a large problem (or a time limit over 30 s) on a pro key
        returns a job_id (status running) to poll with get_solve_job; the job's answer
        has the ledger too.
        """,
        spread=True,
    ),
    parse=parse_plan,
    admit=_admit_plan,
    run=InPool("shiftsched.periods.plan:plan", "plan"),
    queues=True,
)
RECOMMEND = Operation(
    name="recommend",
    path="/solve/recommend",
    body=RecommendRequest,
    answer=RecommendResponse,
    docs=Docs(
        "Rank who could fill a slot, without solving; consumes 1 unit",
        answered="the ranked candidates (the first top of them)",
        description=RECOMMEND_DESCRIPTION,
        notes={
            401: KEY_ONLY,
            422: "errors[] with JSON paths, e.g. [slot, shift_id]; or a large request (it "
            "runs synchronously only, on any tier); nothing is charged",
            429: QUOTA + "; or too many requests with this key (rate-limited, Retry-After)",
            500: "the ranking failed; nothing was charged",
            503: "the light processes stayed busy (Retry-After), the account store is "
            "unreachable, or the units are held by the account's solves under way "
            "(Retry-After); nothing was charged",
            504: f"the ranking ran past its deadline of {RECOMMEND_DEADLINE_SECONDS:g} s and "
            "was stopped; nothing was charged",
        },
    ),
    tool=Tool(
        "recommend_employees",
        """Rank who could fill ``slot`` (a shift on a date, optionally a duty) in a
        published ``roster``, best first, without re-solving (1 unit).

        Each candidate's move (taking the slot, leaving the shift they work that date) is
        priced by the audit of the edited roster: the hard rules it would break
        (``feasible`` false), the objective delta and the soft terms it moves. Employees
        absent that date (``absences``) or already in the slot are not candidates.
        ``top``: how many to return (1-50, default 10). Nothing is re-planned: apply the
        chosen move yourself, or call replan_shift for a roster that keeps every rule.
        """,
        spread=True,
    ),
    parse=parse_recommend,
    admit=_admit_recommend,
    run=InLightPool("shiftsched.questions.recommend:recommend", RECOMMEND_DEADLINE_SECONDS),
    called="recommendation",
)
AUDIT = Operation(
    name="audit",
    path="/solve/audit",
    body=AuditRequest,
    answer=AuditResponse,
    docs=Docs(
        "Audit any roster against its request (free, no authentication)",
        answered="the audit: hard violations and soft terms with their input items, "
        "shortages, the objective, each employee's figures and the plan's KPIs",
        description="Price and check any roster (a solve's, a hand-edited one, another "
        "tool's) with the independent audit, without solving: every broken hard rule "
        "with the JSON path of the input item behind it (field), every soft term with "
        "its item and its meaning in words, the shortages with their demand items, the "
        "objective, per employee the shifts, hours, nights, weekends and preferences "
        "granted, and the plan's KPIs (coverage, preferences granted, spread of hours, "
        "nights and weekends). The body is {request, roster, history?}. Each list holds "
        "at most listed_limit (1,000) findings, the first; totals gives every list's full "
        "length and truncated says whether one was cut (the objective and KPIs count "
        "them all). Free and open, like validation.",
        notes=FREE_NOTES,
    ),
    tool=Tool(
        "audit_roster",
        """Audit a roster against its request (free, no solve): what it breaks and costs.

        ``request``: the scheduling request; ``roster``: the assignments (a solve's
        solution.assignments, perhaps edited). Returns feasible, the hard violations
        (each with ``field``, the JSON path of the rule or item behind it), the soft
        terms with their items and words, the shortages, objective_value, per-employee
        figures and KPIs. Use it to check a swap or an added shift before proposing it.
        """,
        spread=True,
    ),
    parse=parse_audit,
    admit=_admit_free,
    run=InLightPool("shiftsched.questions.review:audit_roster", FREE_DEADLINE_SECONDS),
    payment="free",
)
COMPARE = Operation(
    name="compare",
    path="/solve/compare",
    body=CompareRequest,
    answer=CompareResponse,
    docs=Docs(
        "Compare two rosters of one request (free, no authentication)",
        answered="the changed cells, per-employee and per-term changes, the objective's "
        "change and the KPIs of both",
        description="What differs from roster before to roster after (before and after an "
        "edit, or two what-ifs) of one request: every changed (employee, date) cell, per "
        "employee the change in shifts, hours, nights, weekends and preferences granted, "
        "per soft term the change in cost, the objective before and after, the hard "
        "violations added and removed, and the KPIs of both. Every delta is after - "
        "before; both rosters are priced by the independent audit. The changes, terms "
        "and violations added and removed list at most listed_limit (1,000) items each, "
        "the first; totals gives their full lengths and truncated says whether one was "
        "cut. Free and open.",
        notes=FREE_NOTES,
    ),
    tool=Tool(
        "compare_rosters",
        """Compare two rosters of one request (free, no solve): what changed and what it costs.

        ``request``: the scheduling request; ``before`` and ``after``: two rosters'
        assignments. Returns the changed cells, per-employee changes (shifts, hours,
        nights, weekends, preferences), per-term cost changes, objective_before,
        objective_after, objective_delta (after - before), hard violations added and
        removed, and the KPIs of both.
        """,
        spread=True,
    ),
    parse=parse_compare,
    admit=_admit_free,
    run=InLightPool("shiftsched.questions.review:compare_rosters", FREE_DEADLINE_SECONDS),
    payment="free",
)
EXPLAIN = Operation(
    name="explain",
    path="/solve/explain",
    body=ExplainRequest,
    answer=ExplainResponse,
    docs=Docs(
        "Explain every shortage of a roster; consumes the units of a solve of its request",
        answered="one verdict per shortage: avoidable with the fill found, unavoidable "
        "with its causes, or undecided",
        description="For each shortage of the roster (or of those on dates[]), one more "
        "head is made mandatory and the roster re-planned around it under the absences "
        "and the history. avoidable: the fill found (filled_by, the cells that change, "
        "objective_delta and the roster, which keeps every hard rule and whose audited "
        "objective is the original's plus objective_delta); unavoidable: no roster under "
        "these hard rules can fill it, and causes[] is a minimal set of the rules and "
        "input items that forbid it (JSON paths, e.g. request.employees[2].holidays, "
        "absences[0].dates[1]), with a summary in words; undecided: the time ran out. "
        "The request's time limit (at most 30 s) is shared among the shortages. Costs "
        "what a solve of the request costs; runs synchronously only, on any tier.",
        notes={**_keyed_solve_notes("explanation"), 422: QUESTION_422},
    ),
    tool=Tool(
        "explain_shortages",
        """Explain each shortage of a roster: could any roster fill it, how, or why not.

        ``request``, ``roster`` (assignments), optional ``absences`` and ``history``,
        optional ``dates`` (only shortages on these dates). Each shortage gets a verdict:
        ``avoidable`` with the fill found (filled_by, changes, objective_delta and the
        full roster, ready to apply), ``unavoidable`` with ``causes`` (the hard rules
        and input items that forbid it) and a summary, or ``undecided``. Consumes the
        units of a solve of ``request``.
        """,
        spread=True,
    ),
    parse=parse_explain,
    admit=_admit_explain,
    run=InPool("shiftsched.questions.explain:explain_shortages", "explain"),
    called="explanation",
)
WHY = Operation(
    name="why",
    path="/solve/why",
    body=WhyRequest,
    answer=WhyResponse,
    docs=Docs(
        "Why is an employee not off, or not on a shift, on a date; consumes the units of "
        "a solve of its request",
        answered="possible with the re-plan that makes it so, impossible with its causes, "
        "already, or undecided",
        description="The cell asked about (employee_id off on date, or on shift_id and "
        "duty_id with shift_id given) is made so and the roster re-planned around it, "
        "moving as few other cells as it can (as POST /solve/replan). possible: the "
        "cells that change, objective_delta (the audited objective's change) and the "
        "roster; impossible: causes[], the hard rules and input items that forbid it; "
        "already: the roster has it; undecided: the time ran out. Costs what a solve of "
        "the request costs; runs synchronously only, on any tier.",
        notes={**_keyed_solve_notes("question"), 422: QUESTION_422},
    ),
    tool=Tool(
        "why_not",
        """Why is an employee not off on a date, or not on a shift? Answered by trying it.

        ``request``, ``roster`` (assignments), ``employee_id``, ``date``, and
        ``shift_id`` (optional ``duty_id``) for "why not on this shift"; without
        shift_id, "why not off". Returns the verdict (possible, impossible, already,
        undecided), a summary, and either the changes, objective_delta and roster of
        the re-plan that makes it so, or the causes that forbid it. Consumes the units
        of a solve of ``request``.
        """,
        spread=True,
    ),
    parse=parse_why,
    admit=_admit_why,
    run=InPool("shiftsched.questions.why:why_not", "why"),
    called="why-not",
)
OPERATIONS: Final = (
    VALIDATE,
    SOLVE,
    PLAN,
    REPLAN,
    RECOMMEND,
    AUDIT,
    COMPARE,
    EXPLAIN,
    WHY,
)
"""Every operation on the pipeline, in the order the API and the tools list them."""
