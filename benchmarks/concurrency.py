"""``python -m benchmarks concurrency``: roster quality when solves share the cores.

The service runs a few synchronous solves at once, each with some CP-SAT workers. On a
small machine those solves compete for the same cores, so each roster gets less search
than it would alone. This benchmark measures how much: for each time limit T, number of
simultaneous solves N and CP-SAT worker count W, it starts N solves of the same request
at the same moment, each in its own process with its own seed, and records each one's
audited objective (``shiftsched.checking.audit``: the roster priced independently), status, wall
time and CPU time.

Per (instance, T, N, W) it reports the median and worst objective, the median wall time,
the rosters per minute the batch delivered, and the median objective against the N=1
run of the same (instance, T, W) in the same session (1.00x: sharing the cores cost
nothing; above: worse rosters).

Batches run one after another, never side by side; repeats go round the whole grid, so a
change of load on the machine spreads over every cell rather than biasing a few.
Results: ``<timestamp>-concurrency`` ``.csv`` (one row per solve), ``.md`` (the tables)
and ``.json`` (settings, machine, revision) under ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import queue
import resource
import statistics
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from benchmarks.command_help import docstring_help
from benchmarks.load import audit_solution, int_list, markdown_table
from benchmarks.machine import ROOT, git_revision, load_average, machine_info
from benchmarks.runner import RESULTS, timestamp
from shiftsched.contract.parse import parse_request

DEFAULT_DATASETS = ("datasets/ward_24_7.json", "datasets/call_centre_duties.json")
START_SECONDS = 120.0  # for every process of a batch to import the engine and line up
MARGIN_SECONDS = 60.0  # beyond the time limit before a solve counts as lost


@dataclass(frozen=True)
class Solve:
    """One solve of a batch. ``objective`` is the audit's; None: no roster."""

    instance: str
    time_limit: float
    solves: int  # N, the batch size
    workers: int  # W, CP-SAT workers of each solve
    repeat: int
    seed: int
    status: str  # optimal, feasible or the error code; lost: no result in time
    objective: float | None
    reported_objective: float | None
    audit: str  # clean, hard_violations, metrics_mismatch, unreadable, no_roster
    wall_seconds: float | None
    cpu_seconds: float | None
    batch_seconds: float  # from release to the last result of the batch


def _solve_child(
    data: Any,
    time_limit: float,
    workers: int,
    seed: int,
    slot: int,
    barrier: Any,
    results: Any,
) -> None:
    """Runs in a fresh process: import, line up with the batch, solve, send the result."""
    from shiftsched.solving.solve import SolveLimits, solve

    request = parse_request(data)
    limits = SolveLimits(
        time_limit_seconds=time_limit,
        num_workers=workers,
        random_seed=seed,
        diagnosis_budget_seconds=0,
    )
    barrier.wait(START_SECONDS)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    response = solve(request, limits)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
    results.put((slot, wall, cpu, response.model_dump(mode="json", exclude_none=True)))


