""" "Why is X not off on D?" and "why does X not work S on D?", answered by trying it.

The cell is made so and the roster re-planned around it (shiftsched.periods.replan: the wanted day
off as an absence, the wanted shift as a pin, each other changed cell priced at the
re-plan's change weight). A roster found says what it would take: the cells that move
and the change of the audited objective, so the answer can be applied as it stands. No
roster says what forbids it: the re-plan's diagnosis, a minimal conflict among the
request's hard rules and the cell asked for (its own item is the question, and is left
out of the causes).
"""

from __future__ import annotations

from shiftsched.checking.audit import audit
from shiftsched.contract.planning import Absence, ReplanRequest, roster_changes
from shiftsched.contract.v1 import Assignment, Cause, SolveRequest
from shiftsched.periods.replan import replan
from shiftsched.questions.inquiry import WhyRequest, WhyResponse
from shiftsched.solving.solve import SolveLimits

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def why_not(ask: WhyRequest, limits: SolveLimits | None = None) -> WhyResponse:
    """Whether ``ask``'s cell can be made so, what it costs, or what forbids it."""
    limits = limits or SolveLimits()
    question = _question(ask)
    current = [a for a in ask.roster if a.employee_id == ask.employee_id and a.date == ask.date]
    if _already(ask, current):
        return WhyResponse(
            question=question, verdict="already", summary="the roster already has it"
        )
    change = ReplanRequest(
        request=ask.request, roster=ask.roster, absences=ask.absences, history=ask.history
    )
    if ask.shift_id is None:
        own = f"absences[{len(ask.absences)}].dates[0]"
        absent = Absence(employee_id=ask.employee_id, dates=[ask.date])
        change = change.model_copy(update={"absences": [*ask.absences, absent]})
    else:
        own = "pinned[0]"
        pin = Assignment(
            employee_id=ask.employee_id, date=ask.date, shift_id=ask.shift_id, duty_id=ask.duty_id
        )
        change = change.model_copy(update={"pinned": [pin]})
    answer = replan(change, limits, excused=ask.absences)  # the day off asked is owed
    if answer.solution is not None:
        roster = answer.solution.assignments
        before = audit(ask.request, ask.roster, history=ask.history, absences=ask.absences)
        after = audit(ask.request, roster, history=ask.history, absences=ask.absences)
        delta = after.objective_value - before.objective_value
        changes = roster_changes(ask.roster, roster)
        return WhyResponse(
            question=question,
            verdict="possible",
            summary=f"possible: {_cells_change(len(changes))} and the objective changes by "
            f"{delta:+g}",
            objective_delta=delta,
            changes=changes,
            roster=roster,
        )
    error = answer.error
    if error is None or error.code != "no_solution" or error.diagnosis is None:
        return WhyResponse(
            question=question,
            verdict="undecided",
            summary="no roster was found and none was ruled out in the time allowed",
        )
    causes = [c for c in error.diagnosis.causes if c.field != own] or _ineligible(ask)
    reasons = "; ".join(c.message for c in causes[:6]) or "the hard rules of the request"
    return WhyResponse(
        question=question,
        verdict="impossible",
        summary=f"no roster allows it: {reasons}",
        causes=causes,
    )


def _cells_change(count: int) -> str:
    """``1 cell changes``, ``2 cells change``: the count agreeing with its verb."""
    return "1 cell changes" if count == 1 else f"{count} cells change"


def _ineligible(ask: WhyRequest) -> list[Cause]:
    """Why the cell asked for is closed to the employee by the request itself (their
    shifts, weekdays, the holidays): the causes when the cell alone is the conflict."""
    request = ask.request
    e, employee = next((i, x) for i, x in enumerate(request.employees) if x.id == ask.employee_id)
    day = ask.date.isoformat()
    causes = []
    if ask.shift_id is not None and ask.shift_id not in employee.assignable_shift_ids:
        causes.append(
            Cause(
                cause_type="assignable_shift",
                field=f"request.employees[{e}].assignable_shift_ids",
                message=f"{employee.id} may not work {_shift_name(request, ask.shift_id)}",
            )
        )
    weekday = WEEKDAYS[ask.date.weekday()]
    if employee.available_weekdays is not None and weekday not in employee.available_weekdays:
        causes.append(
            Cause(
                cause_type="available_weekday",
                field=f"request.employees[{e}].available_weekdays",
                message=f"{employee.id} does not work on {weekday}",
            )
        )
    holidays = request.schedule_period.holidays
    if ask.shift_id is not None and ask.date in holidays:
        causes.append(
            Cause(
                cause_type="holiday",
                field=f"request.schedule_period.holidays[{holidays.index(ask.date)}]",
                message=f"{day} is a holiday: nobody works",
            )
        )
    return causes


def _already(ask: WhyRequest, current: list[Assignment]) -> bool:
    if ask.shift_id is None:
        return not current
    return any(
        a.shift_id == ask.shift_id and (ask.duty_id is None or a.duty_id == ask.duty_id)
        for a in current
    )


def _question(ask: WhyRequest) -> str:
    day = ask.date.isoformat()
    if ask.shift_id is None:
        return f"why is {ask.employee_id} not off on {day}?"
    shift = _shift_name(ask.request, ask.shift_id)
    duty = f" as {ask.duty_id}" if ask.duty_id else ""
    return f"why does {ask.employee_id} not work {shift}{duty} on {day}?"


def _shift_name(request: SolveRequest, shift_id: str) -> str:
    return next((s.name for s in request.shifts if s.id == shift_id), shift_id)
