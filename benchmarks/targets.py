"""``python -m benchmarks targets RESULTS.csv``: the search targets of a ``search`` suite run.

The ``search`` suite (``suites/search.json``) solves every instance three times: the
engine at 10 s and at 30 s (``engine@10``, ``engine@30``) and plain CP-SAT at 30 s
(``plain@30``, :mod:`benchmarks.baselines`). From its results this prints one row per
instance and a verdict per target:

- **T1** ``engine@10`` is never worse than ``plain@30`` (final objective);
- **T2** ``engine@30`` is at least 20 % below ``plain@30`` in the median over instances
  of ``1 - engine / plain``;
- **T3** every instance of size <= 2,000 is proven optimal by ``engine@10``;
- **T4** the median reported gap of ``engine@30`` up to size 80,000 is at most 10 %;
- **T5** every engine run (both limits) has its first roster in under 1 s up to size
  80,000 and in under 5 s at about 279,000 (size >= 250,000).

No roster counts as an infinite objective (T1, T2) and as a 100 % gap (T4). Objectives
are the exactly priced ones the independent audit re-prices (``audit`` column); the
last line says whether every roster audited clean. With ``--time-limit-scale`` the runs
had other limits than the labels say: the heading lists the limits as run, and the
verdicts are then about those. Like :mod:`benchmarks.report`, this reports and never
asserts; ``--fail-on-miss`` turns a MISS into exit code 1.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from benchmarks.report import LARGEST_SIZE, Target, heading, targets_table
from shiftsched.contract.size import LARGE_SIZE_THRESHOLD

SHORT, LONG, BASE = "engine@10", "engine@30", "plain@30"
LABELS = (SHORT, LONG, BASE)
IMPROVEMENT = 0.20  # T2: engine@30 at least this far below plain@30, in the median
OPTIMAL_SIZE = 2_000  # T3
MEDIAN_GAP = 0.10  # T4, up to LARGE_SIZE_THRESHOLD (80,000)
SYNC_FIRST_SECONDS, LARGE_FIRST_SECONDS = 1.0, 5.0  # T5
TOLERANCE = 1e-6  # relative, on objectives: the audit's own tolerance
SEED = re.compile(r"\bseed=(\d+)")

Row = dict[str, Any]


def seed_of(source: str | None) -> int | None:
    """The generator seed of a synthetic instance (from the ``source`` column)."""
    found = SEED.search(source or "")
    return int(found.group(1)) if found else None


def _objective(run: Row | None) -> float:
    """The run's final objective; no run or no roster is worse than any roster."""
    if run is None or run.get("objective") is None:
        return math.inf
    return float(run["objective"])


def reduction(engine: float, plain: float) -> float:
    """How far ``engine`` is below ``plain``, as a share of ``plain`` (negative: above).

    1.0 when plain has no roster and the engine has one; 0.0 when both cost the same
    (0 and 0, or both without a roster); -inf when only plain has one, or plain costs 0
    and the engine more.
    """
    if engine == plain:
        return 0.0
    if math.isinf(plain):
        return 1.0
    if math.isinf(engine) or plain == 0:
        return -math.inf
    return 1.0 - engine / plain


def no_worse(engine: float, plain: float) -> bool:
    return engine <= plain + TOLERANCE * max(1.0, abs(plain))


def instances(runs: pl.DataFrame) -> list[dict[str, Any]]:
    """One entry per instance, in order of appearance: size, seed and its run per label."""
    out: dict[str, dict[str, Any]] = {}
    for run in runs.iter_rows(named=True):
        entry = out.setdefault(
            run["instance"],
            {"instance": run["instance"], "size": None, "seed": None, "runs": {}},
        )
        entry["size"] = entry["size"] if run["size"] is None else run["size"]
        entry["seed"] = entry["seed"] if entry["seed"] is not None else seed_of(run["source"])
        entry["runs"][run["method"]] = run
    return list(out.values())


