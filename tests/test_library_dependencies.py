"""The bare library and its command line load nothing of the service's or the notebooks'
dependencies, so ``pip install shiftsched`` (no extra) is enough for them.

Checked in a fresh interpreter, since this one has long since imported everything: it
parses, validates, solves (one worker, a fixed seed: CP-SAT proves the small dataset
optimal in well under a second) and audits through the public names, runs the command
line's ``validate``, ``solve`` and ``audit``, and then reports which of the watched
modules are in ``sys.modules``. The watched modules are the import names of every
distribution of the ``service`` and ``notebooks`` extras of pyproject.toml, as installed
here, plus the servers and drivers those bring whose absence matters as much.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "retail_weekdays.json"
FACES = ("service", "notebooks")
# Named for themselves too, so the check holds even if an extra's list were cut short.
WATCHED = (
    "bentoml",
    "starlette",
    "uvicorn",
    "sqlalchemy",
    "psycopg",
    "huey",
    "pebble",
    "redis",
    "mcp",
    "x402",
    "mpp",
    "limits",
    "argon2",
    "jinja2",
    "httpx",
    "prometheus_client",
    "marimo",
    "altair",
    "polars",
    "vl_convert",
)

USE_THE_LIBRARY = textwrap.dedent(
    """
    import contextlib, io, json, pathlib, sys, tempfile
    import shiftsched
    from shiftsched.__main__ import main
    path = pathlib.Path(sys.argv[1])
    data = json.loads(path.read_text())
    request = shiftsched.parse(data)
    shiftsched.validate(data)
    limits = shiftsched.SolveLimits(num_workers=1, random_seed=0)
    response = shiftsched.solve(request, limits)
    report = shiftsched.audit(request, response.solution.assignments)
    assert response.status == "completed" and report.feasible, response.status
    codes = []
    with tempfile.TemporaryDirectory() as scratch:
        roster = pathlib.Path(scratch) / "roster.json"
        for argv in (
            ["validate", str(path)],
            ["solve", str(path), "--workers", "1", "--seed", "0", "--quiet"],
            ["audit", str(path), str(roster)],
        ):
            out, err = io.StringIO(), io.StringIO()
            codes.append(main(argv, out=out, err=err))
            if argv[0] == "solve":
                roster.write_text(out.getvalue())
    """
)


def face_modules() -> set[str]:
    """The top-level import names of the distributions of the service and notebooks
    extras (those installed here), and of :data:`WATCHED`."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = {
        _normal(re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0])
        for face in FACES
        for requirement in project["optional-dependencies"][face]
    }
    modules = set(WATCHED)
    for module, distributions in importlib.metadata.packages_distributions().items():
        if any(_normal(d) in wanted for d in distributions) and module.isidentifier():
            modules.add(module)
    return modules


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def loaded_after(code: str, watched: set[str]) -> tuple[list[int], list[str]]:
    """The command line's exit codes (if ``code`` ran it) and the watched modules in
    ``sys.modules`` after ``code`` runs in a fresh interpreter."""
    probe = (
        f"codes = []\n{code}\n"
        f"print(json.dumps([codes, sorted(m for m in {sorted(watched)!r} if m in sys.modules)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", f"import json, sys\n{probe}", str(DATASET)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    codes, loaded = json.loads(done.stdout.splitlines()[-1])
    return codes, loaded


def test_the_watched_modules_cover_both_faces() -> None:
    watched = face_modules()
    assert {"bentoml", "sqlalchemy", "marimo", "polars", "altair", "x402"} <= watched
    assert "shiftsched" not in watched and "pydantic" not in watched


def test_the_library_and_its_command_line_load_no_face_dependency() -> None:
    codes, loaded = loaded_after(USE_THE_LIBRARY, face_modules())
    assert codes == [0, 0, 0]
    assert loaded == []


def test_the_probe_sees_a_face_dependency_once_loaded() -> None:
    # The probe's own check: the notebooks' charts do load altair and polars.
    _, loaded = loaded_after("import shiftsched.present.charts", face_modules())
    assert {"altair", "polars"} <= set(loaded)
