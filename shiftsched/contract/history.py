"""What came before a period: the history a plan reads, and the ledger it hands on.

A v1 request describes one period as if nothing came before it. A *history* is the
assignments of the days before the period (as many as the client has) and, optionally,
the *ledger* an earlier plan returned: per employee, the running counts fairness evens
out. A history is read into counters, one :class:`shiftsched.solving.specs.Seam` per employee,
and each rule family reads the counter it needs at the start of the period
(docs/semantics.md, "Planning across periods"): the run of worked days in progress, the
last shift, the days and minutes of the week and month the start cuts in two, and the
past counts of each shift.

History cells are facts. They are not planned again, not priced (a term counts only
where it reaches a date of the period), and not part of the request's size.

The previous period's SolveResponse is a history as it stands: its roster is the
cells, and the ledger it carries, when it carries one, is the ledger.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from shiftsched.contract.hints import unknown_id
from shiftsched.contract.parse import ErrorCode
from shiftsched.contract.v1 import Assignment, Date, Id, SolveRequest, _distinct_nfc_keys
from shiftsched.contract.v1 import _Model as _ContractModel
from shiftsched.errors import FieldError

Path = tuple[str | int, ...]

#: The days before the period whose cells the seam rules read (runs, the week and month
#: the start cuts in two): a year is more than any of them needs, and reading no further
#: keeps a history of many years as cheap as a month's. Fairness counts every cell.
SEAM_DAYS = 366

#: Upper bound of a ledger's day, shift and preference counts: 270 years of one a day,
#: more than any working life. Fairness adds the past counts of a group's shifts (at
#: most 12 shifts x 50 employees x this, 6 x 10^7) and multiplies them by the group's
#: weights (under 10^6 in all), so each of its rows stays below 10^14: inside the
#: solver's 64-bit arithmetic and the 2^53 a JSON number keeps exactly. A plan's ledger
#: stops at it, so the next period accepts the ledger as it stands.
MAX_LEDGER_COUNT = 100_000
#: Upper bound of a ledger's minutes: every counted day a whole day (1,440 minutes) long.
MAX_LEDGER_MINUTES = MAX_LEDGER_COUNT * 24 * 60
LedgerCount = Annotated[int, Field(ge=0, le=MAX_LEDGER_COUNT, strict=True)]
LedgerMinutes = Annotated[int, Field(ge=0, le=MAX_LEDGER_MINUTES, strict=True)]


class LedgerEntry(_ContractModel):
    """One employee's running counts over every period planned so far."""

    employee_id: Id
    shift_counts: Annotated[dict[Id, LedgerCount], BeforeValidator(_distinct_nfc_keys)] = Field(
        default_factory=dict
    )
    days_worked: LedgerCount = 0
    minutes_worked: LedgerMinutes = 0
    preferences_granted: LedgerCount = 0
    preferences_refused: LedgerCount = 0


class HorizonCount(_ContractModel):
    """One employee's counts towards their horizon targets, from the horizon's start."""

    employee_id: Id
    days_worked: LedgerCount = 0
    weekends_worked: LedgerCount = 0
    minutes_worked: LedgerMinutes = 0  # of the shifts' working hours (hour targets)
    # Worked shifts by id, for the targets' shift counts (only shifts a target names).
    shift_counts: Annotated[dict[Id, LedgerCount], BeforeValidator(_distinct_nfc_keys)] = Field(
        default_factory=dict
    )


class HorizonLedger(_ContractModel):
    """The counts towards a horizon's targets (shiftsched.contract.horizon_targets), kept
    apart from the running counts because a horizon (a year, a quarter) starts afresh."""

    start: Date
    end: Date
    employees: list[HorizonCount] = Field(default_factory=list)


class Ledger(_ContractModel):
    """The counts a plan hands to the next period, through its last date."""

    through: Date
    employees: list[LedgerEntry] = Field(default_factory=list)
    horizon: HorizonLedger | None = None  # only when the plan had a horizon


