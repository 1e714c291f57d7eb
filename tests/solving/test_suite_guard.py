"""The suite's guard against solves whose roster depends on timing (tests/conftest.py).

A test that compares two solves, or expects one particular roster, must fail on every
run when its solve could differ from run to run, not only on the run where the machine
was busy. Here: the guard refuses such solves in this process and in the processes the
suite starts, lets through what is marked, and does nothing where it is not set.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from ortools.sat.python import cp_model

from shiftsched.contract.parse import parse_request
from shiftsched.solving.solve import SolveLimits, solve
from shiftsched.solving.suite_guard import VARIABLE, TimingDependentSolve, check_workers
from tests.audited import BACKSTOP_SECONDS, EXACT, work_limited
from tests.factories import minimal_request_dict

ROOT = Path(__file__).parent.parent.parent


def two_workers(**fields: object) -> SolveLimits:
    return SolveLimits(
        time_limit_seconds=BACKSTOP_SECONDS,
        num_workers=2,
        diagnosis_budget_seconds=0,
        **fields,  # type: ignore[arg-type]
    )


def test_a_two_worker_solve_is_refused_on_every_run() -> None:
    with pytest.raises(TimingDependentSolve, match="2 CP-SAT workers"):
        solve(parse_request(minimal_request_dict()), two_workers())


@pytest.mark.parametrize("cores", [1, 2])
def test_every_core_is_refused_even_on_one_core(
    cores: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every core is one worker on a one-core machine: refused all the same, so that such a
    # test fails on every machine, not only on those with several cores.
    monkeypatch.setattr(
        importlib.import_module("shiftsched.solving.solve"), "available_cores", lambda: cores
    )
    limits = SolveLimits(time_limit_seconds=BACKSTOP_SECONDS, diagnosis_budget_seconds=0)
    assert limits.num_workers is None  # None: every available core
    with pytest.raises(TimingDependentSolve, match="every available core"):
        solve(parse_request(minimal_request_dict()), limits)


def test_one_worker_with_a_fixed_seed_is_let_through() -> None:
    response = solve(parse_request(minimal_request_dict()), EXACT)
    assert response.status == "completed"


@pytest.mark.multi_worker
def test_a_marked_test_may_solve_with_two_workers() -> None:
    # Only what holds for any roster: a roster exists, and it was solved by two workers.
    response = solve(parse_request(minimal_request_dict()), two_workers())
    assert response.status == "completed" and response.solution is not None
    assert response.solution.metrics.solver is not None
    assert response.solution.metrics.solver.num_workers == 2


def test_a_tests_own_cp_sat_solve_runs_one_worker() -> None:
    model = cp_model.CpModel()
    x = model.new_int_var(0, 3, "x")
    model.maximize(x)
    solver = cp_model.CpSolver()
    assert solver.parameters.num_workers == 0  # CP-SAT's default: every core
    with pytest.raises(TimingDependentSolve, match="num_workers=0"):
        solver.solve(model)
    solver.parameters.num_workers = 1
    assert solver.solve(model) == cp_model.OPTIMAL and solver.value(x) == 3


def test_a_short_wall_clock_limit_alone_is_refused() -> None:
    limits = SolveLimits(time_limit_seconds=5, num_workers=1, diagnosis_budget_seconds=0)
    with pytest.raises(TimingDependentSolve, match="wall clock"):
        solve(parse_request(minimal_request_dict()), limits)


def test_a_short_wall_clock_limit_beside_a_work_limit_is_let_through() -> None:
    limits = SolveLimits(
        time_limit_seconds=5,
        num_workers=1,
        diagnosis_budget_seconds=0,
        parameters=dict(work_limited(1.0).parameters),
    )
    assert solve(parse_request(minimal_request_dict()), limits).status == "completed"


@pytest.mark.wall_clock
def test_a_marked_test_may_use_a_short_wall_clock_limit() -> None:
    limits = SolveLimits(time_limit_seconds=5, num_workers=1, diagnosis_budget_seconds=0)
    assert solve(parse_request(minimal_request_dict()), limits).status == "completed"


def test_the_guard_is_inert_where_it_is_not_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE)
    check_workers(8, 8)  # what the service, the command line and the notebooks do
    check_workers(None, 8)
    monkeypatch.setenv(VARIABLE, "off")
    check_workers(8, 8)
    response = solve(parse_request(minimal_request_dict()), two_workers())
    assert response.status == "completed"


@pytest.mark.slow
def test_the_services_solver_processes_inherit_the_guard() -> None:
    from shiftsched.contract.parse import parse_request
    from shiftsched.service.failures import SolveFailed
    from shiftsched.service.solving.workers import SolvePool

    request = parse_request(minimal_request_dict())
    for workers, refused in ((2, True), (1, False)):
        pool = SolvePool(processes=1, memory_mb=0, cp_sat_workers=workers)
        try:
            if refused:
                with pytest.raises(SolveFailed, match="TimingDependentSolve"):
                    pool.solve(request, BACKSTOP_SECONDS, diagnosis_budget=0)
            else:
                result = pool.solve(request, BACKSTOP_SECONDS, diagnosis_budget=0)
                assert result.status == "completed"
        finally:
            pool.close()


def cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m shiftsched solve`` of the minimal request, as a process of its own."""
    request = folder / "request.json"
    request.write_text(json.dumps(minimal_request_dict()))
    limit = ["--time-limit", str(BACKSTOP_SECONDS)]
    return subprocess.run(
        [sys.executable, "-m", "shiftsched", "solve", str(request), "--quiet", *limit, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=240,
    )


@pytest.mark.slow
def test_processes_the_suite_starts_inherit_the_guard(tmp_path: Path) -> None:
    refused = cli(tmp_path, "--workers", "2")
    assert refused.returncode != 0
    assert "TimingDependentSolve" in refused.stderr and VARIABLE in refused.stderr
    solved = cli(tmp_path, "--workers", "1")
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["status"] == "completed"


@pytest.mark.slow
@pytest.mark.multi_worker
def test_a_markers_allowance_reaches_the_processes_its_test_starts(tmp_path: Path) -> None:
    solved = cli(tmp_path, "--workers", "2")
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["status"] == "completed"
