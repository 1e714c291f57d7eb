"""``python -m benchmarks side-by-side``: the engine and Timefold Solver on the same requests.

The requests are the size sweep of the quick suite (``syn-1k`` ... ``syn-280k``), each
generated in mix ``core`` (``shiftsched.data.synthetic``: the families the Timefold model holds)
at several seeds. The model lacks duties, so a sweep shape ``E x S x D x days`` becomes
``E x S x 0 x (days x max(1, D))``: the same employees, shifts and size, the duties'
share of the size spent on a longer period. Each (request, method) runs in a fresh
process (``python -m benchmarks _one``), one after another: the engine with
``--workers`` CP-SAT workers, Timefold with its one solver thread.

Every run is appended to ``--out`` (default ``benchmarks/results/timefold-side-by-side.csv``)
as soon as it ends, with the seed, the size's name and the commit, so a long run can be
stopped and started again: a (request, method) the file already holds is skipped unless
``--again``. The summary (``benchmarks.side_by_side_report``) is printed and written
beside it as ``.md`` at the end, or alone with ``--report``. The machine and the
settings of each invocation are appended to the ``.json`` beside it.

The full side-by-side (four to five hours on 2 cores, most of it the 300 s Timefold runs):

    python -m benchmarks side-by-side --seeds 0,1,2 --engine 10,30 --timefold 10,30,300
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import time
from pathlib import Path
from typing import Any

import polars as pl

from benchmarks.command_help import docstring_help
from benchmarks.frames import RUN_SCHEMA
from benchmarks.machine import ROOT, git_revision, load_average, machine_info
from benchmarks.runner import RESULTS, run_in_child
from benchmarks.side_by_side_report import markdown
from benchmarks.suite import Instance, load_suite

OUT = RESULTS / "timefold-side-by-side.csv"
SWEEP_NAME = re.compile(r"syn-\d+k")
MIX = "core"
SCHEMA: dict[str, Any] = {
    **RUN_SCHEMA,
    "sweep": pl.String,
    "seed": pl.Int64,
    "commit": pl.String,
    "finished_utc": pl.String,
    "load_1m": pl.Float64,
}


def sweep() -> dict[str, dict[str, int]]:
    """The quick suite's size sweep by name: each shape with its duties moved into days."""
    shapes = {}
    for instance in load_suite("quick").instances:
        source = instance.source.get("synthetic")
        if source is None or source.get("mix") != "all" or not SWEEP_NAME.fullmatch(instance.name):
            continue
        days = source["days"] * max(1, source["duties"])
        shapes[instance.name] = {
            "employees": source["employees"],
            "shifts": source["shifts"],
            "duties": 0,
            "days": days,
        }
    return shapes


def instances(sizes: list[str], seeds: list[int], methods: list[str]) -> list[Instance]:
    """One instance per size and seed, named ``syn-1k-s0``; ValueError for an unknown size."""
    shapes = sweep()
    unknown = [s for s in sizes if s not in shapes]
    if unknown:
        raise ValueError(f"unknown sizes {unknown}; the sweep has {', '.join(shapes)}")
    return [
        Instance(
            name=f"{size}-s{seed}",
            source={"synthetic": {**shapes[size], "seed": seed, "mix": MIX}},
            time_limit=10.0,  # every method label carries its own
            methods=tuple(methods),
        )
        for size in sizes
        for seed in seeds
    ]


def read(path: Path) -> pl.DataFrame:
    """The runs appended so far (an empty frame before the first)."""
    if not path.exists():
        return pl.DataFrame(schema=SCHEMA)
    return pl.read_csv(path, schema=SCHEMA)


def append(path: Path, row: dict[str, Any]) -> None:
    """Adds one run to the file (its header first when the file is new)."""
    frame = pl.DataFrame([{k: row.get(k) for k in SCHEMA}], schema=SCHEMA, orient="row")
    new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        frame.write_csv(handle, include_header=new)


def _relative(path: Path) -> str:
    """A path inside the repository as a repository path (the sidecar is shared)."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else path.name


def _note_invocation(path: Path, settings: dict[str, Any]) -> None:
    """Appends this invocation's settings, machine and revision to the sidecar."""
    sidecar = path.with_suffix(".json")
    invocations = json.loads(sidecar.read_text()) if sidecar.exists() else []
    invocations.append(
        {
            "started_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "settings": settings,
            "load_average": load_average(),
            "machine": machine_info(),
            "git": git_revision(),
        }
    )
    sidecar.write_text(json.dumps(invocations, indent=1) + "\n")


def pending(
    selected: list[Instance], done: pl.DataFrame, again: bool = False
) -> list[tuple[Instance, str]]:
    """The (instance, method label) pairs still to run: those the results lack, or all."""
    ran = {(r["instance"], r["method"]) for r in done.iter_rows(named=True)}
    return [
        (instance, label)
        for instance in selected
        for label in instance.methods
        if again or (instance.name, label) not in ran
    ]


def _row(instance: Instance, label: str, run: dict[str, Any], commit: str | None) -> dict[str, Any]:
    """A child's record with what makes it a row of the appended file."""
    load = load_average()
    return {
        **run,
        "method": label,
        "sweep": instance.name.rsplit("-s", 1)[0],
        "seed": instance.source["synthetic"]["seed"],
        "commit": commit,
        "finished_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "load_1m": load[0] if load else None,
    }


def run(selected: list[Instance], path: Path, workers: int, again: bool) -> int:
    """Runs every (instance, method) still pending, appending each row; how many ran."""
    todo = pending(selected, read(path), again)
    commit = git_revision()["commit"]
    for instance, label in todo:
        method, limit = instance.run_of(label)
        started = time.perf_counter()
        row = _row(instance, label, run_in_child(instance, method, limit, workers)["run"], commit)
        append(path, row)
        print(
            f"{instance.name:>14} {label:<13} {row.get('audit')!s:<16} "
            f"objective {row.get('objective')} first {row.get('first_feasible_seconds')} "
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    return len(todo)


def _numbers(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks side-by-side", **docstring_help(__doc__)
    )
    parser.add_argument("--sizes", default=",".join(sweep()), help="sweep sizes, comma-separated")
    parser.add_argument("--seeds", default="0,1,2", help="seeds, comma-separated (default 0,1,2)")
    parser.add_argument("--engine", default="10,30", help="engine time limits in s (default 10,30)")
    parser.add_argument(
        "--timefold", default="10,30,300", help="Timefold time limits in s (default 10,30,300)"
    )
    parser.add_argument("--workers", type=int, default=2, help="CP-SAT workers of the engine")
    parser.add_argument("--out", type=Path, default=OUT, help="the results CSV, appended to")
    parser.add_argument("--again", action="store_true", help="run pairs the file already has")
    parser.add_argument("--report", action="store_true", help="only summarise the file")
    return parser


def main(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.report:
        methods = [f"engine@{s}" for s in _numbers(args.engine)]
        methods += [f"timefold@{s}" for s in _numbers(args.timefold)]
        try:
            selected = instances(args.sizes.split(","), _numbers(args.seeds), methods)
        except ValueError as error:
            parser.error(str(error))
        settings = {k: str(v) for k, v in vars(args).items() if k not in ("out", "report")}
        _note_invocation(args.out, {**settings, "out": _relative(args.out)})
        run(selected, args.out, args.workers, args.again)
    if not args.out.exists():
        parser.error(f"no results yet in {args.out}")
    table = markdown(read(args.out))
    args.out.with_suffix(".md").write_text(table + "\n")
    print(table)
    return 0
