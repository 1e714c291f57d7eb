"""What the job page says about one job: where it stands, what it holds or was charged,
and how it ended, in words that agree with the ledger and with the job's JSON result.

Why apart from the page: the figures are read from the job record, its ledger hold and
the API's progress resource (``shiftsched.service.solving.job_control.progress_of``), and the words
are chosen from them alone; a plain function of those records can be tested without a
browser, a session or a solver.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Literal

from shiftsched.contract.v1 import DEFAULT_SOLVER_TIMEOUT_SECONDS
from shiftsched.service.dashboard.jobs_page import (
    operation_words,
    roster_operations,
    status_words,
    was_stopped,
)
from shiftsched.service.solving.job_control import JobProgress, progress_of
from shiftsched.service.store import Job, Reservation
from shiftsched.service.store.rows import charged_for

Phase = Literal["queued", "solving", "stopping", "finished"]


@dataclass(frozen=True)
class Units:
    """The job's units as the ledger has them: held while it runs, then charged or
    released (exactly one of the three is not zero, unless the job cost nothing)."""

    held: int
    charged: int
    released: int


@dataclass(frozen=True)
class Figures:
    """The search's latest figures (the API's progress resource), with the gap."""

    elapsed_seconds: float
    objective: float | None
    bound: float | None
    gap: float | None  # None also while the bound is 0: a gap of 100 % says nothing
    solutions: int


@dataclass(frozen=True)
class JobView:
    job: Job
    phase: Phase
    units: Units
    figures: Figures
    stoppable: bool  # a queued job still running: a synchronous solve is being delivered
    stopped: bool  # the account asked for the stop (before or while it solved)
    has_roster: bool
    outcome: str  # the result in one or two sentences; empty while running
    request_summary: str  # size, employees and period of the request, as far as known
    time_limit_seconds: int | None  # the request's solver_timeout_seconds, when it has one
    last_updated: dt.datetime  # the record's last change or the search's last progress

    @property
    def status_text(self) -> str:
        return status_words(self.job.status, self.job.error_code, self.stopped)


def gap(objective: float | None, bound: float | None) -> float | None:
    """The relative gap as the engine reports it (``metrics.gap``): how far the roster may
    still be from the best possible, as a share of its objective."""
    if objective is None or bound is None:
        return None
    return max(0.0, objective - bound) / max(1.0, abs(objective))


def shown_gap(objective: float | None, bound: float | None) -> float | None:
    """The gap worth drawing: none until the search proves a bound above 0 (no penalty is
    negative, so 0 is known before the search starts, and against it any roster is 100 %
    from the best), unless the roster itself costs nothing."""
    if bound is None or (bound <= 0 and (objective or 0) > 0):
        return None
    return gap(objective, bound)


def units_of(job: Job, hold: Reservation | None) -> Units:
    """Held, charged and released units: from the ledger hold when the job has one (a
    queued or synchronous solve's), else from the record (a synchronous solve kept
    after it was charged)."""
    if hold is not None:
        held = hold.units if hold.state == "reserved" else 0
        charged = hold.units if hold.state == "captured" else 0
        return Units(held, charged, hold.units if hold.state == "released" else 0)
    if job.status == "running":
        return Units(job.units_reserved, 0, 0)
    if charged_for(job.kind, job.status, job.response_json):
        return Units(0, job.units_reserved, 0)
    return Units(0, 0, job.units_reserved)


def figures_of(progress: JobProgress) -> Figures:
    bound = None if progress.best_bound is None else max(0.0, progress.best_bound)
    return Figures(
        elapsed_seconds=progress.elapsed_seconds,
        objective=progress.best_objective,
        bound=bound,
        gap=shown_gap(progress.best_objective, bound),
        solutions=progress.solutions,
    )


def job_view(job: Job, hold: Reservation | None) -> JobView:
    """The page's account of ``job``, with ``hold`` its reservation in the ledger."""
    progress = progress_of(job)
    queued = job.kind is None  # a synchronous solve heeds no stop and writes no progress
    stopped = was_stopped(queued, job.stop_requested_at is not None, job.error_code)
    phase: Phase = progress.state if queued or progress.state == "finished" else "solving"
    if phase != "finished" and stopped:
        phase = "stopping"
    units = units_of(job, hold)
    has_roster = job.status == "completed" and _solution(job) is not None
    return JobView(
        job=job,
        phase=phase,
        units=units,
        figures=figures_of(progress),
        stoppable=queued and job.status == "running" and not stopped,
        stopped=stopped,
        has_roster=has_roster,
        outcome="" if job.status == "running" else outcome(job, units, stopped, has_roster),
        request_summary=request_summary(job),
        time_limit_seconds=time_limit_of(job),
        last_updated=max(job.updated_at, job.progress_at or job.updated_at),
    )


