"""``python -m benchmarks inquiry``: the questions about a roster, against their targets.

A manager asks more of a roster than a solve answers (shiftsched/questions/inquiry.py): what it
breaks and costs, what changed between two versions, and why a shift is short. Four parts,
each with its target; every time is measured ``--repeats`` times and quoted as the
median and the worst.

**Audit** (``shiftsched.questions.review.audit_roster``). ``--dataset`` (default
``datasets/max_size.json``: 50 employees x 12 shifts x 15 duties x 31 days) is solved
with ``--work`` seconds of CP-SAT's deterministic work on one worker with seed 0 (the
same roster on any machine), and that roster is audited beside the plain
``shiftsched.checking.audit.audit`` of it in the same repeats: the baseline, to which the review
adds the input item behind each finding, the words, each employee's figures and the KPIs. A
hand-edited copy (``--edits`` cells removed, moved to another shift or added on a day
off) is timed alike, and so is the whole answer from the JSON body (``parse_audit``
included). One untimed call of each comes first. Target: under 150 ms (median).

**Explain** (``shiftsched.questions.explain.explain_shortages``). For each of ``--seeds`` synthetic
requests of ``--employees`` employees x 3 shifts x ``--days`` days (mix ``all``, seeds 1,
2, ...), solved with ``--work`` of deterministic work, ``--holes`` assignments are removed
(seeded; never a fixed one) and the shortages explained with ``--time-limit`` seconds on
``--workers`` CP-SAT workers. Targets: under 5 s; every shortage decided (avoidable or
unavoidable); every fill keeps the hard rules under ``shiftsched.checking.audit`` and its audited
objective is the holed roster's plus its ``objective_delta``. A shortage the holes opened
is avoidable by construction (the solved roster fills it): one named unavoidable is
counted as a wrong verdict.

**Planted**: ten tiny requests (7 days, one to three employees), each with one planted
input item (a pairing, assignability, weekdays, a shift count, a fixed assignment, days
per month, weekly hours, an absence, a transition, consecutive days) that leaves one
demand unfillable; the optimal roster's shortages are explained. Target: each planted one
named unavoidable with the planted item among its causes in every repeat, 10 of 10.

**Compare** (``shiftsched.questions.review.compare``). On each of ``--datasets`` (default every
``datasets/*.json``), the greedy start (``shiftsched.solving.greedy``) and a hand-edited copy:
target, the changes agree with a direct diff (the symmetric difference of the two sets
of (employee, date, shift, duty)) and the objective delta is the difference of the two
audits, on every dataset.

With ``--out``: ``<timestamp>-inquiry`` ``.json`` (every figure) and ``.md`` (the summary
printed) under the directory (default ``benchmarks/results/``). Exit 1 when a target is
missed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.command_help import docstring_help
from benchmarks.load import markdown_table
from benchmarks.machine import ROOT, load_average
from benchmarks.runner import RESULTS, write_record
from benchmarks.seam import budget
from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import Absence, Change
from shiftsched.contract.size import schedule_days
from shiftsched.contract.v1 import Assignment, Shortage, SolveRequest
from shiftsched.data import request_body as body
from shiftsched.data.synthetic import synthetic_request
from shiftsched.questions.explain import explain_shortages
from shiftsched.questions.inquiry import (
    AuditRequest,
    ExplainRequest,
    ShortageExplanation,
    parse_audit,
)
from shiftsched.questions.review import audit_roster, compare
from shiftsched.solving.greedy import greedy_roster, roster_assignments
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import SolveLimits, solve

Json = dict[str, Any]
MAX_SIZE = ROOT / "datasets" / "max_size.json"
AUDIT_TARGET_MS = 150.0
EXPLAIN_TARGET_SECONDS = 5.0
EXPLAIN_SHIFTS = 3
#: The optimum of a planted request: tiny, so proven at once; the limit is a backstop.
EXACT = SolveLimits(time_limit_seconds=120.0, num_workers=1, random_seed=0)


# ----------------------------------------------------------------------- helpers


def spread(values: Sequence[float]) -> Json:
    """The median and the worst of repeated measurements."""
    return {
        "runs": len(values),
        "median": round(statistics.median(values), 3),
        "worst": round(max(values), 3),
    }


def _ms(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def _dumped(roster: Sequence[Assignment]) -> list[Json]:
    return [a.model_dump(mode="json", exclude_none=True) for a in roster]


def _shown(path: Path) -> str:
    """A path as recorded: from the repository root when inside it."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(path)


