"""``python -m benchmarks inrc2``: INRC-II instances planned week by week, as the
competition ran them.

Each instance is planned one week at a time (shiftsched.formats.inrc2_plan): a week sees
only its own data and the history the previous weeks left, and the joined weeks are
priced at the end by the competition's cost function (shiftsched.formats.inrc2_eval). The
table gives each instance's total and its S1-S7 costs, beside the shipped roster of the
same sequence (its evaluator total equals the competition validator's, which the tests
check) when the dataset ships one, and beside published figures.

Time per week: the competition granted each stage ``10 + 3 x (N - 20)`` seconds of one
core for N nurses on its reference machine (the figure the INRC-II scripts of the
NurseScheduler repository use); ``--time-scale F`` multiplies it, ``--seconds-per-week
S`` replaces it. Both are CPU seconds of one core, as the competition counted them.

Workers (``--workers``, by default :func:`auto_workers`): one worker spends the budget
alone, searching with CP-SAT's full LP (shiftsched.formats.inrc2_plan.week_limits), by
default in CP-SAT's deterministic seconds (``--clock work``), so a result does not depend
on what else the machine runs (the wall clock stops a week at 3 x budget + 30 s, a
backstop), or in wall seconds (``--clock wall``). Two or more workers are the engine's
portfolio (CP-SAT beside its neighbourhood search) and share the budget: W workers get
budget / W wall seconds, the same CPU seconds; their result depends on the machine's
load, since the neighbourhood search runs on the wall clock.
``--lookahead K`` models K forecast weeks after each week (shiftsched.formats.inrc2_plan).
``--anticipation A[,B...]`` plans each instance once per way of drawing a week's share of
S6 and S7 (shiftsched.formats.inrc2_shares), side by side in one run.

``--static`` plans the whole horizon as one problem instead, every week's data known
(``plan_static``): the problem the published static optima solve, with ``--seconds S``
(default 300) CPU seconds for the whole horizon, on the same clocks as a week.

``--instances`` takes names as in the literature (``n030w4_1_6-2-9-1``) or a dataset
(``n030w4``: its first competition instance, :data:`DEFAULT_OF`); without it, the
4-week datasets from n030 to n120. Results: ``<timestamp>-inrc2`` ``.json`` and ``.md``
under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from typing import Any

from benchmarks.command_help import docstring_help
from benchmarks.load import markdown_table
from benchmarks.machine import git_revision
from benchmarks.runner import RESULTS, write_record
from shiftsched.formats.inrc2 import DATASET_DIR, load_sequence
from shiftsched.formats.inrc2_eval import SOFT, evaluate
from shiftsched.formats.inrc2_plan import (
    Instance,
    PlannedWeek,
    WeekByWeek,
    load_instance,
    plan_static,
    plan_weeks,
    week_limits,
)
from shiftsched.formats.inrc2_sampling import Sampling
from shiftsched.formats.inrc2_shares import ANTICIPATIONS
from shiftsched.solving.problem import Problem
from shiftsched.solving.solve import SolveLimits

# The competition's 4-week instances (two per dataset, as its final and later papers use
# them: the instance lists of the NurseScheduler repository, benchmark/d_w4.yml).
COMPETITION_W4 = (
    "n030w4_1_6-2-9-1", "n030w4_1_6-7-5-3", "n035w4_0_1-7-1-8", "n035w4_2_8-8-7-5",
    "n040w4_0_2-0-6-1", "n040w4_2_6-1-0-6", "n050w4_0_0-4-8-7", "n050w4_0_7-2-7-2",
    "n060w4_1_6-1-1-5", "n060w4_1_9-6-3-8", "n070w4_0_3-6-5-1", "n070w4_0_4-9-6-7",
    "n080w4_2_4-3-3-3", "n080w4_2_6-0-4-8", "n100w4_0_1-1-0-8", "n100w4_2_0-6-4-6",
    "n110w4_0_1-4-2-8", "n110w4_0_1-9-3-5", "n120w4_1_4-6-2-6", "n120w4_1_5-6-9-8",
)  # fmt: skip
DEFAULT_OF = {name.split("_")[0]: name for name in reversed(COMPETITION_W4)}
DEFAULT_INSTANCES = tuple(
    DEFAULT_OF[f"n{n:03d}w4"] for n in (30, 35, 40, 50, 60, 70, 80, 100, 110, 120)
)
# Optima of the whole-horizon problem (every week known in advance), found by
# NurseScheduler's branch-and-price: the target of --static.
STATIC_OPTIMUM = {
    "n030w4_1_6-2-9-1": 1670, "n035w4_0_1-7-1-8": 1360, "n040w4_0_2-0-6-1": 1565,
    "n050w4_0_0-4-8-7": 1315, "n060w4_1_6-1-1-5": 2450, "n070w4_0_3-6-5-1": 2380,
    "n080w4_2_4-3-3-3": 3300, "n100w4_0_1-1-0-8": 1170, "n110w4_0_1-4-2-8": 2330,
    "n120w4_1_4-6-2-6": 2020,
}  # fmt: skip
# Lower bounds of the whole-horizon problem (every week known in advance), which no
# week-by-week plan can beat: the root of NurseScheduler's branch-and-price, rounded up
# (repository wssuite/NurseScheduler, results/root_1655381837.yml).
STATIC_LOWER_BOUND = {"n030w4_1_6-2-9-1": 1660, "n035w4_0_1-7-1-8": 1340, "n040w4_0_2-0-6-1": 1540}


def stage_seconds(nurses: int, scale: float) -> float:
    """The competition's budget per stage for ``nurses`` nurses, times ``scale``."""
    return max(5, 10 + 3 * (nurses - 20)) * scale


