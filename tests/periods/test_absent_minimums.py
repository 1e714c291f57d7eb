"""A re-plan around a sick call prices no monthly minimum the absence makes her miss.

The published roster gives nurse A her monthly minimum; she is then absent a third of
the month. The re-plan (the model) and the comparison of the two rosters (the audit, from
the engine and from the command line) must owe her the minimum of her available dates
only, so no ``days_per_month_min`` term of hers appears anywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import parse_replan
from shiftsched.periods.replan import replan
from shiftsched.questions.inquiry import parse_compare
from shiftsched.questions.review import compare_rosters
from tests.audited import EXACT, solved_and_audited
from tests.cli.test_cli import run
from tests.solving.model.conftest import date, employee, request, shift

START, DAYS = "2027-02-01", 28  # all of February 2027
ABSENT = [date(i, START) for i in range(7, 17)]  # ten dates: 18 of 28 left


def _request() -> dict[str, Any]:
    # One head a day, two nurses who each owe 14 days a month (max 16): A's absence
    # leaves her floor(14 * 18 / 28) = 9 owed, which she works around it.
    nurse = {"working_days_per_month": {"min": 14, "max": 16}}
    return request(
        DAYS,
        [shift("D", DAYS, 1, 1)],
        [employee("A", ["D"], **nurse), employee("B", ["D"], **nurse)],
        start=START,
    )


def _published(data: dict[str, Any]) -> list[dict[str, Any]]:
    solution = solved_and_audited(parse_request(data))
    return [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]


def test_a_replan_and_its_comparison_owe_the_absent_nurse_only_her_available_share(
    tmp_path: Path,
) -> None:
    data = _request()
    roster = _published(data)
    absences = [{"employee_id": "A", "dates": ABSENT}]
    ask = parse_replan({"request": data, "roster": roster, "absences": absences})
    response = replan(ask, EXACT)
    assert response.status == "completed" and response.solution is not None
    solution = response.solution
    names = {v.name for v in solution.metrics.soft_constraint_violations}
    assert not {n for n in names if n.startswith("days_per_month_min:A")}
    report = audit(ask.request, solution.assignments, absences=ask.absences)
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    after = [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]
    worked = sum(1 for a in after if a["employee_id"] == "A")
    assert worked >= 9  # her owed share is met
    body = {"request": data, "before": roster, "after": after, "absences": absences}
    compared = compare_rosters(parse_compare(body))
    assert [t.name for t in compared.terms if t.name.startswith("days_per_month_min:A")] == []
    # Without the absences the audit would price her as short of 14: what the issue saw.
    blind = compare_rosters(parse_compare({**body, "absences": []}))
    assert [t.name for t in blind.terms if t.name.startswith("days_per_month_min:A")] == [
        "days_per_month_min:A:2027-02"
    ]
    files = {"req": data, "before": roster, "after": after}
    for name, value in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(value))
    argv = ["compare", *(str(tmp_path / f"{n}.json") for n in files), "-q"]
    code, answer = run([*argv, "--absent", "A:" + ",".join(ABSENT)])
    assert code == 0
    assert [
        t["name"] for t in answer["terms"] if t["name"].startswith("days_per_month_min:A")
    ] == []