def solved(request: SolveRequest, work: float) -> tuple[list[Assignment], Json]:
    """The roster of ``work`` seconds of deterministic work, and how it was made."""
    response = solve(request, budget(work, 1, True))
    if response.solution is None:
        raise SystemExit(f"no roster to ask about: {response.error}")
    roster = response.solution.assignments
    report = audit(request, roster)
    return roster, {
        "made_by": f"solve, {work:g} s of deterministic work, one worker, seed 0",
        "solver_status": response.solution.metrics.status,
        "cells": len(roster),
        "objective": report.objective_value,
        "hard_violations": len(report.hard_violations),
        "shortages": len(report.shortages),
    }


def hand_edited(
    request: SolveRequest, roster: Sequence[Assignment], cells: int, rng: random.Random
) -> list[Assignment]:
    """``roster`` with ``cells`` (employee, date) cells changed as a manager would by
    hand: a worked cell removed or moved to another shift the employee may work (its duty
    dropped), or a day off worked on a shift they may work. One cell per employee and
    date stays one."""
    by_cell = {(a.employee_id, a.date): a for a in roster}
    start = request.schedule_period.start_date
    dates = [start + dt.timedelta(days=k) for k in range(schedule_days(request.schedule_period))]
    shifts = {e.id: list(e.assignable_shift_ids) for e in request.employees}
    keys = [(e.id, d) for e in request.employees for d in dates]
    for key in rng.sample(keys, min(cells, len(keys))):
        now = by_cell.get(key)
        others = [s for s in shifts[key[0]] if now is None or s != now.shift_id]
        if now is not None and (not others or rng.random() < 0.5):
            del by_cell[key]
        elif others:
            by_cell[key] = Assignment(employee_id=key[0], date=key[1], shift_id=rng.choice(others))
    return sorted(by_cell.values(), key=lambda a: (a.date, a.shift_id, a.employee_id))


# ------------------------------------------------------------------------- audit


def run_audit(args: argparse.Namespace) -> Json:
    data = json.loads(Path(args.dataset).read_text(encoding="utf-8"))
    request = parse_request(data)
    roster, made = solved(request, args.work)
    edited = hand_edited(request, roster, args.edits, random.Random(args.seed))
    body_json = {"request": data, "roster": _dumped(roster)}
    calls: dict[str, Callable[[], object]] = {
        "audit": lambda: audit(request, roster),
        "review": lambda: audit_roster(AuditRequest(request=request, roster=roster)),
        "audit_edited": lambda: audit(request, edited),
        "review_edited": lambda: audit_roster(AuditRequest(request=request, roster=edited)),
        "review_from_json": lambda: audit_roster(parse_audit(body_json)),
    }
    for call in calls.values():  # imports and first-use caches, untimed
        call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for i in range(args.repeats):
        for name, call in calls.items():  # interleaved: each repeat shares the same load
            times[name].append(_ms(call))
        print(f"audit {i}: " + ", ".join(f"{n} {t[-1]:.1f} ms" for n, t in times.items()))
    ms = {name: spread(values) for name, values in times.items()}
    review = audit_roster(AuditRequest(request=request, roster=roster))
    review_edited = audit_roster(AuditRequest(request=request, roster=edited))
    return {
        "dataset": _shown(Path(args.dataset)),
        "roster": made,
        "edited": {
            "cells_changed": compare(request, roster, edited).totals.changes,
            "objective": review_edited.objective_value,
            "hard_violations": review_edited.totals.hard_violations,
            "shortages": review_edited.totals.shortages,
        },
        "findings": {
            "soft_terms": review.totals.soft_constraint_violations,
            "shortages": review.totals.shortages,
            "employees": len(review.employees),
        },
        "ms": ms,
        "ratio_review_to_audit": _ratios(ms["review"], ms["audit"]),
        "ratio_edited_review_to_audit": _ratios(ms["review_edited"], ms["audit_edited"]),
        "target_ms": AUDIT_TARGET_MS,
        "target_met": max(ms["review"]["median"], ms["review_edited"]["median"]) < AUDIT_TARGET_MS,
    }


