"""The notebooks offer each solved roster as CSV, iCalendar and XLSX, and the files say
what the roster the notebook shows says."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest
from icalendar import Calendar

from tests.notebooks.test_notebooks import EXPLORE, WORK_LIMIT, run

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


def test_fairness_offers_each_scenarios_roster() -> None:
    defs = run(
        "fairness",
        default_dataset="ward_24_7",
        default_time_limit=30,
        default_sweep_time_limit=30,
        default_work_limit=WORK_LIMIT,
    )
    files = defs["scenario_files"]
    assert list(files) == list(defs["scenario_outcomes"])
    for name, outcome in defs["scenario_outcomes"].items():
        rows = list(csv.DictReader(io.StringIO(files[name]["csv"].decode())))
        assert len(rows) == len(outcome.assignments) > 0
        assert files[name]["xlsx"][:2] == b"PK"  # a zip container
