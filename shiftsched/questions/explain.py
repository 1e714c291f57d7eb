"""Why is a shift short, and could anyone fill it? One verdict per shortage marker.

Each missing head of a shortage is counted first (shiftsched.questions.explain_heads):
**fillable** (a roster covers it with the roster's total of missing heads lower),
**only movable** (a roster covers it only by leaving another demand short: the date's
capacity, in words) or **unavoidable** (no roster covers it), each shown by a roster
found or a proven bound; what neither shows within the work is **undecided**. Then:

- a head fillable: the shortage is **avoidable**. Its fill is a re-plan of the roster
  with one more head there and the other demands no shorter in total
  (shiftsched.periods.replan, with the explained request's absences and history, each
  changed cell priced at the re-plan's change weight), started from the cheapest single
  move that does so (priced by the audit's one-cell evaluator,
  shiftsched.checking.audit.ChangeEvaluator, as a recommendation is) or from the count's
  roster. The fill is that roster, as it stands: who newly covers the demand, every cell
  that moves, what stays short, and the change of the audited objective (so the fill's
  objective is the original's plus ``objective_delta`` exactly). A search stops at its
  share of the time or of the work, so the fill is the cheapest *found*. A move that only
  shifts a head elsewhere is never offered as a fill.
- no head fillable and every one shown only movable or unavoidable: **unavoidable**.
  Its causes are a minimal conflict forbidding the first unavoidable head
  (shiftsched.questions.explain_causes), none when every head is only movable.
- else **undecided**.

The time limit (the request's, or the caller's) goes in even shares to the shortages,
those no single move fills first; a fill's search stops after :data:`FILL_WORK` of
deterministic work, and the shortages one move fills are searched further only when
their even shares of what is left reach :data:`MIN_SEARCH_SECONDS`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from ortools.sat.python import cp_model

from shiftsched.checking.audit import AuditReport, ChangeEvaluator, audit
from shiftsched.contract.planning import ReplanRequest, roster_changes
from shiftsched.contract.v1 import Assignment, Shortage, SolveRequest
from shiftsched.periods.replan import Cells, Item, replan
from shiftsched.questions.edit import reassign
from shiftsched.questions.explain_causes import Conflicts, because, who_may_work
from shiftsched.questions.explain_heads import HeadProof, count_heads, demand_slot, head_model
from shiftsched.questions.explain_words import fill_words, heads_words, where
from shiftsched.questions.inquiry import (
    AuditedShortage,
    ExplainRequest,
    ExplainResponse,
    ShortageExplanation,
)
from shiftsched.questions.review import audited_shortages
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.solve import SolveLimits
from shiftsched.words import many

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
#: The share of a shortage's time its head counts may take; the fill's search has the rest.
COUNT_SHARE = 0.5


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
    context = _Context(ask, report, limits, head_model(ask) if markers else None)
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
        explanations[i] = context.explain(markers[i], share, move, search=search_moves)
    return ExplainResponse(
        objective_value=report.objective_value,
        explanations=[explanations[i] for i in range(len(markers))],
    )


class _Context:
    """What every explanation of one roster shares: its audit, the head model, the
    conflicts' gated model (built on first use) and the roster's missing heads."""

    def __init__(
        self,
        ask: ExplainRequest,
        report: AuditReport,
        limits: SolveLimits,
        compiled: CompiledModel | None,
    ) -> None:
        self.ask, self.report, self.limits, self.compiled = ask, report, limits, compiled
        self.conflicts = Conflicts(ask)
        self.total_missing = sum(m.missing for m in report.shortages)

    def explain(
        self,
        marker: AuditedShortage,
        seconds: float,
        move: list[Assignment] | None,
        *,
        search: bool,
    ) -> ShortageExplanation:
        """``marker``'s heads counted, then its fill searched (from ``move``, when
        ``search``), or why there is none."""
        assert self.compiled is not None
        deadline = time.perf_counter() + seconds
        proof = count_heads(
            self.ask,
            self.compiled,
            marker,
            self.total_missing,
            where(self.ask.request, marker),
            seconds * COUNT_SHARE,
            self.limits.random_seed,
        )
        proof = _with_move(proof, move)
        heads = proof.heads
        if not heads.fillable and proof.open_to <= marker.assigned:  # none can be
            return self._not_fillable(marker, proof, deadline)
        if move is not None and not search:
            return self._avoidable(marker, move, proof)
        left = max(0.0, deadline - time.perf_counter())
        filled = replan(
            ReplanRequest(
                request=self.ask.request,
                roster=self.ask.roster,
                absences=self.ask.absences,
                history=self.ask.history,
            ),
            _fill_limits(self.limits, left),
            require=_require_head(marker, self.total_missing - marker.missing),
            hint=move or proof.fill,
        )
        roster = filled.solution.assignments if filled.solution is not None else None
        roster = roster or move or proof.fill
        if roster is None:  # the counts left the first head undecided, and so did the search
            return self._not_fillable(marker, proof, deadline)
        if not heads.fillable:  # the search showed the first head the counts left open
            update = {"fillable": 1, "undecided": heads.undecided - 1}
            proof = replace(proof, heads=heads.model_copy(update=update))
        return self._avoidable(marker, roster, proof)

    def _not_fillable(
        self, marker: AuditedShortage, proof: HeadProof, deadline: float
    ) -> ShortageExplanation:
        """No fill: unavoidable when every head is shown only movable or unavoidable
        (the first unavoidable one's causes), else undecided."""
        request, heads = self.ask.request, proof.heads
        if heads.undecided:
            return ShortageExplanation(
                shortage=marker,
                verdict="undecided",
                summary=f"{where(request, marker)}: {heads_words(heads)}; no fill lowering "
                "the roster's missing heads was found and none was ruled out within the "
                "work; allow more time",
                heads=heads,
                capacity=proof.capacity,
            )
        causes = []
        if heads.unavoidable:
            first = marker.assigned + heads.movable + 1
            causes = self.conflicts.causes(marker, first, deadline)
        words = _unavoidable_words(request, marker, proof, because(causes))
        return ShortageExplanation(
            shortage=marker,
            verdict="unavoidable",
            summary=words,
            causes=causes,
            heads=heads,
            capacity=proof.capacity,
        )

    def _avoidable(
        self, marker: AuditedShortage, roster: list[Assignment], proof: HeadProof
    ) -> ShortageExplanation:
        """``roster`` as the fill of ``marker``: who takes it, what moves, what stays
        short, what it costs."""
        ask, report = self.ask, self.report
        after = audit(ask.request, roster, history=ask.history, absences=ask.absences)
        if sum(m.missing for m in after.shortages) >= self.total_missing:
            # Never offered: a roster with as many heads missing only moves one (the
            # counts and the search rule it out; the audit has the last word).
            heads = proof.heads
            update = {"fillable": 0, "undecided": heads.undecided + heads.fillable}
            proof = replace(proof, heads=heads.model_copy(update=update))
            return self._not_fillable(marker, proof, time.perf_counter())
        newcomers = sorted(
            set(_holders(ask.request, roster, marker))
            - set(_holders(ask.request, ask.roster, marker))
        )
        changes = roster_changes(ask.roster, roster)
        summary = fill_words(ask.request, marker, report, after, changes, newcomers)
        return ShortageExplanation(
            shortage=marker,
            verdict="avoidable",
            summary=f"{summary} ({heads_words(proof.heads)})",
            objective_delta=after.objective_value - report.objective_value,
            filled_by=newcomers,
            changes=changes,
            roster=roster,
            heads=proof.heads,
            capacity=proof.capacity,
        )


def _unavoidable_words(
    request: SolveRequest, marker: Shortage, proof: HeadProof, reasons: str
) -> str:
    """No head fillable: what covering more would move (the date's capacity), and who may
    work the demand at all with what forbids the heads no roster covers."""
    heads = proof.heads
    place = where(request, marker)
    if not heads.movable:
        return (
            f"{place} cannot be filled by any roster ({heads_words(heads)}); "
            f"{who_may_work(request, marker)}{reasons}"
        )
    words = (
        f"{place} cannot be filled without leaving another demand short "
        f"({heads_words(heads)}): covering {many(heads.movable, 'more head')} there moves "
        f"{'it' if heads.movable == 1 else 'them'} from other demands, since {proof.capacity}"
    )
    if heads.unavoidable:
        words += (
            f"; no roster covers the last {_heads(heads.unavoidable)} at all: "
            f"{who_may_work(request, marker)}{reasons}"
        )
    return words


def _heads(count: int) -> str:
    """``head``, ``2 heads``: after "the last"."""
    return "head" if count == 1 else many(count, "head")


def _with_move(proof: HeadProof, move: list[Assignment] | None) -> HeadProof:
    """A move that lowers the missing heads shows the first head fillable, whatever the
    count's work reached."""
    heads = proof.heads
    if move is None or heads.fillable or not heads.undecided:
        return proof
    counts = heads.model_copy(update={"fillable": 1, "undecided": heads.undecided - 1})
    return replace(proof, heads=counts, fill=move)


# ----------------------------------------------------------------- the extra head


def _one_move(
    ask: ExplainRequest, marker: Shortage, evaluator: ChangeEvaluator
) -> list[Assignment] | None:
    """The roster with the cheapest single move that fills ``marker``, breaks no hard
    rule and lowers the roster's missing heads (one employee takes the demand's shift,
    leaving their own that date without opening a shortage as large), priced by the
    audit's one-cell evaluator as a recommendation is; None when no single move does.
    The fill's search starts from it, so a repair is in hand at once."""
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
            missing = sum(
                t.violated_by_delta for t in effect.changed_terms if _counts_heads(t.name)
            )
            if effect.hard_violations or missing >= 0:
                continue  # it breaks a rule, or only moves a head
            if best is None or effect.objective_delta < best[0]:
                best = (effect.objective_delta, cell)
    if best is None:
        return None
    cell = best[1]
    return reassign(ask.roster, cell.employee_id, cell.date, cell.shift_id, cell.duty_id)


def _counts_heads(term: str) -> bool:
    """Whether the audit's soft term ``term`` counts missing heads."""
    return term.endswith("_shortage") or term.startswith("cover_under:")


def _fill_limits(limits: SolveLimits, seconds: float) -> SolveLimits:
    """The limits of one fill: its share of the time, at most :data:`FILL_WORK` of work
    (or the caller's smaller work limit), every worker on CP-SAT (the neighbourhood
    search runs to the clock), and no diagnosis (the count has shown a fill exists)."""
    work = min(float(str(limits.parameters.get("max_deterministic_time", FILL_WORK))), FILL_WORK)
    return replace(
        limits,
        time_limit_seconds=max(seconds, 0.05),
        diagnosis_budget_seconds=0.0,
        parameters={**limits.parameters, "max_deterministic_time": work},
        neighbourhood_search=False,  # CP-SAT alone keeps to the work limit
    )


def _require_head(
    marker: Shortage, others_at_most: int
) -> Callable[[CompiledModel, Cells], Sequence[Item]]:
    """The re-plan's extra rule: one more head on ``marker``'s demand than the roster
    has, the other demands' missing heads at most ``others_at_most`` in total (as the
    roster's), so the fill lowers the roster's missing heads rather than moving one."""

    def post(compiled: CompiledModel, cells: Cells) -> Sequence[Item]:
        model = compiled.model
        literal = model.new_bool_var("fill")
        slot = demand_slot(compiled, marker)
        if slot is None:  # the demand has no variable: nobody can ever stand in it
            model.add_bool_or([~literal])
        else:
            model.add(slot.assigned >= marker.assigned + 1).only_enforce_if(literal)
            others = [s.missing for s in compiled.shortages if s is not slot]
            model.add(cp_model.LinearExpr.sum(others) <= others_at_most).only_enforce_if(literal)
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