def _ratios(mine: Json, baseline: Json) -> Json:
    return {
        "median": round(mine["median"] / baseline["median"], 2),
        "worst": round(mine["worst"] / baseline["worst"], 2),
    }


# ----------------------------------------------------------------------- explain


def holed(
    request: SolveRequest, roster: Sequence[Assignment], holes: int, rng: random.Random
) -> list[Assignment]:
    """``roster`` less ``holes`` assignments drawn at random, never a fixed one."""
    fixed = {(e.id, f.date) for e in request.employees for f in e.fixed_assignments}
    free = [i for i, a in enumerate(roster) if (a.employee_id, a.date) not in fixed]
    gone = set(rng.sample(free, min(holes, len(free))))
    return [a for i, a in enumerate(roster) if i not in gone]


def _key(marker: Shortage) -> tuple[object, ...]:
    return (
        marker.kind,
        marker.date,
        marker.shift_id,
        tuple(marker.shift_ids or ()),
        marker.duty_id,
    )


def fill_faults(
    request: SolveRequest, objective: float, explanation: ShortageExplanation
) -> list[str]:
    """What is wrong with an avoidable verdict's fill: a hard rule broken, or an audited
    objective that is not ``objective`` plus the stated delta."""
    if explanation.roster is None or explanation.objective_delta is None:
        return ["no roster or no objective delta"]
    report = audit(request, explanation.roster)
    faults = [f"hard: {v.code}" for v in report.hard_violations]
    if report.objective_value != objective + explanation.objective_delta:
        faults.append(
            f"objective {report.objective_value:g}, stated "
            f"{objective:g} {explanation.objective_delta:+g}"
        )
    return faults


def explain_run(
    request: SolveRequest,
    solved_roster: Sequence[Assignment],
    roster: Sequence[Assignment],
    limits: SolveLimits,
) -> Json:
    """One explanation of ``roster``'s shortages, timed and checked."""
    ask = ExplainRequest(request=request, roster=list(roster))
    started = time.perf_counter()
    answer = explain_shortages(ask, limits)
    seconds = time.perf_counter() - started
    was = {_key(m): m.missing for m in audit(request, solved_roster).shortages}
    verdicts = Counter(e.verdict for e in answer.explanations)
    faults: list[str] = []
    wrong: list[str] = []
    deltas: list[float] = []
    for e in answer.explanations:
        if e.verdict == "avoidable":
            faults += fill_faults(request, answer.objective_value, e)
            deltas.append(e.objective_delta or 0.0)
        elif e.verdict == "unavoidable" and e.shortage.missing > was.get(_key(e.shortage), 0):
            wrong.append(e.summary)
    return {
        "seconds": round(seconds, 3),
        "shortages": len(answer.explanations),
        "avoidable": verdicts["avoidable"],
        "unavoidable": verdicts["unavoidable"],
        "undecided": verdicts["undecided"],
        "fill_faults": faults,
        "fill_objective_deltas": deltas,
        "fills_that_cost_more": sum(1 for d in deltas if d > 0),
        "wrongly_unavoidable": wrong,
    }


def run_explain(args: argparse.Namespace) -> Json:
    limits = SolveLimits(time_limit_seconds=args.time_limit, num_workers=args.workers)
    rows = []
    for seed in range(1, args.seeds + 1):
        data = synthetic_request(args.employees, EXPLAIN_SHIFTS, 0, args.days, seed=seed)
        request = parse_request(data)
        roster, made = solved(request, args.work)
        holey = holed(request, roster, args.holes, random.Random(seed))
        report = audit(request, holey)
        made |= {
            "holed_objective": report.objective_value,
            "holed_hard_violations": len(report.hard_violations),
        }
        for repeat in range(args.repeats):
            row: Json = {"seed": seed, "repeat": repeat, "roster": made}
            row |= explain_run(request, roster, holey, limits)
            rows.append(row)
            print(
                f"explain seed {seed} #{repeat}: {row['shortages']} shortages, "
                f"{row['avoidable']} avoidable, {row['unavoidable']} unavoidable, "
                f"{row['undecided']} undecided, {len(row['fill_faults'])} fill faults, "
                f"{row['seconds']} s",
                flush=True,
            )
    return explain_summary(rows)


