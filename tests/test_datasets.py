"""The committed datasets: valid, reproducible from their generator, and solvable.

The planted infeasible requests of ``datasets/infeasible/`` must be valid and
reproducible from ``datasets/planted.py`` too; their diagnosis is tested elsewhere.

Each dataset is solved once with a short limit and the roster is checked by the
independent auditor: no hard rule broken, and the reported objective, soft terms and
shortage markers equal the audited ones. A time-limited roster is not optimal, but it
must still be exactly what the solver says it is. The limit is CP-SAT's deterministic
work, not the clock, so the roster is the same on any machine however busy.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size
from shiftsched.contract.v1 import SolveRequest
from shiftsched.solving.solve import solve
from tests.audited import work_limited

DATASETS = Path(__file__).resolve().parent.parent / "datasets"
FILES = sorted(DATASETS.glob("*.json"))
INFEASIBLE = (
    DATASETS / "infeasible"
)  # planted infeasible requests, see tests/solving/test_diagnose.py
PLANTED_FILES = sorted(p for p in INFEASIBLE.glob("*.json") if p.name != "index.json")
MAX_SIZE = "max_size.json"
QUICK = {"retail_weekdays.json"}  # solved in the fast lane; every other dataset takes seconds
WORK_LIMIT = 1.0  # deterministic seconds: past the first roster of every dataset


def _script(name: str) -> ModuleType:
    """A script of datasets/ (not a package) loaded as a module."""
    spec = importlib.util.spec_from_file_location(f"datasets_{name}", DATASETS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _generator() -> ModuleType:
    return _script("generate")


def _load(path: Path) -> SolveRequest:
    return parse_request(json.loads(path.read_text(encoding="utf-8")))


def _solve_params() -> list[object]:
    return [
        pytest.param(path, id=path.name)
        if path.name in QUICK
        else pytest.param(path, marks=pytest.mark.slow, id=path.name)
        for path in FILES
    ]


def test_every_scenario_is_committed() -> None:
    assert [p.name for p in FILES] == sorted(_generator().SCENARIOS)


def test_generator_reproduces_the_committed_files(tmp_path: Path) -> None:
    for written in _generator().write_all(tmp_path):
        assert written.read_bytes() == (DATASETS / written.name).read_bytes(), written.name


def test_planted_generator_reproduces_the_committed_files(tmp_path: Path) -> None:
    written = _script("planted").write_all(tmp_path)
    assert sorted(p.name for p in written) == sorted(p.name for p in INFEASIBLE.glob("*.json"))
    for path in written:
        assert path.read_bytes() == (INFEASIBLE / path.name).read_bytes(), path.name


@pytest.mark.parametrize("path", PLANTED_FILES, ids=[p.name for p in PLANTED_FILES])
def test_planted_file_is_a_valid_request(path: Path) -> None:
    _load(path)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_dataset_is_a_valid_request(path: Path) -> None:
    _load(path)  # raises InvalidRequest listing every fault
    assert len(path.read_bytes()) < 1_000_000  # the contract's body cap


def test_max_size_dataset_hits_every_limit() -> None:
    request = _load(DATASETS / MAX_SIZE)
    shape = (len(request.employees), len(request.shifts), len(request.duties))
    assert shape == (50, 12, 15)
    assert request_size(request) == 50 * 12 * 15 * 31


@pytest.mark.parametrize("path", _solve_params())
def test_dataset_solves_to_an_audited_roster(path: Path) -> None:
    request = _load(path)
    response = solve(request, work_limited(WORK_LIMIT))

    assert response.status == "completed", response.error
    assert response.solution is not None
    report = audit(request, response.solution.assignments)
    assert report.hard_violations == []
    solution = response.solution
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
