"""The abuse probe's bodies and verdicts, without a service.

Each body must land just under the 1 MB cap and mean what its probe says (a period too
long, the largest valid audit, one cell listed many times, dates before the contract's
first); the storm's status rule and the answers' readers are checked on hand-made calls.
"""

from __future__ import annotations

import json

import pytest

from benchmarks.abuse import (
    BODY_BYTES,
    CEILING_DAYS,
    RETAIL,
    Call,
    duplicates_body,
    edge_bodies,
    fitted,
    largest_body,
    long_period_body,
    storm_allowed,
    storm_label,
)
from shiftsched.errors import InvalidRequest
from shiftsched.questions.inquiry import parse_audit
from shiftsched.questions.review import audit_roster
from shiftsched.service.http.gate import MAX_BODY_BYTES


def test_fitted_takes_what_fits_and_no_more() -> None:
    body, taken = fitted(b"[", [b"11", b"22", b"33"], b"]", 8)
    assert (body, taken) == (b"[11,22]", 2)
    assert fitted(b"[", [b"11"], b"]", 3) == (b"[]", 0)


def test_the_long_period_is_refused_from_its_dates() -> None:
    body, days = long_period_body()
    assert BODY_BYTES - 100 < len(body) <= BODY_BYTES < MAX_BODY_BYTES
    assert days > 50_000
    with pytest.raises(InvalidRequest) as refused:
        parse_audit(json.loads(body))
    assert [f.code for f in refused.value.errors] == ["out_of_range"]


def test_the_largest_audit_is_valid_and_full_of_findings() -> None:
    body, cells = largest_body()
    assert BODY_BYTES - 100 < len(body) <= BODY_BYTES
    ask = parse_audit(json.loads(body))
    days = (ask.request.schedule_period.end_date - ask.request.schedule_period.start_date).days
    assert days + 1 == CEILING_DAYS and len(ask.request.shifts) == 12
    assert len(ask.roster) == cells > 15_000


def test_one_cell_listed_many_times_is_one_finding() -> None:
    body, copies, cell = duplicates_body(json.loads(RETAIL.read_text(encoding="utf-8")))
    assert BODY_BYTES - 100 < len(body) <= BODY_BYTES and copies > 10_000
    report = audit_roster(parse_audit(json.loads(body)))
    found = [v for v in report.hard_violations if v.code == "one_shift_per_date"]
    assert len(found) == 1 and found[0].employee_id == cell["employee_id"]


def test_every_edge_body_is_refused_with_a_path() -> None:
    for path, _, body in edge_bodies():
        if path == "/solve/audit":
            with pytest.raises(InvalidRequest) as refused:
                parse_audit(body)
            assert refused.value.errors[0].path[:2] == ("request", "schedule_period")


def test_storm_statuses() -> None:
    limited = Call(429, 0.01, [("Retry-After", "1")])
    bare = Call(503, 0.01)
    assert storm_allowed(Call(200, 1.0)) and storm_allowed(limited)
    assert not storm_allowed(bare) and not storm_allowed(Call(500, 1.0))
    assert not storm_allowed(Call(None, 60.0, error="ReadTimeout"))
    assert storm_label(bare) == "503 without Retry-After"
    assert storm_label(Call(500, 1.0)) == "other (500)"


def test_a_problem_is_read_from_its_body() -> None:
    problem = {
        "type": "http://127.0.0.1:1/v1/public/errors/validation-error",
        "errors": [{"path": ["request"], "code": "out_of_range"}],
    }
    call = Call(
        422, 0.01, [("content-type", "application/problem+json")], json.dumps(problem).encode()
    )
    assert call.slug() == "validation-error"
    assert call.errors()[0]["code"] == "out_of_range"
    assert call.header("Content-Type") == "application/problem+json"
    assert Call(None, 1.0).slug() is None and Call(None, 1.0).errors() == []
