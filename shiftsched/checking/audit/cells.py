"""Rules on single assignments (docs/semantics.md, "Hard rules (a roster that breaks one
is invalid)"): known references, one shift per date, eligibility (assignable shift,
holiday, weekday, duty on its shift, skill level) and fixed assignments."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence

from shiftsched.checking.audit.context import _Context, _describe, _weekday_name
from shiftsched.checking.audit.findings import _Findings
from shiftsched.checking.audit.terms import LISTED_SHIFTS
from shiftsched.contract.v1 import Assignment, SolveRequest


def _check_references(
    request: SolveRequest, assignments: Sequence[Assignment], out: _Findings
) -> list[Assignment]:
    """unknown_reference; returns the assignments that can be placed and priced."""
    period = request.schedule_period
    employees = {e.id for e in request.employees}
    shifts = {s.id for s in request.shifts}
    duties = {k.id for k in request.duties}
    known: list[Assignment] = []
    for index, a in enumerate(assignments):
        problems: list[str] = []
        if a.employee_id not in employees:
            problems.append(f"unknown employee {a.employee_id!r}")
        if a.shift_id not in shifts:
            problems.append(f"unknown shift {a.shift_id!r}")
        if a.duty_id is not None and a.duty_id not in duties:
            problems.append(f"unknown duty {a.duty_id!r}")
        if not period.start_date <= a.date <= period.end_date:
            problems.append(
                f"date outside the period {period.start_date.isoformat()}.."
                f"{period.end_date.isoformat()}"
            )
        if problems:
            out.broken(
                "unknown_reference",
                f"{_describe(a)}: {'; '.join(problems)}",
                a.employee_id,
                a.date,
                a.shift_id,
                at=f"roster[{index}]",
            )
        else:
            known.append(a)
    return known


def _listed_shifts(listed: Sequence[Assignment]) -> str:
    """The distinct shifts of a cell in roster order, each with its multiplicity when
    above one; past :data:`LISTED_SHIFTS` the rest are counted, so the words stay short."""
    tally = Counter(a.shift_id for a in listed)
    named = [f"{s} x{n:,}" if n > 1 else s for s, n in list(tally.items())[:LISTED_SHIFTS]]
    if len(tally) > LISTED_SHIFTS:
        named.append(f"and {len(tally) - LISTED_SHIFTS:,} more")
    return ", ".join(named)


def _check_one_shift_per_date(ctx: _Context, out: _Findings) -> None:
    """An employee works at most one shift per date: one finding per cell listed twice
    or more, whatever the count, so the report grows with the roster, not its square.

    ``field`` is the ``roster[i]`` of the cell's second assignment; the others beyond
    the first are in the message's count.
    """
    counts = Counter((a.employee_id, a.date) for a in ctx.scoped_assignments)
    for (employee_id, day), count in sorted(counts.items(), key=lambda item: item[0]):
        if count > 1:
            listed = ctx.of_on(employee_id, day)
            out.broken(
                "one_shift_per_date",
                f"{employee_id} has {count:,} assignments on {day.isoformat()} "
                f"({_listed_shifts(listed)}): at most one shift per date",
                employee_id,
                day,
                at=ctx.roster_fields(listed[:2])[1],
            )


def _check_assignable_shift(ctx: _Context, out: _Findings) -> None:
    for a in ctx.scoped_assignments:
        if a.shift_id not in ctx.employees[a.employee_id].assignable_shift_ids:
            out.broken(
                "assignable_shift",
                f"{_describe(a)}: shift not in the employee's assignable_shift_ids",
                a.employee_id,
                a.date,
                a.shift_id,
                at=ctx.employee_field(a.employee_id, ".assignable_shift_ids"),
            )


def _check_holiday(ctx: _Context, out: _Findings) -> None:
    for a in ctx.scoped_assignments:
        if a.date in ctx.holidays:
            out.broken(
                "holiday",
                f"{_describe(a)}: the date is a holiday",
                a.employee_id,
                a.date,
                a.shift_id,
                at=f"request.schedule_period.holidays[{ctx.holiday_index[a.date]}]",
            )


def _check_available_weekday(ctx: _Context, out: _Findings) -> None:
    """Judged on the start date, so a night shift counts for the day it starts."""
    for a in ctx.scoped_assignments:
        allowed = ctx.employees[a.employee_id].available_weekdays
        if allowed is not None and _weekday_name(a.date) not in allowed:
            out.broken(
                "available_weekday",
                f"{_describe(a)}: {_weekday_name(a.date)} is not an available weekday",
                a.employee_id,
                a.date,
                a.shift_id,
                at=ctx.employee_field(a.employee_id, ".available_weekdays"),
            )


def _check_duty_on_shift(ctx: _Context, out: _Findings) -> None:
    """A duty exists only on the shifts keyed in its staffing_demand_by_shift."""
    for a in ctx.scoped_assignments:
        if a.duty_id is None:
            continue
        if a.shift_id not in ctx.duties[a.duty_id].staffing_demand_by_shift:
            out.broken(
                "duty_not_on_shift",
                f"{_describe(a)}: duty {a.duty_id} is not defined on shift {a.shift_id}",
                a.employee_id,
                a.date,
                a.shift_id,
                at=f"request.duties[{ctx.duty_index[a.duty_id]}].staffing_demand_by_shift",
            )


def _check_skill_level(ctx: _Context, out: _Findings) -> None:
    """Level 0 forbids the duty; a duty absent from skill_levels is allowed."""
    for a in ctx.scoped_assignments:
        if a.duty_id is None:
            continue
        if ctx.employees[a.employee_id].skill_levels.get(a.duty_id) == 0:
            out.broken(
                "skill_level",
                f"{_describe(a)}: skill level 0 for duty {a.duty_id}",
                a.employee_id,
                a.date,
                a.shift_id,
                at=ctx.employee_field(a.employee_id, ".skill_levels"),
            )


def _check_fixed_assignments(ctx: _Context, out: _Findings) -> None:
    """Each fixed assignment inside the period is worked, with its duty when named."""
    period = ctx.request.schedule_period
    for employee in ctx.scoped_employees:
        cells: dict[dt.date, set[tuple[str, str | None]]] = {}  # read once per date
        for j, fixed in enumerate(employee.fixed_assignments):
            if not period.start_date <= fixed.date <= period.end_date:
                continue
            if fixed.date not in cells:
                on_date = ctx.of_on(employee.id, fixed.date)
                cells[fixed.date] = {(a.shift_id, a.duty_id) for a in on_date}
            worked = any(
                shift_id == fixed.shift_id and fixed.duty_id in (None, duty_id)
                for shift_id, duty_id in cells[fixed.date]
            )
            if not worked:
                duty = f" with duty {fixed.duty_id}" if fixed.duty_id is not None else ""
                out.broken(
                    "fixed_assignment",
                    f"{employee.id} is fixed to shift {fixed.shift_id}{duty} on "
                    f"{fixed.date.isoformat()} but does not work it",
                    employee.id,
                    fixed.date,
                    fixed.shift_id,
                    at=ctx.employee_field(employee.id, f".fixed_assignments[{j}]"),
                )
