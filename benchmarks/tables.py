"""``python -m benchmarks tables``: the benchmark pages' tables, rendered from the results
files they quote.

A table that comes from files under ``benchmarks/results/`` sits in its page between two
markers, the first naming the file (its path from ``benchmarks/``), then any earlier
runs the table sets beside it, and, where a file gives several tables, the view:

    <!-- table: results/curtois-13-24-300s.csv -->
    (the table)
    <!-- end table -->
    <!-- table: results/curtois-600s.csv results/curtois-13-24-300s.csv longer -->

The command rewrites what lies between the markers of every page (``benchmarks/README.md``
and each page under ``benchmarks/docs/``) from the file, so a figure is copied by no
hand; with ``--check`` it rewrites nothing and exits 1 if a page's tables differ from
what their files give. The view is the one of the file's kind (a Curtois & Qu report, a
seam sidecar, ...: :data:`KINDS`) unless the marker names one (:data:`NAMED`).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

from benchmarks import curtois_tables, side_by_side_tables, table_views
from benchmarks.command_help import docstring_help

View = Callable[..., list[str]]  # the files' paths, the first the table's own
HERE = Path(__file__).parent
MARKER = re.compile(r"^<!-- table: (?P<spec>[^\n]+?) -->\n.*?^<!-- end table -->$", re.M | re.S)
# A file's view by its name, first match wins.
KINDS: tuple[tuple[str, View], ...] = (
    ("curtois-*.csv", curtois_tables.at_limit),
    ("*-inrc2.json", table_views.inrc2_run),
    ("*-quick.csv", table_views.quick_run),
    ("*-job-control.json", table_views.job_control),
    ("*-inrc2-shipped.json", table_views.inrc2_shipped),
    ("*-replanning.json", table_views.replanning),
    ("*-inquiry.json", table_views.inquiry_compare),
    ("*-seam.json", table_views.seam),
    ("*-ledger.json", table_views.ledger),
    ("*-concurrency.csv", table_views.concurrency),
)
# The views a marker names, where the file's kind has more than one table.
NAMED: dict[str, View] = {
    "across": curtois_tables.across,
    "longer": curtois_tables.longer,
    "portfolio": curtois_tables.portfolio,
    "ratios": side_by_side_tables.ratios,
    "medians": side_by_side_tables.medians,
}


def pages(root: Path = HERE) -> list[Path]:
    """The benchmark pages: the front door and every page under ``docs/``."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Marker:
    """What a table's opening marker says: its files (paths from ``benchmarks/``; words
    with a slash) and the view it names, if any."""

    sources: tuple[str, ...]
    view: str | None

    @classmethod
    def read(cls, spec: str) -> Marker:
        words = spec.split()
        names = [word for word in words if "/" not in word]
        if len(names) > 1 or not words or "/" not in words[0]:
            raise ValueError(f"a table marker names its files, then at most one view: {spec!r}")
        return cls(tuple(word for word in words if "/" in word), names[0] if names else None)

    def opening(self) -> str:
        return f"<!-- table: {' '.join([*self.sources, *filter(None, [self.view])])} -->"


def view_for(source: str, name: str | None) -> View:
    """The view of a marker: the one it names, else its first file kind's."""
    if name is not None:
        if name not in NAMED:
            raise ValueError(f"no table view {name!r}: give one of {', '.join(NAMED)}")
        return NAMED[name]
    for pattern, view in KINDS:
        if fnmatch(Path(source).name, pattern):
            return view
    raise ValueError(f"no table view for {source}: name one in its marker")


def render(text: str, root: Path = HERE) -> str:
    """``text`` with every marked table rendered again from its file under ``root``."""

    def fresh(match: re.Match[str]) -> str:
        marker = Marker.read(match["spec"])
        view = view_for(marker.sources[0], marker.view)
        lines = view(*(root / source for source in marker.sources))
        return "\n".join([marker.opening(), "", *lines, "", "<!-- end table -->"])

    return MARKER.sub(fresh, text)


def sources(text: str) -> list[str]:
    """The files the marked tables of ``text`` come from, in page order."""
    return [source for m in MARKER.finditer(text) for source in Marker.read(m["spec"]).sources]


def stale(root: Path = HERE) -> list[Path]:
    """The pages whose marked tables differ from what their files give."""
    behind = []
    for page in pages(root):
        text = page.read_text(encoding="utf-8")
        if render(text, root) != text:
            behind.append(page)
    return behind


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks tables", **docstring_help(__doc__))
    parser.add_argument(
        "--check",
        action="store_true",
        help="rewrite nothing; exit 1 if a page's tables differ from their files",
    )
    args = parser.parse_args(argv)
    if args.check:
        behind = stale()
        for page in behind:
            print(f"{page.relative_to(HERE.parent)}: tables differ from their results files")
        return 1 if behind else 0
    for page in pages():
        text = page.read_text(encoding="utf-8")
        if (fresh := render(text)) != text:
            page.write_text(fresh, encoding="utf-8")
            print(f"rewrote {page.relative_to(HERE.parent)}")
    return 0
