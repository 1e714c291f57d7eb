"""`make help` lists every target the Makefile declares, each with what it does."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

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