class History(_ContractModel):
    """The days before a period: assignments, where they start, and the ledger so far.

    ``start_date`` is the first date the history covers (default: its earliest
    assignment); it covers every date from there to the day before the period, and a
    covered date with no assignment is a day off. A previous SolveResponse is accepted
    as it stands: its ``solution.assignments`` are the assignments and its ``ledger``,
    if any, the ledger.
    """

    start_date: Date | None = None
    assignments: list[Assignment] = Field(default_factory=list)
    ledger: Ledger | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_answer(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "solution" not in data:
            return data
        solution = data["solution"]
        if not isinstance(solution, dict):
            raise PydanticCustomError("no_roster", "this answer has no roster to carry forward")
        return {"assignments": solution.get("assignments", []), "ledger": data.get("ledger")}

    def covered_from(self) -> dt.date | None:
        """The first date the history covers, or None when it covers none."""
        if self.start_date is not None:
            return self.start_date
        return min((a.date for a in self.assignments), default=None)

    def read_from(self, start: dt.date) -> dt.date | None:
        """The first date the seam rules read before a period starting on ``start``: the
        history's first, or ``SEAM_DAYS`` before the start when it goes back further
        (never before the first date Python has, whatever ``start`` is)."""
        first = self.covered_from()
        if first is None:
            return None
        back = min(SEAM_DAYS, (start - dt.date.min).days)
        return max(first, start - dt.timedelta(days=back))


# --------------------------------------------------------------------------- checks


def history_faults(request: SolveRequest, history: History, at: Path) -> list[FieldError]:
    """Every way ``history`` contradicts ``request``, each with its JSON path under ``at``.

    A history that is wrong as a whole is one fault, not one per cell: a roster of
    another request (none of its employees or none of its shifts is the request's) or
    one with cells in the period (the period's own roster given as its history), as an
    audit takes a roster of another request (``roster_of_another_request``)."""
    whole = _foreign(request, history, at) or _overlapping(request, history, at)
    if whole is not None:
        return [whole]
    return [*_cell_faults(request, history, at), *_ledger_faults(request, history, at)]


def _foreign(request: SolveRequest, history: History, at: Path) -> FieldError | None:
    """No employee, or no shift, of the request in two cells or more (a single cell
    keeps its own fault at its path: a typo, not another request)."""
    cells = history.assignments
    if len(cells) < 2:
        return None
    if not any(a.employee_id in {e.id for e in request.employees} for a in cells):
        what = "none of its employees is in the request"
    elif not any(a.shift_id in {s.id for s in request.shifts} for a in cells):
        what = "none of its shifts is in the request"
    else:
        return None
    return FieldError(
        (*at, "assignments"),
        f"this history belongs to another request: {what}",
        ErrorCode.HISTORY_OF_ANOTHER_REQUEST,
    )


def _overlapping(request: SolveRequest, history: History, at: Path) -> FieldError | None:
    """More than one cell on or after the start: the period's own roster, or one that
    runs into it (a single stray cell keeps its own fault at its path)."""
    start = request.schedule_period.start_date
    inside = sorted(a.date for a in history.assignments if a.date >= start)
    if len(inside) < 2:
        return None
    return FieldError(
        (*at, "assignments"),
        f"{len(inside)} of its {len(history.assignments)} cells are dated on or after the "
        f"period's start {start.isoformat()} (the first {inside[0].isoformat()}, the last "
        f"{inside[-1].isoformat()}): a history holds the days before the period; is this "
        "the period's own roster?",
        ErrorCode.HISTORY_OVERLAPS_PERIOD,
    )


def _cell_faults(request: SolveRequest, history: History, at: Path) -> Iterator[FieldError]:
    start = request.schedule_period.start_date
    employees = {e.id for e in request.employees}
    shifts = {s.id for s in request.shifts}
    duties = {k.id: set(k.staffing_demand_by_shift) for k in request.duties}
    if history.start_date is not None and history.start_date >= start:
        yield FieldError(
            (*at, "start_date"),
            f"a history ends before the period starts ({start.isoformat()})",
            ErrorCode.NOT_BEFORE_PERIOD,
        )
    seen: dict[tuple[str, dt.date], int] = {}
    for i, a in enumerate(history.assignments):
        path: Path = (*at, "assignments", i)
        if a.employee_id not in employees:
            yield FieldError(
                (*path, "employee_id"),
                f"no employee has id {a.employee_id!r}",
                ErrorCode.UNKNOWN_EMPLOYEE_ID,
            )
        if a.shift_id not in shifts:
            yield FieldError(
                (*path, "shift_id"),
                unknown_id("shift", a.shift_id, shifts),
                ErrorCode.UNKNOWN_SHIFT_ID,
            )
        if a.duty_id is not None and a.duty_id not in duties:
            yield FieldError(
                (*path, "duty_id"), unknown_id("duty", a.duty_id, duties), ErrorCode.UNKNOWN_DUTY_ID
            )
        if a.date >= start:
            yield FieldError(
                (*path, "date"),
                f"{a.date.isoformat()} is not before the period, which starts {start.isoformat()}",
                ErrorCode.NOT_BEFORE_PERIOD,
            )
        elif history.start_date is not None and a.date < history.start_date:
            yield FieldError(
                (*path, "date"),
                f"{a.date.isoformat()} is before the history's start_date "
                f"{history.start_date.isoformat()}",
                ErrorCode.DATE_OUTSIDE_PERIOD,
            )
        first = seen.setdefault((a.employee_id, a.date), i)
        if first != i:
            yield FieldError(
                path,
                f"{a.employee_id} already has assignments[{first}] on {a.date.isoformat()}",
                ErrorCode.DUPLICATE_ASSIGNMENT,
            )


def _ledger_faults(request: SolveRequest, history: History, at: Path) -> Iterator[FieldError]:
    """A ledger through a date of the period, or one employee twice. Entries of employees
    or shifts the request no longer has are kept and handed on, not refused: people
    come back from leave."""
    ledger = history.ledger
    if ledger is None:
        return
    start = request.schedule_period.start_date
    if ledger.through >= start:
        yield FieldError(
            (*at, "ledger", "through"),
            f"the ledger counts through {ledger.through.isoformat()}, not before the period "
            f"({start.isoformat()})",
            ErrorCode.NOT_BEFORE_PERIOD,
        )
    seen: dict[str, int] = {}
    for i, entry in enumerate(ledger.employees):
        first = seen.setdefault(entry.employee_id, i)
        if first != i:
            yield FieldError(
                (*at, "ledger", "employees", i, "employee_id"),
                f"{entry.employee_id} already has ledger.employees[{first}]",
                ErrorCode.DUPLICATE_ID,
            )
