"""docs/architecture.md maps every module, and only modules that exist.

The map is a list with one module per line, each line starting with the module's path
from the repository root in backticks (``- `shiftsched/service/app.py`: ...``). Every ``*.py`` file
under the mapped packages must have exactly one such line, except ``__init__.py``, which
only re-exports names. Any other path to a ``.py`` file the page names in backticks must exist too,
so a module that moves cannot leave a stale name anywhere on the page.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).parent.parent
MAP = ROOT / "docs" / "architecture.md"
PACKAGES = ("shiftsched", "benchmarks", "notebooks")

ENTRY = re.compile(r"^- `([^`\s]+\.py)`", re.MULTILINE)
MENTION = re.compile(r"`([\w.-]+/[\w./-]+\.py)`")  # a path, not a bare file name


def modules() -> set[str]:
    """Every module of the mapped packages, as a path from the repository root."""
    return {
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if path.name != "__init__.py"
    }


def entries() -> list[str]:
    return ENTRY.findall(MAP.read_text(encoding="utf-8"))


def test_the_scan_finds_modules_and_entries() -> None:
    # Guards the scan itself: a pattern that stopped matching would make the rest vacuous.
    assert {
        "shiftsched/solving/solve.py",
        "shiftsched/service/app.py",
        "benchmarks/runner.py",
    } <= modules()
    assert {
        "shiftsched/solving/solve.py",
        "shiftsched/service/app.py",
        "notebooks/explore.py",
    } <= set(entries())


def test_every_module_is_on_the_map() -> None:
    missing = sorted(modules() - set(entries()))
    assert not missing, f"docs/architecture.md does not list {missing}"


def test_the_map_lists_only_modules_that_exist() -> None:
    unknown = sorted(set(entries()) - modules())
    assert not unknown, f"docs/architecture.md lists {unknown}, which are not modules"


def test_each_module_is_listed_once() -> None:
    repeated = sorted(path for path, count in Counter(entries()).items() if count > 1)
    assert not repeated, f"docs/architecture.md lists {repeated} more than once"


def test_every_python_path_the_page_names_exists() -> None:
    named = set(MENTION.findall(MAP.read_text(encoding="utf-8")))
    stale = sorted(path for path in named if not (ROOT / path).is_file())
    assert not stale, f"docs/architecture.md names {stale}, which do not exist"
