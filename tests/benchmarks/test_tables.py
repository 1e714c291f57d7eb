"""The benchmark pages: their generated tables equal what the committed results files
give, their links lead somewhere, and every citation of a page's section names one.

Fast: it reads the pages and the results files they quote, and solves nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import tables

ROOT = Path(__file__).parents[2]
BENCHMARKS = ROOT / "benchmarks"
# Where the repository cites a benchmark page's section: the page, an optional comma or
# bracket, then the section's title in double quotes; a citation may wrap across lines.
CITATION = re.compile(r'(benchmarks/(?:README|docs/[\w-]+)\.md),? \(?"([^"]+)"')
CITING = ("shiftsched", "benchmarks", "tests", "docs", "datasets", "README.md")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def headings(page: Path) -> set[str]:
    """The titles of a page's headings, code blocks left out."""
    titles, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        fenced ^= line.startswith("```")
        if not fenced and line.startswith("#"):
            titles.add(line.lstrip("#").strip())
    return titles


def anchor(title: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces
    become hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def test_the_pages_hold_marked_tables() -> None:
    # Guards the scan: a marker pattern that stopped matching would make the rest vacuous.
    quoted = {source for page in tables.pages() for source in tables.sources(page.read_text())}
    assert {
        "results/curtois-13-24-300s.csv",
        "results/20261124T190609Z-job-control.json",
        "results/timefold-side-by-side.csv",
        "results/20261127T195543Z-inrc2-one-worker.json",
    } <= quoted
    assert len(quoted) >= 15


@pytest.mark.parametrize("page", tables.pages(), ids=lambda page: page.name)
def test_committed_tables_equal_what_their_files_give(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert tables.render(text) == text, (
        f"{page.relative_to(ROOT)}: run python -m benchmarks tables and commit the result"
    )


def test_every_quoted_file_is_committed() -> None:
    for page in tables.pages():
        for source in tables.sources(page.read_text(encoding="utf-8")):
            assert (BENCHMARKS / source).is_file(), f"{page.name} quotes {source}"


def test_render_rewrites_a_stale_table_from_its_file(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "curtois-1-2.csv").write_text(
        "instance,objective,best_known,gap_pct,bound,runtime_s\n"
        "1,607.0,607,0.0,607.0,0.39\n"
        "2,1234.0,828,49.03,828.0,58.514\n"
    )
    page = (
        "Before.\n\n<!-- table: results/curtois-1-2.csv -->\n\n| stale |\n\n"
        "<!-- end table -->\n\nAfter.\n"
    )
    assert tables.render(page, tmp_path) == (
        "Before.\n\n<!-- table: results/curtois-1-2.csv -->\n\n"
        "| instance | objective | best known | gap % | proven bound | runtime s |\n"
        "|---|---|---|---|---|---|\n"
        "| 1 | 607 | 607 | 0.0 | 607 | 0.4 |\n"
        "| 2 | 1,234 | 828 | 49.0 | 828 | 58.5 |\n"
        "\n<!-- end table -->\n\nAfter.\n"
    )


def test_a_marker_may_set_earlier_runs_beside_its_file(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    header = "instance,objective,best_known,gap_pct,bound,git\n"
    (tmp_path / "results" / "curtois-600s.csv").write_text(
        header + "13,1848.0,1348,37.09,128.0,bbb\n"
    )
    (tmp_path / "results" / "curtois-1-2-300s.csv").write_text(
        header + "13,2521.0,1348,87.02,7.0,aaa\n"
    )
    spec = "results/curtois-600s.csv results/curtois-1-2-300s.csv longer"
    page = f"<!-- table: {spec} -->\n<!-- end table -->\n"
    assert tables.sources(page) == ["results/curtois-600s.csv", "results/curtois-1-2-300s.csv"]
    assert tables.render(page, tmp_path).splitlines()[2:5] == [
        "| instance | best known | 300 s (aaa) | 600 s (bbb) | gap % at 600 s | proven bound |",
        "|---|---|---|---|---|---|",
        "| 13 | 1,348 | 2,521 | 1,848 | 37.1 | 128 |",
    ]


def test_a_marker_without_a_view_is_an_error() -> None:
    with pytest.raises(ValueError, match="no table view"):
        tables.render("<!-- table: results/unknown.csv -->\n<!-- end table -->\n")
    with pytest.raises(ValueError, match="no table view 'nope'"):
        tables.render(
            "<!-- table: results/timefold-side-by-side.csv nope -->\n<!-- end table -->\n"
        )


def test_the_check_passes_on_the_committed_pages(capsys: pytest.CaptureFixture[str]) -> None:
    assert tables.main(["--check"]) == 0
    assert capsys.readouterr().out == ""


def test_the_front_door_stays_short() -> None:
    assert len((BENCHMARKS / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize("page", tables.pages(), ids=lambda page: page.name)
def test_every_relative_link_of_a_page_leads_to_a_file_and_heading(page: Path) -> None:
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # an address outside the repository
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name} links {target}"
        if fragment:
            assert fragment in {anchor(t) for t in headings(linked)}, f"{page.name}: {target}"


def test_every_cited_section_of_a_benchmark_page_exists() -> None:
    cited = []
    for source in CITING:
        top = ROOT / source
        files = [top] if top.is_file() else [*top.rglob("*.py"), *top.rglob("*.md")]
        for path in files:
            text = re.sub(r"\s*\n\s*(#\s*)?", " ", path.read_text(encoding="utf-8"))
            cited += [(path, page, title) for page, title in CITATION.findall(text)]
    assert cited, "the scan found no citation"
    wrong = [
        f"{path.relative_to(ROOT)}: {page}, {title!r}"
        for path, page, title in cited
        if not (ROOT / page).is_file() or title not in headings(ROOT / page)
    ]
    assert not wrong, "cited sections that do not exist:\n" + "\n".join(wrong)
