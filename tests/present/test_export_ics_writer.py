"""The iCalendar file is written line by line (``shiftsched.present.export.to_ics``) because
building it from the icalendar library's ``Calendar`` and ``Event`` objects cost about 0.3 ms of
CPU per event. The bytes must stay what the library wrote: the library's way is kept
here as the reference, and both are compared on names that escape, fold (multi-byte
characters, a backslash at the fold), time zones with and without daylight saving, UTC,
all-day shifts, one employee's calendar and DTSTAMPs given in other zones or naive.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Sequence
from typing import Any

import pytest
from icalendar import Calendar, Event

from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.present.export_ics import PRODID, _summary, event_uid, fold, ics_text, to_ics
from shiftsched.present.export_lines import employee_name, roster_lines
from tests.factories import minimal_request_dict

NAMES = [
    "E1",
    "Ä long, name; with \\ back\nslash " + "x" * 80 + "é" * 30,
    "a\\Nb" * 30,
    "x" * 72 + "\\,",
    "y" * 71 + "^^" + "z",
    "🙂" * 40,
    "tab\there\r\nand\rcr",
    "q" * 60 + "é" * 20,
]
ZONES = [
    None,
    "UTC",
    "Etc/UTC",
    "Europe/Berlin",
    "America/New_York",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "America/Argentina/ComodRivadavia",
]
STAMPS = [
    dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    dt.datetime(2026, 1, 1, 12, 30, 15, tzinfo=dt.timezone(dt.timedelta(hours=2))),
    dt.datetime(2026, 1, 1, 1, 2, 3),
]
ROSTER = [
    Assignment(employee_id="e1", date=dt.date(2026, 3, 2), shift_id="day", duty_id="lead"),
    Assignment(employee_id="e2", date=dt.date(2026, 3, 8), shift_id="night"),
    Assignment(employee_id="e1", date=dt.date(2026, 3, 5), shift_id="night"),
]


def library_ics(
    request: SolveRequest,
    assignments: Sequence[Assignment],
    *,
    employee_id: str | None = None,
    stamp: dt.datetime,
) -> bytes:
    """The file as the icalendar library writes it (how to_ics wrote it before)."""
    period = request.schedule_period
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    title = f"Roster {period.start_date.isoformat()}..{period.end_date.isoformat()}"
    if employee_id is not None:
        title += f" — {employee_name(next(e for e in request.employees if e.id == employee_id))}"
    calendar.add("x-wr-calname", title)
    for line in roster_lines(request, assignments, employee_id=employee_id):
        event = Event()
        event.add("uid", event_uid(line.employee.id, line.date, line.shift.id))
        event.add("dtstamp", stamp)
        event.add("summary", _summary(line))
        if line.start is None or line.end is None:
            event.add("dtstart", line.date)
            event.add("dtend", line.date + dt.timedelta(days=1))
        else:
            event.add("dtstart", line.start)
            event.add("dtend", line.end)
        description = f"employee {line.employee.id}, shift {line.shift.id}"
        if line.duty is not None:
            description += f", duty {line.duty.id}"
        event.add("description", description)
        calendar.add_component(event)
    calendar.add_missing_timezones(
        first_date=period.start_date - dt.timedelta(days=1),
        last_date=period.end_date + dt.timedelta(days=2),
    )
    data: bytes = calendar.to_ical()
    return data


def request_for(zone: str | None, name: str, hours: str) -> SolveRequest:
    """``hours``: "timed" (both shifts), "mixed" (night all day) or "all-day" (both)."""
    body: dict[str, Any] = minimal_request_dict()
    if zone is not None:
        body["schedule_period"]["timezone"] = zone
    body["employees"][0]["name"] = name
    body["shifts"][1]["name"] = name[:40]
    if hours != "timed":
        body["shifts"][1].pop("working_hours")
    if hours == "all-day":
        body["shifts"][0].pop("working_hours")
    return parse_request(body)


@pytest.mark.parametrize("zone", ZONES)
def test_the_file_is_the_bytes_the_library_writes(zone: str | None) -> None:
    hours = ["timed", "mixed", "all-day"]
    # The library takes some 25 ms to build these zones' VTIMEZONE: fewer names there.
    names = NAMES[:2] if zone in ("Asia/Kolkata", "America/Argentina/ComodRivadavia") else NAMES
    cases = [(n, h, STAMPS[0]) for n, h in itertools.product(names, hours)]
    cases += [(NAMES[1], h, stamp) for h, stamp in itertools.product(hours, STAMPS[1:])]
    for name, hours_of, stamp in cases:
        request = request_for(zone, name, hours_of)
        for roster, employee_id in itertools.product([ROSTER, []], [None, "e2"]):
            written = to_ics(request, roster, employee_id=employee_id, stamp=stamp)
            expected = library_ics(request, roster, employee_id=employee_id, stamp=stamp)
            assert written == expected, (zone, name, hours_of, stamp, employee_id)


def test_one_employees_calendar_name_is_escaped_text() -> None:
    """The library writes X-WR-CALNAME raw and fails on a line break in the employee's
    name; RFC 5545 reads an X- property as TEXT, so it is escaped like a summary."""
    request = request_for("Europe/Berlin", "Smith, Jo;\nnight", "timed")
    data = to_ics(request, ROSTER, employee_id="e1", stamp=STAMPS[0]).decode()
    assert "X-WR-CALNAME:Roster 2026-03-02..2026-03-08 — Smith\\, Jo\\;\\nnight\r\n" in data
    assert len(Calendar.from_ical(data).walk("VEVENT")) == 2


def test_folding_keeps_lines_under_75_octets_and_escapes_whole() -> None:
    line = "SUMMARY:" + ics_text("é" * 50 + "," * 40)
    folded = fold(line)
    pieces = folded.split("\r\n ")
    assert "".join(pieces) == line
    assert all(len(piece.encode()) < 75 for piece in pieces)
    assert not any(piece.endswith("\\") for piece in pieces[:-1])
    assert fold("DTSTART:20260302T070000") == "DTSTART:20260302T070000"
