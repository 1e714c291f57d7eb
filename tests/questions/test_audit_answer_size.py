"""An audit's and a comparison's answer grows at most linearly with its input, and is capped.

An employee listed many times on one date is one finding for that cell, however many
times, and each rule reads a cell's assignments once, so duplicates cannot make the
answer grow with their square. Past MAX_LISTED_FINDINGS items a list of the answer is
cut, and its full length given beside it. Sizes here are structural (bytes of JSON,
lengths of lists), never timings.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from shiftsched.checking.audit import LISTED_SHIFTS, ChangeEvaluator, audit
from shiftsched.checking.figures import employee_figures, kpis
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import roster_changes
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.questions import review
from shiftsched.questions.inquiry import (
    MAX_LISTED_FINDINGS,
    AuditTotals,
    CompareResponse,
    CompareTotals,
    parse_audit,
)
from shiftsched.questions.review import audit_roster, compare, explained
from tests.factories import START_DATE, full_request_dict, minimal_request_dict, shift_dict

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


# ------------------------------------------------------------------------------ the cap

HOLIDAY = "2026-03-08"  # full_request_dict's holiday, a Sunday e1 is not available on
#: e1 on the holiday this many times: two findings per assignment (holiday, weekday).
OVER_THE_CAP = MAX_LISTED_FINDINGS // 2 + 1


def on_the_holiday(times: int) -> list[Assignment]:
    return [Assignment.model_validate(cell("day", date=HOLIDAY))] * times


def test_an_audit_past_the_cap_lists_the_first_findings_and_counts_them_all() -> None:
    ask = parse_request(full_request_dict())
    roster = on_the_holiday(OVER_THE_CAP)
    report = audit(ask, roster)
    assert len(report.hard_violations) > 2 * OVER_THE_CAP > MAX_LISTED_FINDINGS
    answer = explained(ask, roster, report)
    assert answer.hard_violations == report.hard_violations[:MAX_LISTED_FINDINGS]
    assert answer.listed_limit == MAX_LISTED_FINDINGS and answer.truncated
    assert answer.totals == AuditTotals(
        hard_violations=len(report.hard_violations),
        soft_constraint_violations=len(report.soft_constraint_violations),
        shortages=len(report.shortages),
    )
    # the price and the KPIs are the whole audit's
    assert answer.objective_value == report.objective_value and not answer.feasible
    assert answer.kpis == kpis(ask, roster, report.shortages, employee_figures(ask, roster))


def test_an_audit_under_the_cap_is_whole_and_says_so() -> None:
    ask = parse_request(full_request_dict())
    answer = explained(ask, on_the_holiday(2), audit(ask, on_the_holiday(2)))
    assert not answer.truncated
    assert answer.totals == AuditTotals(
        hard_violations=len(answer.hard_violations),
        soft_constraint_violations=len(answer.soft_constraint_violations),
        shortages=len(answer.shortages),
    )
    assert answer.model_dump()["totals"]["hard_violations"] == len(answer.hard_violations) > 4


def test_every_list_of_an_audit_is_cut_at_the_cap_in_its_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ask = parse_request(full_request_dict())
    roster = on_the_holiday(3)
    report = audit(ask, roster)
    cap = 2
    monkeypatch.setattr(review, "MAX_LISTED_FINDINGS", cap)
    answer = explained(ask, roster, report)
    assert [v.code for v in answer.hard_violations] == [
        v.code for v in report.hard_violations[:cap]
    ]
    assert [v.name for v in answer.soft_constraint_violations] == [
        v.name for v in report.soft_constraint_violations[:cap]
    ]
    assert [(m.date, m.shift_id) for m in answer.shortages] == [
        (m.date, m.shift_id) for m in report.shortages[:cap]
    ]
    assert (answer.listed_limit, answer.truncated) == (cap, True)
    assert answer.totals.soft_constraint_violations == len(report.soft_constraint_violations)
    assert answer.totals.shortages == len(report.shortages) > cap


def test_a_comparison_past_the_cap_lists_the_first_and_counts_them_all() -> None:
    ask = parse_request(full_request_dict())
    after = on_the_holiday(OVER_THE_CAP)
    whole = audit(ask, after).hard_violations
    answer = compare(ask, [], after)
    # the empty roster already misses its fixed assignment: not added
    [fixed] = audit(ask, []).hard_violations
    whole = [v for v in whole if v != fixed]
    assert answer.hard_violations_added == whole[:MAX_LISTED_FINDINGS]
    assert answer.truncated and answer.listed_limit == MAX_LISTED_FINDINGS
    assert answer.totals.hard_violations_added == len(whole) > MAX_LISTED_FINDINGS
    assert answer.totals.changes == len(answer.changes) == 1  # one cell, listed many times
    assert answer.objective_after == audit(ask, after).objective_value


def test_a_comparison_under_the_cap_is_whole_and_says_so() -> None:
    ask = parse_request(full_request_dict())
    answer = compare(ask, on_the_holiday(1), on_the_holiday(3))
    assert not answer.truncated
    assert answer.totals == CompareTotals(
        changes=len(answer.changes),
        terms=len(answer.terms),
        hard_violations_added=len(answer.hard_violations_added),
        hard_violations_removed=len(answer.hard_violations_removed),
    )


def test_every_list_of_a_comparison_is_cut_at_the_cap_in_its_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ask = parse_request(full_request_dict())
    before = [Assignment.model_validate(cell("night", e, START_DATE)) for e in ("e1", "e2")]
    before += on_the_holiday(3)
    after = [Assignment.model_validate(cell("day", e, "2026-03-03")) for e in ("e1", "e2", "e3")]
    after += [Assignment.model_validate(cell("day", "e2", HOLIDAY))] * 2
    whole = compare(ask, before, after)
    cap = 1
    monkeypatch.setattr(review, "MAX_LISTED_FINDINGS", cap)
    answer = compare(ask, before, after)
    assert answer.changes == whole.changes[:cap] == roster_changes(before, after)[:cap]
    assert answer.terms == whole.terms[:cap]
    assert answer.hard_violations_added == whole.hard_violations_added[:cap]
    assert answer.hard_violations_removed == whole.hard_violations_removed[:cap]
    assert answer.totals == whole.totals
    assert min(answer.totals.model_dump().values()) > cap and answer.truncated
    assert answer.employees == whole.employees  # at most one per employee: never cut


def test_an_answer_read_without_totals_takes_its_lists_as_whole() -> None:
    # An answer written before the cap existed still reads, with honest totals.
    ask = parse_request(full_request_dict())
    answer = compare(ask, [], on_the_holiday(2)).model_dump(mode="json")
    for added in ("listed_limit", "totals", "truncated"):
        del answer[added]
    read = CompareResponse.model_validate(answer)
    assert read.totals.hard_violations_added == len(read.hard_violations_added)
    assert not read.truncated