def run_batch(
    name: str,
    data: dict[str, Any],
    time_limit: float,
    solves: int,
    workers: int,
    repeat: int,
) -> list[Solve]:
    """N solves released together, each in its own process; every process is ended."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(solves + 1)
    results = context.Queue()
    seeds = [repeat * 100 + i for i in range(solves)]
    processes = [
        context.Process(
            target=_solve_child,
            args=(data, time_limit, workers, seed, slot, barrier, results),
            daemon=True,
        )
        for slot, seed in enumerate(seeds)
    ]
    for process in processes:
        process.start()
    answers: dict[int, tuple[float, float, dict[str, Any]]] = {}
    try:
        released = time.perf_counter()
        try:
            barrier.wait(START_SECONDS)
        except threading.BrokenBarrierError:  # a process died before its solve: all lost
            deadline = released
        else:
            released = time.perf_counter()
            deadline = released + time_limit + MARGIN_SECONDS
        while len(answers) < solves and time.perf_counter() < deadline:
            try:
                slot, wall, cpu, response = results.get(timeout=1.0)
            except queue.Empty:
                continue
            answers[slot] = (wall, cpu, response)
        batch = time.perf_counter() - released
    finally:
        for process in processes:
            process.join(5.0)
            if process.is_alive():
                process.kill()
                process.join()
    request = parse_request(data)
    rows = []
    for slot, seed in enumerate(seeds):
        row = Solve(
            instance=name,
            time_limit=time_limit,
            solves=solves,
            workers=workers,
            repeat=repeat,
            seed=seed,
            status="lost",
            objective=None,
            reported_objective=None,
            audit="no_roster",
            wall_seconds=None,
            cpu_seconds=None,
            batch_seconds=batch,
        )
        if slot in answers:
            wall, cpu, response = answers[slot]
            row = _judged(row, request, response, wall, cpu)
        rows.append(row)
    return rows


def _judged(row: Solve, request: Any, response: dict[str, Any], wall: float, cpu: float) -> Solve:
    """``row`` with one solve's response: its status and, for a roster, the audit's price."""
    row = replace(row, wall_seconds=wall, cpu_seconds=cpu)
    solution = response.get("solution")
    if solution is None:
        status = (response.get("error") or {}).get("code", response.get("status", "?"))
        return replace(row, status=str(status))
    audited = audit_solution(request, solution)
    metrics = solution["metrics"]
    return replace(
        row,
        status=str(metrics.get("status")),
        objective=audited.objective,
        reported_objective=metrics.get("objective_value"),
        audit=audited.verdict,
    )


# ----------------------------------------------------------------------------- summary


@dataclass(frozen=True)
class Cell:
    """All solves of one (instance, T, N, W), over every repeat."""

    instance: str
    time_limit: float
    solves: int
    workers: int
    count: int
    rosters: int
    median_objective: float | None
    worst_objective: float | None
    best_objective: float | None
    median_wall: float | None
    median_cpu: float | None
    per_minute: float | None  # rosters per minute the batches delivered
    statuses: dict[str, int]
    clean: int
    baseline: float | None  # the N=1 median objective of the same (instance, T, W)

    @property
    def versus_baseline(self) -> float | None:
        if self.median_objective is None or self.baseline is None:
            return None
        if self.baseline == 0:
            return 1.0 if self.median_objective == 0 else None
        return self.median_objective / self.baseline


def _median(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def cells(solves: Sequence[Solve]) -> list[Cell]:
    """One cell per (instance, T, N, W) in first-seen order, N=1 as each one's baseline."""
    groups: dict[tuple[str, float, int, int], list[Solve]] = defaultdict(list)
    for s in solves:
        groups[(s.instance, s.time_limit, s.solves, s.workers)].append(s)
    medians = {key: _median(s.objective for s in group) for key, group in groups.items()}
    out = []
    for (instance, limit, n, w), group in sorted(groups.items()):
        objectives = [s.objective for s in group if s.objective is not None]
        batches = {s.repeat: s.batch_seconds for s in group}
        delivered = len(objectives)
        seconds = sum(batches.values())
        out.append(
            Cell(
                instance=instance,
                time_limit=limit,
                solves=n,
                workers=w,
                count=len(group),
                rosters=delivered,
                median_objective=medians[(instance, limit, n, w)],
                worst_objective=max(objectives, default=None),
                best_objective=min(objectives, default=None),
                median_wall=_median(s.wall_seconds for s in group),
                median_cpu=_median(s.cpu_seconds for s in group),
                per_minute=60 * delivered / seconds if seconds > 0 else None,
                statuses=dict(sorted(Counter(s.status for s in group).items())),
                clean=sum(s.audit == "clean" for s in group),
                baseline=medians.get((instance, limit, 1, w)),
            )
        )
    return out


def _number(value: float | None, pattern: str = "{:,.0f}") -> str:
    return "-" if value is None else pattern.format(value)


def cells_table(rows: Sequence[Cell]) -> str:
    header = ["instance", "T s", "W", "N", "solves", "median obj", "worst obj", "best obj"]
    header += ["vs N=1", "median wall s", "median CPU s", "rosters/min", "statuses"]
    return markdown_table(
        [*header, "audit clean"],
        (
            [
                Path(c.instance).stem,
                f"{c.time_limit:g}",
                str(c.workers),
                str(c.solves),
                str(c.count),
                _number(c.median_objective),
                _number(c.worst_objective),
                _number(c.best_objective),
                _number(c.versus_baseline, "{:.2f}x"),
                _number(c.median_wall, "{:.1f}"),
                _number(c.median_cpu, "{:.1f}"),
                _number(c.per_minute, "{:.1f}"),
                ", ".join(f"{s} {n}" for s, n in c.statuses.items()),
                f"{c.clean}/{c.count}",
            ]
            for c in rows
        ),
    )


