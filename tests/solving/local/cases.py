"""Problems of every source, their models as the local search reads them, a feasible start
and an independent judge of any roster, shared by the local search tests.

A case is built once per process: the model with its hard groups enforced (as a solve
posts them), :func:`local_model` of it, and the greedy roster completed by one CP-SAT
solve with every decision fixed (deterministic). Its judge prices a roster from its
decisions without the model: the v1 audit (with the request's history when it has one)
or the Curtois & Qu checker. The INRC-II weeks have no judge of the engine's own
pricing (a week prices two horizon rules by a prorated share), so only the model's exact
price is compared there.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from shiftsched.checking.audit import audit
from shiftsched.contract.history import History
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import parse_plan
from shiftsched.contract.v1 import SolveRequest
from shiftsched.data.synthetic import MIXES, synthetic_request
from shiftsched.formats.curtois import load, to_problem, to_roster
from shiftsched.formats.curtois_check import check
from shiftsched.formats.inrc2 import DATASET_DIR, load_history, load_scenario, load_week
from shiftsched.formats.inrc2_problem import week_problem
from shiftsched.periods.seam import with_history
from shiftsched.solving.extract import extract
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.hint import add_roster_hint, complete_hint
from shiftsched.solving.local.arrays import LocalModel, local_model
from shiftsched.solving.local.compiled import entry
from shiftsched.solving.local.kernels import new_state
from shiftsched.solving.local.search import JOURNAL
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.model.tight import evaluate, tight_values
from shiftsched.solving.problem import Problem, from_request

DATASETS = Path(__file__).resolve().parents[3] / "datasets"
DATASET_NAMES = tuple(sorted(path.stem for path in DATASETS.glob("*.json")))
INFEASIBLE_NAMES = tuple(
    sorted(p.stem for p in (DATASETS / "infeasible").glob("*.json") if p.stem != "index")
)
COMPLETION_SECONDS = 30.0  # a backstop: the completion fixes every decision and ends at once
FIXED_SECONDS = 60.0  # a backstop: a solve with every variable fixed ends at once
SHAPE = (6, 2, 2, 14)  # employees, shifts, duties, days of the synthetic requests
SYNTHETIC = (*(f"synthetic-{mix}" for mix in sorted(MIXES)), "synthetic-all-no-duties")
HISTORY = ("history-all", "history-workload-ledger")
CURTOIS = ("curtois-1", "curtois-2", "curtois-3", "curtois-4")
INRC2 = ("inrc2-n005w4", "inrc2-n005w4-forecast", "inrc2-n012w8")
# max_size (27,500 variables) only in the reading test, for time: a case of it took 4 s.
SEARCHED_DATASETS = tuple(name for name in DATASET_NAMES if name != "max_size")
V1 = SYNTHETIC + HISTORY + tuple(f"dataset-{name}" for name in SEARCHED_DATASETS)
JUDGED = V1 + CURTOIS  # cases with an independent judge
ALL = JUDGED + INRC2


@dataclass(frozen=True)
class Verdict:
    """What an independent judge finds in a roster."""

    objective: int
    feasible: bool
    broken: tuple[str, ...]  # the hard rules it names, for the failure message


@dataclass(frozen=True)
class Case:
    label: str
    compiled: CompiledModel
    local: LocalModel
    start: list[int]  # a feasible solution vector of the model (the greedy roster)
    judge: Callable[[Sequence[int]], Verdict] | None


def enforced(problem: Problem, *, prune: bool = True) -> CompiledModel:
    """The model with every hard group posted true, as a solve has it."""
    compiled = build(problem, prune=prune)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    return compiled


def model_price(compiled: CompiledModel, values: Sequence[int]) -> int:
    """The model's exact price of the roster's decisions (every auxiliary at its least).

    The penalty terms' sum is the objective CP-SAT minimizes, its constant offset
    included; both are computed and must agree."""
    tight = tight_values(compiled, values)
    priced = sum(term.weight * evaluate(term.magnitude, tight) for term in compiled.terms)
    objective = compiled.model.proto.objective
    posted = int(objective.offset) + sum(
        int(c) * tight[v] for v, c in zip(objective.vars, objective.coeffs, strict=True)
    )
    assert priced == posted, f"the terms price {priced}, the posted objective {posted}"
    return int(priced)


def cp_sat_objective(compiled: CompiledModel, values: Sequence[int]) -> float | None:
    """CP-SAT's objective with every variable of the model fixed to ``values``; None when
    they break a constraint (one worker, nothing to search)."""
    model = compiled.model.clone()
    model.clear_hints()  # type: ignore[no-untyped-call]
    assert len(values) == len(model.proto.variables)
    for index, value in enumerate(values):
        model.add(model.get_int_var_from_proto_index(index) == value)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = FIXED_SECONDS
    status = solver.solve(model)
    assert status in (cp_model.OPTIMAL, cp_model.INFEASIBLE), solver.status_name(status)
    return float(solver.objective_value) if status == cp_model.OPTIMAL else None


def _v1_judge(
    compiled: CompiledModel, request: SolveRequest, history: History | None
) -> Callable[[Sequence[int]], Verdict]:
    def judge(values: Sequence[int]) -> Verdict:
        assignments = extract(compiled, tight_values(compiled, values))[0]
        report = audit(request, assignments, history=history)
        objective = report.objective_value
        assert objective == int(objective)
        broken = tuple(sorted({str(v.code) for v in report.hard_violations}))
        return Verdict(int(objective), not report.hard_violations, broken)

    return judge


def _curtois_judge(compiled: CompiledModel, number: int) -> Callable[[Sequence[int]], Verdict]:
    instance = load(number)

    def judge(values: Sequence[int]) -> Verdict:
        assignments = extract(compiled, tight_values(compiled, values))[0]
        report = check(instance, to_roster(compiled.problem, assignments))
        broken = tuple(sorted({v.rule for v in report.violations}))
        return Verdict(report.objective, report.feasible, broken)

    return judge


def _with_history(data: dict[str, Any], seed: int, *, ledger: bool) -> dict[str, Any]:
    """A plan body: ``data`` after a week of random cells (and a ledger of past counts)."""
    rng = random.Random(seed)
    start = dt.date.fromisoformat(data["schedule_period"]["start_date"])
    shifts = [s["id"] for s in data["shifts"]]
    cells = [
        {
            "employee_id": employee["id"],
            "date": (start - dt.timedelta(days=back)).isoformat(),
            "shift_id": rng.choice(shifts),
        }
        for employee in data["employees"]
        for back in range(1, 8)
        if rng.random() < 0.6
    ]
    history: dict[str, Any] = {
        "start_date": (start - dt.timedelta(days=7)).isoformat(),
        "assignments": cells,
    }
    if ledger:
        history["ledger"] = {
            "through": (start - dt.timedelta(days=1)).isoformat(),
            "employees": [
                {"employee_id": e["id"], "shift_counts": {s: rng.randint(0, 9) for s in shifts}}
                for e in data["employees"]
            ],
        }
    return {"request": data, "history": history}


def v1_source(label: str) -> tuple[SolveRequest, History | None]:
    """The v1 request (and history) of a v1 case."""
    kind, _, name = label.partition("-")
    if kind == "dataset":
        return parse_request(json.loads((DATASETS / f"{name}.json").read_text())), None
    if kind == "infeasible":
        path = DATASETS / "infeasible" / f"{name}.json"
        return parse_request(json.loads(path.read_text())), None
    if kind == "synthetic":
        duties = 0 if name.endswith("-no-duties") else SHAPE[2]
        mix = name.removesuffix("-no-duties")
        return parse_request(synthetic_request(*SHAPE[:2], duties, SHAPE[3], seed=3, mix=mix)), None
    assert kind == "history", label
    mix, _, ledger = name.partition("-")
    data = synthetic_request(*SHAPE, seed=5, mix=mix)
    ask = parse_plan(_with_history(data, seed=7, ledger=bool(ledger)))
    return ask.request, ask.history


def inrc2_problem(name: str, week: int = 0, *, forecast: bool = False) -> Problem:
    """Week ``week`` of INRC-II dataset ``name`` after its first initial history."""
    folder = DATASET_DIR / name
    scenario = load_scenario(folder / f"Sc-{name}.txt")
    history = load_history(folder / f"H0-{name}-0.txt")
    weeks = [load_week(folder / f"WD-{name}-{k}.txt") for k in range(week, week + 1 + forecast)]
    return week_problem(scenario, history, weeks[0], weeks[1:])


def problem_of(label: str) -> Problem:
    kind, _, name = label.partition("-")
    if kind == "curtois":
        return to_problem(load(int(name)))
    if kind == "inrc2":
        return inrc2_problem(name.removesuffix("-forecast"), forecast=name.endswith("-forecast"))
    request, history = v1_source(label)
    return with_history(from_request(request), request, history)


@cache
def case(label: str) -> Case:
    problem = problem_of(label)
    compiled = enforced(problem)
    local = local_model(compiled)
    add_roster_hint(compiled, greedy_roster(problem))
    start = complete_hint(compiled, COMPLETION_SECONDS)
    assert start is not None, f"{label}: the greedy roster breaks a hard rule"
    kind, _, name = label.partition("-")
    judge: Callable[[Sequence[int]], Verdict] | None = None
    if kind == "curtois":
        judge = _curtois_judge(compiled, int(name))
    elif kind != "inrc2":
        judge = _v1_judge(compiled, *v1_source(label))
    return Case(label, compiled, local, start.values, judge)


State = tuple[np.ndarray, ...]
Roster = tuple[np.ndarray, np.ndarray]


def evaluated(local: LocalModel, values: Sequence[int]) -> tuple[State, Roster]:
    """A fresh kernel state of the decisions of ``values`` (full evaluation), and the
    choice per cell read from it."""
    m = local.kernel_arrays()
    st = new_state(local.variables, local.rows, len(local.def_var), JOURNAL)
    st[0][:] = local.initial
    decisions = np.concatenate([local.opt_x, local.oy_var])
    st[0][decisions] = np.asarray(values, dtype=np.int64)[decisions]
    entry("evaluate_all")(m, st)
    cells = local.employees * local.days
    roster = (np.full(cells, -1, np.int64), np.full(cells, -1, np.int64))
    entry("read_cells")(m, st, local.cell_arrays(), roster)
    return st, roster
