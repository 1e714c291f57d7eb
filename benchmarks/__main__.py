"""``python -m benchmarks <command>``: run suites, chart and compare results, scale threads.

Commands: ``run``, ``report`` (reprint a summary), ``targets`` (the search targets of a
``search`` suite run, :mod:`benchmarks.targets`), ``charts``, ``compare``, ``scaling``,
``curtois`` / ``curtois-report`` (forwarded to :mod:`benchmarks.curtois`), ``load``
(concurrent solves against a service, :mod:`benchmarks.load`) and ``concurrency``
(solves sharing the cores, :mod:`benchmarks.concurrency`). ``_one``
is internal: the runner starts it once per (instance, method) in a fresh process. Heavy
modules are imported by the command that needs them, so ``--help`` and ``_one`` start
fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _run(argv: list[str]) -> int:
    from benchmarks.runner import RESULTS, run_suite
    from benchmarks.suite import load_suite

    parser = argparse.ArgumentParser(prog="python -m benchmarks run")
    parser.add_argument("--suite", default="quick", help="quick, full or a suite file path")
    parser.add_argument("--time-limit-scale", type=float, default=1.0, metavar="X")
    parser.add_argument("--workers", type=int, default=2, help="CP-SAT workers per run")
    parser.add_argument("--out", type=Path, default=RESULTS, metavar="DIR")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these instances")
    parser.add_argument("--no-charts", action="store_true")
    args = parser.parse_args(argv)
    csv, summary = run_suite(
        load_suite(args.suite),
        only=args.only,
        time_scale=args.time_limit_scale,
        workers=args.workers,
        out_dir=args.out,
        charts=not args.no_charts,
    )
    print()
    print(summary)
    print(f"results: {csv}")
    return 0


def _charts(argv: list[str]) -> int:
    from benchmarks.charts import save_suite_charts

    parser = argparse.ArgumentParser(prog="python -m benchmarks charts")
    parser.add_argument("results", type=Path, help="a results CSV (its progress file beside it)")
    args = parser.parse_args(argv)
    for path in save_suite_charts(args.results):
        print(path)
    return 0


def _report(argv: list[str]) -> int:
    import json

    from benchmarks import frames
    from benchmarks.runner import heading, summarise

    parser = argparse.ArgumentParser(prog="python -m benchmarks report")
    parser.add_argument("results", type=Path, help="a results CSV (sidecar and progress beside it)")
    args = parser.parse_args(argv)
    sidecar = args.results.with_suffix(".json")
    title = heading(json.loads(sidecar.read_text())) if sidecar.exists() else args.results.stem
    runs, progress = frames.read_runs(args.results), frames.read_progress(args.results)
    print(summarise(runs, progress, title))
    return 0


def _curtois(argv: list[str]) -> int:
    from benchmarks.curtois import main

    return main(argv)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "_one":
        from benchmarks.one import main as one

        return one(rest)
    if command in ("curtois", "curtois-report"):
        return _curtois(args)
    if command == "compare":
        from benchmarks.compare import main as compare

        return compare(rest)
    if command == "scaling":
        from benchmarks.scaling import main as scaling

        return scaling(rest)
    if command == "targets":
        from benchmarks.targets import main as targets

        return targets(rest)
    if command == "load":
        from benchmarks.load import main as load

        return load(rest)
    if command == "concurrency":
        from benchmarks.concurrency import main as concurrency

        return concurrency(rest)
    commands = {"run": _run, "charts": _charts, "report": _report}
    if command not in commands:
        print(f"unknown command {command!r}\n\n{__doc__}", file=sys.stderr)
        return 2
    return commands[command](rest)


if __name__ == "__main__":
    sys.exit(main())
