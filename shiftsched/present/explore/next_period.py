"""Plan the next period after the roster shown, and read it across the seam.

The history is the roster shown with its ledger, or an uploaded answer of the period
before. The next period is the request carried forward (shiftsched.periods.split) and
planned after the history; the audit read with and without the history, and a plan
made as if nothing came before, show what the seam changes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import polars as pl
from pydantic import ValidationError

from shiftsched.checking.audit import AuditReport, audit
from shiftsched.contract.history import History, Ledger, history_faults
from shiftsched.contract.planning import PlanRequest, PlanResponse
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.errors import FieldError
from shiftsched.periods.plan import plan
from shiftsched.periods.seam import history_ledger, ledger_after
from shiftsched.present.charts import seam_heatmap
from shiftsched.present.frames import (
    assignments_frame,
    audit_comparison_frame,
    hard_violations_frame,
    ledger_frame,
    ledger_spread_frame,
    seam_frame,
)
from shiftsched.present.notebook_limits import notebook_limits, until_first_roster
from shiftsched.present.words import many

SEAM_DAYS = 7  # days shown on each side of the boundary
NEXT_INTRO = (
    "## Plan the next period\n"
    "The roster above becomes the history of the next period; or upload the "
    "answer of the period before (a SolveResponse, or a plan's answer with its "
    "ledger). The next period is the request carried forward: each day's demand "
    "that of the latest day on the same weekday, while holidays, preferences and "
    "fixed assignments stay with their dates. It is planned after the history: "
    "the run of days in progress, the last shift, the week and month the boundary "
    "cuts in two and the counts so far hold across the seam."
)
SWITCH_ON = "Switch on *plan it* to plan the next period after this history."


def roster_history(request: SolveRequest, roster: Sequence[Assignment]) -> History:
    """The roster shown as a history, with its ledger: the counts through its last date."""
    return History(assignments=list(roster), ledger=ledger_after(request, roster, None))


def end_before_next(request: SolveRequest, history: History) -> dt.date:
    """The last date before the next period: the end of the request's period or of all
    the history holds, whichever is later."""
    ends = [a.date for a in history.assignments]
    ends += [history.ledger.through] if history.ledger else []
    return max([request.schedule_period.end_date, *ends])


def period_days(request: SolveRequest) -> int:
    """How many days the request's period has."""
    period = request.schedule_period
    return (period.end_date - period.start_date).days + 1


def history_misfit(request: SolveRequest, history: History) -> list[FieldError]:
    """How the history does not fit the next period's request."""
    return history_faults(request, history, ("history",))


def plan_after(
    request: SolveRequest, history: History | None, time_limit: float, work_limit: float
) -> PlanResponse:
    """The next period planned after ``history`` (None: as if nothing came before)."""
    asked = PlanRequest(request=request, history=history)
    return until_first_roster(
        lambda limits: plan(asked, limits), notebook_limits(time_limit, work_limit)
    )


def no_plan_words(planned: PlanResponse) -> str:
    """Why the next period has no roster."""
    why = planned.error.code if planned.error else planned.status
    return f"**No roster for the next period** ({why})."


@dataclass(frozen=True)
class SeamView:
    """The new roster read across the seam and as if nothing came before."""

    report: AuditReport
    blind_report: AuditReport
    differences: pl.DataFrame
    table: pl.DataFrame
    chart: alt.LayerChart
    words: str


def seam_shown(
    request: SolveRequest,
    next_request: SolveRequest,
    history: History,
    history_source: str,
    end: dt.date,
    planned: PlanResponse,
) -> SeamView:
    """The audit of ``planned`` with the history and without, the rules and terms on
    which they differ, and the days either side of the boundary."""
    roster = planned.solution.assignments if planned.solution else []
    report = audit(next_request, roster, history=history)
    blind = audit(next_request, roster)  # the history ignored
    start = next_request.schedule_period.start_date
    table = seam_frame(
        assignments_frame(request, history.assignments),
        assignments_frame(next_request, roster),
        end,
        start,
        SEAM_DAYS,
    )
    chart = seam_heatmap(
        table,
        start,
        f"The last {SEAM_DAYS} days of {history_source} | the first {SEAM_DAYS} of the next",
    )
    broken = len(report.hard_violations)
    status = planned.solution.metrics.status if planned.solution else "unknown"
    words = (
        f"**{start.isoformat()} .. {next_request.schedule_period.end_date.isoformat()}**"
        f": {len(roster)} assignments, objective "
        f"**{report.objective_value:,.0f}** "
        f"({status}); the audit across the seam: "
        + ("no hard rule broken" if not broken else f"**{many(broken, 'hard rule')} broken**")
        + f". Read as if nothing came before, the same roster costs "
        f"{blind.objective_value:,.0f}. The black line is the boundary."
    )
    return SeamView(report, blind, audit_comparison_frame(report, blind), table, chart, words)


def naive_audit(
    next_request: SolveRequest, naive: Sequence[Assignment], history: History
) -> tuple[AuditReport, pl.DataFrame]:
    """The audit with the history of a plan made without it, and the rules it breaks."""
    report = audit(next_request, naive, history=history)
    return report, hard_violations_frame(report.hard_violations)


def naive_words(breaks: pl.DataFrame, naive: AuditReport, seam: AuditReport) -> str:
    """What planning without the history costs across the seam."""
    return (
        "### Planned without the history\n"
        "The same period planned as if nothing came before, then audited with the "
        f"history: **{many(breaks.height, 'hard rule')} broken** across the seam, "
        f"objective {naive.objective_value:,.0f} (against "
        f"{seam.objective_value:,.0f} planned after the history)."
    )


@dataclass(frozen=True)
class LedgerView:
    """The ledger the plan hands on, and the spread of each group's counts."""

    ledger_before: Ledger
    table: pl.DataFrame
    spread: pl.DataFrame
    words: str
    spread_words: str


def ledger_shown(next_request: SolveRequest, history: History, planned: PlanResponse) -> LedgerView:
    """The ledger through the end of the new period, and the spread (most − fewest) of
    the counts per fairness group (per shift without one), before and after it."""
    before = history_ledger(next_request, history)
    after = planned.ledger
    if before is None or after is None:  # a period from the first date there is; no roster
        raise ValueError("the plan hands on no ledger to read")
    per = (
        "fairness group"
        if next_request.constraints.fairness_groups
        else "shift (the request has no fairness group)"
    )
    return LedgerView(
        ledger_before=before,
        table=ledger_frame(after, [s.id for s in next_request.shifts]),
        spread=ledger_spread_frame(next_request, before, after),
        words=(
            f"### The ledger through {after.through.isoformat()}\n"
            "Per employee, all counted so far, the new period included: what the period "
            "after it reads as its history's ledger."
        ),
        spread_words=f"The spread (most − fewest) of the counts per {per}, before and after:",
    )


def plan_file_name(next_request: SolveRequest) -> str:
    """The name the plan's answer downloads under."""
    return f"plan-{next_request.schedule_period.start_date.isoformat()}.json"


def uploaded_history(contents: bytes) -> tuple[History | None, list[str]]:
    """The previous period's answer read as a history, or the first faults of a file
    that is not one."""
    try:
        return History.model_validate_json(contents), []
    except ValidationError as exc:
        return None, [e["msg"] for e in exc.errors()[:5]]
