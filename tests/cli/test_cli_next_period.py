"""``next-period``: the request after a request's, which a plan with its history takes.

The README's tour makes ``next_month.json`` with it and solves it with the roster as
history; here the same steps run on a greedy roster of the ward (February 2027), whose
next period is the whole of March.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import parse_plan
from shiftsched.periods.split import following_days
from shiftsched.solving.greedy import greedy_roster, roster_assignments
from shiftsched.solving.problem import from_request
from tests.cli.test_cli import EXIT_INVALID, EXIT_OK, RETAIL, ROOT, faults, run, run_text, write

WARD = ROOT / "datasets" / "ward_24_7.json"


@pytest.mark.parametrize(
    ("start", "end", "days"),
    [
        ("2027-02-01", "2027-02-28", 31),  # February, then March
        ("2026-11-01", "2026-12-31", 59),  # two months, then January and February
        ("2026-04-27", "2026-05-17", 21),  # three weeks, then three weeks
    ],
)
def test_the_next_period_is_the_next_calendar_months_or_as_many_days(
    start: str, end: str, days: int
) -> None:
    assert following_days(dt.date.fromisoformat(start), dt.date.fromisoformat(end)) == days


def test_next_period_writes_march_after_february_with_the_same_staff() -> None:
    code, answer = run(["next-period", str(WARD)])
    assert code == EXIT_OK
    request, before = parse_request(answer), json.loads(WARD.read_text())
    period = request.schedule_period
    assert (period.start_date, period.end_date) == (dt.date(2027, 3, 1), dt.date(2027, 3, 31))
    assert [e.id for e in request.employees] == [e["id"] for e in before["employees"]]
    assert [s.id for s in request.shifts] == [s["id"] for s in before["shifts"]]


def test_with_a_roster_it_writes_a_plan_body_that_is_valid(tmp_path: Path) -> None:
    request = parse_request(json.loads(WARD.read_text()))
    problem = from_request(request)
    roster = [
        a.model_dump(mode="json", exclude_none=True)
        for a in roster_assignments(problem, greedy_roster(problem))
    ]
    published = write(tmp_path, "roster.json", {"assignments": roster})
    code, body = run(["next-period", str(WARD), "--roster", published])
    assert code == EXIT_OK
    plan = parse_plan(body)  # the roster is a history of the next period
    assert plan.history is not None and len(plan.history.assignments) == len(roster)
    code, _, stderr = run_text(["next-period", str(RETAIL), "--roster", published])
    assert code == EXIT_INVALID
    assert [code for _, code in faults(stderr)] == ["roster_of_another_request"]