def explain_summary(rows: list[Json]) -> Json:
    seconds = spread([r["seconds"] for r in rows])
    totals = {
        name: sum(r[name] for r in rows)
        for name in ("shortages", "avoidable", "unavoidable", "undecided", "fills_that_cost_more")
    }
    totals["fill_faults"] = sum(len(r["fill_faults"]) for r in rows)
    totals["wrongly_unavoidable"] = sum(len(r["wrongly_unavoidable"]) for r in rows)
    deltas = [d for r in rows for d in r["fill_objective_deltas"]]
    return {
        "rows": rows,
        "seconds": seconds,
        "totals": totals,
        "shortages_per_run": spread([r["shortages"] for r in rows]),
        "fill_objective_delta": spread(deltas) if deltas else None,
        "time_target_met": seconds["median"] < EXPLAIN_TARGET_SECONDS,
        "decided_target_met": totals["undecided"] == 0 and totals["wrongly_unavoidable"] == 0,
        "fill_target_met": totals["fill_faults"] == 0,
    }


# ---------------------------------------------------------------------- planted

MONDAY, TUESDAY = "2026-03-02", "2026-03-03"
NIGHT_FREE = [body.span(0, 1)] * 7  # a night demand nobody has to meet
#: The planted item's path in the explain input, and the date and shift it empties.
Planted = tuple[str, str, str]


def tiny_request() -> Json:
    """Monday 2 to Sunday 8 March 2026: shifts day (07:00-15:00) and night (23:00-07:00),
    one head each a day; duty lead on day (0..1); e1, e2 and e3 may work both."""
    shifts = [
        body.shift(s, body.demand(7, 1, 1), name=s.capitalize(), hours=hours)
        for s, hours in (("day", ("07:00", "15:00")), ("night", ("23:00", "07:00")))
    ]
    lead = body.duty("lead", {"day": body.demand(7, 0, 1)}, name="Lead")
    staff = [body.employee(e, ("day", "night"), name=e.upper()) for e in ("e1", "e2", "e3")]
    return body.request_body(shifts, staff, start=MONDAY, days=7, duties=[lead], constraints={})


def _alone(data: Json, fixed_days: int, **rules: Any) -> None:
    """One employee, fixed to the day shift on the first ``fixed_days`` days."""
    fixed = [body.fixed(body.day(MONDAY, i), "day") for i in range(fixed_days)]
    data["employees"] = [
        body.employee("e1", ("day", "night"), name="E1", **({"fixed_assignments": fixed} | rules))
    ]
    data["shifts"][1]["staffing_demand"] = NIGHT_FREE


def _kept_apart(data: Json) -> Planted:
    data["employees"] = data["employees"][:2]
    data["shifts"][0]["staffing_demand"] = [body.span(2, 2)] * 7
    data["shifts"][1]["staffing_demand"] = NIGHT_FREE
    data["constraints"]["employee_pairings"] = [{"employee_ids": ["e1", "e2"], "rule": "exclude"}]
    return "request.constraints.employee_pairings[0]", MONDAY, "day"


def _nobody_on_nights(data: Json) -> Planted:
    for employee in data["employees"]:
        employee["assignable_shift_ids"] = ["day"]
    return "request.employees[0].assignable_shift_ids", MONDAY, "night"


def _not_on_mondays(data: Json) -> Planted:
    for employee in data["employees"]:
        employee["available_weekdays"] = ["tue", "wed", "thu", "fri", "sat", "sun"]
    return "request.employees[0].available_weekdays", MONDAY, "day"


def _night_count_zero(data: Json) -> Planted:
    for employee in data["employees"]:
        employee["shift_count_limits"] = [{"shift_id": "night", "max": 0}]
    return "request.employees[0].shift_count_limits[0]", MONDAY, "night"


def _fixed_to_days(data: Json) -> Planted:
    for employee in data["employees"]:
        employee["fixed_assignments"] = [body.fixed(MONDAY, "day")]
    data["shifts"][0]["staffing_demand"][0] = body.span(3, 3)
    return "request.employees[0].fixed_assignments[0]", MONDAY, "night"


