"""Re-plan a published roster after a change, moving as few people as possible.

The new roster keeps every hard rule of the (perhaps edited) request, plus the hard
rules of the change itself: an absent employee works none of the absent dates, and a
pinned cell (a listed assignment, or every cell before ``pin_before``, days off
included) stays as published. Among those rosters it minimises the request's objective
plus ``change_weight`` per changed (employee, date) cell: a new shift or duty on a date,
a shift dropped, or a day off now worked (docs/semantics.md, Re-planning).

The search starts from the published roster, so the first roster found is usually one
small repair away from it. The reported metrics are the request's own objective and soft
terms, priced like any solve (the change penalty is not part of them); ``changes`` lists
every changed cell, from a plain comparison of the two rosters
(:func:`shiftsched.contract.planning.roster_changes`).

An infeasible re-plan is diagnosed in two steps: when the request alone admits no
roster, the usual diagnosis explains it (:func:`shiftsched.solving.diagnose.diagnose`); otherwise a
minimal conflict (:mod:`shiftsched.solving.conflicts`) among the absences, the pins and the
request's hard rules names what cannot hold together. Every cause's field is a JSON path
in the re-plan input (``absences[0].dates[1]``, ``request.employees[3]...``).
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ortools.sat.python import cp_model

from shiftsched.contract.horizon_targets import PlanHorizon
from shiftsched.contract.planning import Absence, ReplanRequest, ReplanResponse, roster_changes
from shiftsched.contract.v1 import Assignment, Cause, Diagnosis, SolveResponse
from shiftsched.periods.horizon import with_horizon
from shiftsched.periods.seam import with_history
from shiftsched.solving.conflicts import ProbeOutcome, shrink, solve_assuming
from shiftsched.solving.cores import available_cores
from shiftsched.solving.diagnose import MAX_PROBE_SECONDS, DiagnosisLimits, describe, diagnose
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.greedy_views import Roster
from shiftsched.solving.hint import add_roster_hint, complete_hint
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.model.context import Var
from shiftsched.solving.model.terms import PenaltyTerm
from shiftsched.solving.problem import Problem, from_request, with_absences
from shiftsched.solving.solve import SolveLimits, completion_seconds, run, to_response

CHANGE_TERM = "roster_changes"  # the penalty term's name inside the model only

ItemKind = Literal["absence", "pinned_assignment", "pin_before"]


@dataclass(frozen=True)
class Item:
    """One hard rule of the change (or of the request): its literal and how to name it."""

    kind: str  # an ItemKind, or the family of one of the request's hard rules
    field: str
    message: str
    literal: Var


class Index:
    """Ids of the request to the model's indices."""

    def __init__(self, problem: Problem) -> None:
        self.employee = {e.id: i for i, e in enumerate(problem.employees)}
        self.day = {day: i for i, day in enumerate(problem.horizon.dates)}
        self.shift = {s.id: i for i, s in enumerate(problem.shifts)}
        self.duty = {k.id: i for i, k in enumerate(problem.duties)}


class Cells:
    """The model's literals for one (employee, day) cell."""

    def __init__(self, compiled: CompiledModel, index: Index) -> None:
        self.compiled = compiled
        self.index = index
        self.duties_of: dict[tuple[int, int, int], list[Var]] = {}
        for (e, d, s, _k), y in compiled.y.items():
            self.duties_of.setdefault((e, d, s), []).append(y)

    def shifts(self, e: int, d: int) -> list[Var]:
        options = self.compiled.problem.employees[e].day_options[d]
        return [self.compiled.x[e, d, s] for s in options if (e, d, s) in self.compiled.x]

    def held(self, e: int, d: int, a: Assignment) -> tuple[Var, Var | None] | None:
        """The literals of ``a`` for e on d: its shift, and its duty when it names one;
        None when the model cannot give ``a`` to e on d at all."""
        s = self.index.shift.get(a.shift_id)
        x = None if s is None else self.compiled.x.get((e, d, s))
        if s is None or x is None:
            return None
        if a.duty_id is None:
            return x, None
        k = self.index.duty.get(a.duty_id)
        y = None if k is None else self.compiled.y.get((e, d, s, k))
        return None if y is None else (x, y)

    def duties(self, e: int, d: int, a: Assignment) -> list[Var]:
        """Every duty literal on ``a``'s shift for e on d."""
        return self.duties_of.get((e, d, self.index.shift[a.shift_id]), [])


