"""``python -m benchmarks <command>``: the suites, charts and comparisons, and the
Curtois & Qu benchmark. Each command parses its own options (``COMMAND --help``); heavy
modules are imported by the command that needs them, so help starts fast. ``_one`` is
internal: the runner starts it once per (instance, method) in a fresh process.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path


def _run(argv: list[str]) -> int:
    from benchmarks.runner import RESULTS, run_suite
    from benchmarks.suite import SUITES, load_suite

    parser = argparse.ArgumentParser(
        prog="python -m benchmarks run",
        description="Run a suite: every instance with every method, one fresh process each.",
    )
    parser.add_argument(
        "--suite", default="quick", help="quick, full, search, or a suite file's path"
    )
    parser.add_argument(
        "--time-limit-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="multiply every time limit of the suite by X (default 1)",
    )
    parser.add_argument("--workers", type=int, default=2, help="CP-SAT workers per run")
    parser.add_argument(
        "--out", type=Path, default=RESULTS, metavar="DIR", help="results directory"
    )
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="run only these instances of the suite"
    )
    parser.add_argument("--no-charts", action="store_true", help="skip the HTML charts")
    args = parser.parse_args(argv)
    try:
        suite = load_suite(args.suite)
    except FileNotFoundError:
        known = ", ".join(sorted(p.stem for p in SUITES.glob("*.json")))
        parser.error(f"no suite {args.suite!r}: give one of {known}, or a suite file's path")
    csv, summary = run_suite(
        suite,
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
    from benchmarks.report import heading
    from benchmarks.runner import summarise

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


def _forward(module: str) -> Callable[[list[str]], int]:
    """A command whose module has its own ``main(argv)``."""

    def run(argv: list[str]) -> int:
        return int(importlib.import_module(f"benchmarks.{module}").main(argv))

    return run


COMMANDS: dict[str, tuple[str, Callable[[list[str]], int]]] = {
    "run": ("run a suite (quick, full, search, or a suite file)", _run),
    "report": ("print the summary of a results CSV again", _report),
    "targets": ("check the search targets of a search-suite run", _forward("targets")),
    "charts": ("write the HTML charts of a results CSV", _charts),
    "compare": ("compare two results files, instance by instance", _forward("compare")),
    "scaling": ("one instance at 1, 2, 4, 8 workers", _forward("scaling")),
    "curtois": ("solve one Curtois & Qu instance and check it", _curtois),
    "curtois-report": ("solve and check several Curtois & Qu instances", _curtois),
    "certificate": ("the decomposition's bound alone on Curtois & Qu", _forward("certificate")),
    "local": ("the compiled local search alone: moves per second, cost", _forward("local")),
    "load": ("concurrent solves against a running service", _forward("load")),
    "concurrency": ("solves sharing the cores, in one process pool", _forward("concurrency")),
    "job-control": ("queued job: progress shown, stop heeded", _forward("job_control")),
    "push": ("webhooks and event streams: latency beside a hung receiver", _forward("push")),
    "replanning": (
        "re-plan changes after a sick call; recommendation latency",
        _forward("replanning"),
    ),
    "inquiry": ("audit, compare and explain a roster: latency and checks", _forward("inquiry")),
    "abuse": ("an outside abuse probe of the served app, against its targets", _forward("abuse")),
    "seam": ("two periods, alone and with a history: the seam", _forward("seam")),
    "ledger": ("three months one by one: fairness with the ledger", _forward("ledger")),
    "year": ("a year month by month: yearly quotas with the horizon", _forward("year")),
    "fingerprint": ("digests of each suite instance's model and start", _forward("fingerprint")),
    "inrc2": ("INRC-II instances planned week by week, priced", _forward("inrc2")),
    "timefold": (
        "Timefold Solver on one request, priced by the audit",
        _forward("timefold_model.command"),
    ),
    "side-by-side": (
        "the engine and Timefold Solver on the same requests",
        _forward("side_by_side"),
    ),
    "tables": ("render the pages' tables from their results files", _forward("tables")),
}


def _parser() -> argparse.ArgumentParser:
    listing = "\n".join(f"  {name:<16}{text}" for name, (text, _) in COMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Benchmarks of the engine: suites against baselines, the Curtois & Qu "
        "instances, and load on the service. Results go to benchmarks/results/.",
        epilog=f"commands:\n{listing}\n\n'python -m benchmarks COMMAND --help' "
        "shows a command's options; benchmarks/README.md explains the results.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=list(COMMANDS), metavar="COMMAND")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="the command's own options")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "_one":
        from benchmarks.one import main as one

        return one(args[1:])
    parser = _parser()
    if not args:
        parser.print_help(sys.stderr)
        return 2
    parsed = parser.parse_args(args)
    _, run = COMMANDS[parsed.command]
    forwarded = list(parsed.options)
    if parsed.command in ("curtois", "curtois-report"):
        forwarded.insert(0, parsed.command)
    try:
        return run(forwarded)
    except FileNotFoundError as exc:  # a results or dataset file that is not there
        problem = f"no such file: {exc.filename}" if exc.filename else str(exc).splitlines()[0]
        parser.exit(2, f"python -m benchmarks {parsed.command}: error: {problem}\n")
        raise  # unreachable: exit raises SystemExit


if __name__ == "__main__":
    sys.exit(main())
