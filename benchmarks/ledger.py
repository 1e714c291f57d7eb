"""``python -m benchmarks ledger``: fairness over three months planned one by one.

Fairness is judged over months, not one month at a time. For each seed, a generated
ward of three calendar months (June to August, every constraint family) is planned
three ways:

- ``alone``: month by month, each month as if nothing came before it;
- ``ledger``: month by month, each month with the previous month's answer as its
  history, whose ledger carries every count so far (docs/semantics.md, "Planning across
  periods");
- ``one solve``: the three months in one solve, with the same total time.

For each fairness group, the spread of the joined roster's counts across the group's
eligible employees (max - min) is set beside the one solve's, and so is the group's
excess over fair shares on the three months (its term in the audit of the whole
request): for a proportional group, unequal counts are the aim, and the excess is what
measures it. The target (issue:
planning across periods) is a spread with the ledger no larger than the one solve's
plus 1, for every group. As in ``benchmarks seam``, the generated ward has no
shift-count limits and no fixed assignment after its first month (a client planning
month by month does not have them yet).

Results: ``<timestamp>-ledger`` ``.json`` and ``.md`` under ``--out``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks.command_help import docstring_help
from benchmarks.load import markdown_table
from benchmarks.runner import write_record
from benchmarks.seam import add_budget_arguments, budget
from shiftsched.checking.audit import audit
from shiftsched.contract.history import History
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import PlanRequest
from shiftsched.contract.v1 import Assignment, SolveRequest, SolveResponse
from shiftsched.data.synthetic import synthetic_request
from shiftsched.periods.plan import plan
from shiftsched.periods.split import join, split
from shiftsched.solving.solve import SolveLimits, solve

START = dt.date(2026, 6, 1)
MONTHS = (30, 31, 31)  # June, July, August
SHAPE = (15, 3, 0)  # employees, shifts, duties


@dataclass(frozen=True)
class GroupSpread:
    """One fairness group's spread of counts, per way of planning (None: no roster)."""

    seed: int
    group: int
    shifts: str
    policy: str
    alone: int | None
    ledger: int | None
    one_solve: int | None
    # The group's excess over fair shares on the three months (its fairness term's
    # magnitude in the audit of the whole request), what a proportional group evens out.
    alone_excess: int | None = None
    ledger_excess: int | None = None
    one_solve_excess: int | None = None

    @property
    def met(self) -> bool:
        if self.ledger is None or self.one_solve is None:
            return False
        return self.ledger <= self.one_solve + 1


def ward(seed: int) -> SolveRequest:
    """Three months of a generated ward, without what a month-by-month client lacks."""
    data = synthetic_request(*SHAPE, sum(MONTHS), seed=seed, mix="all", start=START)
    second = (START + dt.timedelta(days=MONTHS[0])).isoformat()
    for employee in data["employees"]:
        employee.pop("shift_count_limits", None)
        fixed = employee.get("fixed_assignments", [])
        employee["fixed_assignments"] = [f for f in fixed if f["date"] < second]
    return parse_request(data)


def months(request: SolveRequest) -> list[SolveRequest]:
    first, rest = split(request, MONTHS[0])
    second, third = split(rest, MONTHS[1])
    return [first, second, third]


def month_by_month(
    parts: list[SolveRequest], limits: SolveLimits, carry: bool
) -> list[Assignment] | None:
    """The joined roster of the months planned in turn, each after the previous answer
    when ``carry``; None when a month has no roster."""
    rosters: list[list[Assignment]] = []
    previous: SolveResponse | None = None
    for part in parts:
        history = None
        if carry and previous is not None:
            history = History.model_validate(previous.model_dump(mode="json"))
        answer = plan(PlanRequest(request=part, history=history), limits)
        if answer.solution is None:
            return None
        rosters.append(answer.solution.assignments)
        previous = answer
    return join(*rosters)


