"""``python -m benchmarks scaling``: one instance, the engine at several worker counts.

CP-SAT's portfolio runs different strategies on different workers, so more workers can
find a first roster sooner and a better one by the deadline, up to the cores there are.
Counts above the available cores still run (the row says ``oversubscribed``): the
threads then share cores and the figure shows what that costs. Each count runs in a
fresh process, one after another, like a suite run.

Writes ``<timestamp>-scaling-<instance>`` results (CSV, parquet, progress, sidecar) and a
chart of time to first feasible and objective at the deadline against workers.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import altair as alt
import polars as pl

from benchmarks import frames
from benchmarks.runner import RESULTS, run_in_child, sidecar, timestamp
from benchmarks.suite import load_suite

DEFAULT_INSTANCE = "syn-80k"


def scaling_chart(runs: pl.DataFrame, instance: str) -> alt.HConcatChart:
    base = alt.Chart(runs).encode(
        x=alt.X("workers:O", title="CP-SAT workers"),
        color=alt.Color(
            "oversubscribed:N",
            title="oversubscribed",
            scale=alt.Scale(range=["#4c78a8", "#e45756"]),
        ),
        tooltip=["workers:O", "first_feasible_seconds:Q", "objective:Q", "gap:Q", "cores:Q"],
    )
    first = base.mark_bar().encode(y=alt.Y("first_feasible_seconds:Q", title="seconds"))
    objective = base.mark_bar().encode(y=alt.Y("objective:Q", title="objective at the deadline"))
    chart: alt.HConcatChart = alt.hconcat(
        first.properties(title="Time to first feasible", width=260, height=240),
        objective.properties(title="Objective at the deadline", width=260, height=240),
    ).properties(title=f"Thread scaling: {instance}")
    return chart


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks scaling")
    parser.add_argument("--suite", default="quick", help="where the instance is defined")
    parser.add_argument(
        "--instance", default=DEFAULT_INSTANCE, help="an instance name of the suite"
    )
    parser.add_argument("--workers", default="1,2,4,8", help="comma-separated worker counts")
    parser.add_argument("--time-limit", type=float, help="default: the suite's for the instance")
    parser.add_argument(
        "--out", type=Path, default=RESULTS, metavar="DIR", help="results directory"
    )
    args = parser.parse_args(argv)
    suite = load_suite(args.suite)
    (instance,) = suite.select([args.instance])
    counts = [int(w) for w in args.workers.split(",") if w.strip()]
    limit = args.time_limit or instance.time_limit
    started = timestamp()
    records, points = [], []
    for workers in counts:
        result = run_in_child(instance, "engine", limit, workers)
        run = result["run"]
        print(
            f"workers {workers:>2}{' (oversubscribed)' if run['oversubscribed'] else ''}: "
            f"first {run.get('first_feasible_seconds')} s, objective {run.get('objective')}, "
            f"status {run.get('status')}"
        )
        records.append(run)
        points += [
            {"instance": instance.name, "method": "engine", "workers": workers, **p}
            for p in result["progress"]
        ]
    runs, progress = frames.runs_frame(records), frames.progress_frame(points)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{started}-scaling-{instance.name}"
    frames.write(runs, progress, stem)
    info = sidecar(
        suite,
        {"started_utc": started, "instance": instance.name, "workers": counts, "time_limit": limit},
    )
    stem.with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    chart = scaling_chart(runs, instance.name)
    for fmt in ("png", "svg", "html"):
        chart.save(str(stem.with_name(f"{stem.name}-chart.{fmt}")))
    print(f"results: {stem.with_suffix('.csv')}")
    return 0
