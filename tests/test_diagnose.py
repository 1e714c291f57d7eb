"""Infeasibility diagnosis: planted causes are found, named by their JSON path, ranked first.

Demand minimums never make a request infeasible (a missing head is a shortage), so every
planted conflict pairs a rule that *forces* work (a fixed assignment, a shift count
minimum) with a rule that *forbids* it. The forcing rules rank early in
``FAMILY_ORDER``; for a later family to rank first, its item must be the only one whose
single relaxation restores feasibility. Those instances force the conflict twice (two
fixed assignments, each enough on its own), so dropping one forcing item changes nothing
while dropping the planted item fixes the whole request.

Where one employee is at fault, a bystander ``e0`` comes first, so the paths checked
are ``employees[1]...``, not the trivial index 0; planted items of shared arrays
(holidays, transitions, pairings) are likewise not the first element.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from engine.contract import Diagnosis, SolveResponse
from engine.diagnose import DEFAULT_BUDGET_SECONDS, FAMILY_ORDER, DiagnosisLimits, diagnose
from engine.solve import SolveLimits, solve
from tests.model.conftest import Json, date, employee, parse, request, shift

LIMITS = SolveLimits(time_limit_seconds=5, num_workers=2)
WEEKLY_HOURS = 8  # one 8-hour shift a week


def fix(day: int, shift_id: str = "S", duty_id: str | None = None) -> Json:
    data: Json = {"date": date(day), "shift_id": shift_id}
    if duty_id is not None:
        data["duty_id"] = duty_id
    return data


def bystander(*shift_ids: str) -> Json:
    return employee("e0", shift_ids or ["S"])


@dataclass(frozen=True)
class Planted:
    """A request whose infeasibility is explained first by one item of one family."""

    family: str
    field: str
    mentions: tuple[str, ...]  # employee ids and dates the cause's message must name
    request: Json


# ------------------------------------------------------------------ planted instances


def planted_fixed_assignment() -> Planted:
    # The fixed night shift meets "at most 0 nights": both are single relaxations, the
    # fixed assignment wins the tie by family order.
    e1 = employee(
        "e1",
        ["S", "N"],
        fixed_assignments=[fix(0, "S"), fix(1, "N")],
        shift_count_limits=[{"shift_id": "N", "max": 0}],
    )
    return Planted(
        "fixed_assignment",
        "employees[1].fixed_assignments[1]",
        ("e1", date(1)),
        request(2, [shift("S", 2), shift("N", 2)], [bystander(), e1]),
    )


def planted_shift_count_limit() -> Planted:
    # Two S shifts wanted in two days, but day 1 is a holiday: the holiday is a single relaxation
    # too, and ranks after the limit.
    e1 = employee(
        "e1",
        ["S", "N"],
        shift_count_limits=[{"shift_id": "N", "max": 2}, {"shift_id": "S", "min": 2}],
    )
    return Planted(
        "shift_count_limit",
        "employees[1].shift_count_limits[1]",
        ("e1",),
        request(2, [shift("S", 2), shift("N", 2)], [bystander(), e1], holidays=[date(1)]),
    )


def planted_pairing_exclude() -> Planted:
    # e0 and e1 are both fixed to S on two dates: no single fixed assignment explains.
    both_days = [fix(0), fix(1)]
    employees = [
        employee("e0", ["S"], fixed_assignments=both_days),
        employee("e1", ["S"], fixed_assignments=both_days),
    ]
    pairings = [
        {"employee_ids": ["e0", "e1"], "rule": "require"},
        {"employee_ids": ["e0", "e1"], "rule": "exclude"},
    ]
    return Planted(
        "pairing_exclude",
        "constraints.employee_pairings[1]",
        ("e0", "e1"),
        request(2, [shift("S", 2)], employees, employee_pairings=pairings),
    )


def planted_shift_transition() -> Planted:
    # A then B happens twice (days 0-1 and 2-3).
    e1 = employee(
        "e1", ["A", "B"], fixed_assignments=[fix(0, "A"), fix(1, "B"), fix(2, "A"), fix(3, "B")]
    )
    transitions = [
        {"from_shift_id": "B", "to_shift_id": "B", "rule": "forbid", "enforcement": "hard"},
        {"from_shift_id": "A", "to_shift_id": "B", "rule": "forbid", "enforcement": "hard"},
    ]
    return Planted(
        "shift_transition",
        "constraints.shift_transitions[1]",
        ("e1",),
        request(
            4, [shift("A", 4), shift("B", 4)], [bystander("A"), e1], shift_transitions=transitions
        ),
    )


def planted_max_consecutive_days() -> Planted:
    # Four fixed days in a row under a cap of 1: every fixed day is part of two runs.
    e1 = employee("e1", ["S"], fixed_assignments=[fix(d) for d in range(4)])
    return Planted(
        "max_consecutive_days",
        "constraints.max_consecutive_working_days",
        ("e1",),
        request(4, [shift("S", 4)], [bystander(), e1], max_consecutive_working_days=1),
    )


def planted_days_per_month_max() -> Planted:
    e1 = employee(
        "e1",
        ["S"],
        fixed_assignments=[fix(d) for d in range(3)],
        working_days_per_month={"min": 0, "max": 1},
    )
    return Planted(
        "days_per_month_max",
        "employees[1].working_days_per_month",
        ("e1",),
        request(3, [shift("S", 3)], [bystander(), e1]),
    )


def planted_weekly_hours() -> Planted:
    e1 = employee(
        "e1",
        ["S"],
        fixed_assignments=[fix(d) for d in range(3)],
        weekly_working_hours_limit={"hours": WEEKLY_HOURS, "enforcement": "hard"},
    )
    return Planted(
        "weekly_hours",
        "employees[1].weekly_working_hours_limit",
        ("e1",),
        request(3, [shift("S", 3)], [bystander(), e1]),
    )


def planted_skill_support() -> Planted:
    # A beginner fixed on two dates and no senior anywhere.
    e1 = employee("e1", ["S"], skill_levels={"K": 2}, fixed_assignments=[fix(0), fix(1)])
    duties = [
        {"id": "K", "name": "K", "staffing_demand_by_shift": {"S": [{"min": 0, "max": 9}] * 2}}
    ]
    return Planted(
        "skill_support",
        "constraints.skill_support",
        ("e1",),  # named through the fixed assignment it cannot hold together with
        request(
            2,
            [shift("S", 2)],
            [bystander(), e1],
            duties=duties,
            skill_support={"scope": "shift", "enforcement": "hard"},
        ),
    )


def planted_available_weekday() -> Planted:
    # The period starts on a Monday; e1 works Mondays only but is fixed Tuesday and Wednesday.
    e1 = employee("e1", ["S"], available_weekdays=["mon"], fixed_assignments=[fix(1), fix(2)])
    return Planted(
        "available_weekday",
        "employees[1].available_weekdays",
        ("e1",),
        request(3, [shift("S", 3)], [bystander(), e1]),
    )


def planted_assignable_shift() -> Planted:
    e1 = employee("e1", ["A"], fixed_assignments=[fix(0, "B"), fix(1, "B")])
    return Planted(
        "assignable_shift",
        "employees[1].assignable_shift_ids",
        ("e1",),
        request(2, [shift("A", 2), shift("B", 2)], [bystander("A"), e1]),
    )


def planted_skill_level() -> Planted:
    e1 = employee(
        "e1",
        ["S"],
        skill_levels={"L": 5, "K": 0},
        fixed_assignments=[fix(0, "S", "K"), fix(1, "S", "K")],
    )
    open_ = {"S": [{"min": 0, "max": 9}] * 2}
    duties = [
        {"id": "L", "name": "L", "staffing_demand_by_shift": open_},
        {"id": "K", "name": "K", "staffing_demand_by_shift": open_},
    ]
    return Planted(
        "skill_level",
        "employees[1].skill_levels.K",
        ("e1", "K"),
        request(2, [shift("S", 2)], [bystander(), e1], duties=duties),
    )


def planted_holiday() -> Planted:
    # Holiday is last in the family order, so it must be the only single relaxation: two
    # employees are fixed on it, and neither fixed assignment alone explains. Diagnosis
    # works per component of employees tied by exclude pairings; the harmless pairing
    # (their fixed shifts differ) keeps both in one component, see the next instance.
    employees = [
        employee("e0", ["S", "N"], fixed_assignments=[fix(0, "S")]),
        employee("e1", ["S", "N"], fixed_assignments=[fix(0, "N")]),
    ]
    return Planted(
        "holiday",
        "schedule_period.holidays[1]",
        (date(0),),
        request(
            2,
            [shift("S", 2), shift("N", 2)],
            employees,
            holidays=[date(1), date(0)],
            employee_pairings=[{"employee_ids": ["e0", "e1"], "rule": "exclude"}],
        ),
    )


def planted_holiday_across_components() -> Planted:
    # The same conflict for two unrelated employees: removing the holiday alone makes
    # the request feasible, fixing either employee alone does not.
    employees = [employee(e, ["S"], fixed_assignments=[fix(0)]) for e in ("e0", "e1")]
    return Planted(
        "holiday",
        "schedule_period.holidays[1]",
        (date(0),),
        request(2, [shift("S", 2)], employees, holidays=[date(1), date(0)]),
    )


PLANTED: dict[str, Callable[[], Planted]] = {
    "fixed_assignment": planted_fixed_assignment,
    "shift_count_limit": planted_shift_count_limit,
    "pairing_exclude": planted_pairing_exclude,
    "shift_transition": planted_shift_transition,
    "max_consecutive_days": planted_max_consecutive_days,
    "days_per_month_max": planted_days_per_month_max,
    "weekly_hours": planted_weekly_hours,
    "skill_support": planted_skill_support,
    "available_weekday": planted_available_weekday,
    "assignable_shift": planted_assignable_shift,
    "skill_level": planted_skill_level,
    "holiday": planted_holiday,
}


def diagnosis_of(response: SolveResponse) -> Diagnosis:
    assert response.status == "failed"
    assert response.error is not None
    assert response.error.code == "no_solution"
    assert response.error.solver_status == "INFEASIBLE"
    assert response.error.diagnosis is not None
    return response.error.diagnosis


# ------------------------------------------------------------------------------ tests


def test_every_hard_family_has_a_planted_instance() -> None:
    assert tuple(PLANTED) == FAMILY_ORDER


def assert_ranked_first(planted: Planted) -> Diagnosis:
    diagnosis = diagnosis_of(solve(parse(planted.request), LIMITS))
    assert diagnosis.status == "identified", diagnosis
    first = diagnosis.causes[0]
    assert (first.cause_type, first.field) == (planted.family, planted.field), diagnosis
    for word in planted.mentions:
        assert word in first.message, first.message
    assert diagnosis.probes > 0
    return diagnosis


@pytest.mark.parametrize("family", PLANTED)
def test_planted_cause_is_ranked_first(family: str) -> None:
    planted = PLANTED[family]()
    assert planted.family == family
    assert_ranked_first(planted)


def test_shared_holiday_is_ranked_first_across_components() -> None:
    diagnosis = assert_ranked_first(planted_holiday_across_components())
    assert "resolves all 2 conflicts" in diagnosis.causes[0].message


@pytest.mark.parametrize("family", PLANTED)
def test_planted_diagnosis_finishes_within_the_default_budget(family: str) -> None:
    problem = parse(PLANTED[family]().request)
    started = time.perf_counter()
    diagnosis = diagnose(problem)
    elapsed = time.perf_counter() - started
    assert diagnosis.status == "identified"
    assert elapsed < DEFAULT_BUDGET_SECONDS + 2


def test_planted_items_of_two_employees_are_both_reported() -> None:
    # e1: fixed to a night it may never work (fixed_assignment); e2: Mondays only, fixed on
    # Tuesday and Wednesday (available_weekday).
    e1 = planted_fixed_assignment().request["employees"][1]
    e2 = employee("e2", ["S"], available_weekdays=["mon"], fixed_assignments=[fix(1), fix(2)])
    data = request(3, [shift("S", 3), shift("N", 3)], [bystander(), e1, e2])
    diagnosis = diagnosis_of(solve(parse(data), LIMITS))
    assert diagnosis.status == "identified"
    fields = {c.field for c in diagnosis.causes}
    assert {"employees[1].fixed_assignments[1]", "employees[2].available_weekdays"} <= fields, (
        diagnosis
    )
    assert all("one of 2 independent conflicts" in c.message for c in diagnosis.causes)


def test_causes_are_identified_when_no_single_family_explains() -> None:
    # e0: at least two A shifts but Mondays only (a 2-day period has one Monday).
    # e1: fixed to shift B, which it may not take. Relaxing any one family leaves the
    # other conflict, so there is no cause family and no single relaxation.
    e0 = employee(
        "e0", ["A"], available_weekdays=["mon"], shift_count_limits=[{"shift_id": "A", "min": 2}]
    )
    e1 = employee("e1", ["A"], fixed_assignments=[fix(0, "B")])
    data = request(2, [shift("A", 2), shift("B", 2)], [e0, e1])
    diagnosis = diagnosis_of(solve(parse(data), LIMITS))
    assert diagnosis.status == "identified"
    assert {c.field for c in diagnosis.causes} == {
        "employees[0].shift_count_limits[0]",
        "employees[0].available_weekdays",
        "employees[1].fixed_assignments[0]",
        "employees[1].assignable_shift_ids",
    }, diagnosis


def test_feasible_request_has_no_diagnosis() -> None:
    data = request(3, [shift("S", 3, 1, 1)], [employee("e0", ["S"]), employee("e1", ["S"])])
    response = solve(parse(data), LIMITS)
    assert response.status == "completed"
    assert response.error is None


def test_diagnose_finds_no_cause_in_a_feasible_request() -> None:
    data = request(
        3,
        [shift("S", 3, 1, 1)],
        [employee("e0", ["S"], fixed_assignments=[fix(0)]), employee("e1", ["S"])],
        max_consecutive_working_days=2,
    )
    diagnosis = diagnose(parse(data))
    assert diagnosis.status == "no_cause_identified"
    assert diagnosis.causes == []


def test_conflict_of_two_items_reports_both() -> None:
    # Mondays only, yet at least two S shifts in one week: neither item is wrong alone.
    e1 = employee(
        "e1", ["S"], available_weekdays=["mon"], shift_count_limits=[{"shift_id": "S", "min": 2}]
    )
    data = request(7, [shift("S", 7)], [bystander(), e1])
    diagnosis = diagnosis_of(solve(parse(data), LIMITS))
    assert diagnosis.status == "identified"
    assert {c.field for c in diagnosis.causes} == {
        "employees[1].available_weekdays",
        "employees[1].shift_count_limits[0]",
    }, diagnosis
    assert all("It cannot hold together with" in c.message for c in diagnosis.causes)


def busy_request(employees: int = 50, days: int = 28) -> Json:
    """A request large enough that the budget, not the search, ends the diagnosis.

    Hard skill support ties everyone into one component; every fifth employee is fixed
    to 11 to 14 nights, far beyond a night limit of 6 to 8.
    """
    three = (("D", ("08:00", "16:00")), ("E", ("14:00", "22:00")), ("N", ("22:00", "06:00")))
    shifts = [shift(s, days, 3, 6, hours=h) for s, h in three]
    duties = [
        {"id": "K", "name": "K", "staffing_demand_by_shift": {"D": [{"min": 1, "max": 3}] * days}}
    ]
    staff = [
        employee(
            f"e{i}",
            ["D", "E", "N"],
            skill_levels={"K": 8 if i % 3 == 0 else 2},
            working_days_per_month={"min": 10, "max": 18},
            weekly_working_hours_limit={"hours": 40, "enforcement": "hard"},
            shift_count_limits=[{"shift_id": "N", "max": 6 + i % 3}],
            fixed_assignments=[fix(d, "N") for d in range(i % 7, days, 2)] if i % 5 == 0 else [],
        )
        for i in range(employees)
    ]
    return request(
        days,
        shifts,
        staff,
        duties=duties,
        shift_transitions=[
            {"from_shift_id": "N", "to_shift_id": "D", "rule": "forbid", "enforcement": "hard"}
        ],
        max_consecutive_working_days=5,
        skill_support={"scope": "duty", "enforcement": "hard"},
        employee_pairings=[
            {"employee_ids": [f"e{i}", f"e{i + 1}"], "rule": "exclude"}
            for i in range(0, employees, 4)
        ],
    )


def test_diagnosis_respects_its_budget() -> None:
    problem = parse(busy_request())
    budget = 2.0
    started = time.perf_counter()
    diagnosis = diagnose(problem, DiagnosisLimits(budget_seconds=budget))
    elapsed = time.perf_counter() - started
    assert elapsed < budget + 1
    assert diagnosis.probes >= 1
