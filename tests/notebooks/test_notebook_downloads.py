"""The notebooks offer each solved roster as CSV, iCalendar and XLSX, and the files say
what the roster the notebook shows says. (The fairness notebook's files are checked in
test_notebooks.py, on the run that checks its tables, so it runs once.)"""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest
from icalendar import Calendar

from tests.notebooks.test_notebooks import EXPLORE, run

pytestmark = pytest.mark.slow  # runs the notebooks whole


def test_explore_offers_the_shown_roster_as_three_files() -> None:
    defs = run("explore", **EXPLORE)
    files, outcome = defs["roster_files"], defs["outcome"]
    assert set(files) == {"csv", "ics", "xlsx"}
    count = len(outcome.assignments)
    assert count > 0
    rows = list(csv.DictReader(io.StringIO(files["csv"].decode())))
    assert sorted((r["employee_id"], r["date"], r["shift_id"]) for r in rows) == sorted(
        (a.employee_id, a.date.isoformat(), a.shift_id) for a in outcome.assignments
    )
    assert len(list(Calendar.from_ical(files["ics"]).walk("VEVENT"))) == count
    sheet = openpyxl.load_workbook(io.BytesIO(files["xlsx"]))["Roster"]
    cells = [v for row in sheet.iter_rows(min_row=2, min_col=3, values_only=True) for v in row]
    assert sum(v is not None for v in cells) == count
