"""``python -m benchmarks replanning``: how far a re-plan moves a roster, how fast a
recommendation answers.

**Re-plan.** A synthetic request of 25 employees x 31 days is solved once; that roster is
*published*. Then, for each of ``--absences`` random sick calls (one employee, one or two
dates they work, the days before pinned with ``pin_before``), the roster is re-planned
twice in the same run:

- ``replan``: the default change weight (500 per changed cell);
- ``re-solve``: change weight 0, the same hard rules: a fresh solve that keeps the
  absence and the pins but does not care what it moves (the baseline).

Per run it records the absent employee's lost slots, the other cells that changed, the
objective (audited) against the published one, and the wall time. The target: in the
median, at most the absent slots plus 3 other cells change.

**Recommend.** ``datasets/max_size.json`` (50 employees x 12 shifts x 15 duties x 31
days) is solved once; for ``--slots`` random slots the whole answer is timed, from the
JSON input (parsing and cross-field checks included) to the ranked list, beside the
naive way the evaluator replaces (a full audit per candidate). Target: under 200 ms.

Results: ``<timestamp>-replanning`` ``.json`` and ``.md`` under ``--out``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.command_help import docstring_help
from benchmarks.load import markdown_table
from benchmarks.machine import ROOT, git_revision, machine_info
from benchmarks.runner import RESULTS, timestamp
from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import parse_recommend, parse_replan
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.data.synthetic import synthetic_request
from shiftsched.periods.replan import replan
from shiftsched.questions.recommend import recommend
from shiftsched.solving.solve import SolveLimits, solve

REPLAN_SHAPE = (25, 3, 0, 31)  # employees, shifts, duties, days
MAX_SIZE = ROOT / "datasets" / "max_size.json"
RECOMMEND_TARGET_MS = 200.0
OTHER_CHANGES_TARGET = 3


def _published(data: dict[str, Any], seconds: float, workers: int) -> list[dict[str, Any]]:
    response = solve(
        parse_request(data), SolveLimits(time_limit_seconds=seconds, num_workers=workers)
    )
    if response.solution is None:
        raise SystemExit(f"no published roster: {response.error}")
    return [a.model_dump(mode="json", exclude_none=True) for a in response.solution.assignments]


def _sick_calls(
    data: dict[str, Any], roster: list[dict[str, Any]], count: int, rng: random.Random
) -> list[tuple[str, list[str]]]:
    """``count`` (employee, dates): one or two consecutive dates the employee works.

    A date the request fixes for that employee is never drawn: such a sick call admits
    no roster by definition (the re-plan says so with a diagnosis), which is not what this
    benchmark measures.
    """
    fixed = {
        (e["id"], f["date"]) for e in data["employees"] for f in e.get("fixed_assignments", [])
    }
    worked: dict[str, set[str]] = {}
    for a in roster:
        if (a["employee_id"], a["date"]) not in fixed:
            worked.setdefault(a["employee_id"], set()).add(a["date"])
    calls: list[tuple[str, list[str]]] = []
    while len(calls) < count:
        employee = rng.choice(sorted(worked))
        first = rng.choice(sorted(worked[employee]))
        second = (dt.date.fromisoformat(first) + dt.timedelta(days=1)).isoformat()
        dates = [first, second] if rng.random() < 0.5 and second in worked[employee] else [first]
        calls.append((employee, dates))
    return calls


def _replan_once(
    data: dict[str, Any],
    roster: list[dict[str, Any]],
    call: tuple[str, list[str]],
    weight: int,
    limits: SolveLimits,
) -> dict[str, Any]:
    employee, dates = call
    ask = parse_replan(
        {
            "request": data,
            "roster": roster,
            "absences": [{"employee_id": employee, "dates": dates}],
            "pin_before": dates[0],
            "change_weight": weight,
        }
    )
    started = time.perf_counter()
    response = replan(ask, limits)
    seconds = time.perf_counter() - started
    row: dict[str, Any] = {
        "employee": employee,
        "dates": ",".join(dates),
        "absent_slots": len(dates),
        "status": response.status,
        "seconds": round(seconds, 3),
    }
    if response.solution is None:
        return row | {"other_changes": None, "changes": None, "objective": None}
    report = audit(ask.request, response.solution.assignments)
    absent = {(employee, dt.date.fromisoformat(d)) for d in dates}
    others = [c for c in response.changes if (c.employee_id, c.date) not in absent]
    return row | {
        "changes": len(response.changes),
        "other_changes": len(others),
        "objective": report.objective_value,
        "hard_violations": len(report.hard_violations),
        "solver_status": response.solution.metrics.status,
    }


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def run_replan(args: argparse.Namespace) -> dict[str, Any]:
    employees, shifts, duties, days = REPLAN_SHAPE
    data = synthetic_request(employees, shifts, duties, days, seed=args.seed, mix="all")
    roster = _published(data, args.publish_seconds, args.workers)
    request: SolveRequest = parse_request(data)
    published = audit(request, [Assignment.model_validate(a) for a in roster]).objective_value
    calls = _sick_calls(data, roster, args.absences, random.Random(args.seed))
    limits = SolveLimits(time_limit_seconds=args.time_limit, num_workers=args.workers)
    rows = []
    for i, call in enumerate(calls):
        for method, weight in (("replan", 500), ("re-solve", 0)):
            row = _replan_once(data, roster, call, weight, limits)
            row |= {"run": i, "method": method, "published_objective": published}
            rows.append(row)
            print(
                f"{i:>2} {method:<8} {row['employee']} {row['dates']}: "
                f"{row['other_changes']} other changes, objective {row['objective']} "
                f"(published {published}), {row['seconds']} s",
                flush=True,
            )
    summary = {}
    for method in ("replan", "re-solve"):
        mine = [r for r in rows if r["method"] == method and r["other_changes"] is not None]
        summary[method] = {
            "runs": len(mine),
            "median_absent_slots": _median([r["absent_slots"] for r in mine]),
            "median_other_changes": _median([r["other_changes"] for r in mine]),
            "median_changes": _median([r["changes"] for r in mine]),
            "median_objective_change": _median([r["objective"] - published for r in mine]),
            "median_seconds": _median([r["seconds"] for r in mine]),
            "hard_violations": sum(r["hard_violations"] for r in mine),
            "no_roster": sum(1 for r in rows if r["method"] == method) - len(mine),
        }
    met = (summary["replan"]["median_other_changes"] or 0) <= OTHER_CHANGES_TARGET
    return {"rows": rows, "summary": summary, "target_met": met, "published": published}


def _naive_ms(ask: Any) -> float:
    """Rank by a full audit of each edited roster: what the evaluator replaces."""
    started = time.perf_counter()
    base = audit(ask.request, ask.roster).objective_value
    for employee in ask.request.employees:
        kept = [
            a for a in ask.roster if not (a.employee_id == employee.id and a.date == ask.slot.date)
        ]
        move = Assignment(
            employee_id=employee.id,
            date=ask.slot.date,
            shift_id=ask.slot.shift_id,
            duty_id=ask.slot.duty_id,
        )
        audit(ask.request, [*kept, move]).objective_value - base
    return (time.perf_counter() - started) * 1000


def run_recommend(args: argparse.Namespace) -> dict[str, Any]:
    data = json.loads(MAX_SIZE.read_text())
    roster = _published(data, args.publish_seconds, args.workers)
    rng = random.Random(args.seed)
    start = dt.date.fromisoformat(data["schedule_period"]["start_date"])
    rows: list[dict[str, Any]] = []
    for i in range(args.slots):
        day = start + dt.timedelta(days=rng.randrange(31))
        shift = rng.choice(data["shifts"])
        duty = rng.choice(
            [
                None,
                *(k["id"] for k in data["duties"] if shift["id"] in k["staffing_demand_by_shift"]),
            ]
        )
        slot = {"date": day.isoformat(), "shift_id": shift["id"]}
        if duty is not None:
            slot["duty_id"] = duty
        body = {"request": data, "roster": roster, "slot": slot, "top": 10}
        started = time.perf_counter()
        ask = parse_recommend(body)
        answer = recommend(ask)
        milliseconds = (time.perf_counter() - started) * 1000
        rows.append(
            {
                "run": i,
                "slot": f"{slot['date']}:{shift['id']}" + (f":{duty}" if duty else ""),
                "candidates": answer.candidates,
                "ms": round(milliseconds, 1),
                "naive_ms": round(_naive_ms(ask), 1),
            }
        )
        print(f"{i:>2} {rows[-1]['slot']}: {rows[-1]['ms']} ms (naive {rows[-1]['naive_ms']} ms)")
    median_ms = statistics.median(r["ms"] for r in rows)
    return {
        "rows": rows,
        "median_ms": median_ms,
        "max_ms": max(r["ms"] for r in rows),
        "median_naive_ms": statistics.median(r["naive_ms"] for r in rows),
        "target_met": median_ms < RECOMMEND_TARGET_MS,
    }


def _report(replanned: dict[str, Any] | None, ranked: dict[str, Any] | None) -> str:
    lines = ["# Re-planning and recommendations", ""]
    if replanned is not None:
        lines += [
            f"Published roster objective: {replanned['published']:g}. "
            f"Target met: {replanned['target_met']}.",
            "",
        ]
        table = [
            [
                method,
                s["runs"],
                s["median_absent_slots"],
                s["median_other_changes"],
                s["median_changes"],
                s["median_objective_change"],
                s["median_seconds"],
                s["hard_violations"],
                s["no_roster"],
            ]
            for method, s in replanned["summary"].items()
        ]
        header = [
            "method",
            "runs",
            "median absent slots",
            "median other changes",
            "median changes",
            "median objective change",
            "median s",
            "hard violations",
            "no roster",
        ]
        lines += [markdown_table(header, [[str(v) for v in row] for row in table]), ""]
    if ranked is not None:
        lines += [
            f"Recommendations on max_size.json: median {ranked['median_ms']:.1f} ms, "
            f"max {ranked['max_ms']:.1f} ms, a full audit per candidate "
            f"{ranked['median_naive_ms']:.1f} ms (median). Target met: {ranked['target_met']}.",
            "",
        ]
    return "\n".join(lines)


def _shown(path: Path) -> str:
    """A results folder as recorded: relative to the repository when inside it."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks replanning", **docstring_help(__doc__)
    )
    parser.add_argument("--absences", type=int, default=20, help="sick calls to re-plan")
    parser.add_argument("--slots", type=int, default=20, help="slots to recommend for")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per re-plan")
    parser.add_argument(
        "--publish-seconds", type=float, default=30.0, help="seconds for the published roster"
    )
    parser.add_argument("--workers", type=int, default=2, help="CP-SAT workers")
    parser.add_argument("--seed", type=int, default=1, help="seed of the request and the draws")
    parser.add_argument("--only", choices=("replan", "recommend"), default=None)
    parser.add_argument("--out", type=Path, default=RESULTS, metavar="DIR")
    args = parser.parse_args(argv)
    replanned = None if args.only == "recommend" else run_replan(args)
    ranked = None if args.only == "replan" else run_recommend(args)
    report = _report(replanned, ranked)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{timestamp()}-replanning"
    payload = {
        "settings": vars(args) | {"out": _shown(args.out)},
        "machine": machine_info(),
        "revision": git_revision(),
        "replan": replanned,
        "recommend": ranked,
    }
    stem.with_suffix(".json").write_text(json.dumps(payload, indent=2, default=str))
    stem.with_suffix(".md").write_text(report)
    print()
    print(report)
    print(f"results: {stem}.json")
    return 0
