"""The wheel: it carries the one package ``shiftsched``, and installed on its own, outside
the checkout, its command line and its library solve a dataset.

The wheel is built without build isolation (the build backend comes from this
environment), so no network is needed. It is built from a copy of the checkout, as the
Bento test does: a build writes ``build/`` and ``*.egg-info`` beside the sources, and
neither belongs in a tree others are working in (nor could a stale ``build/`` of an
earlier layout leak into this wheel). The copy keeps ``tests/``, ``benchmarks/`` and the
rest, so the check that the wheel holds nothing of them has something to leave out.

The fresh virtual environment gets the wheel with ``--no-deps``; the runtime
dependencies come from this environment's site-packages, named in a ``.pth`` file. A
path line in a ``.pth`` does not run that folder's own ``.pth`` files, so the editable
install of the checkout (a finder a ``.pth`` there installs) stays out: the package
must be the wheel's, as the checks of ``shiftsched.__file__`` and ``sys.path`` show.
Everything runs from a working directory outside the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveResponse

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "retail_weekdays.json"  # CP-SAT proves it optimal in 0.2 s
VOLATILE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "var",
    "artifacts",
    "build",
    "dist",
    ".hypothesis",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "__pycache__",
    "*.egg-info",
)
TIMEOUT_SECONDS = 180  # each step takes seconds; generous for a busy machine
pytestmark = pytest.mark.slow

# Run by the fresh environment's python: where the package and the path come from, and a
# solve through the public names, as a user of the installed library would write it.
LIBRARY_CHECK = textwrap.dedent(
    """
    import json, pathlib, sys
    import shiftsched
    data = json.loads(pathlib.Path(sys.argv[1]).read_text())
    request = shiftsched.parse(data)
    response = shiftsched.solve(request, shiftsched.SolveLimits(num_workers=1, random_seed=0))
    report = shiftsched.audit(request, response.solution.assignments)
    print(json.dumps({
        "file": shiftsched.__file__,
        "path": [str(pathlib.Path(entry).resolve()) for entry in sys.path],
        "editable": [type(f).__module__ for f in sys.meta_path if "editable" in type(f).__module__],
        "status": response.status,
        "roster": response.solution.metrics.status,
        "assignments": len(response.solution.assignments),
        "feasible": report.feasible,
    }))
    """
)


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` with no PYTHONPATH, so only its interpreter's own path counts."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS
    )
    assert done.returncode == 0, f"{command[:3]} failed:\n{done.stdout}\n{done.stderr}"
    return done


def _build_wheel(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=VOLATILE, symlinks=True)
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip"]
    _run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(source)],
        tmp_path,
    )
    (wheel,) = wheels.glob("shiftsched-*.whl")
    return wheel


def _top_level(wheel: Path) -> set[str]:
    """The first path component of every file of the wheel but its metadata."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    return {
        name.split("/")[0]
        for name in names
        if not name.split("/")[0].endswith((".dist-info", ".data"))
    }


def _fresh_venv(tmp_path: Path, wheel: Path) -> Path:
    """A new virtual environment with the wheel and, by a .pth, this one's dependencies."""
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    _run([*pip, "install", "--quiet", "--no-deps", "--no-index", str(wheel)], tmp_path)
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp_path
    )
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (Path(purelib.stdout.strip()) / "project_dependencies.pth").write_text(
        "".join(f"{path}\n" for path in sorted(ours)), encoding="utf-8"
    )
    return venv


def _outside_the_checkout(path: str) -> bool:
    """Not the checkout nor a folder of it, other than its virtual environment's."""
    resolved = Path(path)
    return not resolved.is_relative_to(ROOT) or resolved.is_relative_to(ROOT / ".venv")


def test_the_installed_wheel_answers_from_outside_the_checkout(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)
    assert _top_level(wheel) == {"shiftsched"}
    venv = _fresh_venv(tmp_path, wheel)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    command = [str(venv / "bin" / "shiftsched"), "solve", str(DATASET), "--workers", "1"]
    solved = _run([*command, "--seed", "0"], elsewhere)
    response = SolveResponse.model_validate_json(solved.stdout)
    assert response.status == "completed"
    assert response.solution is not None
    assert response.solution.metrics.status in ("optimal", "feasible")
    request = parse_request(json.loads(DATASET.read_text(encoding="utf-8")))
    report = audit(request, response.solution.assignments)
    assert report.feasible and report.hard_violations == []

    checked = _run([str(venv / "bin" / "python"), "-c", LIBRARY_CHECK, str(DATASET)], elsewhere)
    found = json.loads(checked.stdout)
    assert Path(found["file"]).resolve().is_relative_to(venv.resolve()), found["file"]
    assert found["editable"] == []
    assert all(_outside_the_checkout(entry) for entry in found["path"]), found["path"]
    assert found["status"] == "completed"
    assert found["roster"] in ("optimal", "feasible")
    assert found["assignments"] == len(response.solution.assignments)
    assert found["feasible"] is True
