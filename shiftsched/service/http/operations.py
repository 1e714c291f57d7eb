"""The operations of the service, each declared once on the pipeline
(``shiftsched.service.http.pipeline``) around the engine's declaration of it
(``shiftsched.operations``).

The engine's declaration says what the body is (its model, and the engine's own parser,
with JSON paths in its faults), what it answers, which function runs it and whether that
function solves; the service's adds who pays, what the operation costs (its admission,
``shiftsched.service.http.admitting``), how it is documented and offered as a tool (the
words, ``shiftsched.service.http.operation_notes``), and where what solves nothing runs.
Authentication, the hold of units or of a payment, the run, the settlement and the
errors are the pipeline's.

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

from collections.abc import Callable
from typing import Any, Final

from shiftsched import operations as engine
from shiftsched.operations import Registry, named
from shiftsched.service.billing.admission import Admission
from shiftsched.service.http.admitting import (
    FREE_DEADLINE_SECONDS,
    RECOMMEND_DEADLINE_SECONDS,
    RECOMMEND_UNITS,
    admit_explain,
    admit_free,
    admit_plan,
    admit_recommend,
    admit_replan,
    admit_solve,
    admit_validate,
    admit_why,
)
from shiftsched.service.http.operation_notes import (
    ANONYMOUS_429,
    FREE_NOTES,
    KEY_ONLY,
    PLAN_DESCRIPTION,
    QUESTION_422,
    QUOTA,
    RECOMMEND_DESCRIPTION,
    REPLAN_DESCRIPTION,
    SOLVE_NOTES,
    keyed_solve_notes,
)
from shiftsched.service.http.pipeline import (
    Docs,
    InLightPool,
    InPool,
    InThread,
    Operation,
    Payer,
    Payment,
    Tool,
)
from shiftsched.service.metrics import path_of

Admit = Callable[[Any, Payer | None], Admission]


def served(
    declared: engine.Operation,
    *,
    path: str,
    docs: Docs,
    tool: Tool,
    admit: Admit,
    payment: Payment = "key",
    queues: bool = False,
    deadline_seconds: float | None = None,
) -> Operation:
    """The service's operation of the engine's ``declared``: its name, models, parser
    and words are the engine's. What solves runs in a solver process, counted on its
    metrics path; what does not runs in a light process under ``deadline_seconds``, or,
    without one, in a thread of the web worker (what is cheap on any body)."""
    run: InPool | InLightPool | InThread
    if declared.solves:
        run = InPool(declared.function, path_of(declared))
    elif deadline_seconds is not None:
        run = InLightPool(declared.function, deadline_seconds)
    else:
        run = InThread(named(declared.function))
    return Operation(
        name=declared.name,
        path=path,
        body=named(declared.request),
        answer=named(declared.response),
        tool=tool,
        docs=docs,
        parse=named(declared.parser),
        admit=admit,
        run=run,
        payment=payment,
        queues=queues,
        called=declared.called,
    )


VALIDATE = served(
    engine.VALIDATE,
    path="/solve/validate",
    docs=Docs(
        "Check a request without solving it (free, no authentication)",
        answered="valid, with hints",
        notes={422: "the request breaks the contract; errors[] has JSON paths", 429: ANONYMOUS_429},
    ),
    tool=Tool(
        "validate_shift_input",
        """Check a scheduling request without solving it (free): counts and hints.

        A request that breaks the contract answers valid false with errors[] (each a
        JSON path, a code and a message), as POST /solve/validate does. Its ``request``
        argument carries the request's whole schema, which the other tools refer to.
        """,
        said="{tool} first (free)",
        topic="build",
        answers_faults=True,
    ),
    admit=admit_validate,
    payment="free",
)
SOLVE = served(
    engine.SOLVE,
    path="/solve",
    docs=Docs(
        "Solve a request; consumes max(1, ceil(size / 10,000)) units",
        answered="a roster (status completed); the units headers on the API-key path, the "
        "payment headers on a paid solve",
        notes=SOLVE_NOTES,
    ),
    tool=Tool(
        "solve_shift",
        """Solve a scheduling request; consumes max(1, ceil(size / 10,000)) units.

        Small problems return the roster (status completed); large ones on a pro key
        return a job_id (status running) to poll with get_solve_job, unless the call
        asks for progress: then the tool follows the job, sending progress
        notifications (best objective and bound so far), and returns its roster.
        """,
        said="then {tool} (consumes units)",
        topic="build",
    ),
    admit=admit_solve,
    payment="key_or_payment",
    queues=True,
)
REPLAN = served(
    engine.REPLAN,
    path="/solve/replan",
    docs=Docs(
        "Re-plan a published roster after absences, with pins; consumes the units of a "
        "solve of its request",
        answered="the new roster (status completed), its usage and changes[]",
        description=REPLAN_DESCRIPTION,
        notes={
            **keyed_solve_notes("re-plan"),
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
        far below a missing head). Returns ``changes`` (every cell that differs) and the
        metrics; the new roster itself (solution.assignments) only with
        ``include_roster``. Consumes the units of a solve of ``request``; when the
        absences and pins cannot all hold, the error's diagnosis names them
        (absences[i].dates[j], pinned[i], pin_before).
        """,
        spread=True,
        rosters=("solution.assignments",),
        said="{tool} re-plans after absences with the fewest changes",
        topic="change",
    ),
    admit=admit_replan,
)
PLAN = served(
    engine.PLAN,
    path="/solve/plan",
    docs=Docs(
        "Plan a period with absences and the history before it; consumes the units of a "
        "solve of its request",
        answered="a roster (status completed) in which no absent employee works an absent "
        "date, and the ledger for the next period",
        description=PLAN_DESCRIPTION,
        notes={
            **keyed_solve_notes("plan"),
            422: "the request breaks the contract (errors[] with JSON paths, e.g. "
            "[absences, 0, dates, 1], [history, assignments, 3, date]); a large request on "
            "a basic key; or the hard rules and the absences admit no roster (the diagnosis "
            "names the absences in conflict; units are consumed, as on POST /solve)",
            429: QUOTA + "; a queued plan holds its units from acceptance",
            501: "a time limit over 30 s needs the queued path, which needs a pro key",
            503: keyed_solve_notes("plan")[503] + "; or the job queue is unreachable",
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
        returns a job_id (status running) to poll with get_solve_job (or, asked for
        progress, is followed to its end); the job's answer has the ledger too.
        """,
        spread=True,
        said="or {tool} when some employees cannot work some dates",
        topic="build",
    ),
    admit=admit_plan,
    queues=True,
)
RECOMMEND = served(
    engine.RECOMMEND,
    path="/solve/recommend",
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
        said="{tool} ranks who could fill one slot (no solve)",
        topic="change",
        said_at=-1,
    ),
    admit=admit_recommend,
    deadline_seconds=RECOMMEND_DEADLINE_SECONDS,
)
AUDIT = served(
    engine.AUDIT,
    path="/solve/audit",
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
        said="{tool} checks and prices any roster, an edited one included (free)",
    ),
    admit=admit_free,
    deadline_seconds=FREE_DEADLINE_SECONDS,
    payment="free",
)
COMPARE = served(
    engine.COMPARE,
    path="/solve/compare",
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
        said="{tool} says what changed between two (free)",
    ),
    admit=admit_free,
    deadline_seconds=FREE_DEADLINE_SECONDS,
    payment="free",
)
EXPLAIN = served(
    engine.EXPLAIN,
    path="/solve/explain",
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
        notes={**keyed_solve_notes("explanation"), 422: QUESTION_422},
    ),
    tool=Tool(
        "explain_shortages",
        """Explain each shortage of a roster: could any roster fill it, how, or why not.

        ``request``, ``roster`` (assignments), optional ``absences`` and ``history``,
        optional ``dates`` (only shortages on these dates). Each shortage gets a verdict,
        a summary in words and its ``heads`` (missing, fillable, movable, unavoidable):
        ``avoidable`` with the fill found (filled_by, objective_delta, changes_total; its
        summary names the first cells it changes; every changed cell and the fill's
        roster, ready to apply, only with ``include_roster``), ``unavoidable`` with
        ``causes`` (the hard rules and input items that forbid it), or ``undecided``.
        Consumes the units of a solve of ``request``.
        """,
        spread=True,
        rosters=("explanations.roster", "explanations.changes"),
        said="{tool} says whether each shortage could be filled, and how or why not",
    ),
    admit=admit_explain,
)
WHY = served(
    engine.WHY,
    path="/solve/why",
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
        notes={**keyed_solve_notes("question"), 422: QUESTION_422},
    ),
    tool=Tool(
        "why_not",
        """Why is an employee not off on a date, or not on a shift? Answered by trying it.

        ``request``, ``roster`` (assignments), ``employee_id``, ``date``, and
        ``shift_id`` (optional ``duty_id``) for "why not on this shift"; without
        shift_id, "why not off". Returns the verdict (possible, impossible, already,
        undecided), a summary, and either the changes and objective_delta of the re-plan
        that makes it so (its roster only with ``include_roster``), or the causes that
        forbid it. Consumes the units of a solve of ``request``.
        """,
        spread=True,
        rosters=("roster",),
        said="{tool} answers why someone is not off, or not on a shift, on a date",
    ),
    admit=admit_why,
)
OPERATIONS: Final[Registry[Operation]] = Registry(
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

__all__ = ["OPERATIONS", "RECOMMEND_UNITS", "served"]