Requirement = Callable[[CompiledModel, Cells], Sequence[Item]]
"""Further hard rules of a re-plan, each under its item's literal (shiftsched.questions.explain's
fill of a shortage): posted with the change's own items, diagnosed with them."""


def replan(
    ask: ReplanRequest,
    limits: SolveLimits | None = None,
    job_id: str | None = None,
    *,
    require: Requirement | None = None,
    hint: Sequence[Assignment] | None = None,
    excused: Sequence[Absence] | None = None,
    horizon: PlanHorizon | None = None,
) -> ReplanResponse:
    """Re-plan ``ask.roster`` for ``ask.request`` under the absences and pins (and
    ``require``'s items); ``hint``: a roster to start from instead of the published one
    (one that keeps ``require``'s rules, say), changes still counted from the published.
    ``excused``: the absences that lower the day minimums pro rata (default: all of
    them); a day off asked for, not an absence, keeps the employee off but owed.
    ``horizon``: a plan's, whose targets the period gets its share of."""
    request = ask.request
    limits = limits or SolveLimits()
    if limits.time_limit_seconds is None:
        limits = replace(limits, time_limit_seconds=float(request.options.solver_timeout_seconds))
    started = time.perf_counter()
    problem = with_history(from_request(request), request, ask.history)
    if horizon is not None:
        problem = with_horizon(problem, request, ask.history, horizon)
    excused = ask.absences if excused is None else excused
    problem = with_absences(problem, ((a.employee_id, a.dates) for a in excused))
    compiled = build(problem)
    model = compiled.model
    first_rule = len(model.proto.constraints)
    for group in compiled.hard_groups:  # one row each, so the diagnosis can lift them
        model.add_bool_and([group.literal])
    rule_rows = range(first_rule, len(model.proto.constraints))
    index = Index(problem)
    cells = Cells(compiled, index)
    published = _published(ask.roster, index)
    items = _post_items(ask, cells, published)
    if require is not None:
        items += require(compiled, cells)
    _add_change_term(compiled, cells, published, ask.change_weight)
    enforcement = len(model.proto.constraints)  # the one row that enforces every item
    model.add_bool_and([item.literal for item in items])
    start = None
    if limits.warm_start:
        if hint is not None:
            start_roster = _hint(ask, cells, _published(hint, index))
        elif ask.roster:
            start_roster = _hint(ask, cells, published)
        else:
            start_roster = _fresh(problem, ask, index)
        add_roster_hint(compiled, start_roster)
        start = complete_hint(compiled, completion_seconds(limits, started), limits.stop)
    outcome = run(compiled, limits, started, start=start)
    job = job_id or uuid.uuid4().hex
    if outcome.has_solution:
        outcome.violations = [v for v in outcome.violations if v.name != CHANGE_TERM]
        outcome.objective_value = float(sum(v.penalty for v in outcome.violations))
        if ask.change_weight and ask.roster:  # the bound is on objective + change penalty
            outcome.best_bound = None
        response = to_response(outcome, job)
        return _with_changes(response, ask.roster, outcome.assignments)
    response = to_response(outcome, job)
    if outcome.status == "infeasible" and limits.diagnosis_budget_seconds > 0 and response.error:
        workers = limits.num_workers or available_cores()
        diagnosis = _explain(ask, compiled, [*rule_rows, enforcement], items, limits, workers)
        response = response.model_copy(
            update={"error": response.error.model_copy(update={"diagnosis": diagnosis})}
        )
    return _with_changes(response, ask.roster, None)


def _with_changes(
    response: SolveResponse, before: Sequence[Assignment], after: Sequence[Assignment] | None
) -> ReplanResponse:
    changes = [] if after is None else roster_changes(before, after)
    return ReplanResponse(**dict(response), changes=changes)


# ---------------------------------------------------------------------- the change


def _published(roster: Sequence[Assignment], index: Index) -> dict[tuple[int, int], Assignment]:
    """The cells of ``roster`` of employees the request still has, by model index."""
    cells = {}
    for a in roster:
        e, d = index.employee.get(a.employee_id), index.day.get(a.date)
        if e is not None and d is not None:
            cells[e, d] = a
    return cells


