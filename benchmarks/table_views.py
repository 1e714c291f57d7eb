"""Each kind of results file the benchmark pages quote, as the markdown table they show.

A view reads one file under ``benchmarks/results/`` and returns the table's lines, so a
figure on a page is the file's figure, rounded as the page rounds it. The views read
with the standard library only (no polars, no solver), so checking every page's tables
takes well under a second; :mod:`benchmarks.tables` picks a view for each marker.
"""

from __future__ import annotations

import csv
import json
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

Row = dict[str, Any]

# INRC-II's soft costs S1-S7, in the order of the competition's description.
INRC2_COSTS = (
    "optimal_coverage",
    "consecutive",
    "days_off",
    "preferences",
    "complete_weekends",
    "total_assignments",
    "working_weekends",
)
# The quick run's instances the headline table quotes, in its order.
QUICK_INSTANCES = (
    "syn-8k",
    "syn-40k",
    "syn-80k",
    "syn-280k",
    "ward_24_7",
    "call_centre_duties",
    "max_size",
)
# The concurrency table's datasets, named as the page names them, and the loads it shows.
CONCURRENCY_INSTANCES = {"call_centre_duties": "call centre", "ward_24_7": "ward 24/7"}
CONCURRENCY_SOLVES = (1, 2, 3)
# The ledger's generated ward names its first shift and its last by when they work.
LEDGER_GROUPS = {"s01": "earlies", "s03": "nights"}


def table(header: Sequence[str], rows: Iterable[Sequence[object]], align: str = "---") -> list[str]:
    """A markdown table as the pages write it (``|---|``, an empty cell ``| |``);
    ``align`` is the rule under every column but the first."""
    rule = "|" + "|".join(["---", *[align] * (len(header) - 1)]) + "|"
    return [_line(header), rule, *(_line(row) for row in rows)]


def _line(cells: Sequence[object]) -> str:
    return "|" + "|".join(f" {cell} " if str(cell) else " " for cell in cells) + "|"


def read_csv(path: Path) -> list[Row]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def whole(value: float | str) -> str:
    """A count or an objective, with thousands separators."""
    return f"{round(float(value)):,}"


def gap_percent(value: float | str) -> str:
    """A gap in percent: one decimal below 100, whole above."""
    number = float(value)
    return f"{number:.0f}" if number >= 100 else f"{number:.1f}"


def seconds(value: float | str) -> str:
    """A short time: two significant figures below a second, one decimal above."""
    number = float(value)
    return f"{number:.2g}" if number < 1 else f"{number:.1f}"


def figure(value: float) -> str:
    """A median as the pages print it: 1, 1.5, 87.5."""
    return f"{value:g}"


def _quick_gap(run: Row) -> str:
    if run["status"] == "optimal":
        return "0 (optimal)"
    if float(run["bound"]) == 0:
        return "100 % (bound 0)"
    return f"{float(run['gap']) * 100:.1f} %"


def _times(ratio: float) -> str:
    return f"{ratio:.1f}x" if ratio < 10 else f"{ratio:.0f}x"


def quick_run(path: Path) -> list[str]:
    """A quick-suite results CSV: the engine on the quoted instances, beside plain CP-SAT
    where the suite ran it."""
    runs = {(r["instance"], r["method"]): r for r in read_csv(path)}
    rows = []
    for name in QUICK_INSTANCES:
        engine, plain = runs[(name, "engine")], runs.get((name, "plain"))
        first, objective = float(engine["first_feasible_seconds"]), float(engine["objective"])
        ratios = ("", "")
        if plain is not None:
            ratios = (
                _times(float(plain["first_feasible_seconds"]) / first),
                _times(float(plain["objective"]) / objective),
            )
        size = whole(engine["size"])
        rows.append((name, size, f"{first:.2f}", whole(objective), _quick_gap(engine), *ratios))
    header = (
        "instance",
        "size",
        "first roster s",
        "objective",
        "gap",
        "plain / engine, first roster",
        "plain / engine, objective",
    )
    return table(header, rows)


def job_control(path: Path) -> list[str]:
    """A ``job-control`` sidecar: each queued job's delays, its end and its audit."""
    rows = [
        (
            t["repeat"],
            f"{t['started_to_visible']:.3f} s",
            f"{t['submitted_to_visible']:.3f} s",
            f"{t['stop_to_final']:.3f} s",
            t["final_status"],
            t["audit"],
        )
        for t in read_json(path)["trials"]
    ]
    header = (
        "repeat",
        "(a) start -> visible",
        "202 -> visible",
        "(b) DELETE -> final",
        "final",
        "audit",
    )
    return table(header, rows)


def inrc2_shipped(path: Path) -> list[str]:
    """An ``inrc2`` sidecar of the shipped sequences: each plan's costs beside the
    shipped roster's total."""
    rows = [
        (
            r["instance"],
            f"**{whole(r['total'])}**",
            *(whole(r[cost]) for cost in INRC2_COSTS),
            r["hard"],
            whole(r["reference"]),
        )
        for r in read_json(path)["rows"]
    ]
    header = ("instance", "total", *(f"S{i}" for i in range(1, 8)), "hard", "shipped roster")
    return table(header, rows, align="---:")


def _above(total: float, bound: float | None) -> str:
    return "-" if not bound else f"+{(total / bound - 1) * 100:.0f} %"