def _pivot_value(cell: Cell | None) -> str:
    if cell is None:
        return "-"
    ratio = cell.versus_baseline
    text = _number(cell.median_objective)
    return text if ratio is None or cell.solves == 1 else f"{text} ({ratio:.2f}x)"


def pivot_table(rows: Sequence[Cell]) -> str:
    """Median objective: one row per (instance, N), one column per (T, W)."""
    columns = sorted({(c.time_limit, c.workers) for c in rows})
    by_key = {(c.instance, c.solves, c.time_limit, c.workers): c for c in rows}
    return markdown_table(
        ["instance", "N", *(f"T={t:g} W={w}" for t, w in columns)],
        (
            [Path(i).stem, str(n), *(_pivot_value(by_key.get((i, n, t, w))) for t, w in columns)]
            for i, n in sorted({(c.instance, c.solves) for c in rows})
        ),
    )


def markdown(rows: Sequence[Cell], heading: str, command: str) -> str:
    return "\n".join(
        [
            f"## {heading}",
            "",
            f"`{command}`",
            "",
            "Median audited objective (lower is better; in brackets against N=1 of the same "
            "T and W):",
            "",
            pivot_table(rows),
            "",
            "Every cell:",
            "",
            cells_table(rows),
            "",
        ]
    )


def write_results(solves: Sequence[Solve], summary: str, info: dict[str, Any], stem: Path) -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    with stem.with_suffix(".csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(Solve.__dataclass_fields__))
        writer.writeheader()
        writer.writerows(s.__dict__ for s in solves)
    stem.with_suffix(".md").write_text(summary, encoding="utf-8")
    stem.with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")


def _floats(text: str) -> list[float]:
    values = [float(part) for part in text.split(",") if part.strip()]
    if not values or min(values) <= 0:
        raise argparse.ArgumentTypeError(f"expected positive numbers, got {text!r}")
    return values


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks concurrency", **docstring_help(__doc__)
    )
    parser.add_argument(
        "--dataset",
        nargs="+",
        default=list(DEFAULT_DATASETS),
        metavar="PATH",
        help="requests to solve (paths from the repository root)",
    )
    parser.add_argument(
        "--limits",
        type=_floats,
        default=[5.0, 30.0],
        metavar="T,...",
        help="time limits in seconds",
    )
    parser.add_argument(
        "--solves",
        type=int_list,
        default=[1, 2, 3, 4, 6],
        metavar="N,...",
        help="how many solves share the cores at once",
    )
    parser.add_argument(
        "--workers",
        type=int_list,
        default=[1, 2],
        metavar="W,...",
        help="CP-SAT workers per solve",
    )
    parser.add_argument("--repeats", type=int, default=1, help="batches per cell")
    parser.add_argument(
        "--out", type=Path, default=RESULTS, metavar="DIR", help="results directory"
    )
    args = parser.parse_args(argv)
    requests = {p: json.loads((ROOT / p).read_text(encoding="utf-8")) for p in args.dataset}
    started, load_before = timestamp(), load_average()
    solves: list[Solve] = []
    for repeat in range(args.repeats):
        for limit in args.limits:
            for name, data in requests.items():
                for workers in args.workers:
                    for n in args.solves:
                        batch = run_batch(name, data, limit, n, workers, repeat)
                        solves += batch
                        objectives = [_number(s.objective) for s in batch]
                        print(
                            f"repeat {repeat} T={limit:g} {Path(name).stem} W={workers} N={n}: "
                            f"{', '.join(objectives)} in {batch[0].batch_seconds:.1f} s "
                            f"(load {load_average()})",
                            flush=True,
                        )
    command = "python -m benchmarks concurrency " + " ".join(argv)
    heading = f"Concurrency, {started}: {args.repeats} repeat(s)"
    summary = markdown(cells(solves), heading, command)
    print()
    print(summary)
    info = {
        "started_utc": started,
        "command": command,
        "settings": {
            "datasets": args.dataset,
            "limits": args.limits,
            "solves": args.solves,
            "workers": args.workers,
            "repeats": args.repeats,
        },
        "load_average_start": load_before,
        "machine": machine_info(),
        "git": git_revision(),
    }
    stem = args.out / f"{started}-concurrency"
    write_results(solves, summary, info, stem)
    print(f"results: {stem.with_suffix('.csv')}")
    return 0
