"""A roster as an iCalendar file (RFC 5545): one event per assignment.

Events carry stable UIDs (the same assignment is the same event in every export), local
times in the period's time zone with its VTIMEZONE, and lines folded at 75 octets; text
is escaped as the RFC asks.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from icalendar import Timezone, vDatetime
from icalendar.parser import Contentline
from icalendar.timezone import tzp

from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.present.export_lines import JsonPath, RosterLine, employee_name, roster_lines

PRODID: Final = "-//shiftsched//roster export//EN"


UID_DOMAIN: Final = "roster.shiftsched"


def event_uid(employee_id: str, date: dt.date, shift_id: str) -> str:
    """The same assignment always gets the same UID, so importing a new export of a
    roster updates the events already there instead of adding copies."""
    key = json.dumps([employee_id, date.isoformat(), shift_id]).encode()
    return f"{hashlib.sha256(key).hexdigest()[:32]}@{UID_DOMAIN}"


def _summary(line: RosterLine) -> str:
    duty = "" if line.duty is None else f" ({line.duty.name})"
    return f"{line.shift.name} — {employee_name(line.employee)}{duty}"


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
        title += f" — {employee_name(next(e for e in request.employees if e.id == employee_id))}"
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