def instance_of(name: str) -> Instance:
    return load_instance(DEFAULT_OF.get(name, name))


def reference_total(instance: Instance) -> int | None:
    """The evaluator's total of the shipped roster of this very sequence, if shipped."""
    dataset, history, weeks = instance.name.split("_")
    folder = DATASET_DIR / dataset / f"Solution_H_{history}-WD_{weeks}"
    if not folder.is_dir():
        return None
    run = load_sequence(folder)
    return evaluate(run.scenario, run.history, run.weeks, run.solutions).total


# Under --clock work, the wall clock stops a week at 3 x budget + 30 s (--backstop F: F x).
BACKSTOP = (3.0, 30.0)
PORTFOLIO_FROM = 41  # nurses: from here on, auto_workers gives the portfolio two workers


def auto_workers(nurses: int) -> int:
    """One worker up to 40 nurses, two (the portfolio, sharing the CPU budget) above.

    Measured on the first week of n030w4_1_6-2-9-1, n070w4_0_3-6-5-1 and
    n120w4_1_4-6-2-6 (benchmarks/docs/inrc-ii.md, "INRC-II planned week by week"): for the
    same CPU seconds the single worker with the full LP wins on 30 nurses (490 against
    635) and loses by far from 70 on (1195 against 880; 3275 against 995), where it
    cannot leave the greedy start's neighbourhood.
    """
    return 1 if nurses < PORTFOLIO_FROM else 2


def clocked(
    budget: float, workers: int, clock: str, seed: int, backstop: float = BACKSTOP[0]
) -> SolveLimits:
    """``budget`` CPU seconds: W > 1 workers get budget / W wall seconds; one worker
    deterministic seconds (``work``, the wall clock a backstop at ``backstop`` x budget
    + 30 s) or wall seconds."""
    if workers > 1:
        return week_limits(budget / workers, workers, seed=seed)
    if clock == "wall":
        return week_limits(budget, 1, seed=seed)
    return week_limits(backstop * budget + BACKSTOP[1], 1, seed=seed, work=budget)


def run_static(
    name: str,
    seconds: float,
    workers: int,
    clock: str = "work",
    backstop: float = BACKSTOP[0],
    week_scale: float | None = None,
) -> dict[str, Any]:
    """Plan one instance's whole horizon as one problem; its row of the results.
    ``week_scale``: first plan it week by week at that share of the competition's time
    (one worker up to 40 nurses, as ``run_instance``), and start the whole horizon from
    that plan; its total and CPU seconds are in the row, the static ``seconds`` besides."""
    instance = instance_of(name)
    started = time.perf_counter()
    weeks = None
    if week_scale is not None:
        nurses = len(instance.scenario.nurses)
        budget = stage_seconds(nurses, week_scale)
        weeks = week_by_week(instance, budget, auto_workers(nurses), clock, backstop=backstop)
    plan = plan_static(instance, clocked(seconds, workers, clock, 0, backstop), start=weeks)
    return {
        "instance": instance.name,
        "nurses": len(instance.scenario.nurses),
        "seconds": seconds,
        "week_scale": week_scale,
        "weeks_total": None if weeks is None else weeks.evaluation.total,
        "weeks_seconds": None if weeks is None else budget * len(instance.weeks),
        "workers": workers,
        "clock": clock if workers == 1 else "wall",
        "status": plan.status,
        "objective": plan.objective,
        "best_bound": plan.best_bound,
        "total": plan.evaluation.total,
        **plan.evaluation.costs,
        "hard": sum(plan.evaluation.hard.values()),
        "static_optimum": STATIC_OPTIMUM.get(instance.name),
        "wall_seconds": round(time.perf_counter() - started, 1),
    }