def _three_days_a_month(data: Json) -> Planted:
    _alone(data, 3, working_days_per_month=body.span(0, 3))
    return "request.employees[0].working_days_per_month", "2026-03-05", "day"


def _eight_hours_a_week(data: Json) -> Planted:
    _alone(data, 1, weekly_working_hours_limit={"hours": 8, "enforcement": "hard"})
    return "request.employees[0].weekly_working_hours_limit", TUESDAY, "day"


def _all_absent(data: Json) -> Planted:
    return "absences[0].dates[0]", MONDAY, "day"


def _no_day_after_a_night(data: Json) -> Planted:
    _alone(data, 0, fixed_assignments=[body.fixed(MONDAY, "night")])
    data["constraints"]["shift_transitions"] = [
        {"from_shift_id": "night", "to_shift_id": "day", "rule": "forbid"}
    ]
    return "request.constraints.shift_transitions[0]", TUESDAY, "day"


def _two_days_in_a_row(data: Json) -> Planted:
    _alone(data, 2)
    data["constraints"]["max_consecutive_working_days"] = 2
    return "request.constraints.max_consecutive_working_days", "2026-03-04", "day"


PLANTED: dict[str, Callable[[Json], Planted]] = {
    "pairing": _kept_apart,
    "not assignable": _nobody_on_nights,
    "weekday": _not_on_mondays,
    "shift count": _night_count_zero,
    "fixed assignment": _fixed_to_days,
    "days per month": _three_days_a_month,
    "weekly hours": _eight_hours_a_week,
    "absence": _all_absent,
    "transition": _no_day_after_a_night,
    "consecutive days": _two_days_in_a_row,
}


def names_planted(planted: str, field: str) -> bool:
    """Whether ``field`` is the planted item, or for a rule planted on every employee,
    any employee's."""
    if "employees[0]" not in planted:
        return field == planted
    head, tail = planted.split("employees[0]")
    return field.startswith(head + "employees[") and field.endswith(tail)


def planted_ask(name: str) -> tuple[ExplainRequest, Planted]:
    """The explain input of one planting: its optimal roster (less Monday, and everyone
    absent that day, for the absence)."""
    data = tiny_request()
    planted = PLANTED[name](data)
    request = parse_request(data)
    response = solve(request, EXACT)
    if response.solution is None:
        raise SystemExit(f"planted {name}: no roster: {response.error}")
    roster = response.solution.assignments
    absences: list[Absence] = []
    if planted[0].startswith("absences"):
        monday = dt.date.fromisoformat(MONDAY)
        roster = [a for a in roster if a.date != monday]
        absences = [Absence(employee_id=e.id, dates=[monday]) for e in request.employees]
    return ExplainRequest(request=request, roster=roster, absences=absences), planted


def planted_once(ask: ExplainRequest, planted: Planted, limits: SolveLimits) -> Json:
    path, date, shift_id = planted
    started = time.perf_counter()
    answer = explain_shortages(ask, limits)
    seconds = time.perf_counter() - started
    found = [
        e
        for e in answer.explanations
        if (e.shortage.date.isoformat(), e.shortage.shift_id) == (date, shift_id)
    ]
    verdict = found[0].verdict if found else "no such shortage"
    named = bool(found) and any(names_planted(path, c.field) for c in found[0].causes)
    return {
        "seconds": round(seconds, 3),
        "verdict": verdict,
        "planted_named": named,
        "met": verdict == "unavoidable" and named,
        "causes": [c.field for c in found[0].causes] if found else [],
    }


def run_planted(args: argparse.Namespace) -> Json:
    limits = SolveLimits(time_limit_seconds=args.time_limit, num_workers=args.workers)
    rows, seconds = [], []
    for name in PLANTED:
        ask, planted = planted_ask(name)
        runs = [planted_once(ask, planted, limits) for _ in range(args.repeats)]
        seconds += [r["seconds"] for r in runs]
        row = {
            "planted": name,
            "item": planted[0],
            "shortage": f"{planted[1]} {planted[2]}",
            "met": all(r["met"] for r in runs),
            "verdicts": dict(Counter(r["verdict"] for r in runs)),
            "causes": runs[-1]["causes"],
            "seconds": spread([r["seconds"] for r in runs]),
        }
        rows.append(row)
        print(f"planted {name}: met {row['met']}, {row['verdicts']}, {row['seconds']}")
    met = sum(1 for r in rows if r["met"])
    return {
        "rows": rows,
        "met": met,
        "of": len(rows),
        "seconds": spread(seconds),
        "target_met": met == len(rows),
    }


