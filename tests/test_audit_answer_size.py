"""An audit's answer grows at most linearly with the roster it judges.

An employee listed many times on one date is one finding for that cell, however many
times, and each rule reads a cell's assignments once, so duplicates cannot make the
answer grow with their square. Sizes here are structural (bytes of JSON), never timings.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from engine.audit import LISTED_SHIFTS, ChangeEvaluator, audit
from engine.contract import Assignment, SolveRequest
from engine.inquiry import parse_audit
from engine.review import audit_roster
from engine.rules import parse_request
from tests.factories import START_DATE, minimal_request_dict, shift_dict

MONDAY = dt.date.fromisoformat(START_DATE)
#: How much a doubled roster of duplicates may grow its answer: linear, with slack.
LINEAR_SLACK = 2.5


def cell(shift_id: str, employee_id: str = "e1", date: str = START_DATE) -> dict[str, str]:
    return {"employee_id": employee_id, "date": date, "shift_id": shift_id}


def answer_bytes(roster: list[dict[str, Any]], data: dict[str, Any] | None = None) -> int:
    body = {"request": data or minimal_request_dict(), "roster": roster}
    return len(audit_roster(parse_audit(body)).model_dump_json())


def duplicates_of(ask: SolveRequest, roster: list[dict[str, str]]) -> list[Any]:
    report = audit(ask, [Assignment.model_validate(c) for c in roster])
    return [v for v in report.hard_violations if v.code == "one_shift_per_date"]


def test_an_employee_five_times_on_a_date_is_one_finding_that_counts_them() -> None:
    roster = [cell("day"), cell("night"), cell("day"), cell("day"), cell("night")]
    [finding] = duplicates_of(parse_request(minimal_request_dict()), roster)
    assert finding.message == (
        "e1 has 5 assignments on 2026-03-02 (day x3, night x2): at most one shift per date"
    )
    assert (finding.employee_id, finding.date, finding.field) == ("e1", MONDAY, "roster[1]")


def test_the_distinct_shifts_named_are_capped_and_the_rest_counted() -> None:
    data = minimal_request_dict()
    extra = [f"s{i:02d}" for i in range(LISTED_SHIFTS)]  # 2 + 10 shifts: 2 past the cap
    data["shifts"] += [shift_dict(s, "09:00", "17:00") for s in extra]
    for employee in data["employees"]:
        employee["assignable_shift_ids"] += extra
    roster = [cell(s["id"]) for s in data["shifts"]]
    [finding] = duplicates_of(parse_request(data), roster)
    named = ", ".join(["day", "night", *extra[: LISTED_SHIFTS - 2]])
    assert f"({named}, and 2 more)" in finding.message


def test_duplicates_grow_the_answer_linearly() -> None:
    small = answer_bytes([cell("day" if i % 3 else "night") for i in range(1000)])
    large = answer_bytes([cell("day" if i % 3 else "night") for i in range(2000)])
    assert large < LINEAR_SLACK * small


def test_request_items_repeated_on_a_duplicated_cell_are_each_judged() -> None:
    # The cell is read once for all the items that name it; each item still counts.
    data = minimal_request_dict()
    repeat = 3
    data["employees"][0] |= {
        "preferences": [{"type": "day_off", "date": START_DATE}] * repeat,
        "fixed_assignments": [{"date": START_DATE, "shift_id": "night"}] * repeat,
        "shift_count_limits": [{"shift_id": "day", "max": 1}] * repeat,
    }
    data.setdefault("constraints", {})["cross_shift_demands"] = [
        {"date": START_DATE, "shift_ids": ["day", "night"], "min": 5}
    ] * repeat
    report = audit(parse_request(data), [Assignment.model_validate(cell("day"))] * 4)
    found = [v.code for v in report.hard_violations]
    # one cell listed 4 times; night fixed 3 times, not worked; day worked 4 > 1, 3 limits
    assert found == ["one_shift_per_date"] + ["fixed_assignment"] * 3 + ["shift_count_limit"] * 3
    day_off = report.violation(f"preference:day_off:e1:{START_DATE}")
    assert day_off is not None and day_off.violated_by == repeat
    # each cross-shift demand sees the 4 heads: 1 missing each
    assert [m.missing for m in report.shortages if m.kind == "cross_shift"] == [1] * repeat


def test_a_one_cell_edit_of_a_duplicated_cell_clears_its_one_finding() -> None:
    ask = parse_request(minimal_request_dict())
    roster = [Assignment.model_validate(cell(s)) for s in ("day", "night", "day")]
    roster.append(Assignment.model_validate(cell("night", date="2026-03-03")))
    evaluator = ChangeEvaluator(ask, roster)
    # The edit on Tuesday leaves Monday's finding in both rosters: it cancels.
    tuesday = Assignment.model_validate(cell("day", date="2026-03-03"))
    assert evaluator.effect("e1", tuesday.date, tuesday).hard_violations == []
    # Monday down to one shift: the effect is the audits' difference, to the unit.
    only = Assignment.model_validate(cell("day"))
    effect = evaluator.effect("e1", MONDAY, only)
    after = audit(ask, [only, roster[3]])
    assert effect.hard_violations == []
    assert effect.objective_delta == after.objective_value - audit(ask, roster).objective_value
