"""A roster in the files people open elsewhere: CSV, iCalendar (RFC 5545) and XLSX.

Every format starts from :func:`roster_lines`, which resolves each assignment against the
request (names, local start and end) and rejects what the request does not know, so
the three agree on what a roster says and a bad roster is an :class:`InvalidRequest`
with JSON paths, never a half-written file.

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
import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal
from zoneinfo import ZoneInfo

import xlsxwriter
from icalendar import Timezone, vDatetime
from icalendar.parser import Contentline
from icalendar.timezone import tzp

from shiftsched.contract.parse import ErrorCode
from shiftsched.contract.v1 import Assignment, Duty, Employee, Shift, SolveRequest
from shiftsched.errors import FieldError, InvalidRequest
from shiftsched.questions.inquiry import fit_faults

Format = Literal["csv", "ics", "xlsx"]
JsonPath = tuple[str | int, ...]

PRODID: Final = "-//shiftsched//roster export//EN"
UID_DOMAIN: Final = "roster.shiftsched"
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


@dataclass(frozen=True, slots=True)
class RosterLine:
    """One assignment with what the request says about it; ``start``/``end`` are aware
    local datetimes, or None for a shift without working hours."""

    date: dt.date
    employee: Employee
    shift: Shift
    duty: Duty | None
    start: dt.datetime | None
    end: dt.datetime | None


def assignments_path(data: object) -> JsonPath:
    """Where the assignments sit in a response as :func:`shiftsched.checking.audit.read_response`
    reads it: a bare list, ``{"assignments": [...]}`` or a SolveResponse."""
    if isinstance(data, list):
        return ()
    if isinstance(data, dict) and "solution" in data:
        return ("solution", "assignments")
    return ("assignments",)


def shift_times(
    shift: Shift, date: dt.date, zone: ZoneInfo
) -> tuple[dt.datetime, dt.datetime] | None:
    """Local start and end of ``shift`` on ``date``; the end is on the next date when
    ``end_time <= start_time``. None without working hours. A time the clock skips
    (02:30 when it jumps from 02:00 to 03:00) is read with the offset before the jump,
    as RFC 5545 reads it, and shown as the time it is (03:30)."""
    hours = shift.working_hours
    if hours is None:
        return None
    start_time = dt.time.fromisoformat(hours.start_time)
    end_time = dt.time.fromisoformat(hours.end_time)
    end_date = date + dt.timedelta(days=1) if end_time <= start_time else date
    return (
        _on_the_clock(dt.datetime.combine(date, start_time, tzinfo=zone), zone),
        _on_the_clock(dt.datetime.combine(end_date, end_time, tzinfo=zone), zone),
    )


def _on_the_clock(moment: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    return moment.astimezone(dt.UTC).astimezone(zone)


def roster_lines(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    *,
    employee_id: str | None = None,
    at: JsonPath = ("assignments",),
) -> list[RosterLine]:
    """The assignments resolved against ``request``, by date, then shift and employee in
    request order; only ``employee_id``'s when given. Every unknown employee, shift or
    duty and every date outside the period is one fault, at ``at`` + index + field, and
    a roster of another request one fault at ``at`` (shiftsched.questions.inquiry.fit_faults)."""
    employees = {e.id: e for e in request.employees}
    shifts = {s.id: s for s in request.shifts}
    duties = {d.id: d for d in request.duties}
    if employee_id is not None and employee_id not in employees:
        raise InvalidRequest(
            [
                FieldError(
                    ("employee_id",),
                    f"no employee with id {employee_id!r} in the request",
                    ErrorCode.UNKNOWN_EMPLOYEE_ID.value,
                )
            ]
        )
    faults = fit_faults(request, assignments, at)
    if faults:
        raise InvalidRequest(faults)
    zone = ZoneInfo(request.schedule_period.timezone)
    lines: list[RosterLine] = []
    # Every employee on a shift that date has the same times: worked out once each.
    known: dict[tuple[str, dt.date], tuple[dt.datetime, dt.datetime] | None] = {}
    for a in assignments:
        if employee_id is not None and a.employee_id != employee_id:
            continue
        shift = shifts[a.shift_id]
        key = (a.shift_id, a.date)
        if key not in known:
            known[key] = shift_times(shift, a.date, zone)
        times = known[key]
        lines.append(
            RosterLine(
                date=a.date,
                employee=employees[a.employee_id],
                shift=shift,
                duty=None if a.duty_id is None else duties[a.duty_id],
                start=None if times is None else times[0],
                end=None if times is None else times[1],
            )
        )
    shift_order = {s.id: i for i, s in enumerate(request.shifts)}
    employee_order = {e.id: i for i, e in enumerate(request.employees)}
    lines.sort(key=lambda x: (x.date, shift_order[x.shift.id], employee_order[x.employee.id]))
    return lines


def _name(employee: Employee) -> str:
    return employee.name or employee.id


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
                csv_text(_name(line.employee)),
                csv_text(line.shift.id),
                csv_text(line.shift.name),
                "" if line.duty is None else csv_text(line.duty.id),
                "" if line.duty is None else csv_text(line.duty.name),
                "" if line.start is None else line.start.isoformat(timespec="minutes"),
                "" if line.end is None else line.end.isoformat(timespec="minutes"),
            )
        )
    return buffer.getvalue()


# ------------------------------------------------------------------------- iCalendar


def event_uid(employee_id: str, date: dt.date, shift_id: str) -> str:
    """The same assignment always gets the same UID, so importing a new export of a
    roster updates the events already there instead of adding copies."""
    key = json.dumps([employee_id, date.isoformat(), shift_id]).encode()
    return f"{hashlib.sha256(key).hexdigest()[:32]}@{UID_DOMAIN}"


def _summary(line: RosterLine) -> str:
    duty = "" if line.duty is None else f" ({line.duty.name})"
    return f"{line.shift.name} — {_name(line.employee)}{duty}"


def ics_text(value: str) -> str:
    """``value`` as an RFC 5545 TEXT value, escaped exactly as the icalendar library
    escapes it (its order of replacements, a literal ``\\N`` read as a line break)."""
    return (
        value.replace("\\N", "\n")
        .replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
        .replace("\r", "\\n")
    )


FOLD_OCTETS: Final = 75


def fold(line: str) -> str:
    """``line`` folded as the icalendar library folds it (RFC 5545, 3.1): pieces under
    75 octets, never splitting a character, nor a backslash from what it escapes. A
    line under 75 octets, as nearly every line of a roster is, is returned as is."""
    if len(line) < FOLD_OCTETS // 4 or len(line.encode()) < FOLD_OCTETS:
        return line
    pieces: list[str] = []
    current: list[str] = []
    octets = 0
    for char in line:
        size = len(char.encode())
        if current and octets + size >= FOLD_OCTETS:
            if len(current) > 1 and current[-1] in "\\^":
                carried = current.pop()
                pieces.append("".join(current))
                current, octets = [carried], len(carried.encode())
            else:
                pieces.append("".join(current))
                current, octets = [], 0
        current.append(char)
        octets += size
    if current:
        pieces.append("".join(current))
    return "\r\n ".join(pieces)


@dataclass(frozen=True, slots=True)
class _Stamped:
    """How a DATE-TIME property is written for one time zone: the line's start up to
    its value (``DTSTART;TZID=Europe/Berlin:``), whether values end in ``Z`` (UTC), and
    the TZID that needs a VTIMEZONE (None in UTC)."""

    prefix: str
    utc: bool
    tzid: str | None

    def line(self, moment: dt.datetime) -> str:
        value = (
            f"{moment.year:04}{moment.month:02}{moment.day:02}"
            f"T{moment.hour:02}{moment.minute:02}{moment.second:02}"
        )
        return fold(self.prefix + value + ("Z" if self.utc else ""))


def _stamped(name: str, sample: dt.datetime) -> _Stamped:
    """Ask the icalendar library once per zone how it writes ``name`` (its TZID, or UTC),
    so every event can be written as it would write it without its per-event cost."""
    value: Any = vDatetime(sample)  # the library's own types are not annotated
    written: str = value.to_ical().decode()
    line = str(Contentline.from_parts(name, value.params, value))
    assert line.endswith(written), line
    tzid = value.params.get("TZID")
    utc = written.endswith("Z")
    return _Stamped(line[: -len(written)], utc, None if utc or not tzid else str(tzid))


def _vtimezone(tzid: str, first: dt.date, last: dt.date) -> str:
    """The VTIMEZONE of ``tzid`` over ``first``..``last``, as the library writes it; empty
    for a zone it does not know (its ``add_missing_timezones`` leaves those out too)."""
    try:
        timezone = Timezone.from_tzid(tzid, first_date=first, last_date=last)
    except ValueError:
        return ""
    text: str = timezone.to_ical().decode()
    return text


def _events(
    lines: Sequence[RosterLine],
    start_form: _Stamped | None,
    end_form: _Stamped | None,
    stamp_line: str,
) -> list[str]:
    """The content lines of one VEVENT per roster line. Many events share a summary and
    a time: each is written once, keyed by ids (unique in a request)."""
    texts: dict[tuple[str, str, str | None], tuple[str, str]] = {}
    times: dict[tuple[str, dt.date], tuple[str, str]] = {}
    events: list[str] = []
    for line in lines:
        who = (line.employee.id, line.shift.id, None if line.duty is None else line.duty.id)
        if who not in texts:
            description = f"employee {who[0]}, shift {who[1]}"
            if who[2] is not None:
                description += f", duty {who[2]}"
            texts[who] = (
                fold("SUMMARY:" + ics_text(_summary(line))),
                fold("DESCRIPTION:" + ics_text(description)),
            )
        summary, description_line = texts[who]
        when = (line.shift.id, line.date)
        if when not in times:
            if line.start is None or line.end is None:
                day, after = line.date, line.date + dt.timedelta(days=1)
                times[when] = (
                    f"DTSTART;VALUE=DATE:{day.year:04}{day.month:02}{day.day:02}",
                    f"DTEND;VALUE=DATE:{after.year:04}{after.month:02}{after.day:02}",
                )
            else:
                assert start_form is not None and end_form is not None
                times[when] = (start_form.line(line.start), end_form.line(line.end))
        start_line, end_line = times[when]
        uid = event_uid(line.employee.id, line.date, line.shift.id)
        events += (
            "BEGIN:VEVENT",
            summary,
            start_line,
            end_line,
            stamp_line,
            fold("UID:" + ics_text(uid)),
            description_line,
            "END:VEVENT",
        )
    return events


def to_ics(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    *,
    employee_id: str | None = None,
    stamp: dt.datetime | None = None,
    at: JsonPath = ("assignments",),
) -> bytes:
    """One VEVENT per assignment: timed in the request's time zone (with its VTIMEZONE),
    or all day for a shift without working hours. ``stamp`` is the DTSTAMP (now when
    None); ``employee_id`` makes one employee's calendar.

    Why written here, line by line: building a ``Calendar`` of ``Event`` objects with
    the icalendar library cost about 0.3 ms of CPU per event (its generic property
    machinery and per-character folding), so 50,000 assignments took 16 s per
    download. The library still decides how a date-time and its TZID are written
    (once per zone) and writes the VTIMEZONE; the events are the bytes it wrote, with
    the same property order, escaping and folding (tests compare the two)."""
    lines = roster_lines(request, assignments, employee_id=employee_id, at=at)
    stamp = tzp.localize_utc(stamp or dt.datetime.now(dt.UTC))  # a DTSTAMP is in UTC
    period = request.schedule_period
    title = f"Roster {period.start_date.isoformat()}..{period.end_date.isoformat()}"
    if employee_id is not None:
        title += f" — {_name(next(e for e in request.employees if e.id == employee_id))}"
    out = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        fold("PRODID:" + ics_text(PRODID)),
        fold("X-WR-CALNAME:" + ics_text(title)),
    ]
    stamp_form = _stamped("DTSTAMP", stamp)
    timed = next((line.start for line in lines if line.start is not None), None)
    start_form = end_form = None
    if timed is not None:
        start_form, end_form = _stamped("DTSTART", timed), _stamped("DTEND", timed)
    events = _events(lines, start_form, end_form, stamp_form.line(stamp))
    used = [stamp_form.tzid] + ([] if start_form is None else [start_form.tzid])
    first = period.start_date - dt.timedelta(days=1)
    last = period.end_date + dt.timedelta(days=2)
    zones = [_vtimezone(tzid, first, last) for tzid in sorted({t for t in used if t})]
    text = "\r\n".join(out) + "\r\n" + "".join(zones)
    text += "\r\n".join(events) + ("\r\n" if events else "") + "END:VCALENDAR\r\n"
    return text.encode()


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