# ----------------------------------------------------------------------- compare


def _cells(roster: Sequence[Assignment]) -> set[tuple[str, dt.date, str, str | None]]:
    return {(a.employee_id, a.date, a.shift_id, a.duty_id) for a in roster}


def diff_agrees(
    before: Sequence[Assignment], after: Sequence[Assignment], changes: Sequence[Change]
) -> bool:
    """Whether ``changes`` are the direct diff: what they take away is exactly the cells
    only ``before`` has, what they put in exactly those only ``after`` has, one change
    per (employee, date) of the symmetric difference."""
    old, new = _cells(before), _cells(after)
    removed = {
        (c.employee_id, c.date, c.from_shift_id, c.from_duty_id)
        for c in changes
        if c.change != "added"
    }
    added = {
        (c.employee_id, c.date, c.to_shift_id, c.to_duty_id)
        for c in changes
        if c.change != "removed"
    }
    keys = {(employee, date) for employee, date, *_ in old ^ new}
    return removed == old - new and added == new - old and len(changes) == len(keys)


def compare_one(path: Path, args: argparse.Namespace) -> Json:
    request = parse_request(json.loads(path.read_text(encoding="utf-8")))
    problem = from_request(request)
    before = roster_assignments(problem, greedy_roster(problem))
    after = hand_edited(request, before, args.edits, random.Random(args.seed))
    answer = compare(request, before, after)
    old, new = audit(request, before), audit(request, after)
    cells_agree = diff_agrees(before, after, answer.changes)
    objective_agrees = (
        answer.objective_before == old.objective_value
        and answer.objective_after == new.objective_value
        and answer.objective_delta == new.objective_value - old.objective_value
    )
    ms = [_ms(lambda: compare(request, before, after)) for _ in range(args.repeats)]
    return {
        "dataset": _shown(path),
        "cells": len(before),
        "changes": answer.totals.changes,
        "objective_delta": answer.objective_delta,
        "cells_agree": cells_agree,
        "objective_agrees": objective_agrees,
        "agrees": cells_agree and objective_agrees,
        "ms": spread(ms),
    }


def run_compare(args: argparse.Namespace) -> Json:
    rows = []
    for path in args.datasets:
        rows.append(compare_one(Path(path), args))
        print(f"compare {rows[-1]['dataset']}: agrees {rows[-1]['agrees']}, {rows[-1]['ms']} ms")
    agree = sum(1 for r in rows if r["agrees"])
    return {"rows": rows, "agree": agree, "of": len(rows), "target_met": agree == len(rows)}


# ----------------------------------------------------------------------- summary


def targets(record: Json) -> list[Json]:
    """One line per target of the parts run: what was measured and whether it was met."""
    lines = []
    if (a := record.get("audit")) is not None:
        review, edited = a["ms"]["review"], a["ms"]["review_edited"]
        whole = a["ms"]["review_from_json"]
        lines.append(
            _target(
                f"audit of {a['dataset']} under {AUDIT_TARGET_MS:g} ms",
                f"median {review['median']:.1f} ms (worst {review['worst']:.1f}), "
                f"{a['ratio_review_to_audit']['median']:.2f}x the plain audit; "
                f"edited copy {edited['median']:.1f} ms (worst {edited['worst']:.1f}); "
                f"from the JSON body {whole['median']:.1f} ms (worst {whole['worst']:.1f})",
                a["target_met"],
            )
        )
    if (e := record.get("explain")) is not None:
        t, s = e["totals"], e["seconds"]
        lines += [
            _target(
                f"explain under {EXPLAIN_TARGET_SECONDS:g} s",
                f"median {s['median']:.2f} s (worst {s['worst']:.2f}) over {s['runs']} runs",
                e["time_target_met"],
            ),
            _target(
                "every shortage decided",
                f"{t['avoidable']} avoidable, {t['unavoidable']} unavoidable, "
                f"{t['undecided']} undecided of {t['shortages']}; "
                f"{t['wrongly_unavoidable']} wrongly unavoidable",
                e["decided_target_met"],
            ),
            _target(
                "every fill hard-clean at its stated price",
                f"{t['fill_faults']} faults in {t['avoidable']} fills "
                f"({t['fills_that_cost_more']} cost more than the holed roster"
                + (f", median delta {d['median']:+g}" if (d := e["fill_objective_delta"]) else "")
                + ")",
                e["fill_target_met"],
            ),
        ]
    if (p := record.get("planted")) is not None:
        s = p["seconds"]
        lines.append(
            _target(
                "planted shortages named unavoidable with their item",
                f"{p['met']} of {p['of']}; median {s['median']:.2f} s (worst {s['worst']:.2f})",
                p["target_met"],
            )
        )
    if (c := record.get("compare")) is not None:
        worst = max((r["ms"]["worst"] for r in c["rows"]), default=0.0)
        lines.append(
            _target(
                "compare agrees with a direct diff and the audits",
                f"{c['agree']} of {c['of']} datasets; worst {worst:.1f} ms",
                c["target_met"],
            )
        )
    return lines


