"""Every citation of a docs/semantics.md section names a section that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
SEMANTICS = ROOT / "docs" / "semantics.md"
SOURCES = ("shiftsched", "tests", "benchmarks", "notebooks", "docs", "README.md")
# The page's path, an optional comma, then the section title in double quotes; a citation
# may wrap across lines, comment markers included.
CITATION = re.compile(r'docs/semantics\.md,? "([^"]+)"')


def sections() -> set[str]:
    return {
        line.lstrip("#").strip()
        for line in SEMANTICS.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }


def citations() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for source in SOURCES:
        top = ROOT / source
        for path in [top] if top.is_file() else [*top.rglob("*.py"), *top.rglob("*.md")]:
            text = re.sub(r"\s*\n\s*(#\s*)?", " ", path.read_text(encoding="utf-8"))
            for title in CITATION.findall(text):
                found.setdefault(title, set()).add(str(path.relative_to(ROOT)))
    return found


def test_cited_sections_exist() -> None:
    cited = citations()
    assert {"Size and units", "When a solve is charged"} <= set(cited)
    assert {title: where for title, where in cited.items() if title not in sections()} == {}
