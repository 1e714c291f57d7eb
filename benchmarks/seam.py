"""``python -m benchmarks seam``: planning period by period, with and without a history.

A ward plans month after month, so the rules that span two periods (the run of working
days, a forbidden transition over the boundary, a week the boundary cuts in two) are
where period-by-period planning goes wrong. For each seed and cut, a generated request of
``--days`` days with every constraint family is planned three ways:

- ``alone``: cut in two (``shiftsched.periods.split.split``) and each part solved as if nothing
  came before it, with half the time limit each (the way a v1 client has to);
- ``history``: the same two parts, the second planned with the first's answer as its
  history (``shiftsched.periods.plan``, docs/semantics.md "Planning across periods"), half the time
  limit each;
- ``one solve``: the whole request with the full time limit, the baseline.

Each joined roster is audited against the *whole* request (``shiftsched.checking.audit``): a hard
violation is one the seam caused, since each part's roster is hard-clean on its own
part. Its soft cost is set beside the one solve's. Two inputs are left out of the
generated request, as a client planning month by month would not have them: shift-count
limits (they hold over a whole period) and the fixed assignments of the second part
(the first part is planned before they exist, and its last days may leave them
impossible).

Cuts are named by where they fall: ``mid-week`` and ``mid-month`` cuts split a week and
a month; ``month-end`` starts the second part on the first of a month.

Results: ``<timestamp>-seam`` ``.json`` and ``.md`` under ``--out``. The targets (issue:
planning across periods) are no hard violation in any roster planned with a history,
and a soft cost within 5 % of the one solve's.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks.command_help import docstring_help
from benchmarks.load import markdown_table
from benchmarks.runner import RESULTS, write_record
from shiftsched.checking.audit import AuditReport, audit
from shiftsched.contract.history import History
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import PlanRequest
from shiftsched.contract.v1 import Assignment, SolveRequest, SolveResponse
from shiftsched.data.synthetic import START_DATE, synthetic_request
from shiftsched.periods.plan import plan
from shiftsched.periods.split import join, split
from shiftsched.solving.solve import SolveLimits, solve

SHAPE = (20, 3, 0)  # employees, shifts, duties
#: Days of the first part, by the kind of cut, for a request starting on a Monday, 1 June.
CUTS: dict[str, int] = {"mid-week": 26, "mid-month": 14, "month-end": 30}
SOFT_TARGET = 1.05


@dataclass(frozen=True)
class Joined:
    """Two parts' rosters joined and audited against the whole request."""

    hard_violations: int
    hard_codes: str  # the codes, counted, e.g. "max_consecutive_days x2"
    cost: float | None  # None when a part has no roster


@dataclass(frozen=True)
class SeamRun:
    """One request cut once, planned alone and with a history, beside one solve."""

    seed: int
    cut: str
    second_starts: str
    alone: Joined
    history: Joined
    whole_cost: float | None

    def ratio(self, joined: Joined) -> float | None:
        if joined.cost is None or not self.whole_cost:
            return None
        return joined.cost / self.whole_cost


def seam_request(seed: int, days: int, first_days: int) -> SolveRequest:
    """The generated request of a run: every family but shift-count limits, and no
    fixed assignment from day ``first_days`` on."""
    data = synthetic_request(*SHAPE, days, seed=seed, mix="all", start=START_DATE)
    second = (START_DATE + dt.timedelta(days=first_days)).isoformat()
    for employee in data["employees"]:
        employee.pop("shift_count_limits", None)
        fixed = employee.get("fixed_assignments", [])
        employee["fixed_assignments"] = [f for f in fixed if f["date"] < second]
    return parse_request(data)


def budget(seconds: float, workers: int, work: bool) -> SolveLimits:
    """``seconds`` of wall clock on ``workers``; with ``work``, ``seconds`` of CP-SAT's
    deterministic work on one worker with a fixed seed instead, so that a run gives the
    same rosters on any machine under any load (the wall clock is then only a backstop)."""
    if not work:
        return SolveLimits(time_limit_seconds=seconds, num_workers=workers)
    return SolveLimits(
        time_limit_seconds=20 * seconds + 60,
        num_workers=1,
        random_seed=0,
        parameters={"max_deterministic_time": seconds},
    )


def add_budget_arguments(parser: argparse.ArgumentParser) -> None:
    """--workers, --work and --out, which the seam and ledger commands share."""
    parser.add_argument("--workers", type=int, default=2, help="CP-SAT workers (2)")
    parser.add_argument(
        "--work",
        action="store_true",
        help="--time-limit is deterministic work on one worker: the same run on any machine",
    )
    parser.add_argument("--out", nargs="?", const=str(RESULTS), help="write results here")


