"""Every figure the explorer shows is the audit's: the sick call's re-plan line and its
candidates' deltas against the published roster, an uploaded roster, the first cause of
a request with no roster, a cell picked on the roster, and the soft terms in words.

The notebook runs in-process (``app.run(defs=...)``) on the settings of
tests/notebooks/test_notebooks.py: one worker, a fixed seed and a work limit, the
default dataset proven optimal, so a second run shows the first run's roster.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from shiftsched.checking.audit import audit
from shiftsched.checking.items import term_field, term_words
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment
from shiftsched.questions.edit import reassign
from shiftsched.solving.solve import to_response
from tests.notebooks.test_notebooks import EXPLORE, ROOT, infeasible, load, upload_of

pytestmark = pytest.mark.slow  # runs the notebook whole

NOBODY = "(nobody)"


def picks(
    edit: tuple[str, str] | None = None, sick: tuple[str, str] | None = None
) -> dict[str, Any]:
    """The cells handed down by a click on the roster (*Edit this cell*, *Mark sick*)."""
    return {
        "get_edit_pick": lambda: edit,
        "set_edit_pick": lambda _: None,
        "get_sick_pick": lambda: sick,
        "set_sick_pick": lambda _: None,
    }


def run_shown(**overrides: Any) -> tuple[str, Mapping[str, Any]]:
    """The explorer run with ``overrides``: the text it shows (markdown and callouts, tags
    removed) and its definitions."""
    outputs, defs = load("explore").app.run(defs={**EXPLORE, **overrides})
    return shown_text(outputs), defs


ATTRIBUTE = re.compile(r"data-[a-z-]+='([^']*)'")


def shown_text(outputs: Sequence[Any]) -> str:
    raw = " ".join(getattr(output, "text", "") for output in outputs if output is not None)
    words = re.sub(r"\s+", " ", flattened(raw))
    return re.sub(r"\(\s", "(", re.sub(r"\s([),;.:])", r"\1", words))


def flattened(fragment: str) -> str:
    """The words of an HTML fragment, with those a marimo element keeps as JSON in its
    attributes (a callout's body, a control's label) after them."""
    nested = []
    for value in ATTRIBUTE.findall(fragment):
        try:
            decoded = json.loads(html.unescape(value))
        except json.JSONDecodeError:
            continue  # not an element's JSON: no words of its own
        if isinstance(decoded, str):
            nested.append(flattened(decoded))
    return " ".join([html.unescape(re.sub(r"<[^>]+>", " ", fragment)), *nested])


@pytest.fixture(scope="module")
def untouched() -> tuple[str, Mapping[str, Any]]:
    """The explorer as it opens: nobody picked, moved or sick (one run for the module)."""
    return run_shown(**picks())


def published_cell(roster: list[Assignment], employee_id: str) -> Assignment:
    return next(a for a in roster if a.employee_id == employee_id)


def test_a_sick_call_is_priced_against_the_published_roster(
    untouched: tuple[str, Mapping[str, Any]],
) -> None:
    """store-03 sick on a date they work (retail_weekdays, the issue's case): the re-plan
    line reads the audit of the published and the re-planned roster, and each
    candidate's delta is the audit of the published roster with the candidate in the
    slot minus the audit of the published roster."""
    first_text, first = untouched
    roster, variant = first["roster"], first["variant"]
    cell = published_cell(roster, "store-03")
    text, defs = run_shown(**picks(sick=("store-03", cell.date.isoformat())))
    assert defs["roster"] == roster  # one worker, a fixed seed: the same roster
    assert defs["sick_employee"].value == "store-03"  # the click filled the controls in
    absent = [defs["absence"]]  # the sick call lowers store-03's day minimums
    published = audit(variant, roster, absences=absent).objective_value
    replanned = audit(
        variant, defs["replanned"].solution.assignments, absences=absent
    ).objective_value
    assert defs["published_report"].objective_value == published
    assert defs["replan_report"].objective_value == replanned
    assert f"the re-planned one: {published:,.0f} → {replanned:,.0f}" in text
    assert defs["left_slot"] == cell
    hole = reassign(roster, "store-03", cell.date, None)
    fills = defs["recommendations"].recommendations
    assert fills and "store-03" not in {f.employee_id for f in fills}
    for fill in fills:
        filled = reassign(hole, fill.employee_id, cell.date, cell.shift_id, cell.duty_id)
        filled_value = audit(variant, filled, absences=absent).objective_value
        assert fill.objective_delta == filled_value - published
    table = defs["recommendations_table"]
    assert table["objective_delta"].to_list() == [f.objective_delta for f in fills]
    assert "Pick a sick employee" in first_text


def test_a_sick_mark_on_a_fixed_assignment_says_why_and_what_each_fill_breaks(
    untouched: tuple[str, Mapping[str, Any]],
) -> None:
    """store-03 fixed to the opening shift they work: no re-plan keeps every hard rule
    with them off. The callout names the diagnosis' first cause with its JSON path, and
    every candidate says that their roster breaks the fixed assignment."""
    cell = published_cell(untouched[1]["roster"], "store-03")
    data = json.loads((ROOT / "datasets" / "retail_weekdays.json").read_bytes())
    store_03 = next(e for e in data["employees"] if e["id"] == "store-03")
    store_03["fixed_assignments"] = [{"date": cell.date.isoformat(), "shift_id": cell.shift_id}]
    fixed = {"request": parse_request(data), "source": "fixed"}
    text, defs = run_shown(**fixed, **picks(sick=("store-03", cell.date.isoformat())))
    assert defs["replanned"].solution is None and "replan_view" not in defs
    cause = defs["replanned"].error.diagnosis.causes[0]
    assert f"The first cause: {cause.message} ({cause.field})" in text
    assert "so none of these fills can stand without breaking one" in text
    fixed_field = f"request.employees[{data['employees'].index(store_03)}].fixed_assignments[0]"
    for fill in defs["recommendations"].recommendations:
        assert not fill.feasible
        assert fixed_field in {v.field for v in fill.hard_violations}
    assert all(
        fixed_field in broken for broken in defs["recommendations_table"]["hard_rules_broken"]
    )


def test_a_sick_mark_on_a_day_off_says_there_is_nothing_to_replan(
    untouched: tuple[str, Mapping[str, Any]],
) -> None:
    roster, variant = untouched[1]["roster"], untouched[1]["variant"]
    worked = {(a.employee_id, a.date) for a in roster}
    start = variant.schedule_period.start_date
    off_on = next(
        (e.id, start.fromordinal(start.toordinal() + d))
        for d in range(7)
        for e in variant.employees
        if (e.id, start.fromordinal(start.toordinal() + d)) not in worked
    )
    text, defs = run_shown(**picks(sick=(off_on[0], off_on[1].isoformat())))
    assert defs["absence"] is not None and defs["sick_left"] == []
    assert defs["replanned"] is None
    for name in ("replan_view", "changes_table", "recommendations"):
        assert name not in defs, name
    said = (
        f"{off_on[0]} does not work on {off_on[1].isoformat()} in this roster: nothing to re-plan"
    )
    assert said in text
    assert "changed assignment(s)" not in text


@pytest.mark.parametrize("shape", ["response", "assignments", "list"])
def test_an_uploaded_roster_is_shown_audited_like_a_solved_one(
    shape: str, untouched: tuple[str, Mapping[str, Any]]
) -> None:
    """A SolveResponse (as the command line and the service answer), its assignments or
    a bare list: the roster is read, fits the chosen request, and every table and chart
    shows it with the audit's figures, without a solve."""
    solved = untouched[1]
    outcome, variant = solved["outcome"], solved["variant"]
    response = to_response(outcome, "published").model_dump(mode="json")
    assignments = response["solution"]["assignments"]
    body = {"response": response, "assignments": {"assignments": assignments}}.get(
        shape, assignments
    )
    text, defs = run_shown(upload=upload_of(body, "published.json"), **picks())
    assert defs["outcome"] is None and defs["upload_fit_faults"] == []
    assert defs["roster"] == outcome.assignments
    report = audit(variant, outcome.assignments)
    assert defs["report"] == report
    assert "published.json, a roster of retail_weekdays read from the file" in text
    assert f"objective {report.objective_value:,.0f} by the independent audit" in text
    assert defs["assignments"].height == len(outcome.assignments)
    assert defs["violations"].height == len(report.soft_constraint_violations)
    assert defs["progress_view"] is None and defs["roster_files"]["csv"]
    assert defs["edit_employee"].value == NOBODY  # the sections below work on it too


def test_a_roster_of_another_request_is_one_fault_and_the_request_is_solved() -> None:
    ward = run_shown(default_dataset="ward_24_7", default_work_limit=0.2, **picks())[1]
    body = to_response(ward["outcome"], "ward").model_dump(mode="json")
    text, defs = run_shown(upload=upload_of(body, "ward.json"), **picks())
    assert len(defs["upload_fit_faults"]) == 1
    assert "ward.json is not a roster of this request, so the request is solved" in text
    assert defs["outcome"] is not None and defs["outcome"].has_solution
    assert defs["roster"] == defs["outcome"].assignments


def test_an_uploaded_request_joins_the_dataset_list_and_is_chosen() -> None:
    data = json.loads((ROOT / "datasets" / "retail_weekdays.json").read_bytes())
    data["employees"] = data["employees"][:-1]
    text, defs = run_shown(upload=upload_of(data, "mine.json"), **picks())
    assert defs["dataset"].value == "mine.json" and defs["source"] == "mine.json"
    assert {"retail_weekdays", "ward_24_7", "mine.json"} <= set(defs["dataset"].options)
    assert len(defs["request"].employees) == len(data["employees"])
    assert "Using the uploaded request mine.json; choose a dataset to leave it" in text


def test_no_roster_names_the_first_cause() -> None:
    text, defs = run_shown(request=infeasible("retail_weekdays"), source="broken", **picks())
    assert "report" not in defs and "roster_view" not in defs
    assert "The hard rules admit no roster" in text
    assert re.search(r"First cause: store-01 is fixed .*\(employees\[0\]\.fixed_assignments", text)


def test_a_picked_cell_fills_in_the_hand_edit_with_what_it_holds(
    untouched: tuple[str, Mapping[str, Any]],
) -> None:
    first = untouched[1]
    cell = first["roster"][0]
    spec = first["roster_view"].to_dict()
    assert [p["name"] for p in spec["params"]] == ["cell"]  # a click picks one cell
    text, defs = run_shown(**picks(edit=(cell.employee_id, cell.date.isoformat())))
    assert defs["edit_employee"].value == cell.employee_id
    assert defs["edit_date"].value == cell.date.isoformat()
    assert defs["edit_shift"].value == cell.shift_id
    assert defs["edited"] is None and "verdict" not in defs  # nothing moved yet
    assert f"Nothing moves yet: that is what {cell.employee_id} works on" in text


def test_soft_terms_read_in_words_with_their_input_items(
    untouched: tuple[str, Mapping[str, Any]],
) -> None:
    text, defs = untouched
    variant, violations = defs["variant"], defs["violations"]
    report = defs["report"]
    assert violations["what"].to_list() == [
        term_words(variant, v.name, v.violated_by) for v in report.soft_constraint_violations
    ]
    assert violations["field"].to_list() == [
        term_field(variant, v.name) for v in report.soft_constraint_violations
    ]
    # The time to the first roster counts from the solve's start: the build is in it.
    first = defs["outcome"].solver.time_to_first_solution_seconds
    assert 0 < first <= defs["outcome"].runtime_seconds
    assert f"the first roster came {first:.2f} s after the solve was asked for" in text
