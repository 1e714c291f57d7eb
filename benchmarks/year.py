"""``python -m benchmarks year``: a v1 year planned a month at a time, with yearly quotas.

A ward's contracts count over a year (so many days worked, at most so many working
weekends) while its rosters are planned a month at a time, and a v1 request has only
monthly and weekly rules. For each seed, a generated year (calendar 2027, ``--employees``
x 3 shifts, the ``core`` families: the calendar, days per week and per month, the
consecutive-days cap, transitions, preferences) gets a yearly quota per employee (see
:func:`quotas`), and is planned three ways:

- ``horizon``: month by month, each month with the previous month's answer as its history
  and the quotas as the plan's horizon (docs/semantics.md, "Horizon targets");
- ``no horizon``: month by month with the history but without the horizon (the months
  know nothing of the quotas: what a v1 client gets today);
- ``whole``: the twelve months in one plan, with the quotas as its horizon and twelve
  months' work.

Every solve is limited by CP-SAT's deterministic work on one worker with a fixed seed
(``benchmarks seam --work``), so the figures are the same on any machine under any load:
``--month-work`` deterministic seconds a month, twelve times that for the whole year.

Each joined year is audited against the year request with the quotas as a whole-year
horizon (``shiftsched.checking.audit``), so the three are priced alike: its hard
violations (any is the months' seams'), its cost, and each employee's worked days and
working weekends against the quota (the worst miss, in % of the quota). Each month's
reported objective is checked against its own audit with its history and horizon, and
the last month's ``horizon_progress`` against the months' counts added up (a weekend a
month boundary cuts counts in both months, as the horizon counts it).

Targets: no hard violation; with the horizon, every quota missed by at most 2 %; the
year's cost with the horizon at most 1.10 x the whole plan's. As in ``benchmarks
ledger``, fixed assignments after January are left out (a client planning month by
month does not have them yet).

Results: ``<timestamp>-year`` ``.json`` and ``.md`` under ``--out``.
"""

from __future__ import annotations

import argparse
import calendar
import datetime as dt
import json
import math
import random
import statistics
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks.command_help import docstring_help
from benchmarks.load import markdown_table
from benchmarks.runner import RESULTS, write_record
from benchmarks.seam import budget
from shiftsched.checking.audit import audit
from shiftsched.contract.history import History
from shiftsched.contract.horizon_targets import (
    DEFAULT_DAY_WEIGHT,
    DEFAULT_WEEKEND_WEIGHT,
    HorizonTarget,
    PlanHorizon,
)
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import PlanRequest, PlanResponse
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.data.synthetic import synthetic_request
from shiftsched.periods.plan import plan
from shiftsched.periods.split import join, split
from shiftsched.solving.solve import SolveLimits

YEAR = 2027
START, END = dt.date(YEAR, 1, 1), dt.date(YEAR, 12, 31)
SHIFTS, MIX = 3, "core"
#: Each employee's yearly days aim at this far into their monthly range (min to max),
#: drawn per employee: a contract between the monthly floor and the monthly cap.
REACH = (0.2, 0.7)
BAND = 0.03  # min_days and max_days: the aim minus and plus 3 %
#: The year's weekend allowance, as a share of the weekend heads demanded (a weekend
#: worked on both days covers two of them), split in proportion to the monthly ranges.
WEEKEND_SHARE = 0.75
SATURDAY = 5
MISS_TARGET = 2.0  # % of the quota
COST_TARGET = 1.10  # x the whole plan's cost
WAYS = ("horizon", "baseline", "whole")


# ------------------------------------------------------------------ the year and its quotas


def year_request(seed: int, employees: int) -> SolveRequest:
    """The generated year of ``seed``, with January's fixed assignments only."""
    data = synthetic_request(
        employees, SHIFTS, 0, (END - START).days + 1, seed=seed, mix=MIX, start=START
    )
    february = dt.date(YEAR, 2, 1).isoformat()
    for employee in data["employees"]:
        fixed = employee.get("fixed_assignments", [])
        employee["fixed_assignments"] = [f for f in fixed if f["date"] < february]
    return parse_request(data)


