"""No module of the package longer than :data:`MAX_LINES`.

A module past that length holds several jobs (an evaluator beside a reader beside a
comparison), and a reader looking for one of them wades through the others. Split, each
job gets a module whose name says what it holds, in the folder of its concern. Lines are
physical lines, docstrings, comments and blank lines included.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 500
PACKAGE = ROOT / "shiftsched"


def long_modules() -> list[str]:
    """``path (N lines)`` for each module of the package over the limit."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            found.append(f"{path.relative_to(ROOT)} ({lines} lines)")
    return found


def test_the_scan_reads_the_package() -> None:
    assert (PACKAGE / "solving" / "solve.py").is_file()
    assert len(list(PACKAGE.rglob("*.py"))) > 100


def test_no_module_is_over_the_limit() -> None:
    found = long_modules()
    assert not found, f"modules over {MAX_LINES} lines:\n" + "\n".join(found)
