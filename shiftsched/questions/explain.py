"""Why is a shift short, and could anyone fill it? One verdict per shortage marker.

For each shortage of a roster (shiftsched.checking.audit's markers), one more head is made
mandatory. First the cheapest single move that fills it and breaks no hard rule is priced
by the audit's one-cell evaluator (shiftsched.checking.audit.ChangeEvaluator, as a recommendation
is); then, time allowing, the roster is re-planned around the extra head from that move
(shiftsched.periods.replan, with the explained request's absences and history, each changed cell
priced at the re-plan's change weight):

- a fill found (the move, or the re-plan's roster): the shortage is **avoidable**. The
  fill is that roster, as it stands: who newly covers the demand, every cell that moves,
  and the change of the audited objective (shiftsched.checking.audit prices both rosters, so the
  fill's objective is the original's plus ``objective_delta`` exactly). A search stops
  at its share of the time or of the work, so the fill is the cheapest *found*.
- no roster exists: the shortage is **unavoidable**. Its causes are a minimal conflict
  among the request's hard rules, eligibility included (who may work that shift that
  date at all), and the absences, with the extra head enforced: the diagnosis machinery
  (shiftsched.solving.conflicts) on the gated problem (shiftsched.solving.problem), so "e3 is
  absent" and "e7 reaches the weekly hours limit" are named as input items with their JSON paths.
- neither within the time: **undecided**.

The time limit (the request's, or the caller's) goes first, in even shares, to the
shortages no single move fills (only a search decides them); the others are searched
further only when their even shares of what is left reach :data:`MIN_SEARCH_SECONDS`,
and one search stops after :data:`FILL_WORK` of deterministic work.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from shiftsched.checking.audit import AuditReport, ChangeEvaluator, audit
from shiftsched.contract.planning import Absence, ReplanRequest, roster_changes
from shiftsched.contract.v1 import Assignment, Cause, Shortage, SolveRequest
from shiftsched.periods.replan import Cells, Item, replan
from shiftsched.periods.seam import with_history
from shiftsched.questions.edit import reassign
from shiftsched.questions.inquiry import (
    AuditedShortage,
    ExplainRequest,
    ExplainResponse,
    ShortageExplanation,
)
from shiftsched.questions.review import audited_shortages
from shiftsched.solving.conflicts import shrink, solve_assuming
from shiftsched.solving.diagnose import MAX_PROBE_SECONDS, SOFT_ONLY_FAMILIES, describe
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.model.registry import FAMILIES
from shiftsched.solving.model.terms import ShortageSlot
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import SolveLimits

#: The demand families a fill needs in the gated model; every other soft-only family is
#: left out of it (the conflict is among hard rules; the objective is dropped).
_DEMAND_FAMILIES = frozenset(
    family.name
    for family in FAMILIES
    if any(term.endswith("_shortage") for term in family.soft_terms)
)
_GATED_SKIP = tuple(name for name in SOFT_ONLY_FAMILIES if name not in _DEMAND_FAMILIES)
FILL_FIELD = "shortage"
#: At most this much of CP-SAT's deterministic work on one fill (about as many seconds
#: on a quiet machine): a repair of a good roster is found well within it, ten
#: shortages need not take the whole of a 30 s limit, and a fill with one worker is the
#: same on any machine when it ends on this limit rather than on the clock.
FILL_WORK = 1.0
#: The shortages that one move already fills are searched further only when their even
#: shares of the time left are at least this; else each one's move is its fill (exact,
#: and found in milliseconds).
MIN_SEARCH_SECONDS = 1.0
#: What a shortage one move fills keeps of the time while the others are searched: its
#: fill's audit takes milliseconds.
MOVE_RESERVE_SECONDS = 0.05


def explain_shortages(ask: ExplainRequest, limits: SolveLimits | None = None) -> ExplainResponse:
    """One explanation per shortage marker of ``ask.roster`` (see the module doc)."""
    limits = limits or SolveLimits()
    request = ask.request
    started = time.perf_counter()
    budget = limits.time_limit_seconds
    if budget is None:
        budget = float(request.options.solver_timeout_seconds)
    report = audit(request, ask.roster, history=ask.history, absences=ask.absences)
    wanted = None if ask.dates is None else set(ask.dates)
    markers = [m for m in audited_shortages(request, report) if wanted is None or m.date in wanted]
    evaluator = ChangeEvaluator(request, ask.roster, history=ask.history, absences=ask.absences)
    moves = [_one_move(ask, marker, evaluator) for marker in markers]
    # Those no single move fills need the search to be decided at all: they go first.
    # The others are searched further all alike, when their even shares allow it.
    order = sorted(range(len(markers)), key=lambda i: moves[i] is not None)
    unmoved = sum(1 for move in moves if move is None)
    conflicts = _Conflicts(ask)
    explanations: dict[int, ShortageExplanation] = {}
    search_moves = True
    for done, i in enumerate(order):
        left = max(0.0, budget - (time.perf_counter() - started))
        move = moves[i]
        if move is None:  # the moved ones keep a little each, for their audit
            reserve = MOVE_RESERVE_SECONDS * (len(markers) - unmoved)
            share = max(0.0, left - reserve) / (unmoved - done)
        else:
            share = left / (len(markers) - done)
        if done == unmoved:  # the first marker with a move: decide for all of them
            search_moves = share >= MIN_SEARCH_SECONDS
        if move is not None and not search_moves:
            explanations[i] = _avoidable(ask, report, markers[i], move)
        else:
            explanations[i] = _explain(ask, report, markers[i], limits, share, conflicts, move)
    return ExplainResponse(
        objective_value=report.objective_value,
        explanations=[explanations[i] for i in range(len(markers))],
    )


def _explain(
    ask: ExplainRequest,
    report: AuditReport,
    marker: AuditedShortage,
    limits: SolveLimits,
    seconds: float,
    conflicts: _Conflicts,
    move: list[Assignment] | None,
) -> ShortageExplanation:
    """The fill searched from ``move`` (or from the roster), or why there is none."""
    deadline = time.perf_counter() + seconds
    fill = ReplanRequest(
        request=ask.request, roster=ask.roster, absences=ask.absences, history=ask.history
    )
    filled = replan(
        fill,
        _fill_limits(limits, seconds),
        require=_require_head(marker),
        hint=move,
    )
    roster = filled.solution.assignments if filled.solution is not None else move
    if roster is not None:
        return _avoidable(ask, report, marker, roster)
    where = _where(ask.request, marker)
    if filled.error is None or filled.error.code != "no_solution":
        return ShortageExplanation(
            shortage=marker,
            verdict="undecided",
            summary=f"{where}: no fill was found and none was ruled out in "
            f"{seconds:.1f} s; allow more time",
        )
    causes = conflicts.causes(marker, deadline)
    return ShortageExplanation(
        shortage=marker,
        verdict="unavoidable",
        summary=_unavoidable_words(ask, marker, where, causes),
        causes=causes,
    )


def _avoidable(
    ask: ExplainRequest, report: AuditReport, marker: AuditedShortage, roster: list[Assignment]
) -> ShortageExplanation:
    """``roster`` as the fill of ``marker``: who takes it, what moves, what it costs."""
    after = audit(ask.request, roster, history=ask.history, absences=ask.absences)
    newcomers = sorted(
        set(_holders(ask.request, roster, marker)) - set(_holders(ask.request, ask.roster, marker))
    )
    delta = after.objective_value - report.objective_value
    changes = roster_changes(ask.roster, roster)
    who = ", ".join(newcomers) or "someone"
    opened = _opened(ask.request, report, after)
    instead = f", leaving {'; '.join(opened)} instead" if opened else ""
    others = _also_filled(report, after, marker)
    if others:
        instead += f", and {others} missing head{'s' if others > 1 else ''} of other shortages too"
    return ShortageExplanation(
        shortage=marker,
        verdict="avoidable",
        summary=f"{_where(ask.request, marker)} can be filled: {who} takes it{instead}; "
        f"{len(changes)} cells change and the objective changes by {delta:+g}",
        objective_delta=delta,
        filled_by=newcomers,
        changes=changes,
        roster=roster,
    )


# ----------------------------------------------------------------- the extra head


def _one_move(
    ask: ExplainRequest, marker: Shortage, evaluator: ChangeEvaluator
) -> list[Assignment] | None:
    """The roster with the cheapest single move that fills ``marker`` and breaks no hard
    rule (one employee takes the demand's shift, leaving their own that date), priced
    by the audit's one-cell evaluator as a recommendation is; None when no single move
    does. The fill's search starts from it, so a repair is in hand at once and the
    search only improves on it."""
    request = ask.request
    absent = {a.employee_id for a in ask.absences if marker.date in a.dates}
    holders = set(_holders(request, ask.roster, marker))
    shifts = [marker.shift_id] if marker.shift_id is not None else list(marker.shift_ids or ())
    best: tuple[float, Assignment] | None = None
    for employee in request.employees:
        if employee.id in absent or employee.id in holders:
            continue
        if marker.kind == "manager" and not employee.is_manager:
            continue
        for shift_id in shifts:
            if shift_id not in employee.assignable_shift_ids:
                continue
            cell = Assignment(
                employee_id=employee.id, date=marker.date, shift_id=shift_id, duty_id=marker.duty_id
            )
            effect = evaluator.effect(employee.id, marker.date, cell)
            if not effect.hard_violations and (best is None or effect.objective_delta < best[0]):
                best = (effect.objective_delta, cell)
    if best is None:
        return None
    cell = best[1]
    return reassign(ask.roster, cell.employee_id, cell.date, cell.shift_id, cell.duty_id)


def _fill_limits(limits: SolveLimits, seconds: float) -> SolveLimits:
    """The limits of one fill: its share of the time, at most :data:`FILL_WORK` of work
    (or the caller's smaller work limit), every worker on CP-SAT (the neighbourhood
    search runs to the clock), and no diagnosis (the conflict is ours)."""
    work = min(float(str(limits.parameters.get("max_deterministic_time", FILL_WORK))), FILL_WORK)
    return replace(
        limits,
        time_limit_seconds=seconds,
        diagnosis_budget_seconds=0.0,
        parameters={**limits.parameters, "max_deterministic_time": work},
        neighbourhood_search=False,  # CP-SAT alone keeps to the work limit
    )


def _slot(compiled: CompiledModel, marker: Shortage) -> ShortageSlot | None:
    """The model's demand minimum behind ``marker``."""
    problem = compiled.problem
    day = problem.horizon.dates.index(marker.date)
    shifts = {s.id: i for i, s in enumerate(problem.shifts)}
    duties = {k.id: i for i, k in enumerate(problem.duties)}
    duty = None if marker.duty_id is None else duties.get(marker.duty_id)
    for slot in compiled.shortages:
        if slot.kind != marker.kind or slot.day != day or slot.duty != duty:
            continue
        if marker.shift_id is not None and slot.shift == shifts.get(marker.shift_id):
            return slot
        if marker.shift_ids is not None and slot.shifts == tuple(
            shifts[s] for s in marker.shift_ids
        ):
            return slot
    return None


def _require_head(marker: Shortage) -> Callable[[CompiledModel, Cells], Sequence[Item]]:
    """The re-plan's extra rule: one more head on ``marker``'s demand than the roster has."""

    def post(compiled: CompiledModel, cells: Cells) -> Sequence[Item]:
        model = compiled.model
        literal = model.new_bool_var("fill")
        slot = _slot(compiled, marker)
        if slot is None:  # the demand has no variable: nobody can ever stand in it
            model.add_bool_or([~literal])
        else:
            model.add(slot.assigned >= marker.assigned + 1).only_enforce_if(literal)
        return [Item(FILL_FIELD, FILL_FIELD, "one more head", literal)]

    return post


def _holders(request: SolveRequest, roster: Sequence[Assignment], marker: Shortage) -> list[str]:
    """Who counts towards ``marker``'s demand in ``roster``."""
    managers = {e.id for e in request.employees if e.is_manager}
    shifts = {marker.shift_id} if marker.shift_id is not None else set(marker.shift_ids or ())
    only_managers = marker.kind == "manager"
    if marker.kind == "cross_shift":
        demand = next(
            (
                c
                for c in request.constraints.cross_shift_demands
                if c.date == marker.date
                and c.shift_ids == marker.shift_ids
                and c.duty_id == marker.duty_id
            ),
            None,
        )
        only_managers = demand is not None and demand.managers_only
    return [
        a.employee_id
        for a in roster
        if a.date == marker.date
        and a.shift_id in shifts
        and (marker.duty_id is None or a.duty_id == marker.duty_id)
        and (not only_managers or a.employee_id in managers)
    ]


def _shortage_key(m: Shortage) -> tuple[object, ...]:
    return (m.kind, m.date, m.shift_id, tuple(m.shift_ids or ()), m.duty_id)


def _opened(request: SolveRequest, before: AuditReport, after: AuditReport) -> list[str]:
    """The demands the fill leaves shorter than the roster did (a shortage moved, not
    removed), in words."""
    was = {_shortage_key(m): m.missing for m in before.shortages}
    return [_where(request, m) for m in after.shortages if m.missing > was.get(_shortage_key(m), 0)]


def _also_filled(before: AuditReport, after: AuditReport, marker: Shortage) -> int:
    """Heads of other shortages the fill meets too (a re-plan prices the whole roster,
    so it fills what else it can): its objective change is not this shortage's alone."""
    now = {_shortage_key(m): m.missing for m in after.shortages}
    this = _shortage_key(marker)
    return sum(
        max(0, m.missing - now.get(_shortage_key(m), 0) - (1 if _shortage_key(m) == this else 0))
        for m in before.shortages
    )


def _where(request: SolveRequest, marker: Shortage) -> str:
    names = {s.id: s.name for s in request.shifts}
    if marker.shift_id is not None:
        shift = names.get(marker.shift_id, marker.shift_id)
    else:
        shift = " or ".join(names.get(s, s) for s in marker.shift_ids or ())
    what = {"staffing": "a head", "manager": "a manager", "cross_shift": "a head"}.get(
        marker.kind, f"a {marker.duty_id} holder"
    )
    return f"{what} missing on {shift}, {marker.date.isoformat()}"


# --------------------------------------------------------------------- unavoidable


@dataclass
class _Gated:
    """The gated model of the request (every hard rule, eligibility included, behind
    its own literal; no objective), built once for every unavoidable marker."""

    compiled: CompiledModel
    items: list[Item]


class _Conflicts:
    """Minimal conflicts that forbid one more head, on the gated model."""

    def __init__(self, ask: ExplainRequest) -> None:
        self.ask = ask
        self._gated: _Gated | None = None

    def gated(self) -> _Gated:
        if self._gated is None:
            request = self.ask.request
            problem = with_history(from_request(request, gated=True), request, self.ask.history)
            compiled = build(problem, skip=_GATED_SKIP)
            compiled.model.clear_objective()  # type: ignore[no-untyped-call]
            items = [
                Item(g.family, g.field, describe(request, g), g.literal)
                for g in compiled.hard_groups
            ]
            items += _absence_items(compiled, self.ask.absences)
            self._gated = _Gated(compiled, items)
        return self._gated

    def causes(self, marker: Shortage, deadline: float) -> list[Cause]:
        gated = self.gated()
        base = gated.compiled.model.clone()
        slot = _slot(gated.compiled, marker)
        if slot is not None:
            base.add(slot.assigned >= marker.assigned + 1)
        else:
            return []  # no variable at all: nobody can stand there (said in the words)

        def core(kept: Sequence[Item]) -> list[Item] | None:
            seconds = max(0.05, min(MAX_PROBE_SECONDS, deadline - time.perf_counter()))
            outcome, found = solve_assuming(base, kept, seconds)
            return found if outcome == "infeasible" else None

        if core([]) is not None:  # no item to blame: there are too few people
            return [_too_few(self.ask.request, marker)]
        first = core(gated.items)
        if first is None:
            return []
        conflict = shrink(
            first, lambda kept, _dropped: core(kept), lambda: time.perf_counter() < deadline
        )
        return list(
            {
                item.field: Cause(
                    cause_type=item.kind, field=_input_path(item.field), message=item.message
                )
                for item in conflict
            }.values()
        )


def _too_few(request: SolveRequest, marker: Shortage) -> Cause:
    """The staff itself as the cause: even with every item lifted, those who could count
    towards the demand at all (managers, for a manager demand) are too few."""
    if marker.kind == "manager":
        pool = [e.id for e in request.employees if e.is_manager]
        what = "managers"
    else:
        pool = [e.id for e in request.employees]
        what = "employees"
    names = f" ({', '.join(pool)})" if 0 < len(pool) <= 8 else ""
    return Cause(
        cause_type="staff",
        field="request.employees",
        message=f"the request has {len(pool)} {what}{names}, each working at most one "
        f"shift a date, and {marker.required} are wanted",
    )


def _absence_items(compiled: CompiledModel, absences: Sequence[Absence]) -> list[Item]:
    """Each absent date as an item: its literal keeps the employee off every shift."""
    problem = compiled.problem
    employee = {e.id: i for i, e in enumerate(problem.employees)}
    day = {d: i for i, d in enumerate(problem.horizon.dates)}
    items = []
    for i, absence in enumerate(absences):
        e = employee[absence.employee_id]
        for j, date in enumerate(absence.dates):
            literal = compiled.model.new_bool_var(f"absent[{i},{j}]")
            for (xe, xd, _s), x in compiled.x.items():
                if xe == e and xd == day[date]:
                    compiled.model.add_implication(literal, ~x)
            items.append(
                Item(
                    "absence",
                    f"absences[{i}].dates[{j}]",
                    f"{absence.employee_id} is absent on {date.isoformat()}",
                    literal,
                )
            )
    return items


def _input_path(field: str) -> str:
    """A field of the explain input: the request's items under ``request``."""
    return field if field.startswith("absences[") else f"request.{field}"


def _unavoidable_words(
    ask: ExplainRequest, marker: Shortage, where: str, causes: Sequence[Cause]
) -> str:
    """``where``: unavoidable, who may work there at all, and what stops them."""
    request = ask.request
    shifts = {marker.shift_id} if marker.shift_id is not None else set(marker.shift_ids or ())
    weekday = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")[marker.date.weekday()]
    holiday = marker.date in request.schedule_period.holidays
    eligible = [
        e.id
        for e in request.employees
        if shifts & set(e.assignable_shift_ids)
        and (e.available_weekdays is None or weekday in e.available_weekdays)
        and not holiday
        and (marker.kind != "manager" or e.is_manager)
    ]
    if not eligible:
        who = "nobody may work it at all"
    elif len(eligible) <= 8:
        who = f"only {', '.join(eligible)} may work it"
    else:
        who = f"{len(eligible)} employees may work it"
    reasons = "; ".join(c.message for c in causes[:6])
    more = f" (and {len(causes) - 6} more)" if len(causes) > 6 else ""
    because = f": {reasons}{more}" if reasons else ""
    return f"{where} cannot be filled by any roster; {who}{because}"
