"""A job's name says what the call was and what it was about, in words a person knows."""

from __future__ import annotations

from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import parse_plan, parse_recommend, parse_replan
from shiftsched.questions.inquiry import parse_explain, parse_why
from shiftsched.service.http.job_names import job_name
from tests.factories import minimal_request_dict

PERIOD = "2026-03-02 – 2026-03-08"


def test_each_operation_names_its_period_staff_and_subject() -> None:
    data = minimal_request_dict()
    roster = [{"employee_id": "e1", "date": "2026-03-02", "shift_id": "day"}]
    absences = [{"employee_id": who, "dates": ["2026-03-02"]} for who in ("e1", "e2", "e3", "e1")]
    slot = {"date": "2026-03-03", "shift_id": "day", "duty_id": "lead"}
    asked = {"request": data, "roster": roster}
    assert job_name("solve", parse_request(data)) == f"Solve · {PERIOD} · 3 employees"
    assert job_name("plan", parse_plan({"request": data})) == f"Plan · {PERIOD} · 3 employees"
    assert (
        job_name("re-plan", parse_replan({**asked, "absences": absences}))
        == f"Re-plan · {PERIOD} · 3 employees · e1, e2 +1 absent"
    )
    assert (
        job_name("recommendation", parse_recommend({**asked, "slot": slot}))
        == "Recommendation · day (lead) on 2026-03-03 · 3 employees"
    )
    assert (
        job_name("explanation", parse_explain({**asked, "dates": ["2026-03-04"]}))
        == f"Explanation · {PERIOD} · 3 employees · on 2026-03-04"
    )
    off = {**asked, "employee_id": "e1", "date": "2026-03-02"}
    assert job_name("why-not", parse_why(off)) == "Why-not · e1 off on 2026-03-02"
    on = {**off, "shift_id": "night"}
    assert job_name("why-not", parse_why(on)) == "Why-not · e1 on night on 2026-03-02"
