"""The side-by-side results file as the two tables its page shows: the objective ratios
of the engine over Timefold Solver per size, and each method's medians.

The figures are those of :mod:`benchmarks.side_by_side_report` (a ratio only between
clean rosters, the median objective over clean rosters), read from the CSV with the
standard library, so the page's check needs neither polars nor the JVM.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from pathlib import Path

from benchmarks.table_views import Row, read_csv, table, whole

# The pairs the page compares, as the targets name them.
PAIRS = (
    ("engine@10", "timefold@30"),
    ("engine@30", "timefold@30"),
    ("engine@10", "timefold@300"),
)


def _clean(run: Row | None) -> bool:
    return run is not None and run["audit"] == "clean" and run["objective"] != ""


def _ratio(engine: Row, timefold: Row) -> float:
    mine, theirs = float(engine["objective"]), float(timefold["objective"])
    if theirs == 0:
        return 1.0 if mine == 0 else math.inf
    return mine / theirs


def _sizes(runs: list[Row]) -> list[tuple[str, int]]:
    return sorted({(r["sweep"], int(r["size"])) for r in runs}, key=lambda s: s[1])


def _method_order(method: str) -> tuple[str, float]:
    solver, _, limit = method.partition("@")
    return solver, float(limit or 0)


def ratios(path: Path) -> list[str]:
    """Per size and pair: the median and the worst ratio over the seeds, or "not run"."""
    runs = read_csv(path)
    by_key = {(r["instance"], r["method"]): r for r in runs}
    found: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for instance, sweep in sorted({(r["instance"], r["sweep"]) for r in runs}):
        for engine, timefold in PAIRS:
            mine, theirs = by_key.get((instance, engine)), by_key.get((instance, timefold))
            if mine is not None and theirs is not None and _clean(mine) and _clean(theirs):
                found[(sweep, engine, timefold)].append(_ratio(mine, theirs))
    rows = []
    for sweep, size in _sizes(runs):
        cells = []
        for engine, timefold in PAIRS:
            values = found.get((sweep, engine, timefold))
            median = f"{statistics.median(values):.2f}" if values else ""
            cells.append(f"{median}, worst {max(values):.2f}" if values else "not run")
        rows.append((f"{sweep} ({size:,})", *cells))
    return table(("size", *(f"{e} / {t}" for e, t in PAIRS)), rows)


def medians(path: Path) -> list[str]:
    """Per size and method: median objective (clean rosters), first feasible roster and
    peak memory (every run)."""
    runs = read_csv(path)
    rows = []
    for sweep, _ in _sizes(runs):
        here = [r for r in runs if r["sweep"] == sweep]
        for method in sorted({r["method"] for r in here}, key=_method_order):
            mine = [r for r in here if r["method"] == method]
            objective = statistics.median(float(r["objective"]) for r in mine if _clean(r))
            first = statistics.median(
                float(r["first_feasible_seconds"]) for r in mine if r["first_feasible_seconds"]
            )
            memory = statistics.median(float(r["peak_memory_mb"]) for r in mine)
            rows.append((sweep, method, whole(objective), f"{first:.2f} s", f"{whole(memory)} MB"))
    header = (
        "size",
        "method",
        "median objective",
        "median first feasible",
        "median peak memory",
    )
    return table(header, rows)