def _post_items(
    ask: ReplanRequest, cells: Cells, published: dict[tuple[int, int], Assignment]
) -> list[Item]:
    """The change's hard rules, each under a literal of its own (for the diagnosis)."""
    model, index = cells.compiled.model, cells.index
    items: list[Item] = []
    unmet: dict[int, str] = {}  # literal index -> a kept cell the request rules out

    def item(kind: ItemKind, field: str, message: str) -> Var:
        literal = model.new_bool_var(f"replan[{field}]")
        items.append(Item(kind, field, message, literal))
        return literal

    def keep(literal: Var, e: int, d: int, a: Assignment | None) -> None:
        if a is None:
            for x in cells.shifts(e, d):
                model.add_implication(literal, ~x)
            return
        held = cells.held(e, d, a)
        if held is None:  # the request no longer allows it: the item cannot hold
            model.add_bool_or([~literal])
            unmet.setdefault(literal.index, f"{a.shift_id} on {a.date.isoformat()}")
            return
        x, y = held
        model.add_implication(literal, x)
        if y is not None:
            model.add_implication(literal, y)
        else:  # kept without a duty, as published
            for duty in cells.duties(e, d, a):
                model.add_implication(literal, ~duty)

    for i, absence in enumerate(ask.absences):
        e = index.employee[absence.employee_id]
        for j, day in enumerate(absence.dates):
            literal = item(
                "absence",
                f"absences[{i}].dates[{j}]",
                f"{absence.employee_id} is absent on {day.isoformat()}",
            )
            keep(literal, e, index.day[day], None)
    for i, pin in enumerate(ask.pinned):
        duty = f" with duty {pin.duty_id}" if pin.duty_id else ""
        literal = item(
            "pinned_assignment",
            f"pinned[{i}]",
            f"{pin.employee_id} is pinned to shift {pin.shift_id}{duty} on {pin.date.isoformat()}",
        )
        keep(literal, index.employee[pin.employee_id], index.day[pin.date], pin)
    if ask.pin_before is not None:
        _pin_before(ask.pin_before, cells, published, item, keep)
    return [
        item
        if item.literal.index not in unmet
        else replace(
            item,
            message=f"{item.message}; the request no longer allows "
            f"{unmet[item.literal.index]} for this employee",
        )
        for item in items
    ]


def _pin_before(
    before: dt.date,
    cells: Cells,
    published: dict[tuple[int, int], Assignment],
    item: Callable[[ItemKind, str, str], Var],
    keep: Callable[[Var, int, int, Assignment | None], None],
) -> None:
    """One item per employee: every cell of theirs before ``before``, days off included."""
    problem = cells.compiled.problem
    days = [d for d, day in enumerate(problem.horizon.dates) if day < before]
    if not days:
        return
    for e, employee in enumerate(problem.employees):
        literal = item(
            "pin_before",
            "pin_before",
            f"pin_before {before.isoformat()} keeps {employee.id}'s published roster "
            "before that date",
        )
        for d in days:
            keep(literal, e, d, published.get((e, d)))


def _add_change_term(
    compiled: CompiledModel,
    cells: Cells,
    published: dict[tuple[int, int], Assignment],
    weight: int,
) -> None:
    """``weight`` per cell that differs from the published one; the objective follows.

    A published cell costs ``1 - [kept]`` (its shift, and its duty or none, still held);
    a published day off costs the shifts now worked that day.
    """
    variables: list[Var] = []
    coefficients: list[int] = []
    constant = 0
    problem = compiled.problem
    for e in range(len(problem.employees)):
        for d in range(problem.num_days):
            a = published.get((e, d))
            if a is None:
                for x in cells.shifts(e, d):
                    variables.append(x)
                    coefficients.append(1)
                continue
            held = cells.held(e, d, a)
            constant += 1
            if held is None:
                continue
            x, y = held
            if y is not None:  # the duty literal implies the shift: 1 - y
                variables.append(y)
                coefficients.append(-1)
                continue
            # the shift without a duty: 1 - (x - sum of its duties)
            variables.append(x)
            coefficients.append(-1)
            for duty in cells.duties(e, d, a):
                variables.append(duty)
                coefficients.append(1)

    magnitude = cp_model.LinearExpr.weighted_sum(variables, coefficients) + constant
    compiled.terms.append(PenaltyTerm(CHANGE_TERM, "replan", weight, magnitude, "cells"))
    compiled.model.minimize(
        cp_model.LinearExpr.weighted_sum(
            [t.magnitude for t in compiled.terms], [t.weight for t in compiled.terms]
        )
    )