def spreads(request: SolveRequest, roster: list[Assignment] | None) -> list[int | None]:
    """Per fairness group, max - min of its eligible employees' counts in ``roster``."""
    out: list[int | None] = []
    for group in request.constraints.fairness_groups:
        targets = set(group.target_shift_ids)
        eligible = [e.id for e in request.employees if targets & set(e.assignable_shift_ids)]
        if roster is None or not eligible:
            out.append(None)
            continue
        counts = dict.fromkeys(eligible, 0)
        for a in roster:
            if a.shift_id in targets and a.employee_id in counts:
                counts[a.employee_id] += 1
        out.append(max(counts.values()) - min(counts.values()))
    return out


def excesses(request: SolveRequest, roster: list[Assignment] | None) -> list[int | None]:
    """Per fairness group, its excess over fair shares in the audit of ``roster``."""
    groups = range(len(request.constraints.fairness_groups))
    if roster is None:
        return [None for _ in groups]
    report = audit(request, roster)
    found = {v.name: int(v.violated_by or 0) for v in report.soft_constraint_violations}
    return [found.get(f"fairness:{i}", 0) for i in groups]


def ledger_run(seed: int, seconds: float, workers: int, work: bool = False) -> list[GroupSpread]:
    request = ward(seed)
    parts = months(request)
    third = budget(seconds / len(parts), workers, work)
    whole = solve(request, budget(seconds, workers, work))
    rosters = {
        "alone": month_by_month(parts, third, carry=False),
        "ledger": month_by_month(parts, third, carry=True),
        "one": None if whole.solution is None else whole.solution.assignments,
    }
    spread = {way: spreads(request, roster) for way, roster in rosters.items()}
    excess = {way: excesses(request, roster) for way, roster in rosters.items()}
    return [
        GroupSpread(
            seed=seed,
            group=i,
            shifts=",".join(group.target_shift_ids),
            policy=group.policy,
            alone=spread["alone"][i],
            ledger=spread["ledger"][i],
            one_solve=spread["one"][i],
            alone_excess=excess["alone"][i],
            ledger_excess=excess["ledger"][i],
            one_solve_excess=excess["one"][i],
        )
        for i, group in enumerate(request.constraints.fairness_groups)
    ]


def _table(rows: list[GroupSpread]) -> str:
    def cell(value: int | None) -> str:
        return "-" if value is None else str(value)

    header = [
        "seed",
        "group",
        "shifts",
        "policy",
        "spread alone",
        "spread, ledger",
        "spread, one solve",
        "target",
        "excess alone",
        "excess, ledger",
        "excess, one solve",
    ]
    body = [
        [
            str(r.seed),
            str(r.group),
            r.shifts,
            r.policy,
            cell(r.alone),
            cell(r.ledger),
            cell(r.one_solve),
            "met" if r.met else "missed",
            cell(r.alone_excess),
            cell(r.ledger_excess),
            cell(r.one_solve_excess),
        ]
        for r in rows
    ]
    return markdown_table(header, body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks ledger", **docstring_help(__doc__))
    parser.add_argument("--seeds", type=int, default=3, help="wards (default 3)")
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds in all (30)")
    add_budget_arguments(parser)
    args = parser.parse_args(argv)
    rows: list[GroupSpread] = []
    for seed in range(args.seeds):
        for row in ledger_run(seed, args.time_limit, args.workers, args.work):
            print(json.dumps(asdict(row)), flush=True)
            rows.append(row)
    summary: dict[str, Any] = {
        "groups": len(rows),
        "target_met": sum(1 for r in rows if r.met),
        "all_met": all(r.met for r in rows),
    }
    print(_table(rows))
    print(json.dumps(summary, indent=1))
    if args.out:
        fields = {"settings": vars(args), "rows": [asdict(r) for r in rows], "summary": summary}
        write_record(args.out, "ledger", fields, _table(rows))
    return 0 if summary["all_met"] else 1