def quotas(
    request: SolveRequest,
    seed: int,
    day_weight: int = DEFAULT_DAY_WEIGHT,
    weekend_weight: int = DEFAULT_WEEKEND_WEIGHT,
) -> PlanHorizon:
    """Each employee's yearly quota, the same for every way of planning.

    Days: an aim ``12 x (min + r x (max - min))`` of the employee's monthly range, ``r``
    drawn in :data:`REACH`, so the monthly rules allow it in every month; ``min_days``
    and ``max_days`` are the aim minus and plus :data:`BAND`. Weekends: the year's
    weekend heads times :data:`WEEKEND_SHARE`, split over those who may work a weekend
    day in proportion to their monthly ranges (about every other weekend for a
    full-timer)."""
    rng = random.Random(f"{seed}:year-quotas")
    weekend_heads = sum(
        s.staffing_demand[d].min
        for s in request.shifts
        for d in range((END - START).days + 1)
        if (START + dt.timedelta(days=d)).weekday() >= SATURDAY
        and START + dt.timedelta(days=d) not in request.schedule_period.holidays
    )
    weights = {}
    for e in request.employees:
        months = e.working_days_per_month
        days = e.available_weekdays
        on_weekends = days is None or bool({"sat", "sun"} & set(days))
        weights[e.id] = (months.min + months.max if months else 2) if on_weekends else 0
    total = sum(weights.values()) or 1
    targets = []
    for e in request.employees:
        months = e.working_days_per_month
        low, high = (months.min, months.max) if months else (0, 31)
        aim = 12 * (low + rng.uniform(*REACH) * (high - low))
        weekends = round(WEEKEND_SHARE * weekend_heads * weights[e.id] / total)
        targets.append(
            HorizonTarget(
                employee_id=e.id,
                min_days=int(aim * (1 - BAND)),
                max_days=math.ceil(aim * (1 + BAND)),
                max_weekends=min(weekends, 53) if weights[e.id] else None,
            )
        )
    return PlanHorizon(
        start=START,
        end=END,
        targets=targets,
        day_weight=day_weight,
        weekend_weight=weekend_weight,
    )


def months(request: SolveRequest) -> list[SolveRequest]:
    """The year cut into its twelve calendar months."""
    parts, rest = [], request
    for month in range(1, 12):
        part, rest = split(rest, calendar.monthrange(YEAR, month)[1])
        parts.append(part)
    return [*parts, rest]


# ------------------------------------------------------------------ planning


@dataclass
class Planned:
    """A way's joined year, and how its answers agreed with their audits."""

    roster: list[Assignment] | None
    model_audit_mismatches: int = 0  # plans whose objective is not their audit's
    progress_mismatches: int = 0  # horizon_progress counts not the months' added up
    bound: float | None = None  # the whole plan's best bound


def _agrees(
    request: SolveRequest,
    answer: PlanResponse,
    history: History | None,
    horizon: PlanHorizon | None,
) -> bool:
    if answer.solution is None:
        return True
    found = audit(request, answer.solution.assignments, history=history, horizon=horizon)
    reported = answer.solution.metrics.objective_value
    return reported is not None and abs(found.objective_value - reported) < 1e-6


def month_by_month(
    parts: Sequence[SolveRequest], limits: SolveLimits, horizon: PlanHorizon | None
) -> Planned:
    """Each month after the previous month's answer (its history), with ``horizon``."""
    rosters: list[list[Assignment]] = []
    history: History | None = None
    answer: PlanResponse | None = None
    out = Planned(roster=None)
    for part in parts:
        answer = plan(PlanRequest(request=part, history=history, horizon=horizon), limits)
        if answer.solution is None:
            return out
        out.model_audit_mismatches += not _agrees(part, answer, history, horizon)
        rosters.append(answer.solution.assignments)
        history = History.model_validate(answer.model_dump(mode="json"))
    out.roster = join(*rosters)
    if horizon is not None and answer is not None:
        counted = monthly_counts(rosters)
        for row in answer.horizon_progress or []:
            if (row.days_worked, row.weekends_worked) != counted.get(row.employee_id, (0, 0)):
                out.progress_mismatches += 1
    return out


def monthly_counts(rosters: Sequence[Sequence[Assignment]]) -> dict[str, tuple[int, int]]:
    """The months' counts added up, as the horizon counts them: a weekend that a month's
    start or end cuts counts in each month in which it is worked (docs/semantics.md)."""
    total: dict[str, tuple[int, int]] = {}
    for roster in rosters:
        for e, (days, weekends) in counts(roster).items():
            before = total.get(e, (0, 0))
            total[e] = (before[0] + days, before[1] + weekends)
    return total


def whole(request: SolveRequest, limits: SolveLimits, horizon: PlanHorizon) -> Planned:
    """The year in one plan with the quotas as its horizon."""
    answer = plan(PlanRequest(request=request, horizon=horizon), limits)
    if answer.solution is None:
        return Planned(roster=None)
    return Planned(
        roster=answer.solution.assignments,
        model_audit_mismatches=int(not _agrees(request, answer, None, horizon)),
        bound=answer.solution.metrics.best_bound,
    )


# ------------------------------------------------------------------ judging a year