def _fresh(problem: Problem, ask: ReplanRequest, index: Index) -> Roster:
    """With nothing published (a plan), the greedy start of a solve, absences kept."""
    absent: dict[int, set[int]] = {}
    for a in ask.absences:
        e = index.employee.get(a.employee_id)
        if e is not None:
            absent.setdefault(e, set()).update(index.day[day] for day in a.dates)
    employees = tuple(
        replace(
            employee,
            day_options=tuple(
                () if d in absent.get(e, ()) else options
                for d, options in enumerate(employee.day_options)
            ),
        )
        for e, employee in enumerate(problem.employees)
    )
    return greedy_roster(replace(problem, employees=employees))


def _hint(ask: ReplanRequest, cells: Cells, published: dict[tuple[int, int], Assignment]) -> Roster:
    """The published roster, less what the absences and the request now rule out."""
    index = cells.index
    absent = {
        (index.employee[a.employee_id], index.day[day]) for a in ask.absences for day in a.dates
    }
    roster: Roster = {}
    for (e, d), a in published.items():
        if (e, d) in absent or cells.held(e, d, a) is None:
            continue
        s = index.shift[a.shift_id]
        roster[e, d, s] = None if a.duty_id is None else index.duty[a.duty_id]
    return roster


# ------------------------------------------------------------------------ diagnosis


def _explain(
    ask: ReplanRequest,
    compiled: CompiledModel,
    enforcing_rows: Sequence[int],
    items: list[Item],
    limits: SolveLimits,
    workers: int,
) -> Diagnosis:
    """Why no roster: the request's own diagnosis when it admits none by itself, else a
    minimal conflict among the change's items and the request's hard rules (so an absence
    that meets a fixed assignment names both)."""
    budget = limits.diagnosis_budget_seconds
    deadline = time.perf_counter() + budget
    base = compiled.model.clone()
    for row in enforcing_rows:  # the items and the request's rules are assumed instead
        base.proto.constraints[row].bool_and.literals.clear()
    rules = [
        Item(g.family, f"request.{g.field}", describe(ask.request, g), g.literal)
        for g in compiled.hard_groups
    ]
    base.clear_hints()  # type: ignore[no-untyped-call]
    base.clear_objective()  # type: ignore[no-untyped-call]
    probes = 0

    def core(kept: Sequence[Item]) -> tuple[ProbeOutcome, list[Item]]:
        """Solve with ``kept`` assumed: the outcome, and a core within ``kept`` if infeasible."""
        nonlocal probes
        probes += 1
        seconds = max(0.05, min(MAX_PROBE_SECONDS, deadline - time.perf_counter()))
        return solve_assuming(base, kept, seconds)

    if ask.history is None and (not items or core(rules)[0] == "infeasible"):
        # The request admits no roster even before the change: its own diagnosis.
        left = max(0.0, deadline - time.perf_counter())
        found = diagnose(ask.request, DiagnosisLimits(left, workers))
        causes = [c.model_copy(update={"field": f"request.{c.field}"}) for c in found.causes]
        return found.model_copy(update={"causes": causes, "probes": found.probes + probes})
    outcome, first = core([*items, *rules])
    if outcome != "infeasible":
        return Diagnosis(status="no_cause_identified", causes=[], probes=probes)

    def probe(kept: list[Item], dropped: Item) -> list[Item] | None:
        outcome, found = core(kept)
        return found if outcome == "infeasible" else None

    conflict = shrink(first, probe, lambda: time.perf_counter() < deadline)
    causes = list(
        {
            i.field: Cause(cause_type=i.kind, field=i.field, message=i.message) for i in conflict
        }.values()
    )
    return Diagnosis(status="identified", causes=causes, probes=probes)
