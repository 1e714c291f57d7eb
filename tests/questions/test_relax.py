"""Relaxing a diagnosed cause gives a request with a roster, checked by the auditor.

Every planted instance of ``datasets/infeasible/`` is diagnosed, its first cause relaxed
with :func:`shiftsched.questions.relax.relax`, and the result solved: the roster must break no hard
rule and be priced exactly as the solver reports.
"""

from __future__ import annotations

import re

import pytest

from shiftsched.contract.v1 import Cause, Diagnosis, SolveRequest
from shiftsched.questions.relax import relax, relax_all
from shiftsched.solving.diagnose import FAMILY_ORDER
from shiftsched.solving.solve import solve
from tests.audited import EXACT, solved_and_audited
from tests.infeasible import Planted, load_planted
from tests.solving.model.conftest import date, employee, parse, request, shift

LIMITS = EXACT  # small instances: solves and diagnoses end on their own, never on the clock
PLANTED = load_planted()


def diagnosed(problem: SolveRequest) -> Diagnosis:
    response = solve(problem, LIMITS)
    assert response.status == "failed"
    assert response.error is not None and response.error.diagnosis is not None
    return response.error.diagnosis


def assert_audited_roster(problem: SolveRequest) -> None:
    solved_and_audited(problem, LIMITS)


def cause(family: str, field: str) -> Cause:
    return Cause(cause_type=family, field=field, message="")


@pytest.mark.parametrize("planted", PLANTED, ids=[p.name for p in PLANTED])
def test_relaxing_the_first_cause_gives_a_roster(planted: Planted) -> None:
    problem = parse(planted.request)
    first = diagnosed(problem).causes[0]
    assert (first.cause_type, first.field) == (planted.family, planted.field)
    assert_audited_roster(relax(problem, first))


def test_every_family_can_be_relaxed() -> None:
    assert {p.family for p in PLANTED} == set(FAMILY_ORDER)


def test_relax_does_not_mutate_its_input() -> None:
    planted = next(p for p in PLANTED if p.family == "fixed_assignment")
    problem = parse(planted.request)
    before = problem.model_dump(mode="json")
    relaxed = relax(problem, cause(planted.family, planted.field))
    assert problem.model_dump(mode="json") == before
    assert len(relaxed.employees[1].fixed_assignments) == 1
    assert len(problem.employees[1].fixed_assignments) == 2


@pytest.mark.parametrize(
    ("family", "field"),
    [
        ("fixed_assignment", "employees[1].fixed_assignments[7]"),  # no such item
        ("fixed_assignment", "employees[9].fixed_assignments[0]"),  # no such employee
        ("fixed_assignment", "employees[1].available_weekdays"),  # path of another family
        ("holiday", "schedule_period.holidays[0]"),  # no holidays
        ("skill_level", "employees[1].skill_levels.K"),  # no such duty level
        ("weekly_hours", "employees[0].weekly_working_hours_limit"),  # no limit
        ("max_consecutive_days", "constraints.max_consecutive_working_days"),  # cannot bind
        ("coverage", "shifts[0].staffing_demand[0]"),  # not a hard family
    ],
)
def test_a_path_that_does_not_resolve_is_refused(family: str, field: str) -> None:
    planted = next(p for p in PLANTED if p.family == "fixed_assignment")
    with pytest.raises(ValueError, match=re.escape(field)):
        relax(parse(planted.request), cause(family, field))


def test_a_rule_that_is_soft_already_is_refused() -> None:
    planted = next(p for p in PLANTED if p.family == "shift_transition")
    problem = relax(parse(planted.request), cause(planted.family, planted.field))
    with pytest.raises(ValueError, match=r"already soft"):
        relax(problem, cause(planted.family, planted.field))


def test_relax_all_reads_every_path_in_the_original_request() -> None:
    # Removing items 0 and 2 must leave item 1, whatever the order of the causes.
    e0 = employee(
        "e0", ["S"], fixed_assignments=[{"date": date(d), "shift_id": "S"} for d in (0, 1, 2)]
    )
    problem = parse(request(3, [shift("S", 3)], [e0], holidays=[date(0), date(1), date(2)]))
    relaxed = relax_all(
        problem,
        [
            cause("fixed_assignment", "employees[0].fixed_assignments[2]"),
            cause("holiday", "schedule_period.holidays[0]"),
            cause("fixed_assignment", "employees[0].fixed_assignments[0]"),
            cause("holiday", "schedule_period.holidays[2]"),
        ],
    )
    assert [f.date.isoformat() for f in relaxed.employees[0].fixed_assignments] == [date(1)]
    assert [h.isoformat() for h in relaxed.schedule_period.holidays] == [date(1)]


def test_relax_all_of_independent_conflicts_gives_a_roster() -> None:
    # e0: at least two A shifts but Mondays only; e1: fixed to shift B it may not take.
    e0 = employee(
        "e0", ["A"], available_weekdays=["mon"], shift_count_limits=[{"shift_id": "A", "min": 2}]
    )
    e1 = employee("e1", ["A"], fixed_assignments=[{"date": date(0), "shift_id": "B"}])
    problem = parse(request(2, [shift("A", 2), shift("B", 2)], [e0, e1]))
    assert_audited_roster(relax_all(problem, diagnosed(problem).causes))


def test_relaxations_change_only_the_named_item() -> None:
    by_family = {p.name: parse(p.request) for p in PLANTED}
    consecutive = relax(
        by_family["max_consecutive_days"],
        cause("max_consecutive_days", "constraints.max_consecutive_working_days"),
    )
    assert consecutive.constraints.max_consecutive_working_days == 4  # the period length
    level = relax(by_family["skill_level"], cause("skill_level", "employees[1].skill_levels.K"))
    assert level.employees[1].skill_levels == {"L": 5}
    month = relax(
        by_family["days_per_month_max"],
        cause("days_per_month_max", "employees[1].working_days_per_month"),
    )
    limit = month.employees[1].working_days_per_month
    assert limit is not None and (limit.min, limit.max) == (0, 3)
    shifts = relax(
        by_family["assignable_shift"],
        cause("assignable_shift", "employees[1].assignable_shift_ids"),
    )
    assert shifts.employees[1].assignable_shift_ids == ["A", "B"]
    assert shifts.employees[0] == by_family["assignable_shift"].employees[0]


def test_under_an_hours_limit_only_shifts_with_hours_become_assignable() -> None:
    problem = parse(
        request(
            2,
            [shift("S", 2), shift("T", 2), shift("U", 2, hours=None)],
            [employee("e0", ["S"], weekly_working_hours_limit={"hours": 40})],
        )
    )
    relaxed = relax(problem, cause("assignable_shift", "employees[0].assignable_shift_ids"))
    assert relaxed.employees[0].assignable_shift_ids == ["S", "T"]
