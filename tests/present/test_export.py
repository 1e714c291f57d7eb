"""Roster export: each file read back with an independent reader (csv, icalendar,
openpyxl) says exactly what the roster says; bad rosters are faults with JSON paths;
the command line writes the same files."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import openpyxl
import pytest
from icalendar import Calendar

from shiftsched.__main__ import EXIT_INVALID, EXIT_OK, main
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.errors import InvalidRequest
from shiftsched.present.export import (
    CSV_COLUMNS,
    FILE_TYPES,
    SHEET,
    assignments_path,
    export,
    file_name,
    to_csv,
    to_xlsx,
)
from shiftsched.present.export_ics import event_uid, to_ics
from tests.factories import demand, employee_dict, request_with, shift_dict

ROOT = Path(__file__).parent.parent.parent
BERLIN = ZoneInfo("Europe/Berlin")
STAMP = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
# Europe/Berlin moves from +01:00 to +02:00 at 02:00 on Sunday 2026-03-29.
PERIOD = {"start_date": "2026-03-26", "end_date": "2026-04-01", "timezone": "Europe/Berlin"}
ROSTER: list[dict[str, Any]] = [
    {"employee_id": "e2", "date": "2026-03-31", "shift_id": "night"},
    {"employee_id": "e1", "date": "2026-03-28", "shift_id": "night"},  # across the change
    {"employee_id": "e2", "date": "2026-03-29", "shift_id": "day", "duty_id": "lead"},
    {"employee_id": "e3", "date": "2026-03-27", "shift_id": "oncall"},  # no working hours
    {"employee_id": "e1", "date": "2026-03-26", "shift_id": "day"},
]


def request_dict() -> dict[str, Any]:
    """Shifts day 07-15, night 23-07 and oncall (no hours); e3 has no name."""
    oncall = {"id": "oncall", "name": "On call", "staffing_demand": demand(0, 1)}
    every = ["day", "night", "oncall"]
    return request_with(
        schedule_period=PERIOD,
        shifts=[shift_dict("day", "07:00", "15:00"), shift_dict("night", "23:00", "07:00"), oncall],
        employees=[
            employee_dict("e1", name="Alice", assignable_shift_ids=every),
            employee_dict("e2", name="Bob", assignable_shift_ids=every),
            {"id": "e3", "assignable_shift_ids": every},
        ],
    )


@pytest.fixture
def request_() -> SolveRequest:
    return parse_request(request_dict())


def roster() -> list[Assignment]:
    return [Assignment.model_validate(a) for a in ROSTER]


def at(day: int, hour: int, month: int = 3) -> dt.datetime:
    return dt.datetime(2026, month, day, hour, tzinfo=BERLIN)


# Local start and end of each assignment: (employee, date, shift) -> (start, end).
TIMES: dict[tuple[str, str, str], tuple[dt.datetime, dt.datetime] | None] = {
    ("e1", "2026-03-26", "day"): (at(26, 7), at(26, 15)),
    ("e3", "2026-03-27", "oncall"): None,
    ("e1", "2026-03-28", "night"): (at(28, 23), at(29, 7)),
    ("e2", "2026-03-29", "day"): (at(29, 7), at(29, 15)),
    ("e2", "2026-03-31", "night"): (at(31, 23), at(1, 7, month=4)),
}


# ------------------------------------------------------------------------------- CSV


def test_csv_reads_back_as_exactly_the_roster(request_: SolveRequest) -> None:
    text = to_csv(request_, roster())
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames or ()) == CSV_COLUMNS
    rows = list(reader)
    assert len(rows) == len(ROSTER)
    got = [
        Assignment(
            employee_id=r["employee_id"],
            date=r["date"],
            shift_id=r["shift_id"],
            duty_id=r["duty_id"] or None,
        )
        for r in rows
    ]
    assert sorted(got, key=repr) == sorted(roster(), key=repr)
    assert [r["date"] for r in rows] == sorted(r["date"] for r in rows)


def test_csv_names_and_local_times_across_the_clock_change(request_: SolveRequest) -> None:
    rows = {r["date"]: r for r in csv.DictReader(io.StringIO(to_csv(request_, roster())))}
    night = rows["2026-03-28"]
    assert (night["employee_name"], night["shift_name"]) == ("Alice", "Night")
    assert (night["start"], night["end"]) == ("2026-03-28T23:00+01:00", "2026-03-29T07:00+02:00")
    assert (rows["2026-03-29"]["duty_id"], rows["2026-03-29"]["duty_name"]) == ("lead", "Lead")
    oncall = rows["2026-03-27"]
    assert (oncall["employee_name"], oncall["start"], oncall["end"]) == ("e3", "", "")


def test_csv_sorts_by_date_then_shift_then_employee_in_request_order(
    request_: SolveRequest,
) -> None:
    same_day = [
        Assignment.model_validate({"employee_id": e, "date": "2026-03-30", "shift_id": s})
        for e, s in (("e3", "day"), ("e1", "night"), ("e2", "day"))
    ]
    rows = list(csv.DictReader(io.StringIO(to_csv(request_, same_day))))
    assert [(r["shift_id"], r["employee_id"]) for r in rows] == [
        ("day", "e2"),
        ("day", "e3"),
        ("night", "e1"),
    ]


def test_an_empty_roster_is_a_header_alone(request_: SolveRequest) -> None:
    assert to_csv(request_, []).splitlines() == [",".join(CSV_COLUMNS)]


FORMULAS = ['=HYPERLINK("http://evil.test","x")', "@SUM(A1:A9)", "+1+1", "-2+3", "\t=1", "\r=1"]


def formula_request() -> SolveRequest:
    """Names and ids that a spreadsheet would run as formulas, and one that is plain."""
    data = request_dict()
    data["shifts"][0]["name"] = FORMULAS[0]
    data["shifts"][1] |= {"id": "=night", "name": "-Night"}
    for employee in data["employees"]:
        employee["assignable_shift_ids"] = ["day", "=night", "oncall"]
    names = [FORMULAS[1], FORMULAS[2], None]
    for employee, name in zip(data["employees"], names, strict=True):
        if name is not None:
            employee["name"] = name
    data["employees"][2]["id"] = "+e3"
    data["employees"].append(employee_dict("e4", name=FORMULAS[4], assignable_shift_ids=["day"]))
    data["employees"].append(employee_dict("e5", name=FORMULAS[5], assignable_shift_ids=["day"]))
    data["employees"].append(employee_dict("e6", name="Plain-name", assignable_shift_ids=["day"]))
    return parse_request(data)


def test_csv_cells_that_would_be_formulas_are_written_as_text() -> None:
    request = formula_request()
    roster = [
        Assignment(employee_id="e1", date="2026-03-26", shift_id="day"),
        Assignment(employee_id="e2", date="2026-03-27", shift_id="=night"),
        Assignment(employee_id="+e3", date="2026-03-28", shift_id="oncall"),
        Assignment(employee_id="e4", date="2026-03-29", shift_id="day"),
        Assignment(employee_id="e5", date="2026-03-30", shift_id="day"),
        Assignment(employee_id="e6", date="2026-03-31", shift_id="day"),
    ]
    rows = list(csv.DictReader(io.StringIO(to_csv(request, roster))))
    assert len(rows) == len(roster)  # a carriage return in a name splits no row
    user_text = ("employee_id", "employee_name", "shift_id", "shift_name", "duty_id", "duty_name")
    for row in rows:
        for column in user_text:
            assert not row[column].startswith(("=", "+", "-", "@", "\t", "\r")), (column, row)
    by_employee = {row["date"]: row for row in rows}
    assert by_employee["2026-03-26"]["shift_name"] == "'" + FORMULAS[0]
    assert by_employee["2026-03-26"]["employee_name"] == "'" + FORMULAS[1]
    assert by_employee["2026-03-27"]["shift_id"] == "'=night"
    assert by_employee["2026-03-27"]["shift_name"] == "'-Night"
    assert by_employee["2026-03-28"]["employee_id"] == "'+e3"
    assert by_employee["2026-03-29"]["employee_name"] == "'" + FORMULAS[4]
    assert by_employee["2026-03-30"]["employee_name"] == "'" + FORMULAS[5]
    assert by_employee["2026-03-31"]["employee_name"] == "Plain-name"  # a dash inside is text
    # The XLSX sheet holds every cell as a string, never a formula.
    sheet, _ = sheet_rows(to_xlsx(request, roster))
    cells = [cell for row in sheet.iter_rows() for cell in row if cell.value]
    assert cells and all(cell.data_type == "s" for cell in cells)


# ------------------------------------------------------------------------- iCalendar


def events(data: bytes) -> list[Any]:
    return list(Calendar.from_ical(data).walk("VEVENT"))


def key_of(event: Any) -> tuple[str, str, str]:
    """(employee, date, shift) of the assignment whose UID the event carries."""
    for key in TIMES:
        if str(event["uid"]) == event_uid(key[0], dt.date.fromisoformat(key[1]), key[2]):
            return key
    raise AssertionError(f"unexpected UID {event['uid']}")


def test_ics_has_one_event_per_assignment_at_local_times(request_: SolveRequest) -> None:
    data = to_ics(request_, roster(), stamp=STAMP)
    found = events(data)
    assert len(found) == len(ROSTER)
    for event in found:
        expected = TIMES[key_of(event)]
        start, end = event.decoded("dtstart"), event.decoded("dtend")
        if expected is None:  # all day: a DATE, ending the next date
            assert type(start) is dt.date and type(end) is dt.date
            assert end - start == dt.timedelta(days=1)
        else:
            assert (start, end) == expected
            assert start.tzinfo.key == end.tzinfo.key == "Europe/Berlin"
        assert event.decoded("dtstamp") == STAMP
    text = data.decode()
    assert "DTSTART;TZID=Europe/Berlin:20260328T230000" in text
    assert "DTEND;TZID=Europe/Berlin:20260329T070000" in text
    assert "DTSTART;VALUE=DATE:20260327" in text and "DTEND;VALUE=DATE:20260328" in text


def test_a_night_shift_across_the_clock_change_lasts_seven_hours(
    request_: SolveRequest,
) -> None:
    (night,) = [e for e in events(to_ics(request_, roster())) if key_of(e)[1] == "2026-03-28"]
    start, end = night.decoded("dtstart"), night.decoded("dtend")
    assert start.utcoffset() == dt.timedelta(hours=1)
    assert end.utcoffset() == dt.timedelta(hours=2)
    assert end - start == dt.timedelta(hours=8)  # wall clock
    assert end.astimezone(dt.UTC) - start.astimezone(dt.UTC) == dt.timedelta(hours=7)


def test_a_start_the_clock_skips_is_the_time_it_becomes() -> None:
    data = request_dict()
    data["shifts"][0]["working_hours"] = {"start_time": "02:30", "end_time": "10:00"}
    request = parse_request(data)
    day = Assignment(employee_id="e1", date=dt.date(2026, 3, 29), shift_id="day")
    (row,) = csv.DictReader(io.StringIO(to_csv(request, [day])))
    assert (row["start"], row["end"]) == ("2026-03-29T03:30+02:00", "2026-03-29T10:00+02:00")
    (event,) = events(to_ics(request, [day]))
    assert event.decoded("dtstart") == at(29, 3).replace(minute=30)


def test_ics_carries_the_time_zone_prodid_and_readable_summaries(
    request_: SolveRequest,
) -> None:
    calendar = Calendar.from_ical(to_ics(request_, roster()))
    assert [tz["tzid"] for tz in calendar.walk("VTIMEZONE")] == ["Europe/Berlin"]
    assert str(calendar["prodid"]) and str(calendar["version"]) == "2.0"
    summaries = {key_of(e): str(e["summary"]) for e in calendar.walk("VEVENT")}
    assert summaries[("e1", "2026-03-28", "night")] == "Night — Alice"
    assert summaries[("e2", "2026-03-29", "day")] == "Day — Bob (Lead)"
    assert summaries[("e3", "2026-03-27", "oncall")] == "On call — e3"


def test_without_a_time_zone_events_are_in_utc() -> None:
    request = parse_request(request_with())
    night = Assignment(employee_id="e1", date=dt.date(2026, 3, 2), shift_id="night")
    (event,) = events(to_ics(request, [night]))
    assert event.decoded("dtstart") == dt.datetime(2026, 3, 2, 23, tzinfo=dt.UTC)
    assert event.decoded("dtend") == dt.datetime(2026, 3, 3, 7, tzinfo=dt.UTC)


def test_one_employees_calendar(request_: SolveRequest) -> None:
    found = events(to_ics(request_, roster(), employee_id="e1"))
    assert sorted(key_of(e) for e in found) == [
        ("e1", "2026-03-26", "day"),
        ("e1", "2026-03-28", "night"),
    ]
    calendar = Calendar.from_ical(to_ics(request_, roster(), employee_id="e1"))
    assert "Alice" in str(calendar["x-wr-calname"])


def test_uids_are_unique_and_the_same_in_every_export(request_: SolveRequest) -> None:
    first = [str(e["uid"]) for e in events(to_ics(request_, roster(), stamp=STAMP))]
    later = dt.datetime(2026, 5, 1, tzinfo=dt.UTC)
    again = [str(e["uid"]) for e in events(to_ics(request_, roster()[::-1], stamp=later))]
    assert len(set(first)) == len(first)
    assert sorted(first) == sorted(again)


def test_an_unknown_employee_filter_is_a_fault_naming_the_field(
    request_: SolveRequest,
) -> None:
    for write in (to_csv, to_ics, to_xlsx):
        with pytest.raises(InvalidRequest) as caught:
            write(request_, roster(), employee_id="nobody")
        assert [(e.path, e.code) for e in caught.value.errors] == [
            (("employee_id",), "unknown_employee_id")
        ]


# ------------------------------------------------------------------------------ XLSX


def sheet_rows(data: bytes) -> tuple[Any, list[list[str]]]:
    workbook = openpyxl.load_workbook(io.BytesIO(data))
    assert workbook.sheetnames == [SHEET]
    sheet = workbook[SHEET]
    rows = [["" if v is None else str(v) for v in row] for row in sheet.iter_rows(values_only=True)]
    return sheet, rows


def test_xlsx_is_the_employees_by_dates_grid(request_: SolveRequest) -> None:
    sheet, rows = sheet_rows(to_xlsx(request_, roster()))
    dates = [f"2026-03-{d}" for d in range(26, 32)] + ["2026-04-01"]
    assert rows[0] == ["employee_id", "name", *dates]
    assert sheet.freeze_panes == "C2"  # the header row and the two name columns
    grid = {row[0]: dict(zip(dates, row[2:], strict=True)) for row in rows[1:]}
    assert [row[0] for row in rows[1:]] == ["e1", "e2", "e3"]
    assert [row[1] for row in rows[1:]] == ["Alice", "Bob", ""]
    worked = {(e, d): cell for e, cells in grid.items() for d, cell in cells.items() if cell}
    assert worked == {
        ("e1", "2026-03-26"): "day",
        ("e1", "2026-03-28"): "night",
        ("e2", "2026-03-29"): "day/lead",
        ("e2", "2026-03-31"): "night",
        ("e3", "2026-03-27"): "oncall",
    }


def test_xlsx_for_one_employee_has_one_row(request_: SolveRequest) -> None:
    _, rows = sheet_rows(to_xlsx(request_, roster(), employee_id="e2"))
    assert [row[0] for row in rows[1:]] == ["e2"]


# ---------------------------------------------------------------------------- faults


def test_every_unknown_reference_is_a_fault_with_its_path(request_: SolveRequest) -> None:
    bad = [
        *roster(),
        Assignment(employee_id="ghost", date=dt.date(2026, 3, 26), shift_id="late"),
        Assignment(employee_id="e1", date=dt.date(2026, 4, 2), shift_id="day", duty_id="x"),
    ]
    for fmt in FILE_TYPES:
        with pytest.raises(InvalidRequest) as caught:
            export(request_, bad, fmt, at=("solution", "assignments"))
        assert {(e.path, e.code) for e in caught.value.errors} == {
            (("solution", "assignments", 5, "employee_id"), "unknown_employee_id"),
            (("solution", "assignments", 5, "shift_id"), "unknown_shift_id"),
            (("solution", "assignments", 6, "duty_id"), "unknown_duty_id"),
            (("solution", "assignments", 6, "date"), "date_outside_period"),
        }


def test_assignments_path_follows_the_response_shape() -> None:
    assert assignments_path([]) == ()
    assert assignments_path({"assignments": []}) == ("assignments",)
    assert assignments_path({"solution": {"assignments": []}}) == ("solution", "assignments")


def test_file_names_are_safe_in_a_header() -> None:
    assert file_name("roster", "ics") == "roster.ics"
    assert file_name("job", "xlsx", employee_id='a "b"/c') == "job-a__b__c.xlsx"


# ---------------------------------------------------------------------- command line


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, stdin=io.StringIO(stdin), err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    """A request and a SolveResponse-shaped file holding ROSTER."""
    request_path, response_path = tmp_path / "request.json", tmp_path / "response.json"
    request_path.write_text(json.dumps(request_dict()))
    response = {
        "job_id": "j1",
        "status": "completed",
        "solution": {"assignments": ROSTER, "metrics": {"solver_runtime_seconds": 0.1}},
    }
    response_path.write_text(json.dumps(response))
    return str(request_path), str(response_path)


def test_cli_csv_on_stdout(files: tuple[str, str]) -> None:
    code, out, err = run(["export", *files, "--format", "csv"])
    assert code == EXIT_OK, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == len(ROSTER)
    assert "csv" in err


def test_cli_ics_for_one_employee_from_stdin(files: tuple[str, str]) -> None:
    request_path, _ = files
    roster_only = json.dumps({"assignments": ROSTER})
    argv = ["export", request_path, "-", "--format", "ics", "--employee", "e2", "-q"]
    code, out, err = run(argv, stdin=roster_only)
    assert (code, err) == (EXIT_OK, "")
    assert {key_of(e)[0] for e in events(out.encode())} == {"e2"}
    assert len(events(out.encode())) == 2


def test_cli_xlsx_to_a_file(files: tuple[str, str], tmp_path: Path) -> None:
    target = tmp_path / "roster.xlsx"
    code, out, _ = run(["export", *files, "--format", "xlsx", "-o", str(target)])
    assert (code, out) == (EXIT_OK, "")
    _, rows = sheet_rows(target.read_bytes())
    assert len(rows) == 1 + 3


def test_cli_xlsx_needs_a_file_when_stdout_cannot_take_bytes(files: tuple[str, str]) -> None:
    code, out, err = run(["export", *files, "--format", "xlsx"])
    assert (code, out) == (EXIT_INVALID, "")
    assert "-o FILE" in err


@pytest.mark.slow
def test_cli_xlsx_to_a_pipe(files: tuple[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "shiftsched", "export", *files, "--format", "xlsx", "-q"],
        capture_output=True,
        check=False,
        cwd=ROOT,
    )
    assert (done.returncode, done.stderr) == (EXIT_OK, b"")
    _, rows = sheet_rows(done.stdout)
    assert [row[0] for row in rows[1:]] == ["e1", "e2", "e3"]


def test_cli_unknown_references_exit_2_with_their_paths(
    files: tuple[str, str], tmp_path: Path
) -> None:
    request_path, _ = files
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps([*ROSTER, {"employee_id": "e1", "date": "2026-03-30", "shift_id": "x"}])
    )
    code, out, err = run(["export", request_path, str(bad), "--format", "ics"])
    assert (code, out) == (EXIT_INVALID, "")
    assert "[5].shift_id: no shift has id 'x' (the shifts: " in err
    assert err.rstrip().endswith("(unknown_shift_id)")
    code, _, err = run(["export", *files, "--format", "csv", "--employee", "nobody"])
    assert code == EXIT_INVALID
    assert "employee_id: no employee with id 'nobody'" in err
