"""How many of a shortage's missing heads a roster could fill, only move, or never cover.

A shortage of ``m`` missing heads is ``m`` levels of its demand above what the roster
covers: the first missing head is covering ``assigned + 1``, the last ``assigned + m``.
Each level is one of:

- **fillable**: some roster keeping every hard rule (and the absences) covers it while
  every other demand is short by no more heads in total than now, so the roster's total
  of missing heads falls. Shown by the roster found.
- **only movable**: some roster covers it, but none without another demand falling
  short: filling it moves a head, the total does not fall.
- **unavoidable**: no roster covers it at all. Shown by a capacity bound (no more heads
  than eligible, non-absent employees on that date, whatever else holds) or by the
  solve's bound.
- **undecided**: the work ran out before either was shown.

Small CP-SAT solves decide them, on the request's model with every hard rule enforced
and the absent cells off: the most heads of the demand any roster covers (levels above
it are unavoidable), then, level by level from the lowest, the fewest missing heads of
the other demands with that level covered (fillable while it is at most the roster's;
the first level proven above it ends the count: no roster covering more covers less).
Minimising the other demands' missing heads, rather than holding them to a bound,
lets the solver prove its answer at once on a small request. Each solve runs one
worker, a fixed seed and at most :data:`COUNT_WORK` of deterministic work, so the
counts are the same on any machine; a level is counted only when a roster found or a
proven bound shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from shiftsched.contract.v1 import Assignment, Shortage
from shiftsched.periods.seam import with_history
from shiftsched.questions.inquiry import ExplainRequest, HeadCounts
from shiftsched.solving.extract import extract
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.model.terms import ShortageSlot
from shiftsched.solving.problem import from_request, with_absences
from shiftsched.words import many

#: At most this much of CP-SAT's deterministic work on each of a shortage's two count
#: solves (about as many seconds on a quiet machine): covering one demand is a small
#: question of the model, and two of them per shortage stay well inside a 30 s limit.
COUNT_WORK = 0.5


def demand_slot(compiled: CompiledModel, marker: Shortage) -> ShortageSlot | None:
    """The model's demand minimum behind ``marker`` (None: it has no variable)."""
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


def head_model(ask: ExplainRequest) -> CompiledModel:
    """The request's model with the history, every hard rule enforced, the absent cells
    off and no objective: built once, each count solve clones it."""
    request = ask.request
    problem = with_history(from_request(request), request, ask.history)
    problem = with_absences(problem, ((a.employee_id, a.dates) for a in ask.absences))
    compiled = build(problem)
    model = compiled.model
    model.clear_objective()  # type: ignore[no-untyped-call]
    if compiled.hard_groups:
        model.add_bool_and([g.literal for g in compiled.hard_groups])
    for (e, d, _s), x in compiled.x.items():
        if d in problem.employees[e].absent:
            model.add(x == 0)
    return compiled


# ----------------------------------------------------------------------- capacity


def _eligible(compiled: CompiledModel, slot: ShortageSlot, kind: str) -> set[int]:
    """The employees who may count towards ``slot`` at all: a variable of theirs on its
    shift (its duty, for a duty demand) that date, not absent (managers, for a manager
    demand). No roster covers more heads than there are of them."""
    problem = compiled.problem
    shifts = {slot.shift} if slot.shift is not None else set(slot.shifts or ())
    if slot.duty is not None:
        keys = [(e, d, s) for (e, d, s, k) in compiled.y if k == slot.duty]
    else:
        keys = list(compiled.x)
    return {
        e
        for (e, d, s) in keys
        if d == slot.day
        and s in shifts
        and d not in problem.employees[e].absent
        and (kind != "manager" or problem.employees[e].is_manager)
    }