def seam_run(
    seed: int, days: int, cut: str, seconds: float, workers: int, work: bool = False
) -> SeamRun:
    """Plan the request in two parts cut at ``cut``, alone and with a history, each part
    with half of ``seconds``, and in one solve with all of it."""
    request = seam_request(seed, days, CUTS[cut])
    before, after = split(request, CUTS[cut])
    half = budget(seconds / 2, workers, work)
    first = plan(PlanRequest(request=before), half)
    second_alone = solve(after, half)
    second = (
        None
        if first.solution is None
        else plan(PlanRequest(request=after, history=History(assignments=_roster(first))), half)
    )
    whole = solve(request, budget(seconds, workers, work))
    whole_report = None if whole.solution is None else audit(request, whole.solution.assignments)
    return SeamRun(
        seed=seed,
        cut=cut,
        second_starts=after.schedule_period.start_date.isoformat(),
        alone=_joined(request, first, second_alone),
        history=_joined(request, first, second),
        whole_cost=None if whole_report is None else whole_report.objective_value,
    )


def _roster(answer: SolveResponse) -> list[Assignment]:
    return [] if answer.solution is None else answer.solution.assignments


def _joined(request: SolveRequest, first: SolveResponse, second: SolveResponse | None) -> Joined:
    if first.solution is None or second is None or second.solution is None:
        return Joined(0, "-", None)
    report: AuditReport = audit(request, join(_roster(first), _roster(second)))
    codes: dict[str, int] = {}
    for violation in report.hard_violations:
        codes[violation.code] = codes.get(violation.code, 0) + 1
    return Joined(
        hard_violations=sum(codes.values()),
        hard_codes=", ".join(f"{code} x{n}" for code, n in sorted(codes.items())) or "-",
        cost=report.objective_value,
    )


def summary(runs: list[SeamRun]) -> dict[str, Any]:
    """Per way of planning: how many joined rosters broke a hard rule, and the soft
    ratios to one solve."""
    totals: dict[str, Any] = {"runs": len(runs)}
    for way in ("alone", "history"):
        joined = [getattr(r, way) for r in runs]
        ratios = [x for r, j in zip(runs, joined, strict=True) if (x := r.ratio(j)) is not None]
        totals[way] = {
            "with_hard_violations": sum(1 for j in joined if j.hard_violations),
            "hard_violations": sum(j.hard_violations for j in joined),
            "median_soft_ratio": statistics.median(ratios) if ratios else None,
            "worst_soft_ratio": max(ratios) if ratios else None,
        }
    history = totals["history"]
    totals["hard_target_met"] = history["with_hard_violations"] == 0 and all(
        r.history.cost is not None for r in runs
    )
    worst = history["worst_soft_ratio"]
    totals["soft_target_met"] = worst is not None and worst <= SOFT_TARGET
    return totals


def _cost(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _table(runs: list[SeamRun]) -> str:
    rows = [
        [
            str(r.seed),
            r.cut,
            r.second_starts,
            f"{r.alone.hard_violations} ({r.alone.hard_codes})",
            f"{r.history.hard_violations} ({r.history.hard_codes})",
            _cost(r.whole_cost),
            _ratio(r.ratio(r.alone)),
            _ratio(r.ratio(r.history)),
        ]
        for r in runs
    ]
    header = [
        "seed",
        "cut",
        "second part",
        "hard, alone",
        "hard, with history",
        "one solve",
        "ratio alone",
        "ratio with history",
    ]
    return markdown_table(header, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks seam", **docstring_help(__doc__))
    parser.add_argument("--seeds", type=int, default=5, help="requests per cut (default 5)")
    parser.add_argument("--days", type=int, default=56, help="days of each request (56)")
    parser.add_argument("--cuts", default=",".join(CUTS), help="which cuts (all three)")
    parser.add_argument("--time-limit", type=float, default=20.0, help="seconds (20)")
    add_budget_arguments(parser)
    args = parser.parse_args(argv)
    runs = []
    for seed in range(args.seeds):
        for cut in args.cuts.split(","):
            run = seam_run(seed, args.days, cut, args.time_limit, args.workers, args.work)
            print(json.dumps(asdict(run)), flush=True)
            runs.append(run)
    totals = summary(runs)
    print(_table(runs))
    print(json.dumps(totals, indent=1))
    if args.out:
        fields = {"settings": vars(args), "runs": [asdict(r) for r in runs], "summary": totals}
        write_record(args.out, "seam", fields, _table(runs))
    return 0 if totals["hard_target_met"] and totals["soft_target_met"] else 1