def static_table(rows: list[dict[str, Any]]) -> str:
    header = ["instance", "start", "CPU s", "workers", "status", "model", "bound", "total"]
    header += [*COLUMNS, "hard", "static optimum", "above"]
    body = []
    for r in rows:
        best, bound = r["static_optimum"], r["best_bound"]
        above = "-" if best is None else f"{100 * (r['total'] - best) / best:+.0f} %"
        body.append(
            [
                r["instance"],
                _start(r),
                f"{r['seconds']:g}",
                f"{r['workers']} ({r['clock']})",
                r["status"],
                f"{r['objective']:.0f}",
                "-" if bound is None else f"{bound:.0f}",
                str(r["total"]),
                *(str(r[kind]) for kind in SOFT),
                str(r["hard"]),
                "-" if best is None else str(best),
                above,
            ]
        )
    return markdown_table(header, body)


def _start(row: dict[str, Any]) -> str:
    """The static row's start: greedy, or the week-by-week plan's total and CPU s."""
    if row.get("weeks_total") is None:
        return "greedy"
    return f"weeks {row['weeks_total']:,} ({row['weeks_seconds']:g} s)"


def run_instance(
    name: str,
    seconds: float | None,
    scale: float,
    workers: int | None,
    clock: str = "work",
    lookahead: int = 0,
    anticipation: str = "prorate",
    backstop: float = BACKSTOP[0],
    sampling: Sampling | None = None,
) -> dict[str, Any]:
    """Plan one instance; its row of the results."""
    instance = instance_of(name)
    nurses = len(instance.scenario.nurses)
    budget = seconds if seconds is not None else stage_seconds(nurses, scale)
    count = workers or auto_workers(nurses)
    started = time.perf_counter()
    plan = week_by_week(instance, budget, count, clock, lookahead, anticipation, backstop, sampling)
    evaluation = plan.evaluation
    return {
        "instance": instance.name,
        "anticipation": anticipation if sampling is None else sampled_label(sampling),
        "nurses": nurses,
        "seconds_per_week": round(budget, 1),
        "workers": count,
        "clock": clock if count == 1 else "wall",
        "lookahead": lookahead,
        "max_week_wall_seconds": round(max(w.runtime_seconds for w in plan.weeks), 1),
        "total": evaluation.total,
        **evaluation.costs,
        "hard": sum(evaluation.hard.values()),
        "reference": reference_total(instance),
        "static_lower_bound": STATIC_LOWER_BOUND.get(instance.name),
        "weeks": [
            {k: v for k, v in asdict(w).items() if k not in ("solution", "assignments")}
            for w in plan.weeks
        ],
        "wall_seconds": round(time.perf_counter() - started, 1),
    }


def week_by_week(
    instance: Instance,
    budget: float,
    count: int,
    clock: str = "work",
    lookahead: int = 0,
    anticipation: str = "prorate",
    backstop: float = BACKSTOP[0],
    sampling: Sampling | None = None,
) -> WeekByWeek:
    """``instance`` planned week by week, ``budget`` CPU seconds a week on ``count``
    workers, each week's outcome printed to stderr as it ends."""

    def limits(stage: int, problem: Problem) -> SolveLimits:
        return clocked(budget, count, clock, stage, backstop)

    def progress(week: PlannedWeek) -> None:
        print(
            f"  {instance.name} week {week.stage}: {week.status} {week.objective:.0f}"
            f" in {week.runtime_seconds:.1f} s",
            file=sys.stderr,
            flush=True,
        )

    return plan_weeks(instance, limits, progress, lookahead, anticipation, sampling)


def sampled_label(sampling: Sampling) -> str:
    """The results' name of a sampled plan: its candidates' rules and its guesses."""
    lead = "" if sampling.lead is None else f" lead {sampling.lead:g}"
    return f"sampled {'+'.join(sampling.rules)} x{sampling.samples}{lead}"


COLUMNS = ("S1", "S2", "S3", "S4", "S5", "S6", "S7")


