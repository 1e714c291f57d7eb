"""A shortage's missing heads, each counted: fillable, only movable or unavoidable.

Planted on one Tuesday: ``day`` wants 3 heads and ``night`` 2; e1 and e2 may work either,
e3 only ``night``. A roster with e1 on ``day`` and e2, e3 on ``night`` leaves 2 ``day``
heads missing. Only two employees may work ``day`` at all, so its third head is beyond
any roster (the eligibility of e3 is the cause); its second can be covered only by
taking e2 off ``night``, which then falls short: moved, not filled. With an idle e4 who
may work ``day``, that second head is fillable and its fill lowers the roster's missing
heads. Every count is a small solve ending on its own proof (one worker, a fixed seed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment
from shiftsched.questions.explain import explain_shortages
from shiftsched.questions.explain_words import who_takes
from shiftsched.questions.inquiry import HeadCounts, ShortageExplanation, parse_explain
from tests.audited import work_limited
from tests.factories import employee_dict, minimal_request_dict

Json = dict[str, Any]
TUESDAY = "2026-03-03"


def planted(*, idle_day_worker: bool) -> tuple[Json, list[Json]]:
    """The request described above (with e4 when asked) and its short roster."""
    data = minimal_request_dict()
    day, night = data["shifts"]
    day["staffing_demand"] = [
        {"min": 3, "max": 3} if i == 1 else {"min": 0, "max": 3} for i in range(7)
    ]
    night["staffing_demand"] = [
        {"min": 2, "max": 2} if i == 1 else {"min": 0, "max": 2} for i in range(7)
    ]
    data["employees"][2]["assignable_shift_ids"] = ["night"]
    if idle_day_worker:
        data["employees"].append(employee_dict("e4", assignable_shift_ids=["day"]))
    roster = [
        {"employee_id": "e1", "date": TUESDAY, "shift_id": "day"},
        {"employee_id": "e2", "date": TUESDAY, "shift_id": "night"},
        {"employee_id": "e3", "date": TUESDAY, "shift_id": "night"},
    ]
    return data, roster


def explained_day(data: Json, roster: list[Json]) -> ShortageExplanation:
    ask = parse_explain({"request": data, "roster": roster})
    answer = explain_shortages(ask, work_limited(30.0))
    [explanation] = answer.explanations
    assert (explanation.shortage.shift_id, explanation.shortage.missing) == ("day", 2)
    return explanation


def missing_heads(data: Json, roster: Sequence[Json | Assignment]) -> int:
    cells = [Assignment.model_validate(a) for a in roster]
    return sum(m.missing for m in audit(parse_request(data), cells).shortages)


def test_a_head_beyond_the_eligible_is_unavoidable_and_the_other_only_movable() -> None:
    data, roster = planted(idle_day_worker=False)
    explanation = explained_day(data, roster)
    assert explanation.heads == HeadCounts(missing=2, movable=1, unavoidable=1)
    assert explanation.verdict == "unavoidable", explanation.summary
    # No fill is offered: covering the second head only moves e2 off night.
    assert explanation.roster is None and explanation.filled_by == []
    assert explanation.objective_delta is None and explanation.changes == []
    # The head no roster covers: e3 may not work day (the planted eligibility).
    assert any(
        c.field == "request.employees[2].assignable_shift_ids" for c in explanation.causes
    ), explanation.causes
    assert "only e1, e2 may work it" in explanation.summary
    assert "1 only movable" in explanation.summary and "1 unavoidable" in explanation.summary
    assert explanation.capacity is not None
    assert "3 employees may work" in explanation.capacity
    assert "5 heads (Day 3, Night 2)" in explanation.capacity


def test_an_idle_eligible_employee_makes_a_head_fillable_and_the_fill_lowers_the_total() -> None:
    data, roster = planted(idle_day_worker=True)
    explanation = explained_day(data, roster)
    assert explanation.heads == HeadCounts(missing=2, fillable=1, movable=1)
    assert explanation.verdict == "avoidable", explanation.summary
    assert explanation.roster is not None
    assert audit(parse_request(data), explanation.roster).hard_violations == []
    assert missing_heads(data, explanation.roster) < missing_heads(data, roster)
    assert explanation.filled_by == ["e4"]
    assert "e4 takes it" in explanation.summary
    assert "1 head stays missing there" in explanation.summary
    assert "missing heads fall from 2 to 1" in explanation.summary


def test_a_fill_names_the_heads_of_other_shortages_it_fills_too() -> None:
    """Thursday's day head is missing too, and e4 is idle then: the re-plan prices the
    whole roster, so the Tuesday fill covers Thursday as well, and says so."""
    data, roster = planted(idle_day_worker=True)
    data["shifts"][0]["staffing_demand"][3] = {"min": 1, "max": 3}
    ask = parse_explain({"request": data, "roster": roster})
    answer = explain_shortages(ask, work_limited(30.0))
    [tuesday] = [e for e in answer.explanations if e.shortage.date.isoformat() == TUESDAY]
    assert tuesday.verdict == "avoidable" and tuesday.roster is not None
    before, after = missing_heads(data, roster), missing_heads(data, tuesday.roster)
    assert (before, after) == (3, 1), tuesday.summary
    assert "it also fills 1 head of other shortages (Day 2026-03-05)" in tuesday.summary
    assert "missing heads fall from 3 to 1" in tuesday.summary


def test_who_takes_a_head_agrees_with_its_count() -> None:
    assert who_takes(["e4"]) == "e4 takes it"
    assert who_takes(["nurse-02", "nurse-06"]) == "nurse-02 and nurse-06 take it"
    assert who_takes(["a", "b", "c"]) == "a, b and c take it"
