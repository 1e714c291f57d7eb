"""The markdown summary of a results frame: figures, ratios to the baselines, targets.

The targets are the promise "synchronous answers up to size 80,000, queued above" made
measurable. Each is reported PASS or MISS with the numbers behind it; nothing here
asserts, because a benchmark on a busy or slow machine is a report, not a test.

"Gap within T s" reads the progress trace: the last roster found by T seconds against the
best bound by then (both on the call's clock, see :mod:`benchmarks.one`). A run that
ended before T uses its final, exactly priced figures; a run whose time limit is shorter than
T is judged on what it reached, and the detail says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from shiftsched.contract.size import LARGE_SIZE_THRESHOLD

LARGEST_SIZE = 250_000  # "about 280,000": the contract's largest shapes
SYNC_FIRST_SECONDS, SYNC_GAP, SYNC_WINDOW = 1.0, 0.01, 10.0
LARGE_FIRST_SECONDS, LARGE_GAP, LARGE_WINDOW = 5.0, 0.02, 60.0
PLAIN_SPEEDUP = 3.0


@dataclass(frozen=True)
class Target:
    name: str
    passed: bool | None  # None: nothing measured that the target speaks about
    detail: str

    @property
    def verdict(self) -> str:
        return {True: "PASS", False: "MISS", None: "n/a"}[self.passed]


def _number(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and abs(value) >= 1000:
        return f"{value:,.0f}"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def _ratio(numerator: float | None, denominator: float | None) -> str:
    if numerator is None or denominator is None:
        return "-"
    if denominator == 0:
        return "=" if numerator == 0 else "inf"
    return f"{numerator / denominator:.2f}x"


def gap_at(run: dict[str, Any], progress: pl.DataFrame, seconds: float) -> float | None:
    """The gap the run had reached ``seconds`` into the call (None: no roster by then)."""
    wall = run.get("wall_seconds")
    if wall is not None and wall <= seconds:
        gap: float | None = run.get("gap")
        return gap
    trace = progress.filter(
        (pl.col("instance") == run["instance"])
        & (pl.col("method") == run["method"])
        & (pl.col("seconds") <= seconds)
    )
    objectives = trace.filter(pl.col("series") == "objective")["value"]
    bounds = trace.filter(pl.col("series") == "bound")["value"]
    if objectives.is_empty():
        return None
    objective = float(objectives[-1])
    bound = float(bounds.max()) if not bounds.is_empty() else 0.0  # type: ignore[arg-type]
    return max(0.0, objective - bound) / max(1.0, abs(objective))


def _by_method(runs: pl.DataFrame, method: str) -> dict[str, dict[str, Any]]:
    return {r["instance"]: r for r in runs.filter(pl.col("method") == method).iter_rows(named=True)}


def summary_table(runs: pl.DataFrame) -> str:
    """One row per instance: the engine's figures, then baseline ratios from the same run."""
    engine, plain, greedy = (_by_method(runs, m) for m in ("engine", "plain", "greedy"))
    header = (
        "| instance | size | vars | build s | first s | best s | objective | gap | status "
        "| mem MB | audit | plain/engine first | plain/engine obj | greedy/engine obj |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for name in dict.fromkeys(runs["instance"].to_list()):
        e = engine.get(name, {})
        p, g = plain.get(name, {}), greedy.get(name, {})
        any_run = e or p or g
        lines.append(
            "| "
            + " | ".join(
                [
                    name,
                    _number(any_run.get("size")),
                    _number(e.get("variables")),
                    _number(e.get("build_seconds")),
                    _number(e.get("first_feasible_seconds")),
                    _number(e.get("best_seconds")),
                    _number(e.get("objective")),
                    _percent(e.get("gap")),
                    e.get("status") or "-",
                    _number(e.get("peak_memory_mb"), 0),
                    e.get("audit") or "-",
                    _ratio(p.get("first_feasible_seconds"), e.get("first_feasible_seconds")),
                    _ratio(p.get("objective"), e.get("objective")),
                    _ratio(g.get("objective"), e.get("objective")),
                ]
            )
            + " |"
        )
    return "\n".join(lines)


def baselines_table(runs: pl.DataFrame) -> str:
    """The baseline runs' own figures (the ratios above come from these)."""
    others = runs.filter(pl.col("method") != "engine")
    if others.is_empty():
        return ""
    header = (
        "| instance | method | size | vars | first s | objective | gap | status | mem MB | audit |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for r in others.iter_rows(named=True):
        cells = [
            r["instance"],
            r["method"],
            _number(r["size"]),
            _number(r["variables"]),
            _number(r["first_feasible_seconds"]),
            _number(r["objective"]),
            _percent(r["gap"]),
            r["status"] or "-",
            _number(r["peak_memory_mb"], 0),
            r["audit"] or "-",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _within(
    runs: list[dict[str, Any]], value: Any, limit: float, show: Any = _number
) -> tuple[bool, str]:
    """All runs' ``value`` at most ``limit``; the detail names the worst and the misses."""
    values = [(value(r), r["instance"]) for r in runs]
    misses = [(v, n) for v, n in values if v is None or v > limit]
    measured = [v for v, _ in values if v is not None]
    worst = max(measured) if measured else None
    detail = f"{len(values) - len(misses)}/{len(values)} within; worst {show(worst)}"
    if misses:
        shown = ", ".join(f"{n} {show(v)}" for v, n in misses[:10])
        detail += f"; over: {shown}" + (" ..." if len(misses) > 10 else "")
    return not misses, detail


def targets(runs: pl.DataFrame, progress: pl.DataFrame) -> list[Target]:
    engine = [r for r in runs.filter(pl.col("method") == "engine").iter_rows(named=True)]
    sync = [r for r in engine if r["size"] is not None and r["size"] <= LARGE_SIZE_THRESHOLD]
    large = [r for r in engine if r["size"] is not None and r["size"] >= LARGEST_SIZE]
    out: list[Target] = []

    def check(name: str, group: list[dict[str, Any]], value: Any, limit: float, unit: str) -> None:
        if not group:
            out.append(Target(name, None, "no engine run of that size"))
            return
        passed, detail = _within(group, value, limit, _percent if "gap" in unit else _number)
        out.append(Target(name, passed, f"{detail} {unit}".strip()))

    def short_runs(group: list[dict[str, Any]], window: float) -> str:
        shorter = sorted({r["time_limit"] for r in group if r["time_limit"] < window})
        return f"(runs limited to {', '.join(_number(t, 0) for t in shorter)} s)" if shorter else ""

    check(
        f"size <= 80,000: first feasible < {SYNC_FIRST_SECONDS:g} s",
        sync,
        lambda r: r["first_feasible_seconds"],
        SYNC_FIRST_SECONDS,
        "s (-: no roster)",
    )
    check(
        f"size <= 80,000: gap <= {SYNC_GAP:.0%} within {SYNC_WINDOW:g} s",
        sync,
        lambda r: gap_at(r, progress, SYNC_WINDOW),
        SYNC_GAP,
        "gap (-: no roster) " + short_runs(sync, SYNC_WINDOW),
    )
    check(
        f"size ~280,000: first feasible < {LARGE_FIRST_SECONDS:g} s",
        large,
        lambda r: r["first_feasible_seconds"],
        LARGE_FIRST_SECONDS,
        "s (-: no roster)",
    )
    check(
        f"size ~280,000: gap <= {LARGE_GAP:.0%} within {LARGE_WINDOW:g} s",
        large,
        lambda r: gap_at(r, progress, LARGE_WINDOW),
        LARGE_GAP,
        "gap (-: no roster) " + short_runs(large, LARGE_WINDOW),
    )
    out.append(_speedup(runs))
    out.append(_never_worse(runs))
    out.append(_audits(runs))
    return out


def _pairs(runs: pl.DataFrame) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    engine, plain = _by_method(runs, "engine"), _by_method(runs, "plain")
    return [(engine[n], plain[n]) for n in engine if n in plain]


def _speedup(runs: pl.DataFrame) -> Target:
    """At the largest sizes both ran (large ones, else the largest pair): plain / engine."""
    name = f"engine >= {PLAIN_SPEEDUP:g}x faster to first feasible than plain (largest sizes)"
    pairs = _pairs(runs)
    if not pairs:
        return Target(name, None, "plain did not run")
    large = [(e, p) for e, p in pairs if (e["size"] or 0) > LARGE_SIZE_THRESHOLD]
    chosen = large or [max(pairs, key=lambda pair: pair[0]["size"] or 0)]
    details, passed = [], True
    for e, p in chosen:
        mine, theirs = e["first_feasible_seconds"], p["first_feasible_seconds"]
        if mine is None:
            ok = False
        elif theirs is None:
            ok = True  # plain found no roster at all
        else:
            ok = theirs >= PLAIN_SPEEDUP * mine
        passed = passed and ok
        details.append(f"{e['instance']}: plain {_number(theirs)} s / engine {_number(mine)} s")
    return Target(name, passed, "; ".join(details))


def _never_worse(runs: pl.DataFrame) -> Target:
    name = "engine never worse than plain in final objective"
    pairs = _pairs(runs)
    if not pairs:
        return Target(name, None, "plain did not run")
    worse = []
    for e, p in pairs:
        mine, theirs = e["objective"], p["objective"]
        if theirs is not None and (mine is None or mine > theirs + 1e-6):
            worse.append(f"{e['instance']} engine {_number(mine)} > plain {_number(theirs)}")
    detail = f"{len(pairs) - len(worse)}/{len(pairs)} no worse"
    return Target(name, not worse, detail + ("; " + "; ".join(worse) if worse else ""))


def _audits(runs: pl.DataFrame) -> Target:
    """Solver rosters must audit clean; greedy ones may break hard rules (it cannot look
    ahead), which the detail counts but the verdict does not hold against the engine."""
    name = "every engine/plain roster audits clean (no hard violation, metrics agree)"
    rostered = runs.filter(pl.col("audit") != "no_roster")
    solver = rostered.filter(pl.col("method") != "greedy")
    bad = solver.filter(pl.col("audit") != "clean")
    cases = [f"{r['instance']}/{r['method']} {r['audit']}" for r in bad.iter_rows(named=True)]
    detail = f"{solver.height - bad.height}/{solver.height} clean"
    if cases:
        detail += "; " + ", ".join(cases)
    greedy = rostered.filter(pl.col("method") == "greedy")
    if not greedy.is_empty():
        broken = greedy.filter(pl.col("audit") == "hard_violations").height
        mismatched = greedy.filter(pl.col("audit") == "metrics_mismatch").height
        detail += f" (greedy: {broken}/{greedy.height} break hard rules, {mismatched} mismatch)"
    return Target(name, None if solver.is_empty() else bad.is_empty(), detail)


def targets_table(checks: list[Target]) -> str:
    lines = ["| target | verdict | numbers |", "|---|---|---|"]
    lines += [f"| {t.name} | {t.verdict} | {t.detail} |" for t in checks]
    return "\n".join(lines)


def heading(info: dict[str, Any]) -> str:
    """The summary's title line: suite, time, machine and revision (from the sidecar)."""
    machine, git = info["machine"], info["git"]
    return (
        f"{info['suite']} suite, {info['started_utc']}: {machine['cpu_model']}, "
        f"{machine['cores_available']} cores, {info['settings'].get('workers')} CP-SAT workers, "
        f"OR-Tools {machine['ortools']}, commit {(git['commit'] or '?')[:10]}"
        f"{' (dirty)' if git['dirty'] else ''}"
    )


def markdown(runs: pl.DataFrame, progress: pl.DataFrame, heading: str) -> str:
    parts = [f"## {heading}", "", summary_table(runs), ""]
    baselines = baselines_table(runs)
    if baselines:
        parts += ["Baselines:", "", baselines, ""]
    parts += ["Targets:", "", targets_table(targets(runs, progress)), ""]
    return "\n".join(parts)
