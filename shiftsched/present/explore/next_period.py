"""Plan the next period after the roster shown, and read it across the seam.

The history is the roster shown with its ledger, or an uploaded answer of the period
before. The next period is the request carried forward (shiftsched.periods.split) and
planned after the history; the audit read with and without the history, and a plan
made as if nothing came before, show what the seam changes. Inside a horizon
(shiftsched.contract.horizon_targets), the period gets its share of per-employee limits
that span longer, and the progress against them is shown.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import altair as alt
import polars as pl
from pydantic import ValidationError

from shiftsched.checking.audit import AuditReport, audit
from shiftsched.contract.history import History, Ledger, history_faults
from shiftsched.contract.horizon_targets import PlanHorizon, horizon_faults, weekends
from shiftsched.contract.planning import PlanRequest, PlanResponse
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.errors import FieldError, dotted
from shiftsched.periods.plan import plan
from shiftsched.periods.seam import history_ledger, ledger_after
from shiftsched.present.charts import horizon_progress_chart, seam_heatmap
from shiftsched.present.frames import (
    assignments_frame,
    audit_comparison_frame,
    hard_violations_frame,
    horizon_progress_frame,
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
    request: SolveRequest,
    history: History | None,
    time_limit: float,
    work_limit: float,
    horizon: PlanHorizon | None = None,
) -> PlanResponse:
    """The next period planned after ``history`` (None: as if nothing came before),
    inside ``horizon`` when one is asked."""
    asked = PlanRequest(request=request, history=history, horizon=horizon)
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
    horizon: PlanHorizon | None = None,
) -> SeamView:
    """The audit of ``planned`` with the history and without (inside ``horizon`` both),
    the rules and terms on which they differ, and the days either side of the boundary."""
    roster = planned.solution.assignments if planned.solution else []
    report = audit(next_request, roster, history=history, horizon=horizon)
    blind = audit(next_request, roster, horizon=horizon)  # the history ignored
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
    next_request: SolveRequest,
    naive: Sequence[Assignment],
    history: History,
    horizon: PlanHorizon | None = None,
) -> tuple[AuditReport, pl.DataFrame]:
    """The audit with the history of a plan made without it, and the rules it breaks."""
    report = audit(next_request, naive, history=history, horizon=horizon)
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


# ------------------------------------------------------------------- inside a horizon

# A target's limits, as the editor holds them; the hours start empty (no limit).
LIMITS = ("min_days", "max_days", "max_weekends", "min_hours", "max_hours")
HORIZON_MARGIN = Fraction(1, 10)  # the default days: the history's pace, 10 % either way
HORIZON_INTRO = (
    "**Inside a horizon.** The next period gets its share of limits that span longer "
    "(a quarter, a year): per employee, at least and at most so many worked days and at "
    "most so many working weekends over the whole horizon. The horizon starts with the "
    "current period, so the history counts. By default everyone gets the pace of the "
    "history held over the horizon (days within 10 % of it, weekends at most as many), "
    "and no limit on hours worked; edit any cell, and empty one for no limit."
)


def quarter_end(day: dt.date) -> dt.date:
    """The last day of the calendar quarter holding ``day``: the horizon's default end."""
    month = 3 * ((day.month - 1) // 3) + 4  # the first month of the next quarter
    return dt.date(day.year + (month > 12), (month - 1) % 12 + 1, 1) - dt.timedelta(days=1)


def default_targets(
    request: SolveRequest, history: History, start: dt.date, through: dt.date, end: dt.date
) -> pl.DataFrame:
    """The same targets for every employee of ``request``: the pace of the history's cells
    from ``start`` through ``through`` (worked days per employee and day, working weekends
    per employee and weekend) held over the horizon ``start .. end``, the days within
    :data:`HORIZON_MARGIN` of it, rounded outwards; with no cell to go by, loose limits."""
    cells = {(a.employee_id, a.date) for a in history.assignments if start <= a.date <= through}
    worked_weekends = {(e, d.isocalendar()[:2]) for e, d in cells if d.weekday() >= 5}
    staff, days_so_far = len(request.employees), (through - start).days + 1
    weekends_so_far, horizon_weekends = weekends(start, through), weekends(start, end)
    horizon_days = (end - start).days + 1
    if cells:
        expected = Fraction(len(cells), staff * days_so_far) * horizon_days
        low = math.floor(expected * (1 - HORIZON_MARGIN))
        high = min(horizon_days, math.ceil(expected * (1 + HORIZON_MARGIN)))
        pace = Fraction(len(worked_weekends), staff * max(1, weekends_so_far))
        most = min(horizon_weekends, math.ceil(pace * horizon_weekends))
    else:
        low, high, most = 0, horizon_days, horizon_weekends
    ids = [e.id for e in request.employees]
    limits = zip(LIMITS, (low, high, most, None, None), strict=True)
    return pl.DataFrame(
        {"employee_id": ids, **{name: [v] * len(ids) for name, v in limits}},
        schema={"employee_id": pl.String, **dict.fromkeys(LIMITS, pl.Int64)},
    )


def _count(value: object) -> int | None:
    """An edited cell as a count: None when empty; ValueError when not a whole number."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    number = float(str(value).strip()) if isinstance(value, str) else value
    if not isinstance(number, int | float) or not float(number).is_integer():
        raise ValueError(f"{value!r} is not a whole number")
    return int(number)


def horizon_asked(
    edited: pl.DataFrame | Sequence[Mapping[str, object]],
    start: dt.date,
    end: dt.date,
    request: SolveRequest,
) -> tuple[PlanHorizon | None, list[str]]:
    """The horizon ``start .. end`` with the targets as edited (a row per employee, an
    empty cell for no limit, a row of empty cells for no target), or why it is none."""
    rows = edited.to_dicts() if isinstance(edited, pl.DataFrame) else list(edited)
    targets, faults = [], []
    for i, row in enumerate(rows):
        limits = {}
        for name in LIMITS:
            try:
                limits[name] = _count(row.get(name))
            except ValueError as exc:
                faults.append(f"targets[{i}].{name}: {exc}")
        if any(v is not None for v in limits.values()):
            targets.append({"employee_id": str(row.get("employee_id")), **limits})
    if faults:
        return None, faults
    if not targets:
        return None, ["no target: fill in a limit for at least one employee"]
    try:
        horizon = PlanHorizon.model_validate({"start": start, "end": end, "targets": targets})
    except ValidationError as exc:
        return None, [f"{dotted(e['loc'])}: {e['msg']}" for e in exc.errors()[:10]]
    misfit = horizon_faults(request, horizon, ("horizon",))
    return (None, [str(f) for f in misfit]) if misfit else (horizon, [])


@dataclass(frozen=True)
class HorizonView:
    """Where each employee stands against the horizon's targets once the period is in."""

    table: pl.DataFrame
    chart: alt.LayerChart
    words: str


def horizon_shown(
    next_request: SolveRequest, horizon: PlanHorizon, planned: PlanResponse
) -> HorizonView:
    """The progress the plan reports against ``horizon``, as a table, a chart and words."""
    table = horizon_progress_frame(planned.horizon_progress or [])
    within = table.filter(pl.col("this period") == "within its share").height
    period_end = next_request.schedule_period.end_date.isoformat()
    words = (
        f"### Inside the horizon {horizon.start.isoformat()} .. {horizon.end.isoformat()}\n"
        "Per employee, the days and weekends worked from the horizon's start through the "
        f"period's end ({period_end}), the horizon's limits, this period's share of them "
        "(the counts to reach by its end, those before it included), and what it leaves "
        "for the rest of the horizon: the days still owed to reach the minimum, the days "
        "and weekends the maximum still allows (below 0: over it already). "
        f"**{within} of {many(table.height, 'target')}** within the period's share. The "
        "plan's answer carries these counts in its ledger, for the period after it."
    )
    chart = horizon_progress_chart(table, f"Days worked by {period_end} against the share")
    return HorizonView(table, chart, words)
