"""`bentoml build` on bentofile.yaml: the Bento builds, carries what the service needs
and nothing of the development tree, and its own src/ alone is enough to import and
answer.

One build per run, in a temporary BENTOML_HOME (the user's own Bento store is never
touched); with the lock file's pins taken as they are, the build needs no network. The
build reads a copy of the checkout without the folders other tests write to while this
one runs (caches, var/), so nothing can vanish under it; the copy gets a var/ and a
.venv/ of its own to show they are left out.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parent.parent
VOLATILE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "var",
    "artifacts",
    ".hypothesis",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "__pycache__",
    "*.egg-info",
)
pytestmark = pytest.mark.bento_build
BUILD_TIMEOUT_SECONDS = 240  # a few seconds normally; generous for a busy machine

# Run with `python -I` inside a scratch directory: the import path is the Bento's src/
# and the installed packages only. The development checkout's editable install (a
# finder on sys.meta_path) is removed first, so nothing can come from the source tree.
IMPORT_CHECK = textwrap.dedent(
    """
    import json, sys
    src = sys.argv[1]
    sys.meta_path[:] = [
        finder for finder in sys.meta_path
        if not getattr(finder, "__module__", "").startswith("__editable__")
    ]
    sys.path.insert(0, src)
    from starlette.testclient import TestClient
    import shiftsched.service.app as service
    front = TestClient(service.mcp_app).get("/")
    static = TestClient(service.dashboard_app).get("/static/style.css")
    sign_in = TestClient(service.dashboard_app).get("/sign-in")
    files = {  # a namespace package (no __init__.py) has its folders instead of a file
        name: getattr(module, "__file__", None) or list(getattr(module, "__path__", [""]))[0]
        for name, module in sys.modules.items()
        if name.split(".")[0] == "shiftsched"
    }
    print(json.dumps({
        "front": front.status_code,
        "front_html": "<html" in front.text.lower(),
        "static": static.status_code,
        "sign_in": sign_in.status_code,
        "files": files,
    }))
    """
)


def test_bento_builds_with_the_service_its_files_and_the_locked_packages(
    tmp_path: Path,
) -> None:
    context = tmp_path / "checkout"
    shutil.copytree(ROOT, context, ignore=VOLATILE, symlinks=True)
    for scratch_file in ("var/shiftsched.db", ".venv/pyvenv.cfg", "artifacts/shot.png"):
        (context / scratch_file).parent.mkdir(parents=True, exist_ok=True)
        (context / scratch_file).write_text("development state\n")
    home = tmp_path / "bentoml"
    env = {**os.environ, "BENTOML_HOME": str(home), "BENTOML_DO_NOT_TRACK": "true"}
    built = subprocess.run(
        [sys.executable, "-m", "bentoml", "build", "--output", "tag"],
        cwd=context,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_SECONDS,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    tag = built.stdout.strip().splitlines()[-1].removeprefix("__tag__:")
    name, version = tag.split(":")
    assert name == "shiftsched"
    bento = home / "bentos" / name / version
    src = bento / "src"

    info = yaml.safe_load((bento / "bento.yaml").read_text())
    assert info["service"] == "shiftsched.service.app:ShiftScheduler"
    assert {"BENTOML_DO_NOT_TRACK", "JOBS_CONSUMER"} <= {e["name"] for e in info["envs"]}

    # What the service reads at run time: its code, page templates and static files.
    for needed in (
        "shiftsched/service/app.py",
        "shiftsched/service/solving/jobs.py",
        "shiftsched/solving/solve.py",
        "shiftsched/service/http/templates/front.html",
        "shiftsched/service/dashboard/templates/base.html",
        "shiftsched/service/dashboard/static/style.css",
        "pyproject.toml",
    ):
        assert (src / needed).is_file(), needed
    # And nothing of the development tree.
    for absent in ("tests", "benchmarks", "notebooks", "artifacts", "var", ".venv"):
        assert not (src / absent).exists(), absent
    assert not [p for p in src.rglob("*") if p.name in ("__pycache__", "__marimo__")]

    # deploy/compose.yaml runs the consumers from the image's copy of src/, and probes
    # the replicas on the image's port.
    dockerfile = (bento / "env" / "docker" / "Dockerfile").read_text()
    bento_path = re.search(r"^ARG BENTO_PATH=(\S+)$", dockerfile, re.MULTILINE)
    assert bento_path is not None
    stack = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    assert stack["services"]["consumer"]["working_dir"] == f"{bento_path.group(1)}/src"
    assert re.search(r"^EXPOSE 3000$", dockerfile, re.MULTILINE)

    # Every pin of the lock file, as pinned.
    installed = (bento / "env" / "python" / "requirements.txt").read_text().splitlines()
    pins = [
        line.strip()
        for line in (ROOT / "requirements.lock").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert pins
    assert set(pins) <= {line.strip() for line in installed}

    scratch = tmp_path / "run"
    scratch.mkdir()
    checked = subprocess.run(
        [sys.executable, "-I", "-c", IMPORT_CHECK, str(src)],
        cwd=scratch,
        env={**env, "DATABASE_URL": f"sqlite:///{scratch / 'service.db'}"},
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_SECONDS,
    )
    assert checked.returncode == 0, checked.stderr[-3000:]
    result = json.loads(checked.stdout.strip().splitlines()[-1])
    assert result["front"] == 200 and result["front_html"]
    assert result["static"] == 200
    assert result["sign_in"] == 200
    outside = {n: f for n, f in result["files"].items() if not Path(f).is_relative_to(src)}
    assert result["files"] and not outside, outside
