"""How the notebooks solve (shiftsched.present.notebook_limits): two workers for a person, or the
same rosters on every run with ``--work-limit``; and never ended by a limit before a first
roster exists."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

import shiftsched.present.notebook_limits
from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.present.notebook_limits import (
    BACKSTOP_SECONDS,
    FIRST_ROSTER_CAP_SECONDS,
    LONGER,
    WORK,
    ended_without_roster,
    longer,
    notebook_limits,
    notebook_solve,
    notebook_workers,
    tried_seconds,
    until_first_roster,
)
from shiftsched.solving.problem import Problem, from_request
from shiftsched.solving.solve import SolveLimits, SolveOutcome, solve, solve_problem


def test_a_person_gets_up_to_two_workers_and_the_chosen_time_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for cores, workers in ((1, 1), (2, 2), (16, 2)):
        monkeypatch.setattr(
            shiftsched.present.notebook_limits, "available_cores", lambda c=cores: c
        )
        limits = notebook_limits(7)
        assert (limits.num_workers, limits.time_limit_seconds) == (workers, 7)
        assert "max_deterministic_time" not in limits.parameters
        assert notebook_workers() == workers


def test_a_work_limit_gives_one_worker_a_fixed_seed_and_a_backstop() -> None:
    limits = notebook_limits(5, 0.5, SolveLimits(random_seed=9, diagnosis_budget_seconds=0))
    assert (limits.num_workers, limits.random_seed) == (1, 0)
    assert limits.parameters == {"max_deterministic_time": 0.5}
    assert limits.time_limit_seconds == BACKSTOP_SECONDS  # the wall clock only backs it up
    assert limits.diagnosis_budget_seconds == 0  # the other fields are the base's
    assert notebook_limits(600, 0.5).time_limit_seconds == 600
    assert notebook_workers(0.5) == 1


# ------------------------------------------------------------- the first-roster rule

DATASET = Path(__file__).parent.parent.parent / "datasets" / "retail_weekdays.json"
# No greedy start and so little deterministic work that CP-SAT ends without a roster:
# a deterministic stand-in for a solve a busy machine's clock ends too early.
NO_START = SolveLimits(warm_start=False, diagnosis_budget_seconds=0)
TOO_LITTLE_WORK = 0.001


def test_each_attempt_gets_four_times_the_time_and_the_work_up_to_the_cap() -> None:
    limits = notebook_limits(3, 0.5)
    grown = longer(limits)
    assert grown is not None
    assert grown.time_limit_seconds == LONGER * BACKSTOP_SECONDS
    assert grown.parameters[WORK] == LONGER * 0.5
    assert (grown.num_workers, grown.random_seed) == (1, 0)  # still the same on every run
    clock_only = longer(replace(notebook_limits(3), num_workers=1))
    assert clock_only is not None and clock_only.time_limit_seconds == LONGER * 3
    assert WORK not in clock_only.parameters
    capped = notebook_limits(FIRST_ROSTER_CAP_SECONDS, FIRST_ROSTER_CAP_SECONDS)
    assert longer(replace(capped, num_workers=1)) is None  # the safety cap ends the rule
    near = longer(notebook_limits(100, 100))
    assert near is not None and near.time_limit_seconds == FIRST_ROSTER_CAP_SECONDS
    assert near.parameters[WORK] == FIRST_ROSTER_CAP_SECONDS


def attempts_of(
    problem: Problem, limits: SolveLimits
) -> tuple[SolveOutcome, list[tuple[SolveLimits, SolveOutcome]]]:
    """The rule's answer for ``problem``, and every attempt it made with its limits."""
    made: list[tuple[SolveLimits, SolveOutcome]] = []

    def attempt(attempt_limits: SolveLimits) -> SolveOutcome:
        made.append((attempt_limits, solve_problem(problem, attempt_limits)))
        return made[-1][1]

    return until_first_roster(attempt, limits), made


def test_a_limit_never_ends_a_notebook_solve_without_a_roster() -> None:
    request = parse_request(json.loads(DATASET.read_bytes()))
    limits = notebook_limits(3, TOO_LITTLE_WORK, NO_START)
    alone = solve_problem(from_request(request), limits)
    assert alone.status == "timeout" and ended_without_roster(alone)  # what the rule meets
    outcome, made = attempts_of(from_request(request), limits)
    assert outcome.has_solution
    assert len(made) >= 2 and all(ended_without_roster(o) for _, o in made[:-1])
    works = [attempt.parameters[WORK] for attempt, _ in made]
    assert works == pytest.approx([TOO_LITTLE_WORK * LONGER**n for n in range(len(made))])
    report = audit(request, outcome.assignments)
    assert report.feasible and report.objective_value == outcome.objective_value
    # The notebooks' own entry point follows the same rule.
    assert notebook_solve(from_request(request), 3, TOO_LITTLE_WORK, NO_START).has_solution


def test_a_service_shaped_answer_is_solved_again_too() -> None:
    request = parse_request(json.loads(DATASET.read_bytes()))
    limits = notebook_limits(3, TOO_LITTLE_WORK, NO_START)
    first = solve(request, limits)
    assert first.error is not None and first.error.code == "solver_timeout"
    answer = until_first_roster(lambda attempt: solve(request, attempt), limits)
    assert answer.status == "completed" and answer.solution is not None


def test_a_proof_that_there_is_no_roster_is_not_solved_again() -> None:
    data = json.loads(DATASET.read_bytes())
    employee = data["employees"][0]
    shift = employee.get("assignable_shift_ids", [data["shifts"][0]["id"]])[0]
    employee["fixed_assignments"] = [
        {"date": data["schedule_period"]["start_date"], "shift_id": shift}
    ]
    employee["shift_count_limits"] = [{"shift_id": shift, "max": 0}]
    problem = from_request(parse_request(data))
    outcome, made = attempts_of(problem, notebook_limits(3, 30.0, NO_START))
    assert outcome.status == "infeasible" and len(made) == 1
    assert not ended_without_roster(outcome)


def test_words_name_the_limit_the_last_attempt_had() -> None:
    request = parse_request(json.loads(DATASET.read_bytes()))
    outcome = solve_problem(from_request(request), notebook_limits(3, TOO_LITTLE_WORK, NO_START))
    assert tried_seconds(outcome, 3) == BACKSTOP_SECONDS  # the attempt's own limit
    assert tried_seconds(outcome, 500) == 500
