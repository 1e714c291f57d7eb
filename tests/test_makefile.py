"""`make help` lists every declared target with its text; servers are exec'd by their recipes."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SERVER_FIXTURES

ROOT = Path(__file__).parent.parent


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_help_lists_every_declared_target_with_its_text() -> None:
    makefile = (ROOT / "Makefile").read_text()
    declared = re.search(r"^\.PHONY:(.*?)(?<!\\)$", makefile, re.MULTILINE | re.DOTALL)
    assert declared is not None
    targets = declared.group(1).replace("\\", " ").split()
    done = subprocess.run(
        ["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    listed = {line.split()[0]: line for line in done.stdout.splitlines() if line[2:3] != " "}
    assert sorted(listed) == sorted(targets)
    for target in targets:
        assert len(listed[target].split()) > 2, f"{target} has no text"


@pytest.mark.parametrize("target", ["serve", "consumer"])
def test_long_running_targets_exec_their_server(target: str) -> None:
    """The recipe's shell is replaced by the server (exec), so the SIGTERM make passes on
    to its child reaches the server; tests/service/solving/test_stopping.py stops a real one."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe is not None
    lines = recipe.group(1).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("exec "), lines


def test_the_fast_lane_leaves_out_every_server_and_the_bento_build() -> None:
    """`make test-fast` deselects each mark tests/conftest.py sets from a server fixture,
    and the explicit ones of the browser, the Bento build and the slow tests."""
    makefile = (ROOT / "Makefile").read_text()
    lane = re.search(r"^FAST_LANE\s*:=\s*(.+)$", makefile, re.MULTILINE)
    assert lane is not None
    left_out = set(re.findall(r"not (\w+)", lane.group(1)))
    assert {*SERVER_FIXTURES.values(), "browser", "bento_build", "slow"} <= left_out
    recipe = re.search(r"^test-fast:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe is not None and '-m "$(FAST_LANE)"' in recipe.group(1)
