"""A roster in the files people open elsewhere: CSV, iCalendar (RFC 5545) and XLSX.

Every format starts from :func:`roster_lines` (shiftsched.present.export_lines), which
resolves each assignment against the request (names, local start and end) and rejects
what the request does not know, so the three agree on what a roster says and a bad
roster is an :class:`InvalidRequest` with JSON paths, never a half-written file. The
iCalendar writer is shiftsched.present.export_ics.

Times are local to ``schedule_period.timezone``: a shift starts on its date at
``start_time`` and ends at ``end_time`` on the same date, or on the next date when
``end_time <= start_time`` (a night shift; docs/semantics.md, "Calendar"). A shift
without ``working_hours`` has no times: an all-day event, empty start and end in CSV.

Names and ids are the caller's text, and a spreadsheet opening a CSV runs a cell that
starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return before one) as a
formula: ``=HYPERLINK(...)`` as a name becomes a link in whoever opens the roster. Such a
cell is written with a leading ``'``, which spreadsheets show as text (OWASP, "CSV
injection"). The XLSX sheet writes every cell as a string, which is never a formula.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import xlsxwriter

from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.present.export_ics import to_ics
from shiftsched.present.export_lines import JsonPath, employee_name, roster_lines

Format = Literal["csv", "ics", "xlsx"]

SHEET: Final = "Roster"
CSV_COLUMNS: Final = (
    "date",
    "employee_id",
    "employee_name",
    "shift_id",
    "shift_name",
    "duty_id",
    "duty_name",
    "start",
    "end",
)


@dataclass(frozen=True, slots=True)
class FileType:
    """What a browser or a download button needs to know about an exported file."""

    extension: str
    media_type: str


FILE_TYPES: Final[dict[Format, FileType]] = {
    "csv": FileType("csv", "text/csv"),
    "ics": FileType("ics", "text/calendar"),
    "xlsx": FileType("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
}


def assignments_path(data: object) -> JsonPath:
    """Where the assignments sit in a response as :func:`shiftsched.checking.audit.read_response`
    reads it: a bare list, ``{"assignments": [...]}`` or a SolveResponse."""
    if isinstance(data, list):
        return ()
    if isinstance(data, dict) and "solution" in data:
        return ("solution", "assignments")
    return ("assignments",)


# ------------------------------------------------------------------------------- CSV

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


def csv_text(value: str) -> str:
    """``value`` as a CSV cell a spreadsheet shows as text, never runs as a formula."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def to_csv(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    *,
    employee_id: str | None = None,
    at: JsonPath = ("assignments",),
) -> str:
    """A header row (:data:`CSV_COLUMNS`), then one row per assignment; ``start`` and
    ``end`` are local ISO datetimes with their UTC offset, empty without working hours.
    Names and ids that would start a formula get a leading ``'`` (:func:`csv_text`)."""
    buffer = io.StringIO()
    # CRLF, as RFC 4180 says: the writer then also quotes a field holding a bare CR, which
    # with "\n" alone it wrote as is, and a CR in a name split its row in two.
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for line in roster_lines(request, assignments, employee_id=employee_id, at=at):
        writer.writerow(
            (
                line.date.isoformat(),
                csv_text(line.employee.id),
                csv_text(employee_name(line.employee)),
                csv_text(line.shift.id),
                csv_text(line.shift.name),
                "" if line.duty is None else csv_text(line.duty.id),
                "" if line.duty is None else csv_text(line.duty.name),
                "" if line.start is None else line.start.isoformat(timespec="minutes"),
                "" if line.end is None else line.end.isoformat(timespec="minutes"),
            )
        )
    return buffer.getvalue()


# ------------------------------------------------------------------------------ XLSX


def roster_grid(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    *,
    employee_id: str | None = None,
    at: JsonPath = ("assignments",),
) -> list[list[str]]:
    """Employees (request order) x dates of the period, with a header row: employee id,
    name, then one ISO date per column; a cell is the shift id, ``shift/duty`` when a
    duty is held, empty when off."""
    lines = roster_lines(request, assignments, employee_id=employee_id, at=at)
    period = request.schedule_period
    days = (period.end_date - period.start_date).days + 1
    dates = [period.start_date + dt.timedelta(days=d) for d in range(days)]
    cells: dict[tuple[str, dt.date], list[str]] = {}
    for line in lines:
        held = line.shift.id if line.duty is None else f"{line.shift.id}/{line.duty.id}"
        cells.setdefault((line.employee.id, line.date), []).append(held)
    rows = [["employee_id", "name", *(d.isoformat() for d in dates)]]
    for employee in request.employees:
        if employee_id is not None and employee.id != employee_id:
            continue
        worked = [", ".join(cells.get((employee.id, d), [])) for d in dates]
        rows.append([employee.id, employee.name or "", *worked])
    return rows


def to_xlsx(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    *,
    employee_id: str | None = None,
    at: JsonPath = ("assignments",),
) -> bytes:
    """A workbook with one sheet, :data:`SHEET`: :func:`roster_grid` with its header row
    and the two name columns frozen, so both stay in sight while scrolling."""
    rows = roster_grid(request, assignments, employee_id=employee_id, at=at)
    buffer = io.BytesIO()
    workbook = xlsxwriter.Workbook(buffer, {"in_memory": True})
    sheet = workbook.add_worksheet(SHEET)
    bold = workbook.add_format({"bold": True})
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if r == 0:
                sheet.write_string(r, c, value, bold)
            elif value:
                sheet.write_string(r, c, value)
    sheet.freeze_panes(1, 2)
    widest = max((len(row[1]) for row in rows), default=4)
    sheet.set_column(0, 0, max(12, max(len(row[0]) for row in rows) + 2))
    sheet.set_column(1, 1, max(12, widest + 2))
    sheet.set_column(2, max(2, len(rows[0]) - 1), 11)
    workbook.close()
    return buffer.getvalue()


# --------------------------------------------------------------------------- any format


def export(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    fmt: Format,
    *,
    employee_id: str | None = None,
    at: JsonPath = ("assignments",),
    stamp: dt.datetime | None = None,
) -> bytes:
    """The roster as a file of format ``fmt``, as bytes (CSV in UTF-8); ``stamp`` is the
    iCalendar DTSTAMP (now when None), so a fixed one makes the same file every time."""
    if fmt == "csv":
        return to_csv(request, assignments, employee_id=employee_id, at=at).encode()
    if fmt == "ics":
        return to_ics(request, assignments, employee_id=employee_id, stamp=stamp, at=at)
    return to_xlsx(request, assignments, employee_id=employee_id, at=at)


def file_name(stem: str, fmt: Format, employee_id: str | None = None) -> str:
    """``stem.ext``, or ``stem-EMPLOYEE.ext`` for one employee; only characters that are
    safe in a file name and a Content-Disposition header are kept."""
    name = stem if employee_id is None else f"{stem}-{employee_id}"
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in name)
    return f"{safe or 'roster'}.{FILE_TYPES[fmt].extension}"