def _target(name: str, measured: str, met: bool) -> Json:
    return {"target": name, "measured": measured, "met": met}


def summary(record: Json) -> str:
    rows = [[t["target"], t["measured"], "PASS" if t["met"] else "MISS"] for t in targets(record)]
    table = markdown_table(["target", "measured", "verdict"], rows)
    lines = ["# Questions about a roster", "", table]
    if (c := record.get("compare")) is not None:
        per = [
            [
                r["dataset"],
                str(r["changes"]),
                f"{r['objective_delta']:+g}",
                str(r["agrees"]),
                f"{r['ms']['median']:.1f}",
                f"{r['ms']['worst']:.1f}",
            ]
            for r in c["rows"]
        ]
        header = ["dataset", "changes", "objective delta", "agrees", "median ms", "worst ms"]
        lines += ["", markdown_table(header, per)]
    return "\n".join(lines)


# -------------------------------------------------------------------------- main


PARTS: dict[str, Callable[[argparse.Namespace], Json]] = {
    "audit": run_audit,
    "explain": run_explain,
    "planted": run_planted,
    "compare": run_compare,
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks inquiry", **docstring_help(__doc__))
    add = parser.add_argument
    add("--repeats", type=int, default=5, metavar="N", help="times each is measured (5)")
    add("--time-limit", type=float, default=5.0, metavar="S", help="seconds per explain (5)")
    add("--workers", type=int, default=2, metavar="N", help="CP-SAT workers to explain (2)")
    add("--only", choices=tuple(PARTS), help="one part only (all four)")
    add("--out", nargs="?", const=str(RESULTS), metavar="DIR", help="write the record here")
    add("--dataset", type=Path, default=MAX_SIZE, metavar="PATH", help="request to audit")
    add("--work", type=float, default=5.0, metavar="S", help="deterministic s per solve (5)")
    add("--edits", type=int, default=5, metavar="N", help="cells changed by hand (5)")
    add("--seeds", type=int, default=5, metavar="N", help="requests to explain (5)")
    add("--employees", type=int, default=25, metavar="N", help="of each (25)")
    add("--days", type=int, default=31, metavar="N", help="of each (31)")
    add("--holes", type=int, default=10, metavar="N", help="assignments removed (10)")
    add(
        "--datasets",
        type=Path,
        nargs="+",
        default=sorted((ROOT / "datasets").glob("*.json")),
        metavar="PATH",
        help="requests to compare on (every datasets/*.json)",
    )
    add("--seed", type=int, default=1, help="seed of the hand edits (1)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    settings = vars(args) | {
        "out": None if args.out is None else _shown(Path(args.out)),
        "dataset": _shown(args.dataset),
        "datasets": [_shown(Path(p)) for p in args.datasets],
    }
    record: Json = {"settings": settings, "load_average_before": load_average()}
    for name, run in PARTS.items():
        if args.only in (None, name):
            record[name] = run(args)
    record["load_average_after"] = load_average()
    record["targets"] = targets(record)
    text = summary(record)
    print()
    print(text)
    if args.out:
        stem = write_record(args.out, "inquiry", record, text)
        print(f"results: {stem}.json")
    return 0 if all(t["met"] for t in record["targets"]) else 1
