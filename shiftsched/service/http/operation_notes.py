"""The words of the service's operations that only each of them can say: the long
descriptions of the OpenAPI document and the notes by status its answers are documented
with (``shiftsched.service.http.operations``).

Why apart: they are most of the declarations' text, and read best together, where the
notes the operations share are written once.
"""

from __future__ import annotations

from typing import Final

from shiftsched.service.http.admitting import (
    FREE_DEADLINE_SECONDS,
    RECOMMEND_DEADLINE_SECONDS,
    RECOMMEND_UNITS,
)

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


def keyed_solve_notes(what: str) -> dict[int, str]:
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
SOLVE_NOTES: Final = {
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
}
"""What a solve may answer, by status: every way to pay for one, and every way it can fail."""
