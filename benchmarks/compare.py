"""``python -m benchmarks compare A.csv B.csv``: what changed from run A to run B.

One row per (instance, method) present in both files, with A -> B for time to first
feasible, gap, objective, audit verdict and status, and the regressions flagged:

- time to first feasible up by more than 20 % *and* by at least 0.05 s: small instances
  find a roster in a few hundredths of a second, where +20 % is scheduling noise;
- gap up by more than one percentage point;
- objective worse (higher; any increase, both runs having a roster);
- audit verdict worse (clean < no_roster < metrics_mismatch < hard_violations);
- status worse (optimal < feasible < timeout < infeasible < model_invalid < error).

Rows only in one file are listed but never flagged (suites may differ). With
``--fail-on-regression`` the exit code is 1 when anything is flagged.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import polars as pl

from benchmarks.frames import read_runs
from benchmarks.one import VERDICT_RANK

FIRST_FEASIBLE_RATIO = 1.2
FIRST_FEASIBLE_MIN_SECONDS = 0.05
GAP_POINTS = 0.01
OBJECTIVE_TOLERANCE = 1e-6
STATUS_RANK = {
    "optimal": 0,
    "feasible": 1,
    "timeout": 2,
    "infeasible": 3,
    "model_invalid": 4,
    "error": 5,
}
KEY = ["instance", "method"]


def _worse_rank(rank: dict[str, int], before: Any, after: Any) -> bool:
    worst = max(rank.values()) + 1
    return rank.get(after, worst) > rank.get(before, worst)


def regressions(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The regressions from row ``a`` to row ``b`` of one (instance, method)."""
    found = []
    first_a, first_b = a["first_feasible_seconds"], b["first_feasible_seconds"]
    if (
        first_a is not None
        and first_b is not None
        and first_b > FIRST_FEASIBLE_RATIO * first_a
        and first_b - first_a >= FIRST_FEASIBLE_MIN_SECONDS
    ):
        found.append("first feasible")
    gap_a, gap_b = a["gap"], b["gap"]
    if gap_a is not None and gap_b is not None and gap_b > gap_a + GAP_POINTS:
        found.append("gap")
    obj_a, obj_b = a["objective"], b["objective"]
    if (
        obj_a is not None
        and obj_b is not None
        and obj_b > obj_a + OBJECTIVE_TOLERANCE * max(1.0, abs(obj_a))
    ):
        found.append("objective")
    if _worse_rank(VERDICT_RANK, a["audit"], b["audit"]):
        found.append("audit")
    if _worse_rank(STATUS_RANK, a["status"], b["status"]):
        found.append("status")
    return found


def compare(a: pl.DataFrame, b: pl.DataFrame) -> pl.DataFrame:
    """One row per (instance, method) in both frames: A and B figures and the regressions."""
    columns = ["first_feasible_seconds", "gap", "objective", "audit", "status", "size"]
    joined = a.select(KEY + columns).join(
        b.select(KEY + columns), on=KEY, how="inner", suffix="_b", maintain_order="left"
    )
    rows = []
    for row in joined.iter_rows(named=True):
        before = {c: row[c] for c in columns}
        after = {c: row[f"{c}_b"] for c in columns}
        rows.append(
            {
                "instance": row["instance"],
                "method": row["method"],
                "size": row["size"],
                "first_a": before["first_feasible_seconds"],
                "first_b": after["first_feasible_seconds"],
                "gap_a": before["gap"],
                "gap_b": after["gap"],
                "objective_a": before["objective"],
                "objective_b": after["objective"],
                "audit_a": before["audit"],
                "audit_b": after["audit"],
                "status_a": before["status"],
                "status_b": after["status"],
                "regressions": ", ".join(regressions(before, after)),
            }
        )
    return pl.DataFrame(rows, infer_schema_length=None)


def _cell(value: Any, kind: str = "") -> str:
    if value is None:
        return "-"
    if kind == "gap":
        return f"{100 * value:.1f} %"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)


def table(changes: pl.DataFrame) -> str:
    header = (
        "| instance | method | first s A -> B | gap A -> B | objective A -> B | audit A -> B "
        "| status A -> B | regression |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for r in changes.iter_rows(named=True):
        flag = f"**{r['regressions']}**" if r["regressions"] else ""
        lines.append(
            f"| {r['instance']} | {r['method']} "
            f"| {_cell(r['first_a'])} -> {_cell(r['first_b'])} "
            f"| {_cell(r['gap_a'], 'gap')} -> {_cell(r['gap_b'], 'gap')} "
            f"| {_cell(r['objective_a'])} -> {_cell(r['objective_b'])} "
            f"| {_cell(r['audit_a'])} -> {_cell(r['audit_b'])} "
            f"| {_cell(r['status_a'])} -> {_cell(r['status_b'])} | {flag} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks compare")
    parser.add_argument("a", type=Path, help="the earlier results (CSV or parquet)")
    parser.add_argument("b", type=Path, help="the later results")
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when any (instance, method) got worse",
    )
    args = parser.parse_args(argv)
    a, b = read_runs(args.a), read_runs(args.b)
    changes = compare(a, b)
    print(table(changes) if not changes.is_empty() else "no (instance, method) in both files")
    only_a = a.join(b, on=KEY, how="anti").select(KEY).rows()
    only_b = b.join(a, on=KEY, how="anti").select(KEY).rows()
    for label, rows in (("only in A", only_a), ("only in B", only_b)):
        if rows:
            print(f"\n{label}: " + ", ".join(f"{i}/{m}" for i, m in rows))
    flagged = 0 if changes.is_empty() else changes.filter(pl.col("regressions") != "").height
    print(f"\n{flagged} regression(s) flagged")
    return 1 if flagged and args.fail_on_regression else 0
