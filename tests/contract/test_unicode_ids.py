"""Ids are compared in Unicode normalisation form C (docs/semantics.md, ids).

"Zoé" typed on one keyboard is ``Zo`` + U+00E9, on another ``Zoe`` + U+0301; both look
the same and must be the same id: two employees so named are a duplicate, and a
reference written one way finds the item written the other way.
"""

from __future__ import annotations

import unicodedata

from shiftsched.contract.parse import parse_request
from shiftsched.solving.solve import SolveLimits, solve
from tests.factories import employee_dict, faults, minimal_request_dict

COMPOSED = "Zo\u00e9"  # é as one code point (NFC)
DECOMPOSED = "Zoe\u0301"  # e followed by a combining acute accent (NFD)


def test_the_two_spellings_differ_as_strings_but_not_once_normalised() -> None:
    assert COMPOSED != DECOMPOSED
    assert unicodedata.normalize("NFC", DECOMPOSED) == COMPOSED


def test_employees_whose_ids_differ_only_in_normalisation_are_duplicates() -> None:
    data = minimal_request_dict()
    data["employees"] += [employee_dict(COMPOSED), employee_dict(DECOMPOSED)]
    assert (("employees", 4, "id"), "duplicate_id") in faults(data)


def test_shifts_whose_ids_differ_only_in_normalisation_are_duplicates() -> None:
    data = minimal_request_dict()
    data["shifts"][0]["id"] = COMPOSED
    data["shifts"][1]["id"] = DECOMPOSED
    for employee in data["employees"]:
        employee["assignable_shift_ids"] = [COMPOSED]
    data["duties"] = []
    assert (("shifts", 1, "id"), "duplicate_id") in faults(data)


def test_a_reference_in_the_other_spelling_resolves() -> None:
    data = minimal_request_dict()
    data["shifts"][0]["id"] = COMPOSED
    data["duties"][0]["staffing_demand_by_shift"] = {
        DECOMPOSED: data["duties"][0]["staffing_demand_by_shift"]["day"]
    }
    for employee in data["employees"]:
        employee["assignable_shift_ids"] = [DECOMPOSED, "night"]
    data["employees"][0]["fixed_assignments"] = [{"date": "2026-03-02", "shift_id": DECOMPOSED}]
    data["employees"][0]["skill_levels"] = {"lead": 3}
    assert faults(data) == set()
    request = parse_request(data)
    assert request.employees[0].assignable_shift_ids[0] == COMPOSED
    assert list(request.duties[0].staffing_demand_by_shift) == [COMPOSED]
    limits = SolveLimits(time_limit_seconds=60, num_workers=1, diagnosis_budget_seconds=0)
    response = solve(request, limits)
    assert response.status == "completed" and response.solution is not None
    first_day = {
        a.employee_id: a.shift_id for a in response.solution.assignments if a.date.day == 2
    }
    assert first_day["e1"] == COMPOSED  # the fixed assignment, named in the other spelling


def test_a_map_naming_one_id_in_both_spellings_is_a_fault_not_a_silent_merge() -> None:
    data = minimal_request_dict()
    data["shifts"][0]["id"] = COMPOSED
    ranges = data["duties"][0]["staffing_demand_by_shift"].pop("day")
    data["duties"][0]["staffing_demand_by_shift"] = {COMPOSED: ranges, DECOMPOSED: ranges}
    for employee in data["employees"]:
        employee["assignable_shift_ids"] = [COMPOSED, "night"]
    assert faults(data) == {(("duties", 0, "staffing_demand_by_shift"), "invalid_format")}
    data = minimal_request_dict()
    data["employees"][0]["skill_levels"] = {COMPOSED: 1, DECOMPOSED: 2}
    assert faults(data) == {(("employees", 0, "skill_levels"), "invalid_format")}