def capacity_words(compiled: CompiledModel, slot: ShortageSlot) -> str:
    """The date's capacity in words: who may work that date at all, how many of them
    may count towards ``slot``, and the heads the date's shifts want."""
    problem = compiled.problem
    date = problem.horizon.dates[slot.day]
    workers = sorted(
        {e for (e, d, _s) in compiled.x if d == slot.day and d not in problem.employees[e].absent}
    )
    wanted: dict[int, int] = {}
    for other in compiled.shortages:
        if other.day == slot.day and other.kind == "staffing" and other.shift is not None:
            wanted[other.shift] = wanted.get(other.shift, 0) + other.required
    names = [problem.employees[e].id for e in workers]
    listed = f" ({', '.join(names)})" if 0 < len(names) <= 8 else ""
    shifts = ", ".join(f"{problem.shifts[s].name} {n}" for s, n in sorted(wanted.items()))
    heads = f"{many(sum(wanted.values()), 'head')} ({shifts})" if wanted else "no head"
    own = [slot.shift] if slot.shift is not None else list(slot.shifts or ())
    demand = " or ".join(problem.shifts[s].name for s in own)
    if slot.duty is not None:
        demand = f"{problem.duties[slot.duty].name} on {demand}"
    if slot.kind == "manager":
        demand = f"{demand} as managers"
    eligible = len(_eligible(compiled, slot, slot.kind))
    if len(names) < sum(wanted.values()):
        enough = "more heads than people that date"
    else:
        enough = "no more heads than people that date, so other hard rules (rest, runs, hours) bind"
    return (
        f"on {date:%a %Y-%m-%d}, {many(len(names), 'employee')} may work{listed}, "
        f"{eligible} of them {demand}, and its shifts want {heads}, {enough}"
    )


# ------------------------------------------------------------------------- solves


@dataclass(frozen=True)
class _Solved:
    """One count solve: its objective's value in the roster found (None: none found),
    its proven bound, and that roster."""

    value: int | None
    bound: int | None  # None: the model admits no roster at all
    roster: list[Assignment] | None


def _solve(
    compiled: CompiledModel,
    model: cp_model.CpModel,
    hint: Sequence[Assignment],
    seconds: float,
    seed: int,
) -> _Solved:
    """Solve ``model`` (a clone of ``compiled``'s, with an objective) from ``hint``:
    one worker, ``seed``, at most :data:`COUNT_WORK` of work (``seconds`` a backstop)."""
    _hint(model, compiled, hint)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed
    solver.parameters.max_deterministic_time = COUNT_WORK
    solver.parameters.max_time_in_seconds = max(seconds, 0.05)
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return _Solved(None, None, None)
    bound = round(solver.best_objective_bound)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return _Solved(None, bound, None)
    values = list(solver.response_proto.solution)
    return _Solved(round(solver.objective_value), bound, extract(compiled, values)[0])


def _most_covered(
    compiled: CompiledModel,
    slot: ShortageSlot,
    hint: Sequence[Assignment],
    seconds: float,
    seed: int,
) -> tuple[int, int]:
    """The most heads of ``slot`` (up to its minimum) a roster found covers, every hard
    rule kept, and the most any roster can (the bound): (found, proven most)."""
    model = compiled.model.clone()
    cover = model.new_int_var(0, slot.required, "cover")
    model.add(cover <= slot.assigned)
    model.maximize(cover)
    solved = _solve(compiled, model, hint, seconds, seed)
    if solved.bound is None:  # the hard rules themselves admit no roster
        return 0, -1
    return (solved.value or 0), min(solved.bound, slot.required)


@dataclass(frozen=True)
class _Filled:
    """The fillable levels: every level up to ``found`` is, by ``roster``; none above
    ``most`` is (proven)."""

    found: int
    most: int
    roster: list[Assignment] | None


