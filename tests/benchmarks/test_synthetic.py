"""The synthetic request generator: valid, deterministic, every family where promised."""

from __future__ import annotations

import json

import pytest

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size
from shiftsched.contract.v1 import MAX_DUTIES, MAX_EMPLOYEES, MAX_SHIFTS
from shiftsched.data.synthetic import MIXES, synthetic_request
from shiftsched.solving.solve import solve
from tests.audited import work_limited

SHAPES = [
    (1, 1, 0, 1),
    (2, 1, 1, 3),
    (3, 2, 0, 7),
    (12, 3, 0, 28),
    (15, 4, 2, 25),
    (40, 8, 10, 25),
    (MAX_EMPLOYEES, MAX_SHIFTS, MAX_DUTIES, 31),
]


def families(body: dict[str, object]) -> set[str]:
    """The constraint families a request body exercises (non-empty fields)."""
    text = json.loads(json.dumps(body))
    found = {"staffing_demand"}
    if text.get("duties"):
        found.add("duty_demand")
    if text["schedule_period"]["holidays"]:
        found.add("holidays")
    for shift in text["shifts"]:
        if "manager_demand" in shift:
            found.add("manager_demand")
    fields = {
        "fixed_assignments": "fixed_assignments",
        "shift_count_limits": "shift_count_limits",
        "weekly_working_hours_limit": "weekly_hours",
        "working_days_per_week": "days_per_week",
        "working_days_per_month": "days_per_month",
        "available_weekdays": "available_weekdays",
        "preferences": "preferences",
        "skill_levels": "skill_levels",
    }
    for employee in text["employees"]:
        found |= {family for key, family in fields.items() if employee.get(key)}
        if employee.get("is_manager"):
            found.add("managers")
    constraints = text["constraints"]
    for transition in constraints.get("shift_transitions", []):
        found.add(f"transition_{transition['rule']}_{transition['enforcement']}")
    for pairing in constraints.get("employee_pairings", []):
        found.add(f"pairing_{pairing['rule']}")
    for key in ("skill_support", "cross_shift_demands", "fairness_groups"):
        if constraints.get(key):
            found.add(key)
    if "max_consecutive_working_days" in constraints:
        found.add("max_consecutive_days")
    return found


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mix", sorted(MIXES))
def test_every_shape_and_mix_is_a_valid_request_of_that_size(
    shape: tuple[int, int, int, int], mix: str
) -> None:
    body = synthetic_request(*shape, seed=3, mix=mix)
    request = parse_request(body)
    employees, shifts, duties, days = shape
    assert request_size(request) == employees * shifts * max(1, duties) * days


@pytest.mark.parametrize("mix", sorted(MIXES))
def test_same_seed_same_json_other_seed_other_json(mix: str) -> None:
    first = json.dumps(synthetic_request(20, 4, 4, 25, seed=7, mix=mix))
    assert first == json.dumps(synthetic_request(20, 4, 4, 25, seed=7, mix=mix))
    assert first != json.dumps(synthetic_request(20, 4, 4, 25, seed=8, mix=mix))


def test_mix_all_has_every_family() -> None:
    found = families(synthetic_request(40, 8, 10, 25, seed=0, mix="all"))
    assert found >= {
        "staffing_demand",
        "duty_demand",
        "manager_demand",
        "managers",
        "holidays",
        "fixed_assignments",
        "shift_count_limits",
        "weekly_hours",
        "days_per_week",
        "days_per_month",
        "available_weekdays",
        "preferences",
        "skill_levels",
        "transition_forbid_hard",
        "transition_forbid_soft",
        "transition_require_soft",
        "pairing_exclude",
        "pairing_require",
        "skill_support",
        "cross_shift_demands",
        "fairness_groups",
        "max_consecutive_days",
    }


def test_coverage_is_demand_alone_and_mixes_share_their_demand() -> None:
    coverage = synthetic_request(25, 8, 4, 25, seed=1, mix="coverage")
    assert families(coverage) == {"staffing_demand", "duty_demand"}
    for mix in ("workload", "sequences", "fairness"):
        other = synthetic_request(25, 8, 4, 25, seed=1, mix=mix)
        assert [s["staffing_demand"] for s in other["shifts"]] == [
            s["staffing_demand"] for s in coverage["shifts"]
        ]


def test_demand_is_sized_to_capacity() -> None:
    """About four in five of the staff's working days are asked for: rosters can exist."""
    body = synthetic_request(40, 8, 10, 25, seed=0, mix="all")
    asked = sum(r["min"] for s in body["shifts"] for r in s["staffing_demand"])
    staff_days = 40 * 25 * 5 / 7
    assert 0.4 * staff_days < asked < 0.95 * staff_days


@pytest.mark.parametrize(
    "shape",
    [
        (0, 1, 0, 1),
        (MAX_EMPLOYEES + 1, 1, 0, 1),
        (1, 0, 0, 1),
        (1, 1, MAX_DUTIES + 1, 1),
        (1, 1, 0, 0),
    ],
)
def test_shapes_outside_the_contract_are_refused(shape: tuple[int, int, int, int]) -> None:
    with pytest.raises(ValueError):
        synthetic_request(*shape)


def test_unknown_mix_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown mix"):
        synthetic_request(2, 1, 0, 1, mix="everything")


@pytest.mark.slow
def test_a_small_request_of_every_family_has_a_roster_without_hard_violations() -> None:
    request = parse_request(synthetic_request(12, 3, 2, 28, seed=0, mix="all"))
    response = solve(request, work_limited(1.0))  # the same roster however busy the machine
    assert response.solution is not None
    assert audit(request, response.solution.assignments).hard_violations == []