def counts(roster: Sequence[Assignment]) -> dict[str, tuple[int, int]]:
    """(worked days, working weekends) per employee: a weekend is an ISO week in which
    the employee works the Saturday or the Sunday."""
    worked: dict[str, set[dt.date]] = {}
    for a in roster:
        worked.setdefault(a.employee_id, set()).add(a.date)
    return {
        e: (len(dates), len({d.isocalendar()[:2] for d in dates if d.weekday() >= SATURDAY}))
        for e, dates in worked.items()
    }


def misses(horizon: PlanHorizon, roster: Sequence[Assignment]) -> tuple[float, float]:
    """The worst miss of a day quota and of a weekend quota, in % of the quota."""
    counted = counts(roster)
    days_miss = weekends_miss = 0.0
    for t in horizon.targets:
        days, weekends = counted.get(t.employee_id, (0, 0))
        if t.min_days and days < t.min_days:
            days_miss = max(days_miss, 100 * (t.min_days - days) / t.min_days)
        if t.max_days and days > t.max_days:
            days_miss = max(days_miss, 100 * (days - t.max_days) / t.max_days)
        if t.max_weekends is not None and weekends > t.max_weekends:
            over = 100 * (weekends - t.max_weekends) / max(1, t.max_weekends)
            weekends_miss = max(weekends_miss, over)
    return days_miss, weekends_miss


@dataclass(frozen=True)
class Judged:
    """A joined year audited against the year request with the whole-year horizon."""

    hard_violations: int | None  # None: a month (or the whole) had no roster
    hard_codes: str = "-"
    cost: float | None = None
    days_miss: float | None = None  # worst day-quota miss, % of the quota
    weekends_miss: float | None = None  # worst weekend-quota miss, % of the quota
    model_audit_mismatches: int = 0
    progress_mismatches: int = 0


def judge(request: SolveRequest, horizon: PlanHorizon, planned: Planned) -> Judged:
    if planned.roster is None:
        return Judged(None, model_audit_mismatches=planned.model_audit_mismatches)
    report = audit(request, planned.roster, horizon=horizon)
    codes: dict[str, int] = {}
    for violation in report.hard_violations:
        codes[violation.code] = codes.get(violation.code, 0) + 1
    days_miss, weekends_miss = misses(horizon, planned.roster)
    return Judged(
        hard_violations=sum(codes.values()),
        hard_codes=", ".join(f"{code} x{n}" for code, n in sorted(codes.items())) or "-",
        cost=report.objective_value,
        days_miss=days_miss,
        weekends_miss=weekends_miss,
        model_audit_mismatches=planned.model_audit_mismatches,
        progress_mismatches=planned.progress_mismatches,
    )


@dataclass(frozen=True)
class YearRun:
    """One generated year planned three ways."""

    seed: int
    employees: int
    quota_days: int  # the sum of the aims' midpoints, for scale
    horizon: Judged
    baseline: Judged
    whole: Judged
    whole_bound: float | None = None

    def ratio(self, way: str) -> float | None:
        cost, base = getattr(self, way).cost, self.whole.cost
        return None if cost is None or not base else cost / base


