"""The summary of a side-by-side run: the engine against Timefold Solver, size by size.

Objectives are compared only between clean rosters (no hard rule broken, and for
Timefold a score that agrees with the audit); a pair where one roster is not clean is
counted apart, as a win or a loss by the hard verdict. A ratio is the engine's objective
over Timefold's (below 1: the engine's roster costs less), 1 when both are 0.

The targets, judged on each size up to 80,000 (the synchronous sizes):

- T1: the engine at 10 s never worse than Timefold at 30 s, on every seed;
- T2: the engine at 30 s at least 30 % below Timefold at 30 s in the median (ratio
  at most 0.70);
- moonshot: the engine at 10 s at or below Timefold at 300 s, on every seed.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

SYNCHRONOUS_SIZE = 80_000
T2_RATIO = 0.70
PAIRS = (
    ("engine@10", "timefold@30"),
    ("engine@30", "timefold@30"),
    ("engine@10", "timefold@300"),
)
Row = dict[str, Any]


@dataclass(frozen=True)
class Pair:
    """The engine's run beside Timefold's on one request."""

    instance: str
    engine: Row | None
    timefold: Row | None

    @property
    def ratio(self) -> float | None:
        """Engine over Timefold, both clean; None when either is not."""
        if not (_clean(self.engine) and _clean(self.timefold)):
            return None
        assert self.engine is not None and self.timefold is not None
        mine, theirs = self.engine["objective"], self.timefold["objective"]
        if theirs == 0:
            return 1.0 if mine == 0 else math.inf
        return float(mine / theirs)

    @property
    def engine_worse(self) -> bool:
        """Dearer, or not clean where Timefold is."""
        if self.ratio is not None:
            return self.ratio > 1.0
        return _clean(self.timefold) and not _clean(self.engine)


def _clean(row: Row | None) -> bool:
    return row is not None and row["audit"] == "clean" and row["objective"] is not None


def pairs(rows: list[Row], engine: str, timefold: str) -> dict[str, list[Pair]]:
    """Per sweep size, the pairs of every request where either method ran."""
    by_key = {(r["instance"], r["method"]): r for r in rows}
    found: dict[str, list[Pair]] = defaultdict(list)
    for instance, sweep in sorted({(r["instance"], r["sweep"]) for r in rows}):
        pair = Pair(instance, by_key.get((instance, engine)), by_key.get((instance, timefold)))
        if pair.engine is not None and pair.timefold is not None:
            found[sweep].append(pair)
    return found


def _ratios(found: list[Pair]) -> list[float]:
    return [p.ratio for p in found if p.ratio is not None]


def _figure(values: list[float], pick: Any) -> str:
    return "-" if not values else f"{pick(values):.2f}"


def _median(rows: list[Row], column: str, digits: int = 1) -> str:
    values = [r[column] for r in rows if r[column] is not None]
    return "-" if not values else f"{statistics.median(values):,.{digits}f}"


def _sizes(rows: list[Row]) -> list[tuple[str, int]]:
    return sorted({(r["sweep"], r["size"]) for r in rows}, key=lambda s: s[1])


def _limit(method: str) -> tuple[str, float]:
    solver, _, seconds = method.partition("@")
    return solver, float(seconds or 0)


def _present(rows: list[Row]) -> list[tuple[str, str]]:
    """Every (engine@x, timefold@y) pair of methods the rows hold."""
    methods = sorted({r["method"] for r in rows}, key=_limit)
    engines = [m for m in methods if m.startswith("engine")]
    return [(e, t) for e in engines for t in methods if t.startswith("timefold")]


def ratio_table(rows: list[Row]) -> list[str]:
    lines = [
        "| size | pair | seeds | median ratio | worst ratio | not clean (engine / Timefold) |",
        "|---|---|---|---|---|---|",
    ]
    for sweep, size in _sizes(rows):
        for engine, timefold in _present(rows):
            found = pairs(rows, engine, timefold).get(sweep, [])
            if not found:
                continue
            ratios = _ratios(found)
            engine_dirty = sum(not _clean(p.engine) for p in found)
            timefold_dirty = sum(not _clean(p.timefold) for p in found)
            lines.append(
                f"| {sweep} ({size:,}) | {engine} / {timefold} | {len(found)} | "
                f"{_figure(ratios, statistics.median)} | {_figure(ratios, max)} | "
                f"{engine_dirty} / {timefold_dirty} |"
            )
    return lines


def method_table(rows: list[Row]) -> list[str]:
    """Per size and method: median objective, first feasible roster, peak memory."""
    lines = [
        "| size | method | runs | clean | median objective | median first feasible (s) "
        "| median peak memory (MB) |",
        "|---|---|---|---|---|---|---|",
    ]
    methods = sorted({r["method"] for r in rows}, key=_limit)
    for sweep, size in _sizes(rows):
        for method in methods:
            runs = [r for r in rows if r["sweep"] == sweep and r["method"] == method]
            if not runs:
                continue
            clean = [r for r in runs if _clean(r)]
            first = _median(runs, "first_feasible_seconds", 2)
            lines.append(
                f"| {sweep} ({size:,}) | {method} | {len(runs)} | {len(clean)} | "
                f"{_median(clean, 'objective', 0)} | {first} | "
                f"{_median(runs, 'peak_memory_mb')} |"
            )
    return lines


def _never_worse(found: list[Pair]) -> bool:
    return not any(p.engine_worse for p in found)


def _median_at_most_t2(found: list[Pair]) -> bool:
    """Every pair compared (both clean), and the median ratio at most 0.70."""
    ratios = _ratios(found)
    return len(ratios) == len(found) and statistics.median(ratios) <= T2_RATIO


CHECKS: tuple[tuple[str, tuple[str, str], Callable[[list[Pair]], bool]], ...] = (
    ("T1 engine@10 never worse than timefold@30", PAIRS[0], _never_worse),
    ("T2 engine@30 median ratio to timefold@30 <= 0.70", PAIRS[1], _median_at_most_t2),
    ("moonshot engine@10 <= timefold@300", PAIRS[2], _never_worse),
)


def targets(rows: list[Row]) -> list[str]:
    """Each target, PASS or MISS with its ratios, on each size up to 80,000 that ran it."""
    lines = []
    for sweep, size in _sizes(rows):
        if size > SYNCHRONOUS_SIZE:
            continue
        for name, (engine, timefold), passes in CHECKS:
            found = pairs(rows, engine, timefold).get(sweep, [])
            if not found:
                continue
            ratios = _ratios(found)
            figure = f"median {_figure(ratios, statistics.median)}, worst {_figure(ratios, max)}"
            verdict = "PASS" if passes(found) else "MISS"
            lines.append(f"- {sweep} {name}: {verdict} ({figure}, {len(found)} seeds)")
    return lines


def losses(rows: list[Row]) -> list[str]:
    """Every request where the engine's roster costs more than Timefold's (or is not clean)."""
    lines = []
    for engine, timefold in PAIRS:
        for found in pairs(rows, engine, timefold).values():
            for pair in found:
                if pair.engine_worse:
                    assert pair.engine is not None and pair.timefold is not None
                    lines.append(
                        f"- {pair.instance}: {engine} {pair.engine['objective']} "
                        f"({pair.engine['audit']}) against {timefold} "
                        f"{pair.timefold['objective']} ({pair.timefold['audit']})"
                    )
    return lines or ["- none"]


def markdown(frame: pl.DataFrame) -> str:
    """The summary of a side-by-side results frame (``benchmarks.side_by_side.SCHEMA``)."""
    rows = frame.to_dicts()
    disagreements = sum(
        1 for r in rows if r["method"].startswith("timefold") and r["audit"] == "metrics_mismatch"
    )
    parts = [
        "## Engine and Timefold Solver, side by side",
        "",
        *ratio_table(rows),
        "",
        *method_table(rows),
        "",
        "Targets (sizes up to 80,000):",
        "",
        *(targets(rows) or ["- no pair ran yet"]),
        "",
        "Where the engine's roster costs more:",
        "",
        *losses(rows),
        "",
        f"Timefold rosters whose score disagrees with the audit: {disagreements}.",
    ]
    return "\n".join(parts)
