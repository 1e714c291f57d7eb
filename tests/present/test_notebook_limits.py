"""How the notebooks solve (shiftsched.present.notebook_limits): two workers for a person, or the
same rosters on every run with ``--work-limit``."""

from __future__ import annotations

import pytest

import shiftsched.present.notebook_limits
from shiftsched.present.notebook_limits import BACKSTOP_SECONDS, notebook_limits, notebook_workers
from shiftsched.solving.solve import SolveLimits


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