def year_run(
    seed: int,
    employees: int,
    month_work: float,
    weights: tuple[int, int] = (DEFAULT_DAY_WEIGHT, DEFAULT_WEEKEND_WEIGHT),
) -> YearRun:
    """Plan the year of ``seed`` month by month with and without the horizon, and whole;
    ``weights``: the horizon's price of a day and of a weekend outside the quota."""
    request = year_request(seed, employees)
    horizon = quotas(request, seed, *weights)
    parts = months(request)
    month = budget(month_work, 1, work=True)
    planned = {
        "horizon": month_by_month(parts, month, horizon),
        "baseline": month_by_month(parts, month, None),
        "whole": whole(request, budget(12 * month_work, 1, work=True), horizon),
    }
    judged = {way: judge(request, horizon, p) for way, p in planned.items()}
    middle = sum(((t.min_days or 0) + (t.max_days or 0)) // 2 for t in horizon.targets)
    return YearRun(
        seed=seed,
        employees=employees,
        quota_days=middle,
        horizon=judged["horizon"],
        baseline=judged["baseline"],
        whole=judged["whole"],
        whole_bound=planned["whole"].bound,
    )


# ------------------------------------------------------------------ the report


def summary(runs: Sequence[YearRun]) -> dict[str, Any]:
    """Per way: hard violations, the worst quota misses and the cost ratios to the whole
    plan, median and worst over the seeds; and the targets."""
    totals: dict[str, Any] = {"runs": len(runs)}
    for way in WAYS:
        judged = [getattr(r, way) for r in runs]
        ratios = [x for r in runs if (x := r.ratio(way)) is not None]
        day_misses = [j.days_miss for j in judged if j.days_miss is not None]
        weekend_misses = [j.weekends_miss for j in judged if j.weekends_miss is not None]
        totals[way] = {
            "without_roster": sum(1 for j in judged if j.hard_violations is None),
            "hard_violations": sum(j.hard_violations or 0 for j in judged),
            "model_audit_mismatches": sum(j.model_audit_mismatches for j in judged),
            "progress_mismatches": sum(j.progress_mismatches for j in judged),
            "median_days_miss": statistics.median(day_misses) if day_misses else None,
            "worst_days_miss": max(day_misses, default=None),
            "median_weekends_miss": statistics.median(weekend_misses) if weekend_misses else None,
            "worst_weekends_miss": max(weekend_misses, default=None),
            "median_cost_ratio": statistics.median(ratios) if ratios else None,
            "worst_cost_ratio": max(ratios, default=None),
        }
    with_horizon = totals["horizon"]
    every = all(getattr(r, w).hard_violations is not None for r in runs for w in WAYS)
    totals["hard_target_met"] = every and all(
        totals[w]["hard_violations"] == 0 for w in ("horizon", "baseline")
    )
    worst = [with_horizon["worst_days_miss"], with_horizon["worst_weekends_miss"]]
    totals["quota_target_met"] = every and all(x is not None and x <= MISS_TARGET for x in worst)
    ratio = with_horizon["worst_cost_ratio"]
    totals["cost_target_met"] = ratio is not None and ratio <= COST_TARGET
    totals["agreement"] = all(
        totals[w]["model_audit_mismatches"] == 0 and totals[w]["progress_mismatches"] == 0
        for w in WAYS
    )
    return totals


def _number(value: float | None, form: str = ",.0f") -> str:
    return "-" if value is None else format(value, form)


def table(runs: Sequence[YearRun]) -> str:
    """One row per seed: hard violations, costs and ratios, and the worst quota misses."""
    header = [
        "seed",
        "hard (horizon / none / whole)",
        "cost, horizon",
        "cost, no horizon",
        "cost, whole",
        "horizon / whole",
        "none / whole",
        "whole's bound",
        "days miss % (horizon / none / whole)",
        "weekends miss % (horizon / none / whole)",
    ]
    rows = []
    for r in runs:
        ways = [r.horizon, r.baseline, r.whole]
        rows.append(
            [
                str(r.seed),
                " / ".join(_number(j.hard_violations, "d") for j in ways),
                *(_number(j.cost) for j in ways),
                _number(r.ratio("horizon"), ".3f"),
                _number(r.ratio("baseline"), ".3f"),
                _number(r.whole_bound),
                " / ".join(_number(j.days_miss, ".1f") for j in ways),
                " / ".join(_number(j.weekends_miss, ".1f") for j in ways),
            ]
        )
    return markdown_table(header, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks year", **docstring_help(__doc__))
    parser.add_argument("--seeds", type=int, default=3, help="generated years (default 3)")
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (0)")
    parser.add_argument("--employees", type=int, default=15, help="employees (15)")
    parser.add_argument(
        "--month-work",
        type=float,
        default=1.0,
        metavar="S",
        help="deterministic seconds a month, 12 x S for the whole year (1)",
    )
    parser.add_argument(
        "--day-weight",
        type=int,
        default=DEFAULT_DAY_WEIGHT,
        help=f"the horizon's price of a day outside the quota ({DEFAULT_DAY_WEIGHT})",
    )
    parser.add_argument(
        "--weekend-weight",
        type=int,
        default=DEFAULT_WEEKEND_WEIGHT,
        help=f"the horizon's price of a weekend over the quota ({DEFAULT_WEEKEND_WEIGHT})",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="seeds planned side by side, one process each (1); the figures do not change",
    )
    parser.add_argument("--out", nargs="?", const=str(RESULTS), help="write results here")
    args = parser.parse_args(argv)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    runs = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        weights = (args.day_weight, args.weekend_weight)
        asked = [
            pool.submit(year_run, seed, args.employees, args.month_work, weights) for seed in seeds
        ]
        for future in asked:
            run = future.result()
            print(json.dumps(asdict(run)), flush=True)
            runs.append(run)
    totals = summary(runs)
    print(table(runs))
    print(json.dumps(totals, indent=1))
    if args.out:
        fields = {"settings": vars(args), "runs": [asdict(r) for r in runs], "summary": totals}
        write_record(args.out, "year", fields, table(runs))
    met = ("hard_target_met", "quota_target_met", "cost_target_met", "agreement")
    return 0 if all(totals[key] for key in met) else 1