def inrc2_run(path: Path, first: Path) -> list[str]:
    """An ``inrc2`` sidecar beside an earlier run's (the "first run" column): each
    plan's time, costs and the whole-horizon lower bound it stays above."""
    before = {r["instance"]: r["total"] for r in read_json(first)["rows"]}
    rows = [
        (
            r["instance"],
            figure(r["seconds_per_week"]),
            r["workers"],
            figure(r["max_week_wall_seconds"]),
            f"**{whole(r['total'])}**",
            *(whole(r[cost]) for cost in INRC2_COSTS),
            r["hard"],
            whole(before[r["instance"]]),
            whole(r["static_lower_bound"]) if r["static_lower_bound"] else "-",
            _above(r["total"], r["static_lower_bound"]),
        )
        for r in read_json(path)["rows"]
    ]
    header = (
        "instance",
        "CPU s/week",
        "workers",
        "wall s (max week)",
        "total",
        *(f"S{i}" for i in range(1, 8)),
        "hard",
        "first run",
        "static LB",
        "above LB",
    )
    return table(header, rows, align="---:")


def replanning(path: Path) -> list[str]:
    """A ``replanning`` sidecar: the re-plan beside the re-solve that ignores changes."""
    labels = {"replan": "replan (weight 500)", "re-solve": "re-solve (weight 0)"}
    rows = []
    for method, label in labels.items():
        runs = [r for r in read_json(path)["replan"]["rows"] if r["method"] == method]
        other = [r["other_changes"] for r in runs]
        times = [r["seconds"] for r in runs]
        moved = [r["objective"] - r["published_objective"] for r in runs]
        rows.append(
            (
                label,
                len(runs),
                figure(statistics.median(r["absent_slots"] for r in runs)),
                f"{figure(statistics.median(other))} ({max(other)})",
                figure(statistics.median(r["changes"] for r in runs)),
                f"{statistics.median(moved):+g}",
                f"{statistics.median(times):.2f} ({max(times):.2f})",
                sum(r["solver_status"] == "optimal" for r in runs),
            )
        )
    header = (
        "method",
        "runs",
        "median absent slots",
        "median other changes (worst)",
        "median changes",
        "median objective change",
        "median s (worst)",
        "proven optimal",
    )
    return table(header, rows)


def inquiry_compare(path: Path) -> list[str]:
    """An ``inquiry`` sidecar's compare part: each dataset's edited copy against its own."""
    rows = [
        (
            Path(r["dataset"]).stem,
            r["changes"],
            f"{r['objective_delta']:+,.0f}",
            f"{r['ms']['median']:.1f}",
            f"{r['ms']['worst']:.1f}",
        )
        for r in read_json(path)["compare"]["rows"]
    ]
    header = (
        "dataset (greedy roster, 5 cells edited)",
        "changes",
        "objective delta",
        "median ms",
        "worst ms",
    )
    return table(header, rows)


def _broken(part: Row) -> str:
    if not part["hard_violations"]:
        return "0"
    return f"{part['hard_violations']} ({part['hard_codes'].replace(' x1', '')})"


def seam(path: Path) -> list[str]:
    """A ``seam`` sidecar: each cut planned alone and with a history, beside one solve."""
    rows = [
        (
            r["seed"],
            r["cut"],
            _broken(r["alone"]),
            _broken(r["history"]),
            whole(r["whole_cost"]),
            f"{r['alone']['cost'] / r['whole_cost']:.3f}",
            f"{r['history']['cost'] / r['whole_cost']:.3f}",
        )
        for r in read_json(path)["runs"]
    ]
    header = (
        "seed",
        "cut",
        "hard, alone",
        "hard, with history",
        "one solve",
        "alone / one",
        "history / one",
    )
    return table(header, rows)


def ledger(path: Path) -> list[str]:
    """A ``ledger`` sidecar: each fairness group's spread and excess, three ways."""
    rows = [
        (
            r["seed"],
            LEDGER_GROUPS.get(r["shifts"], r["shifts"]),
            r["policy"],
            r["alone"],
            r["ledger"],
            r["one_solve"],
            "met" if r["ledger"] <= r["one_solve"] + 1 else "missed",
            r["alone_excess"],
            r["ledger_excess"],
            r["one_solve_excess"],
        )
        for r in read_json(path)["rows"]
    ]
    header = (
        "seed",
        "group",
        "policy",
        "spread alone",
        "spread, ledger",
        "spread, one solve",
        "target",
        "excess alone",
        "excess, ledger",
        "excess, one solve",
    )
    return table(header, rows)


def _ratio(value: float, alone: float) -> str:
    ratio = value / alone
    return f"{ratio:.2f}x" if ratio < 10 else f"{ratio:.0f}x"


def concurrency(path: Path) -> list[str]:
    """A ``concurrency`` CSV: the median audited objective of N solves at once, per time
    limit and worker count; on the two-worker columns, its ratio to one solve alone."""
    found: dict[tuple[str, int, float, int], list[float]] = {}
    for r in read_csv(path):
        if r["objective"]:
            key = (
                Path(r["instance"]).stem,
                int(r["solves"]),
                float(r["time_limit"]),
                int(r["workers"]),
            )
            found.setdefault(key, []).append(float(r["objective"]))
    median = {key: statistics.median(values) for key, values in found.items()}
    columns = [(5.0, 1), (5.0, 2), (30.0, 1), (30.0, 2)]
    rows = []
    for instance, name in CONCURRENCY_INSTANCES.items():
        for solves in CONCURRENCY_SOLVES:
            cells = []
            for limit, workers in columns:
                value = median[(instance, solves, limit, workers)]
                alone = median[(instance, 1, limit, workers)]
                ratio = f" ({_ratio(value, alone)})" if workers == 2 and solves > 1 else ""
                cells.append(f"{whole(value)}{ratio}")
            rows.append((name, solves, *cells))
    header = (
        "instance",
        "N at once",
        "5 s, 1 worker",
        "5 s, 2 workers",
        "30 s, 1 worker",
        "30 s, 2 workers",
    )
    return table(header, rows)