def _number(value: float | None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isinf(value)):
        return "-"
    if abs(value) >= 1000 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def _percent(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return f"{100 * value:.1f} %"


def _seconds(run: Row | None) -> str:
    if run is None or run.get("first_feasible_seconds") is None:
        return "-"
    return f"{run['first_feasible_seconds']:.2f}"


def _optimal(run: Row | None) -> str:
    if run is None:
        return "-"
    if run.get("status") == "optimal":
        return f"yes ({run['wall_seconds']:.1f} s)" if run.get("wall_seconds") else "yes"
    return "no"


def instance_table(entries: list[dict[str, Any]]) -> str:
    header = (
        f"| instance | size | seed | {SHORT} | {LONG} | {BASE} | {LONG} gap "
        f"| optimal at 10 s | first s @10 | first s @30 |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for entry in entries:
        runs = entry["runs"]
        short, long, base = (runs.get(label) for label in LABELS)
        gap = None if long is None else long.get("gap")
        cells = [
            entry["instance"],
            _number(entry["size"]),
            "-" if entry["seed"] is None else str(entry["seed"]),
            _number(_objective(short)),
            _number(_objective(long)),
            _number(_objective(base)),
            _percent(gap),
            _optimal(short),
            _seconds(short),
            _seconds(long),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _with(entries: list[dict[str, Any]], *labels: str) -> list[dict[str, Any]]:
    return [e for e in entries if all(label in e["runs"] for label in labels)]


def _sized(entries: list[dict[str, Any]], keep: Callable[[int], bool]) -> list[dict[str, Any]]:
    return [e for e in entries if e["size"] is not None and keep(e["size"])]


def _list(items: list[str], limit: int = 6) -> str:
    return ", ".join(items[:limit]) + (" ..." if len(items) > limit else "")


def t1_never_worse(entries: list[dict[str, Any]]) -> Target:
    name = f"T1 {SHORT} never worse than {BASE}"
    pairs = _with(entries, SHORT, BASE)
    if not pairs:
        return Target(name, None, f"no instance with both {SHORT} and {BASE}")
    worse, margins = [], []
    for e in pairs:
        mine, theirs = _objective(e["runs"][SHORT]), _objective(e["runs"][BASE])
        margins.append((reduction(mine, theirs), e["instance"]))
        if not no_worse(mine, theirs):
            worse.append(f"{e['instance']} {_number(mine)} > {_number(theirs)}")
    least, where = min(margins)
    detail = (
        f"{len(pairs) - len(worse)}/{len(pairs)} no worse; least below: {_percent(least)} ({where})"
    )
    if worse:
        detail += f"; worse: {_list(worse)}"
    return Target(name, not worse, detail)


def t2_median_improvement(entries: list[dict[str, Any]]) -> Target:
    name = f"T2 {LONG} >= {100 * IMPROVEMENT:g} % below {BASE} in the median"
    pairs = _with(entries, LONG, BASE)
    if not pairs:
        return Target(name, None, f"no instance with both {LONG} and {BASE}")
    below = sorted(
        (reduction(_objective(e["runs"][LONG]), _objective(e["runs"][BASE])), e["instance"])
        for e in pairs
    )
    median = statistics.median(value for value, _ in below)
    detail = (
        f"median {_percent(median)} below over {len(pairs)} instances; "
        f"least {_percent(below[0][0])} ({below[0][1]}), "
        f"most {_percent(below[-1][0])} ({below[-1][1]})"
    )
    rostered = [
        (math.isfinite(_objective(e["runs"][LONG])), math.isfinite(_objective(e["runs"][BASE])))
        for e in pairs
    ]
    for case, text in (
        ((True, False), f"only {LONG} has a roster (counted as 100 %)"),
        ((False, True), f"only {BASE} has a roster (counted as -inf)"),
        ((False, False), "neither has a roster (counted as 0 %)"),
    ):
        if rostered.count(case):
            detail += f"; {rostered.count(case)} where {text}"
    return Target(name, median >= IMPROVEMENT, detail)


def t3_small_optimal(entries: list[dict[str, Any]]) -> Target:
    name = f"T3 size <= {OPTIMAL_SIZE:,}: proven optimal within 10 s ({SHORT})"
    small = _sized(_with(entries, SHORT), lambda size: size <= OPTIMAL_SIZE)
    if not small:
        return Target(name, None, f"no {SHORT} run of size <= {OPTIMAL_SIZE:,}")
    proved = [e for e in small if e["runs"][SHORT].get("status") == "optimal"]
    open_ = [f"{e['instance']} {e['runs'][SHORT].get('status')}" for e in small if e not in proved]
    walls = [e["runs"][SHORT].get("wall_seconds") or 0.0 for e in proved]
    detail = f"{len(proved)}/{len(small)} proven"
    if walls:
        detail += f"; slowest proof {max(walls):.1f} s"
    if open_:
        detail += f"; not proven: {_list(open_)}"
    return Target(name, not open_, detail)


def t4_median_gap(entries: list[dict[str, Any]]) -> Target:
    name = f"T4 size <= {LARGE_SIZE_THRESHOLD:,}: median {LONG} gap <= {100 * MEDIAN_GAP:g} %"
    sync = _sized(_with(entries, LONG), lambda size: size <= LARGE_SIZE_THRESHOLD)
    if not sync:
        return Target(name, None, f"no {LONG} run of size <= {LARGE_SIZE_THRESHOLD:,}")
    gaps = sorted(
        (1.0 if e["runs"][LONG].get("gap") is None else e["runs"][LONG]["gap"], e["instance"])
        for e in sync
    )
    median = statistics.median(gap for gap, _ in gaps)
    missing = sum(1 for e in sync if e["runs"][LONG].get("gap") is None)
    detail = (
        f"median {_percent(median)} over {len(gaps)} instances; "
        f"best {_percent(gaps[0][0])} ({gaps[0][1]}), worst {_percent(gaps[-1][0])} ({gaps[-1][1]})"
    )
    if missing:
        detail += f"; {missing} without a gap (counted as 100 %)"
    return Target(name, median <= MEDIAN_GAP, detail)


def _first_rosters(
    entries: list[dict[str, Any]], limit: float, label: str
) -> tuple[bool | None, str]:
    runs = [
        (e["instance"], run_label, run)
        for e in entries
        for run_label, run in e["runs"].items()
        if run_label.startswith("engine@")
    ]
    if not runs:
        return None, f"{label}: no engine run of that size"
    times = [(run.get("first_feasible_seconds"), f"{name} {lab}") for name, lab, run in runs]
    over = [
        f"{where} " + ("no roster" if t is None else f"{t:.2f} s")
        for t, where in times
        if t is None or t >= limit
    ]
    measured = [(t, where) for t, where in times if t is not None]
    detail = f"{label}: {len(runs) - len(over)}/{len(runs)} under {limit:g} s"
    if measured:
        worst, where = max(measured)
        detail += f", worst {worst:.2f} s ({where})"
    if over:
        detail += f"; over: {_list(over)}"
    return not over, detail


def t5_first_roster(entries: list[dict[str, Any]]) -> Target:
    name = (
        f"T5 first roster < {SYNC_FIRST_SECONDS:g} s up to {LARGE_SIZE_THRESHOLD:,}, "
        f"< {LARGE_FIRST_SECONDS:g} s at ~279,000"
    )
    sync = _sized(entries, lambda size: size <= LARGE_SIZE_THRESHOLD)
    large = _sized(entries, lambda size: size >= LARGEST_SIZE)
    verdicts = [
        _first_rosters(sync, SYNC_FIRST_SECONDS, f"<= {LARGE_SIZE_THRESHOLD:,}"),
        _first_rosters(large, LARGE_FIRST_SECONDS, f">= {LARGEST_SIZE:,}"),
    ]
    judged = [passed for passed, _ in verdicts if passed is not None]
    passed = all(judged) if judged else None
    return Target(name, passed, "; ".join(detail for _, detail in verdicts))


def audits(runs: pl.DataFrame) -> Target:
    """Not a target of its own: the objectives above are only as good as their audit."""
    name = "every roster audits clean (the objectives above are the audit's)"
    rostered = runs.filter(pl.col("audit") != "no_roster")
    bad = rostered.filter(pl.col("audit") != "clean")
    detail = f"{rostered.height - bad.height}/{rostered.height} clean"
    missing = runs.height - rostered.height
    if missing:
        detail += f"; {missing} run(s) without a roster"
    if not bad.is_empty():
        detail += "; " + _list(
            [f"{r['instance']} {r['method']} {r['audit']}" for r in bad.iter_rows(named=True)]
        )
    return Target(name, None if rostered.is_empty() else bad.is_empty(), detail)


def checks(runs: pl.DataFrame) -> list[Target]:
    entries = instances(runs)
    return [
        t1_never_worse(entries),
        t2_median_improvement(entries),
        t3_small_optimal(entries),
        t4_median_gap(entries),
        t5_first_roster(entries),
        audits(runs),
    ]


def limits_line(runs: pl.DataFrame) -> str:
    """The time limits as run, per label (they differ from the labels when scaled)."""
    parts = []
    for label in dict.fromkeys(runs["method"].to_list()):
        limits = runs.filter(pl.col("method") == label)["time_limit"].drop_nulls().unique().sort()
        shown = ", ".join(f"{t:g}" for t in limits.to_list()) or "?"
        parts.append(f"{label} {shown} s")
    return "Time limits as run: " + "; ".join(parts) + "."


def markdown(runs: pl.DataFrame, heading: str) -> str:
    parts = [f"## {heading}", "", limits_line(runs), ""]
    parts += [instance_table(instances(runs)), "", "Targets:", ""]
    parts += [targets_table(checks(runs)), ""]
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    import json

    from benchmarks.frames import read_runs

    parser = argparse.ArgumentParser(prog="python -m benchmarks targets")
    parser.add_argument("results", type=Path, help="a results CSV or parquet of a search run")
    parser.add_argument("--fail-on-miss", action="store_true", help="exit 1 on any MISS")
    args = parser.parse_args(argv)
    sidecar = args.results.with_suffix(".json")
    title = heading(json.loads(sidecar.read_text())) if sidecar.exists() else args.results.stem
    runs = read_runs(args.results)
    print(markdown(runs, title))
    missed = any(check.passed is False for check in checks(runs))
    return 1 if missed and args.fail_on_miss else 0
