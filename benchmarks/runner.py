"""Run a suite: every (instance, method) in a fresh process, then write and summarise.

Runs go one after another, never side by side: each CP-SAT run gets ``--workers``
threads, and two runs sharing the cores would measure the contention, not the engine.
A fresh process per run (``python -m benchmarks _one``) makes the peak memory a
per-run figure and isolates crashes: a run that dies or overruns its time limit by far
becomes a row with status ``error``, and the suite goes on.

Output, under ``--out`` (default ``benchmarks/results/``), named
``<UTC timestamp>-<suite>``: ``.csv`` and ``.parquet`` (one row per run, see
benchmarks/docs/method.md, "Output"), ``-progress.csv.gz`` (the long progress frame),
``.json`` (machine, git revision, suite and settings) and ``.md`` (the summary printed at
the end).
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl

from benchmarks import frames, report, targets
from benchmarks.machine import ROOT, git_revision, load_average, machine_info
from benchmarks.one import failed_run
from benchmarks.suite import Instance, Suite
from shiftsched.contract.size import request_size, schedule_days

RESULTS = ROOT / "benchmarks" / "results"
# A child gets its time limit plus this (model build, audit) before it is killed.
CHILD_MARGIN_SECONDS = 120.0
CHILD_MARGIN_FACTOR = 2.0


def run_in_child(
    instance: Instance, method: str, time_limit: float, workers: int
) -> dict[str, Any]:
    """One run in a fresh interpreter; its JSON result, or an ``error`` row."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        command = [
            sys.executable,
            "-m",
            "benchmarks",
            "_one",
            "--instance",
            json.dumps(instance.to_json()),
            "--method",
            method,
            "--time-limit",
            str(time_limit),
            "--workers",
            str(workers),
            "--out",
            str(out),
        ]
        timeout = CHILD_MARGIN_FACTOR * time_limit + CHILD_MARGIN_SECONDS
        try:
            done = subprocess.run(
                command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            return _with_shape(
                failed_run(instance, method, time_limit, workers, f"killed after {timeout:.0f} s"),
                instance,
            )
        if done.returncode != 0 or not out.exists():
            error = done.stderr or f"exit code {done.returncode}"
            return _with_shape(failed_run(instance, method, time_limit, workers, error), instance)
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return _with_shape(result, instance)


def _with_shape(result: dict[str, Any], instance: Instance) -> dict[str, Any]:
    """Size and shape on every row, also on a failed run's (they come from the request)."""
    run = result["run"]
    if run.get("size") is None:
        request = instance.request()
        run.update(
            size=request_size(request),
            employees=len(request.employees),
            shifts=len(request.shifts),
            duties=len(request.duties),
            days=schedule_days(request.schedule_period),
        )
    run["oversubscribed"] = (run.get("workers") or 1) > (run.get("cores") or 1)
    return result


def run_all(
    instances: list[Instance],
    *,
    time_scale: float,
    workers: int,
    methods: tuple[str, ...] | None = None,
    log: Any = print,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Every (instance, method) of the list, in order; the runs and progress frames."""
    records, points = [], []
    for instance in instances:
        for method in instance.methods:  # a label: "engine", or "engine@10" with its own limit
            if methods is not None and method not in methods:
                continue
            solver, limit = instance.run_of(method)
            started = time.perf_counter()
            result = run_in_child(instance, solver, limit * time_scale, workers)
            run = result["run"]
            run["method"] = method
            log(
                f"{instance.name:>24} {method:<9} {run.get('status')!s:<9} "
                f"first {_seconds(run.get('first_feasible_seconds'))} "
                f"objective {run.get('objective')} gap {_gap(run.get('gap'))} "
                f"audit {run.get('audit')} ({time.perf_counter() - started:.0f} s)",
            )
            records.append(run)
            points += [
                {"instance": instance.name, "method": method, "workers": run.get("workers"), **p}
                for p in result["progress"]
            ]
    return frames.runs_frame(records), frames.progress_frame(points)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def _gap(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def timestamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def write_record(
    out: str, name: str, fields: dict[str, Any], table: str, revision: dict[str, Any] | None = None
) -> Path:
    """``<out>/<timestamp>-<name>.json`` (``fields`` with the machine and the revision)
    and ``.md`` (``table``); the stem written."""
    stem = Path(out) / f"{timestamp()}-{name}"
    stem.parent.mkdir(parents=True, exist_ok=True)
    record = {
        **fields,
        "machine": machine_info(),
        "revision": git_revision() if revision is None else revision,
    }
    stem.with_suffix(".json").write_text(json.dumps(record, indent=1))
    stem.with_suffix(".md").write_text(table + "\n")
    return stem


def _relative(path: Path) -> str:
    """A path inside the repository as a repository path (results are shared)."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else path.name


def sidecar(suite: Suite, settings: dict[str, Any]) -> dict[str, Any]:
    return {
        "suite": suite.name,
        "suite_file": _relative(suite.path),
        "description": suite.description,
        "started_utc": settings.pop("started_utc"),
        "settings": settings,
        "machine": machine_info(),
        "git": git_revision(),
    }


def summarise(runs: pl.DataFrame, progress: pl.DataFrame, title: str) -> str:
    """The summary of a run: the standard report of the runs whose method has no time-limit
    suffix, and the search targets (:mod:`benchmarks.targets`) of those that have one."""
    suffixed = runs.filter(pl.col("method").str.contains("@", literal=True))
    if suffixed.is_empty():
        return report.markdown(runs, progress, title)
    parts = [targets.markdown(suffixed, title)]
    others = runs.filter(~pl.col("method").str.contains("@", literal=True))
    if not others.is_empty():
        parts.append(report.markdown(others, progress, title))
    return "\n".join(parts)


def run_suite(
    suite: Suite,
    *,
    only: list[str] | None,
    time_scale: float,
    workers: int,
    out_dir: Path,
    charts: bool = True,
) -> tuple[Path, str]:
    """Run, write every output file and return the CSV path and the markdown summary."""
    started = timestamp()
    load_at_start = load_average()
    instances = suite.select(only)
    runs, progress = run_all(instances, time_scale=time_scale, workers=workers)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"{started}-{suite.name}"
    frames.write(runs, progress, stem)
    settings = {
        "started_utc": started,
        "time_limit_scale": time_scale,
        "workers": workers,
        "only": only,
        "sequential_runs": True,
        "load_average_at_start": load_at_start,
    }
    info = sidecar(suite, settings)
    stem.with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    summary = summarise(runs, progress, report.heading(info))
    stem.with_suffix(".md").write_text(summary, encoding="utf-8")
    if charts:
        from benchmarks.charts import save_suite_charts

        save_suite_charts(stem.with_suffix(".csv"))
    return stem.with_suffix(".csv"), summary