def outcome(job: Job, units: Units, stopped: bool, has_roster: bool) -> str:
    """How an ended job ended, whether a roster was kept, and what was charged."""
    charge = charged_words(units)
    if stopped and has_roster:
        proven = _metrics_status(job) == "optimal"
        kept = (
            "Its roster, proven the best possible,"
            if proven
            else ("The best roster found before the stop (not proven the best possible)")
        )
        return f"Stopped at your request. {kept} was kept; {charge}."
    if stopped:
        when = "before it started solving" if job.progress is None else "before any roster"
        return f"Stopped at your request {when}. No roster was kept; {charge}."
    if has_roster:
        return f"Completed with a roster; {charge}."
    operation = job.operation or "solve"
    if job.status == "completed" and operation not in roster_operations():
        called = operation_words().get(operation, operation)
        return f"Completed: the {called} was delivered (its answer is the JSON result); {charge}."
    reason = _error_message(job) or f"error {job.error_code or 'unknown'}"
    return f"Ended without a roster ({reason}); {charge}."


def charged_words(units: Units) -> str:
    if units.charged:
        return f"{units.charged} unit{'s' if units.charged != 1 else ''} charged"
    if units.released:
        return f"nothing was charged (the {units.released} units held were released)"
    return "nothing was charged"


def request_summary(job: Job) -> str:
    """Size, employees and period, read leniently from the stored body (a plan's body
    holds its request), so a body this page cannot read costs only the detail."""
    parts = [] if job.size is None else [f"size {job.size:,}"]
    body: Any = job.request_json
    request = body.get("request", body) if isinstance(body, dict) else None
    if isinstance(request, dict):
        employees = request.get("employees")
        if isinstance(employees, list):
            parts.append(f"{len(employees)} employees")
        period = request.get("schedule_period")
        if isinstance(period, dict) and {"start_date", "end_date"} <= set(period):
            parts.append(f"{period['start_date']} to {period['end_date']}")
    return ", ".join(parts)


def time_limit_of(job: Job) -> int | None:
    """The solve's time limit as the request set it (its default when unset), read
    leniently from the stored body (a plan's or re-plan's holds its request); None when
    the body has no request to read."""
    body: Any = job.request_json
    request = body.get("request", body) if isinstance(body, dict) else None
    if not isinstance(request, dict) or "shifts" not in request:
        return None
    options = request.get("options")
    limit = options.get("solver_timeout_seconds") if isinstance(options, dict) else None
    return limit if isinstance(limit, int) else DEFAULT_SOLVER_TIMEOUT_SECONDS


def _solution(job: Job) -> Any:
    body = job.response_json
    return body.get("solution") if isinstance(body, dict) else None


def _metrics_status(job: Job) -> Any:
    solution = _solution(job)
    metrics = solution.get("metrics") if isinstance(solution, dict) else None
    return metrics.get("status") if isinstance(metrics, dict) else None


def _error_message(job: Job) -> str | None:
    body = job.response_json
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return str(message) if message else None