def table(rows: list[dict[str, Any]]) -> str:
    header = ["instance", "anticipation", "CPU s/week", "workers", "wall s (max week)"]
    header += ["total", *COLUMNS]
    header += ["hard"]
    header += ["reference", "static LB"]
    body = [
        [
            r["instance"],
            r.get("anticipation", "prorate"),
            f"{r['seconds_per_week']:g}",
            f"{r['workers']} ({r['clock']})",
            f"{r['max_week_wall_seconds']:g}",
            str(r["total"]),
            *(str(r[kind]) for kind in SOFT),
            str(r["hard"]),
            "-" if r["reference"] is None else str(r["reference"]),
            "-" if r["static_lower_bound"] is None else str(r["static_lower_bound"]),
        ]
        for r in rows
    ]
    return markdown_table(header, body)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks inrc2", **docstring_help(__doc__))
    parser.add_argument("--instances", default=",".join(DEFAULT_INSTANCES))
    parser.add_argument("--seconds-per-week", type=float, default=None, metavar="S")
    parser.add_argument("--time-scale", type=float, default=1.0, metavar="F")
    parser.add_argument(
        "--workers", type=int, default=None, help="workers (default: 1 up to 40 nurses, else 2)"
    )
    parser.add_argument(
        "--clock",
        choices=("work", "wall"),
        default="work",
        help="budget in CP-SAT's deterministic seconds (work, default) or wall seconds",
    )
    parser.add_argument(
        "--lookahead", type=int, default=0, metavar="K", help="forecast weeks modelled (0)"
    )
    parser.add_argument(
        "--anticipation",
        default="prorate",
        metavar="A[,B...]",
        help=f"shares of S6 and S7 to compare ({', '.join(ANTICIPATIONS)}; prorate)",
    )
    parser.add_argument(
        "--sampling",
        type=int,
        default=0,
        metavar="N",
        help="plan each week against N sampled next weeks (inrc2_sampling; 0: off)",
    )
    parser.add_argument(
        "--sampling-rules",
        default=",".join(Sampling().rules),
        metavar="A[,B...]",
        help="--sampling: the shares the candidates are planned with",
    )
    parser.add_argument(
        "--sampling-lead",
        type=float,
        default=Sampling().lead,
        metavar="F",
        help="--sampling: the first candidate's part of the candidates' time, the others "
        "starting from its roster (0: equal parts, each from the greedy start)",
    )
    parser.add_argument(
        "--static", action="store_true", help="plan each whole horizon as one problem"
    )
    parser.add_argument(
        "--seconds", type=float, default=300.0, metavar="S", help="--static: CPU s (300)"
    )
    parser.add_argument(
        "--from-weeks",
        type=float,
        default=None,
        metavar="F",
        help="--static: start from a week-by-week plan at F x the competition's time",
    )
    parser.add_argument(
        "--backstop",
        type=float,
        default=BACKSTOP[0],
        metavar="F",
        help="--clock work: stop a solve at F x budget + 30 wall s (3; more on a loaded machine)",
    )
    parser.add_argument("--out", nargs="?", const=str(RESULTS), help="write results here")
    return parser


def _sampling(args: argparse.Namespace) -> Sampling | None:
    if args.sampling <= 0:
        return None
    rules = tuple(r.strip() for r in args.sampling_rules.split(","))
    lead = args.sampling_lead if args.sampling_lead and args.sampling_lead > 0 else None
    return Sampling(samples=args.sampling, rules=rules, lead=lead)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    revision = git_revision()  # the code that runs, not what is checked out at the end
    rows = []
    for name in args.instances.split(","):
        for how in [] if args.static else args.anticipation.split(","):
            row = run_instance(
                name.strip(),
                args.seconds_per_week,
                args.time_scale,
                args.workers,
                args.clock,
                args.lookahead,
                how.strip(),
                args.backstop,
                _sampling(args),
            )
            print(json.dumps({k: v for k, v in row.items() if k != "weeks"}), flush=True)
            rows.append(row)
        if args.static:
            static = run_static(
                name.strip(),
                args.seconds,
                args.workers or 1,
                args.clock,
                args.backstop,
                args.from_weeks,
            )
            rows.append(static)
            print(json.dumps(rows[-1]), flush=True)
    text = static_table(rows) if args.static else table(rows)
    print(text)
    if args.out:
        settings = {k: v for k, v in vars(args).items() if k != "out"}
        fields = {"settings": settings, "rows": rows}
        kind = "inrc2-static" if args.static else "inrc2"
        stem = write_record(args.out, kind, fields, text, revision)
        print(f"written to {stem}.json and .md", file=sys.stderr)
    return 0 if all(r["hard"] == 0 for r in rows) else 1
