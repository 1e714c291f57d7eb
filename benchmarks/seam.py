"""``python -m benchmarks seam``: what planning period by period breaks at the seam.

A ward plans month after month, so the rules that span two periods (the run of working
days, a forbidden transition over the boundary, a week the boundary cuts in two) are
where period-by-period planning goes wrong. For each seed and cut, a generated request of
``--days`` days with every constraint family (shift-count limits aside: they hold over a
whole period, ``engine.periods``) is:

- cut in two (``engine.periods.split``) and each part solved alone, with half the time
  limit each;
- solved whole, with the full time limit, as the baseline;

and the joined roster is audited against the *whole* request (``engine.audit``): every
hard violation it has is one the seam caused, since each part's roster is hard-clean on
its own part. Its soft cost is set beside the one-solve roster's.

Cuts are named by where they fall: ``mid-week`` and ``mid-month`` cuts split a week and
a month; ``month-end`` starts the second part on the first of a month.

Results: ``<timestamp>-seam`` ``.json`` and ``.md`` under ``--out``. The targets (issue:
planning across periods) are no hard violation in any joined roster, and a soft cost
within 5 % of the one solve's.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.load import markdown_table
from benchmarks.machine import git_revision, machine_info
from benchmarks.runner import RESULTS, timestamp
from engine.audit import AuditReport, audit
from engine.contract import SolveRequest
from engine.periods import join, split
from engine.rules import parse_request
from engine.solve import SolveLimits, solve
from engine.synthetic import START_DATE, synthetic_request

SHAPE = (20, 3, 0)  # employees, shifts, duties
#: Days of the first part, by the kind of cut, for a request starting on a Monday, 1 June.
CUTS: dict[str, int] = {"mid-week": 26, "mid-month": 14, "month-end": 30}
SOFT_TARGET = 1.05


@dataclass(frozen=True)
class SeamRun:
    """One request cut once: what the joined roster breaks and costs, beside one solve."""

    seed: int
    cut: str
    second_starts: str
    hard_violations: int
    hard_codes: str  # the codes, counted, e.g. "max_consecutive_days x2"
    joined_cost: float | None  # None when a part has no roster
    whole_cost: float | None

    @property
    def soft_ratio(self) -> float | None:
        if self.joined_cost is None or not self.whole_cost:
            return None
        return self.joined_cost / self.whole_cost


def seam_request(seed: int, days: int) -> SolveRequest:
    """The generated request of a run: every family but shift-count limits."""
    data = synthetic_request(*SHAPE, days, seed=seed, mix="all", start=START_DATE)
    for employee in data["employees"]:
        employee.pop("shift_count_limits", None)
    return parse_request(data)


def seam_run(
    request: SolveRequest, seed: int, cut: str, first_days: int, seconds: float, workers: int
) -> SeamRun:
    """Plan ``request`` in two parts cut after ``first_days`` days, each with half of
    ``seconds``, and in one solve with all of it."""
    before, after = split(request, first_days)
    half = SolveLimits(time_limit_seconds=seconds / 2, num_workers=workers)
    parts = [solve(part, half) for part in (before, after)]
    whole = solve(request, SolveLimits(time_limit_seconds=seconds, num_workers=workers))
    joined: AuditReport | None = None
    if all(p.solution is not None for p in parts):
        rosters = [p.solution.assignments for p in parts if p.solution is not None]
        joined = audit(request, join(*rosters))
    whole_report = None if whole.solution is None else audit(request, whole.solution.assignments)
    return _run(seed, cut, after.schedule_period.start_date, joined, whole_report)


def _run(
    seed: int, cut: str, second: dt.date, joined: AuditReport | None, whole: AuditReport | None
) -> SeamRun:
    codes: dict[str, int] = {}
    for violation in joined.hard_violations if joined is not None else []:
        codes[violation.code] = codes.get(violation.code, 0) + 1
    return SeamRun(
        seed=seed,
        cut=cut,
        second_starts=second.isoformat(),
        hard_violations=sum(codes.values()),
        hard_codes=", ".join(f"{code} x{n}" for code, n in sorted(codes.items())) or "-",
        joined_cost=None if joined is None else joined.objective_value,
        whole_cost=None if whole is None else whole.objective_value,
    )


def summary(runs: list[SeamRun]) -> dict[str, Any]:
    """How many joined rosters broke a hard rule, and the soft ratios to one solve."""
    ratios = [r.soft_ratio for r in runs if r.soft_ratio is not None]
    return {
        "runs": len(runs),
        "with_hard_violations": sum(1 for r in runs if r.hard_violations),
        "hard_violations": sum(r.hard_violations for r in runs),
        "median_soft_ratio": statistics.median(ratios) if ratios else None,
        "worst_soft_ratio": max(ratios) if ratios else None,
        "hard_target_met": all(r.hard_violations == 0 for r in runs),
        "soft_target_met": bool(ratios) and max(ratios) <= SOFT_TARGET,
    }


def _table(runs: list[SeamRun]) -> str:
    rows = [
        [
            str(r.seed),
            r.cut,
            r.second_starts,
            str(r.hard_violations),
            r.hard_codes,
            "-" if r.joined_cost is None else f"{r.joined_cost:,.0f}",
            "-" if r.whole_cost is None else f"{r.whole_cost:,.0f}",
            "-" if r.soft_ratio is None else f"{r.soft_ratio:.3f}",
        ]
        for r in runs
    ]
    header = ["seed", "cut", "second part", "hard", "codes", "joined", "one solve", "ratio"]
    return markdown_table(header, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks seam", description=__doc__)
    parser.add_argument("--seeds", type=int, default=5, help="requests per cut (default 5)")
    parser.add_argument("--days", type=int, default=56, help="days of each request (56)")
    parser.add_argument("--cuts", default=",".join(CUTS), help="which cuts (all three)")
    parser.add_argument("--time-limit", type=float, default=20.0, help="seconds (20)")
    parser.add_argument("--workers", type=int, default=2, help="CP-SAT workers (2)")
    parser.add_argument("--out", nargs="?", const=str(RESULTS), help="write results here")
    args = parser.parse_args(argv)
    runs = []
    for seed in range(args.seeds):
        request = seam_request(seed, args.days)
        for cut in args.cuts.split(","):
            run = seam_run(request, seed, cut, CUTS[cut], args.time_limit, args.workers)
            print(json.dumps(asdict(run)), flush=True)
            runs.append(run)
    totals = summary(runs)
    print(_table(runs))
    print(json.dumps(totals, indent=1))
    if args.out:
        stem = Path(args.out) / f"{timestamp()}-seam"
        stem.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "settings": vars(args),
            "machine": machine_info(),
            "revision": git_revision(),
            "runs": [asdict(r) for r in runs],
            "summary": totals,
        }
        stem.with_suffix(".json").write_text(json.dumps(record, indent=1))
        stem.with_suffix(".md").write_text(_table(runs) + "\n")
    return 0 if totals["hard_target_met"] and totals["soft_target_met"] else 1