def _fill_levels(
    compiled: CompiledModel,
    slot: ShortageSlot,
    levels: range,
    others_at_most: int,
    hint: Sequence[Assignment],
    seconds: float,
    seed: int,
) -> _Filled:
    """Level by level from the lowest: the fewest missing heads of the other demands
    with the level covered. A level is fillable when that is at most
    ``others_at_most`` (the roster's); the first one proven not is the end, since no
    roster covering more covers less."""
    others = cp_model.LinearExpr.sum([s.missing for s in compiled.shortages if s is not slot])
    found, roster = levels.start - 1, None
    for level in levels:
        model = compiled.model.clone()
        model.add(slot.assigned >= level)
        model.minimize(others)
        solved = _solve(compiled, model, roster or hint, seconds / len(levels), seed)
        if solved.value is not None and solved.value <= others_at_most:
            found, roster = level, solved.roster
            continue
        proven = solved.bound is None or solved.bound > others_at_most
        return _Filled(found, level - 1 if proven else levels.stop - 1, roster)
    return _Filled(found, found, roster)


def _hint(model: cp_model.CpModel, compiled: CompiledModel, roster: Sequence[Assignment]) -> None:
    """Start from ``roster``: it covers what the marker says, every other demand as now."""
    problem = compiled.problem
    employee = {e.id: i for i, e in enumerate(problem.employees)}
    day = {d: i for i, d in enumerate(problem.horizon.dates)}
    shift = {s.id: i for i, s in enumerate(problem.shifts)}
    duty = {k.id: i for i, k in enumerate(problem.duties)}
    cells: dict[tuple[int, int, int], int | None] = {}
    for a in roster:
        key = (employee.get(a.employee_id), day.get(a.date), shift.get(a.shift_id))
        if None not in key:
            cells[key] = None if a.duty_id is None else duty.get(a.duty_id)  # type: ignore[index]
    for key, x in compiled.x.items():
        model.add_hint(x, key in cells)
    for (e, d, s, k), y in compiled.y.items():
        model.add_hint(y, cells.get((e, d, s), -1) == k)


# ------------------------------------------------------------------------- counts


@dataclass(frozen=True)
class HeadProof:
    """A shortage's heads counted, the capacity in words, and the roster that fills the
    fillable ones (its missing-heads total lower by that many, at least)."""

    heads: HeadCounts
    capacity: str
    fill: list[Assignment] | None
    covered: int  # the most heads of the demand shown coverable by some roster (or less)
    open_to: int = 0  # the highest level not shown unfillable (fillable or undecided)


def count_heads(
    ask: ExplainRequest,
    compiled: CompiledModel,
    marker: Shortage,
    total_missing: int,
    where: str,
    seconds: float,
    seed: int = 0,
) -> HeadProof:
    """Each missing head of ``marker`` counted (see the module doc); ``total_missing``
    is the roster's missing heads over every demand, the audit's."""
    levels = range(marker.assigned + 1, marker.assigned + marker.missing + 1)
    slot = demand_slot(compiled, marker)
    if slot is None:  # nobody can ever stand there
        heads = HeadCounts(missing=marker.missing, unavoidable=marker.missing)
        return HeadProof(heads, f"nobody may count towards {where}", None, 0)
    capacity = capacity_words(compiled, slot)
    eligible = len(_eligible(compiled, slot, marker.kind))
    if eligible <= marker.assigned:  # every missing head is beyond the capacity
        heads = HeadCounts(missing=marker.missing, unavoidable=marker.missing)
        return HeadProof(heads, capacity, None, eligible)
    share = seconds / 2
    covered, most = _most_covered(compiled, slot, ask.roster, share, seed)
    most = min(most, eligible)
    others = total_missing - marker.missing
    upto = range(levels.start, min(levels.stop, most + 1))
    fill = _fill_levels(compiled, slot, upto, others, ask.roster, share, seed)
    counts = {"fillable": 0, "movable": 0, "unavoidable": 0, "undecided": 0}
    for level in levels:
        if level <= fill.found:
            counts["fillable"] += 1
        elif level > most:
            counts["unavoidable"] += 1
        elif fill.most < level <= covered:
            counts["movable"] += 1
        else:
            counts["undecided"] += 1
    heads = HeadCounts(missing=marker.missing, **counts)
    return HeadProof(heads, capacity, fill.roster, min(covered, most), min(fill.most, most))
