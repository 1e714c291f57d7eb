"""The package's public names: each resolves, the docstring's example runs, and they cost
nothing until used.

The example is read from ``shiftsched.__doc__`` and run as written, from the repository
root, so the front door a newcomer reads is the one tested. It solves a small dataset
with one worker and a fixed seed, and CP-SAT proves the roster optimal well inside the
request's 30 s: the result is the same on any machine, however busy.

Which modules are loaded is checked in fresh processes: in this one, other tests have
long since imported everything.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

import shiftsched

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("ortools", "polars", "numba")
FUNCTIONS = {
    "parse": ("shiftsched.contract.parse", "parse_request"),
    "validate": ("shiftsched.questions.validation", "validate"),
    "solve": ("shiftsched.solving.solve", "solve"),
    "audit": ("shiftsched.checking.audit", "audit"),
    "diagnose": ("shiftsched.solving.diagnose", "diagnose"),
    "plan": ("shiftsched.periods.plan", "plan"),
    "replan": ("shiftsched.periods.replan", "replan"),
    "recommend": ("shiftsched.questions.recommend", "recommend"),
    "parse_plan": ("shiftsched.contract.planning", "parse_plan"),
    "parse_replan": ("shiftsched.contract.planning", "parse_replan"),
    "parse_recommend": ("shiftsched.contract.planning", "parse_recommend"),
}
TYPES = {
    "SolveRequest": "shiftsched.contract.v1",
    "SolveResponse": "shiftsched.contract.v1",
    "SolveLimits": "shiftsched.solving.solve",
    "InvalidRequest": "shiftsched.errors",
    "AuditReport": "shiftsched.checking.audit",
    "ReplanRequest": "shiftsched.contract.planning",
    "RecommendRequest": "shiftsched.contract.planning",
    "PlanRequest": "shiftsched.contract.planning",
    "History": "shiftsched.contract.history",
}


def example() -> str:
    """The first indented block of the package docstring: the example, as a reader sees
    it."""
    assert shiftsched.__doc__ is not None
    lines = shiftsched.__doc__.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    "))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("    "))
    return textwrap.dedent("\n".join(lines[start:end]))


def loaded_after(code: str) -> list[str]:
    """The heavy packages in ``sys.modules`` after ``code`` runs in a fresh interpreter."""
    probe = (
        f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


@pytest.mark.parametrize("name", shiftsched.__all__)
def test_every_public_name_resolves(name: str) -> None:
    value = getattr(shiftsched, name)
    assert value is not None
    assert name in dir(shiftsched)


def test_the_public_names_are_the_engines_own() -> None:
    for name, (module, attribute) in FUNCTIONS.items():
        value = getattr(shiftsched, name)
        assert value is getattr(importlib.import_module(module), attribute), name
        assert isinstance(value, types.FunctionType), name
    for name, module in TYPES.items():
        assert getattr(shiftsched, name) is getattr(importlib.import_module(module), name)
    assert set(FUNCTIONS) | set(TYPES) <= set(shiftsched.__all__)
    assert sorted(shiftsched.__all__) == shiftsched.__all__


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'solver'"):
        _ = shiftsched.solver


def test_the_docstring_example_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    code = example()
    assert len(code.strip().splitlines()) == 6
    monkeypatch.chdir(ROOT)
    printed = io.StringIO()
    namespace: dict[str, Any] = {}
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "shiftsched.__doc__", "exec"), namespace)
    assert printed.getvalue() == "optimal True\n"
    response, report = namespace["response"], namespace["report"]
    assert response.status == "completed"
    assert report.hard_violations == []
    assert report.objective_value == response.solution.metrics.objective_value
    assert response.solution.metrics.best_bound == response.solution.metrics.objective_value


def test_parse_raises_invalid_request_with_every_fault() -> None:
    with pytest.raises(shiftsched.InvalidRequest) as raised:
        shiftsched.parse({"employees": "nobody"})
    assert len(raised.value.errors) > 1


@pytest.mark.parametrize(
    "code",
    [
        "import shiftsched.contract.size",
        "import shiftsched",
        "from shiftsched import parse, validate, SolveRequest, SolveResponse, InvalidRequest",
    ],
)
def test_light_imports_leave_the_solver_unloaded(code: str) -> None:
    assert loaded_after(code) == []


def test_using_solve_loads_the_solver() -> None:
    # The probe's own check: it sees a heavy import when there is one.
    assert "ortools" in loaded_after("from shiftsched import solve")


def test_each_shared_name_is_the_function_whatever_was_imported_first() -> None:
    # Solving imports shiftsched.solving.diagnose (and the others load their own modules) before
    # anyone asks the package for the function: the package must still hand it out.
    code = textwrap.dedent(
        """
        import types
        import shiftsched.solving.solve, shiftsched.periods.replan
        import shiftsched.questions.recommend, shiftsched.periods.plan
        from shiftsched.solving.diagnose import DiagnosisLimits
        from shiftsched.checking.audit import AuditReport
        import shiftsched
        from shiftsched import audit, diagnose, plan, recommend, replan, solve
        shared = [audit, diagnose, plan, recommend, replan, solve]
        assert all(isinstance(f, types.FunctionType) for f in shared), shared
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
