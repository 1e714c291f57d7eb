"""Infeasibility diagnosis: planted causes are found, named by their JSON path, ranked first.

The planted instances live in ``datasets/infeasible/`` (written by
``datasets/planted.py``, whose docstring explains how each conflict is built so that
the planted item, and no other, ranks first).
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

import pytest

from shiftsched.contract.v1 import Diagnosis, SolveResponse
from shiftsched.solving.diagnose import (
    FAMILY_ORDER,
    DiagnosisLimits,
    diagnose,
    diagnose_with_probes,
)
from shiftsched.solving.solve import SolveLimits, solve
from tests.audited import BACKSTOP_SECONDS
from tests.infeasible import INDEX, INFEASIBLE, Planted, load_planted
from tests.solving.model.conftest import Json, date, employee, parse, request, shift

# The module itself: as an attribute of the package, shiftsched.solving.diagnose is the function.
diagnose_module = importlib.import_module("shiftsched.solving.diagnose")

# The diagnosis has a wall-clock budget and reports what it found when that runs out. The
# instances here are small, so each diagnosis ends on its own long before this budget:
# a busy machine makes it slower, never shorter. One worker and a fixed seed: the probes
# run one after another, and the log is the same on every run.
GENEROUS = DiagnosisLimits(budget_seconds=BACKSTOP_SECONDS, num_workers=1)
LIMITS = SolveLimits(
    time_limit_seconds=BACKSTOP_SECONDS,
    num_workers=1,
    random_seed=0,
    diagnosis_budget_seconds=BACKSTOP_SECONDS,
)


def fix(day: int, shift_id: str = "S", duty_id: str | None = None) -> Json:
    data: Json = {"date": date(day), "shift_id": shift_id}
    if duty_id is not None:
        data["duty_id"] = duty_id
    return data


def bystander(*shift_ids: str) -> Json:
    return employee("e0", shift_ids or ["S"])


# ------------------------------------------------------------------ planted instances

# datasets/planted.py builds them (one per family, with why each is infeasible).
LOADED = load_planted()
PLANTED: dict[str, Planted] = {p.name: p for p in LOADED if p.name == p.family}
ACROSS_COMPONENTS = next(p for p in LOADED if p.name == "holiday_across_components")


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
    assert len(LOADED) == len(PLANTED) + 1  # and the holiday across components


def test_index_lists_every_planted_file() -> None:
    files = sorted(p.name for p in INFEASIBLE.glob("*.json") if p != INDEX)
    assert sorted(p.file for p in LOADED) == files
    assert all(p.summary.endswith(".") for p in LOADED)


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
    planted = PLANTED[family]
    assert planted.family == family
    assert_ranked_first(planted)


def test_shared_holiday_is_ranked_first_across_components() -> None:
    diagnosis = assert_ranked_first(ACROSS_COMPONENTS)
    assert "resolves all 2 conflicts" in diagnosis.causes[0].message


@pytest.mark.parametrize("family", PLANTED)
def test_planted_diagnosis_decides_every_probe(family: str) -> None:
    # No probe ran out of time: the answer is the whole diagnosis, not what a budget left.
    diagnosis, log = diagnose_with_probes(parse(PLANTED[family].request), GENEROUS)
    assert diagnosis.status == "identified"
    assert log and {p.outcome for p in log} <= {"feasible", "infeasible"}


@pytest.mark.parametrize("family", ["shift_transition", "holiday"])
def test_probe_log_shows_the_planted_family_restoring_feasibility(family: str) -> None:
    planted = PLANTED[family]
    diagnosis, log = diagnose_with_probes(parse(planted.request), GENEROUS)
    assert len(log) == diagnosis.probes
    assert diagnosis.causes[0].field == planted.field
    families = {p.family: p for p in log if p.kind == "family"}
    assert families[family].outcome == "feasible"
    assert families[family].relaxed == (family,)
    assert "fixed_assignment" in families  # the family probes cover every family used
    assert log[0].kind == "check"  # each component is checked before it is probed
    assert "infeasible" in {p.outcome for p in log if p.kind == "check"}
    assert {p.kind for p in log} >= {"check", "family", "core", "single_field"}
    assert all(p.seconds >= 0 and p.started >= 0 for p in log)
    assert [p.started for p in log] == sorted(p.started for p in log)
    single = [p for p in log if p.kind == "single_field" and p.relaxed == (planted.field,)]
    assert [p.outcome for p in single] == ["feasible"]


def test_probe_log_of_two_components_names_original_fields() -> None:
    diagnosis, log = diagnose_with_probes(parse(ACROSS_COMPONENTS.request), GENEROUS)
    assert len(log) == diagnosis.probes
    assert [p.kind for p in log].count("check") == 2  # one per component
    # Each probe names the employees of its component: e0 and e1 share no hard rule.
    assert [p.employees for p in log if p.kind == "check"] == [("e0",), ("e1",)]
    assert {p.employees for p in log} == {("e0",), ("e1",)}
    relaxed = {field for p in log if p.kind in ("deletion", "single_field") for field in p.relaxed}
    assert "employees[1].fixed_assignments[0]" in relaxed  # e1's, not component-local [0]


def test_planted_items_of_two_employees_are_both_reported() -> None:
    # e1: fixed to a night it may never work (fixed_assignment); e2: Mondays only, fixed on
    # Tuesday and Wednesday (available_weekday).
    e1 = PLANTED["fixed_assignment"].request["employees"][1]
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
    diagnosis = diagnose(parse(data), GENEROUS)
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


class ProbeClock:
    """The diagnosis's clock, moved on by ``step`` seconds as each probe ends and by
    nothing else: its budget runs out after a set number of probes, however fast or busy
    the machine is."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0
        self._lock = threading.Lock()  # family probes end in threads of their own

    def perf_counter(self) -> float:
        with self._lock:
            return self.now

    def tick(self) -> None:
        with self._lock:
            self.now += self.step


@pytest.fixture
def probe_clock(monkeypatch: pytest.MonkeyPatch) -> ProbeClock:
    clock = ProbeClock(step=1.0)
    monkeypatch.setattr(diagnose_module, "time", clock)
    record = diagnose_module._Prober._record

    def timed_record(self: Any, *args: Any) -> None:
        clock.tick()
        record(self, *args)

    monkeypatch.setattr(diagnose_module._Prober, "_record", timed_record)
    return clock


def test_no_probe_runs_without_a_budget() -> None:
    diagnosis = diagnose(parse(busy_request()), DiagnosisLimits(budget_seconds=0))
    assert (diagnosis.status, diagnosis.causes, diagnosis.probes) == ("no_cause_identified", [], 0)


def test_diagnosis_starts_no_step_once_its_budget_is_spent(probe_clock: ProbeClock) -> None:
    budget = 3.0  # three probes' worth on the probe clock
    diagnosis, log = diagnose_with_probes(parse(busy_request()), DiagnosisLimits(budget, 2))
    assert 1 <= diagnosis.probes == len(log)
    assert probe_clock.now > budget  # the budget did run out
    # Only the family probes, all handed to the pool at once, may start after that.
    late = [p for p in log if p.started >= budget]
    assert late and {p.kind for p in late} == {"family"}
    assert {p.kind for p in log} <= {"check", "family"}  # no conflict search began
