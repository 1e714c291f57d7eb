"""The Curtois & Qu reports (``curtois-report --out CSV``) as the tables of their page:
one run at its limit, one run turned on its side, a longer run beside a shorter, and the
portfolio's run beside the runs before it.

A report's limit is in its file's name (``curtois-13-24-300s.csv``: 300 s) and its
engine in its ``git`` column, so a column heading says which run it quotes.
"""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.table_views import Row, gap_percent, read_csv, seconds, table, whole

# A bound this close to the best known (as a share of it) is printed in bold.
CLOSE_BOUND_PCT = 95.0


def limit(path: Path) -> str:
    """The limit a report's name gives: ``curtois-600s.csv`` ran at "600 s"."""
    found = re.search(r"-(\d+)s(?:-[\w]+)?\.csv$", path.name)
    if found is None:
        raise ValueError(f"{path.name}: no limit in the name (as in curtois-13-24-120s.csv)")
    return f"{found.group(1)} s"


def _run(path: Path, runs: list[Row]) -> str:
    return f"{limit(path)}, {runs[0]['git']}"


def at_limit(path: Path) -> list[str]:
    """A report: one row per instance, at the run's limit."""
    rows = [
        (
            r["instance"],
            whole(r["objective"]),
            whole(r["best_known"]),
            gap_percent(r["gap_pct"]),
            whole(r["bound"]),
            f"{float(r['runtime_s']):.1f}",
        )
        for r in read_csv(path)
    ]
    header = ("instance", "objective", "best known", "gap %", "proven bound", "runtime s")
    return table(header, rows)


def across(path: Path) -> list[str]:
    """A report turned on its side, one column per instance; the row of objectives is
    named after the run's limit."""
    runs = read_csv(path)
    lines = [
        ("best known", [whole(r["best_known"]) for r in runs]),
        (limit(path), [whole(r["objective"]) for r in runs]),
        ("gap %", [gap_percent(r["gap_pct"]) for r in runs]),
        ("proven bound", [whole(r["bound"]) for r in runs]),
        ("first roster s", [seconds(r["first_solution_s"]) for r in runs]),
    ]
    header = ("instance", *(r["instance"] for r in runs))
    return table(header, [(label, *cells) for label, cells in lines])


def longer(path: Path, shorter: Path) -> list[str]:
    """A report beside a shorter run's objectives on the same instances."""
    runs, before = read_csv(path), read_csv(shorter)
    earlier = {r["instance"]: r for r in before}
    rows = [
        (
            r["instance"],
            whole(r["best_known"]),
            whole(earlier[r["instance"]]["objective"]),
            whole(r["objective"]),
            gap_percent(r["gap_pct"]),
            whole(r["bound"]),
        )
        for r in runs
    ]
    header = (
        "instance",
        "best known",
        f"{limit(shorter)} ({before[0]['git']})",
        f"{limit(path)} ({runs[0]['git']})",
        f"gap % at {limit(path)}",
        "proven bound",
    )
    return table(header, rows)


def _bound(run: Row) -> str:
    if float(run["bound"]) == 0:
        return "0"
    text = f"{whole(run['bound'])} ({float(run['bound_pct']):.1f} %)"
    return f"**{text}**" if float(run["bound_pct"]) >= CLOSE_BOUND_PCT else text


def portfolio(path: Path, *befores: Path) -> list[str]:
    """A portfolio report (roster, bound and the proof that stands) beside the runs
    before it: each instance's roster and bound from the first of ``befores`` that
    holds it."""
    runs = read_csv(path)
    earlier: dict[str, Row] = {}
    taken: list[tuple[Path, list[Row], list[str]]] = []
    for before in befores:
        rows = read_csv(before)
        new = [r["instance"] for r in rows if r["instance"] not in earlier]
        earlier.update({r["instance"]: r for r in rows if r["instance"] in new})
        taken.append((before, rows, [n for n in new if n in {r["instance"] for r in runs}]))
    named = [_run(taken[0][0], taken[0][1])]
    named += [f"{', '.join(used)}: {_run(b, rows)}" for b, rows, used in taken[1:] if used]
    lines = [
        (
            r["instance"],
            whole(r["best_known"]),
            f"{whole(r['objective'])} ({gap_percent(r['gap_pct'])})",
            _bound(r),
            r["bound_source"],
            f"{whole(earlier[r['instance']]['objective'])} / "
            f"{whole(earlier[r['instance']]['bound'])}",
        )
        for r in runs
    ]
    header = (
        "instance",
        "best known",
        "roster (gap %)",
        "bound (share)",
        "source",
        f"before: roster / bound ({'; '.join(named)})",
    )
    return table(header, lines)
