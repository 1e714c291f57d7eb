"""Sequences over consecutive dates: run lengths and shift transitions.

Consecutive working days, cap N (``max_consecutive_working_days``, default 6):
- hard: every window of N+1 consecutive dates has at most N worked dates (one group per
  employee, field ``constraints.max_consecutive_working_days``);
- soft (N >= 2): every window of N consecutive dates all worked costs CONSECUTIVE_DAYS
  under ``consecutive_days:<employee>``, i.e. a preferred cap of N-1.
Windows containing a date the employee cannot work are skipped: they cannot violate.
A problem with no cap (``max_consecutive_days`` None) gets neither.

Shift transitions on dates d, d+1 (a shift belongs to its start date):
- forbid: an occurrence is ``from`` on d and ``to`` on d+1;
- require: an occurrence is ``from`` on d without ``to`` on d+1 (the last date of the
  period has no successor and never counts).
Hard transitions are a group per (transition, employee); soft ones cost SHIFT_TRANSITION
per occurrence under ``shift_transition:<rule>:<from>:<to>:<employee>``. Transitions that
share an index are one input item (an importer's whole succession table, say) and so one
group per employee.

A soft ``require`` of a shift onto itself (nights come in blocks) also gets implied rows
(:class:`shiftsched.solving.model.terms.ImpliedRow`): under the hard cap, every block ends within N
days of any of its days. They remove no roster and change no price; they only lift the
LP bound, which otherwise lets a fractional roster work a little night every day.

Hard forbids are posted compactly, a few rows per (employee, date) rather than one
clause per forbidden pair. Within a group, let ``P(t)`` be the shifts that ``t`` may not
follow; the shifts ``B`` sharing one ``P`` form a block ``(P, B)``, posted as one row
``sum x[d, a] (a in P) + sum x[d+1, t] (t in B) <= 1``. A row excludes exactly the pairs
of ``P x B``, all forbidden (and two shifts on one date, excluded anyway), and every
forbidden pair ``(a, t)`` lies in the block of ``P(t)``, so the rows allow exactly the
rosters the pairwise clauses allow. A row of two literals is posted as the pairwise
clause itself. Hard rules need no slack definitions, so pricing is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ortools.sat.python import cp_model
from ortools.util.python.sorted_interval_list import Domain

from shiftsched.contract.v1 import SolveRequest
from shiftsched.solving import weights
from shiftsched.solving.model.context import ModelContext, Var
from shiftsched.solving.model.family import (
    HardRule,
    Json,
    NotHard,
    RuleFamily,
    drop_constraint,
    make_soft,
    period_days,
)
from shiftsched.solving.model.terms import Expr, HardGroup
from shiftsched.solving.problem import DEFAULT_MAX_CONSECUTIVE_DAYS
from shiftsched.solving.specs import TransitionSpec

CONSECUTIVE_FIELD = "constraints.max_consecutive_working_days"  # the cap's hard group


def add_consecutive_days(ctx: ModelContext) -> None:
    problem, model = ctx.problem, ctx.model
    cap = problem.max_consecutive_days
    if cap is None:  # no period-wide cap (benchmark problems): neither hard nor soft
        return
    for e, employee in enumerate(problem.employees):
        # The run in progress at the seam: its worked dates lead every window (ONE).
        carried = min(employee.seam.worked_run, cap)
        works: list[Var | int | None] = [ONE] * carried
        works += [ctx.works(e, d) for d in range(problem.num_days)]
        hard_windows = _full_windows(works, cap + 1, carried)
        if hard_windows:
            literal = ctx.hard_group(MAX_CONSECUTIVE_DAYS.code, CONSECUTIVE_FIELD, employee.id)
            for worked_before, window in hard_windows:
                model.add(cp_model.LinearExpr.sum(window) <= cap - worked_before).only_enforce_if(
                    literal
                )
        if cap < 2:
            continue
        violations: list[Var] = []
        for _, window in _full_windows(works, cap, carried):
            # v is forced to 1 when every date of the window is worked.
            v = model.new_bool_var("")
            model.add_bool_or([*(~w for w in window), v])
            violations.append(ctx.define(v, cp_model.LinearExpr.sum(window) - (len(window) - 1)))
        if violations:
            ctx.penalize(
                f"consecutive_days:{employee.id}",
                "consecutive_days",
                weights.CONSECUTIVE_DAYS,
                cp_model.LinearExpr.sum(violations),
                "window",
            )


ONE = 1  # a date before the period that the employee worked: a fact, not a variable


def _full_windows(
    works: list[Var | int | None], length: int, first: int = 0
) -> list[tuple[int, list[Var]]]:
    """Windows of ``length`` consecutive days on which every day is workable, ending at
    index ``first`` or later (a window of history alone is a fact, never a rule's): the
    worked dates of history each leads with, and its variables."""
    windows = []
    run_start = 0
    for d, w in enumerate(works):
        if w is None:
            run_start = d + 1
        elif d - run_start + 1 >= length and d >= first:
            window = works[d - length + 1 : d + 1]
            windows.append(
                (
                    sum(1 for v in window if isinstance(v, int)),
                    [v for v in window if v is not None and not isinstance(v, int)],
                )
            )
    return windows


def add_shift_transitions(ctx: ModelContext) -> None:
    problem = ctx.problem
    hard_forbids: dict[int, list[TransitionSpec]] = {}
    for t in problem.transitions:
        if t.hard and t.forbid:
            hard_forbids.setdefault(t.index, []).append(t)
    posted: set[int] = set()
    for transition in problem.transitions:
        if not (transition.hard and transition.forbid):
            for e in range(len(problem.employees)):
                _add_transition(ctx, transition, e)
        elif transition.index not in posted:  # a group is posted where it first appears
            posted.add(transition.index)
            rows = forbidden_rows(hard_forbids[transition.index])
            for e in range(len(problem.employees)):
                _add_hard_forbids(ctx, transition.index, rows, e)


def forbidden_rows(
    transitions: Iterable[TransitionSpec],
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """``(from shifts, to shifts)`` blocks whose products are exactly the forbidden pairs.

    One block per distinct predecessor set ``P``: ``P`` and the shifts whose forbidden
    predecessors are exactly ``P``. The blocks' target sets are disjoint, so the rows are
    short. In order of first appearance, so the model is deterministic.
    """
    predecessors: dict[int, set[int]] = {}
    for t in transitions:
        predecessors.setdefault(t.to_shift, set()).add(t.from_shift)
    blocks: dict[frozenset[int], list[int]] = {}
    for target, sources in predecessors.items():
        blocks.setdefault(frozenset(sources), []).append(target)
    return [(tuple(sorted(sources)), tuple(sorted(targets))) for sources, targets in blocks.items()]


def _add_hard_forbids(
    ctx: ModelContext,
    index: int,
    rows: list[tuple[tuple[int, ...], tuple[int, ...]]],
    e: int,
) -> None:
    """The hard forbids of group ``index`` for employee ``e`` (see the module docstring)."""
    model, problem = ctx.model, ctx.problem
    x = ctx.x
    shifts = range(len(problem.shifts))
    posts: list[list[Var]] = []
    today = [x.get((e, 0, s)) for s in shifts]
    last = problem.employees[e].seam.last_shift  # worked the day before the start
    if last is not None:
        for sources, targets in rows:
            if last in sources:
                posts += [[v] for t in targets if (v := today[t]) is not None]
    for d in range(problem.num_days - 1):
        tomorrow = [x.get((e, d + 1, s)) for s in shifts]
        for sources, targets in rows:
            before = [v for a in sources if (v := today[a]) is not None]
            if before:
                after = [v for t in targets if (v := tomorrow[t]) is not None]
                if after:
                    posts.append(before + after)
        today = tomorrow
    if not posts:
        return
    literal = ctx.hard_group(
        SHIFT_TRANSITION.code, f"constraints.shift_transitions[{index}]", problem.employees[e].id
    )
    at_most_one = Domain(0, 1)
    for row in posts:
        if len(row) == 1:  # after the last shift of the history
            model.add_bool_or([~row[0]]).only_enforce_if(literal)
        elif len(row) == 2:
            model.add_bool_or([~row[0], ~row[1]]).only_enforce_if(literal)
        else:
            linear = model.add_linear_expression_in_domain(
                cp_model.LinearExpr.sum(row), at_most_one
            )
            linear.only_enforce_if(literal)


def _add_transition(ctx: ModelContext, t: TransitionSpec, e: int) -> None:
    model, problem = ctx.model, ctx.problem
    employee = problem.employees[e]
    pairs = [
        (ctx.shift_var(e, d, t.from_shift), ctx.shift_var(e, d + 1, t.to_shift))
        for d in range(problem.num_days - 1)
    ]
    # Only pairs where an occurrence is possible matter.
    live: list[tuple[Var, Var | None]] = [
        (a, b) for a, b in pairs if a is not None and (b is not None or not t.forbid)
    ]
    # The history's last shift and the first date: an occurrence is a fact of day 0.
    seam = _seam_occurrence(ctx, t, e)
    if not live and seam is None:
        return
    if t.hard:  # require (hard forbids are posted by _add_hard_forbids)
        literal = ctx.hard_group(
            SHIFT_TRANSITION.code, f"constraints.shift_transitions[{t.index}]", employee.id
        )
        for a, b in live:
            if b is None:
                model.add_bool_or([~a]).only_enforce_if(literal)
            else:
                model.add_implication(a, b).only_enforce_if(literal)
        if seam is not None:
            model.add(seam <= 0).only_enforce_if(literal)
        return
    occurrences: list[Expr] = [] if seam is None else [seam]
    on_day: dict[int, Expr] = {}
    for d, (first, then) in enumerate(pairs):
        if first is None or (then is None and t.forbid):
            continue
        if then is None:  # require with no possible successor: the occurrence is first
            occurrence: Expr = first
        else:
            v = model.new_bool_var("")
            model.add_bool_or([~first, ~then if t.forbid else then, v])
            occurrence = ctx.define(v, first + then - 1 if t.forbid else first - then)
        occurrences.append(occurrence)
        on_day[d] = occurrence
    if not t.forbid and t.from_shift == t.to_shift:
        _add_run_end_rows(ctx, t.from_shift, e, on_day)
    ctx.penalize(
        f"{t.name}:{employee.id}",
        SHIFT_TRANSITION.code,
        weights.SHIFT_TRANSITION,
        cp_model.LinearExpr.sum(occurrences),
        "occurrence",
    )


def _seam_occurrence(ctx: ModelContext, t: TransitionSpec, e: int) -> Expr | None:
    """Whether the history's last shift and day 0 make an occurrence of ``t``: the
    shift ``to`` on day 0 (forbid), or its absence (require); None when they cannot."""
    if ctx.problem.employees[e].seam.last_shift != t.from_shift or ctx.problem.num_days == 0:
        return None
    then = ctx.shift_var(e, 0, t.to_shift)
    if t.forbid:
        return then
    return 1 if then is None else 1 - then


def _add_run_end_rows(ctx: ModelContext, s: int, e: int, on_day: dict[int, Expr]) -> None:
    """Redundant rows for a soft ``require s -> s``: every run of ``s`` ends somewhere.

    With the hard cap N on consecutive working days, a run of ``s`` that covers day d
    ends (``s`` on j, not on j+1) on some j in d..d+N-1, so
    ``sum occurrence[j] (j = d..d+N-1) >= x[d, s]`` whenever d+N is still in the period
    (a run may end on the last date, which never counts). Every roster the hard rules
    allow satisfies these rows, but the LP relaxation does not: a fractional roster can
    work ``s`` a little every day and never end a run. They are posted under the cap's
    own enforcement literal, so relaxing the cap (diagnosis) relaxes them too.
    """
    problem = ctx.problem
    cap = problem.max_consecutive_days
    if cap is None:
        return
    literal = ctx.posted_hard_group(
        MAX_CONSECUTIVE_DAYS.code, CONSECUTIVE_FIELD, problem.employees[e].id
    )
    if literal is None:
        return
    last = problem.num_days - 1
    for d in range(last - cap + 1):
        x = ctx.shift_var(e, d, s)
        if x is None:
            continue
        window = [on_day[j] for j in range(d, d + cap) if j in on_day]
        ctx.imply(cp_model.LinearExpr.sum(window) - x, literal)


# ------------------------------------------------------------------------ descriptors


def _describe_cap(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    cap = request.constraints.max_consecutive_working_days or DEFAULT_MAX_CONSECUTIVE_DAYS
    return f"{group.employee} may work at most {cap} consecutive days"


def _relax_cap(data: Json, match: re.Match[str]) -> None:
    """Raise the cap to the period length. Raising it by one is often not enough (four
    fixed days in a row under a cap of 1 need a cap of 4); at the period length the hard
    cap can never bind, which is what the diagnosis tested, and the soft cap still
    discourages long runs."""
    constraints = data["constraints"]
    days = period_days(data)
    cap = constraints["max_consecutive_working_days"] or DEFAULT_MAX_CONSECUTIVE_DAYS
    if cap >= days:
        raise NotHard(f"a cap of {cap} cannot bind in a period of {days} days")
    constraints["max_consecutive_working_days"] = days


def _unbounded_cap(data: Json) -> None:
    # A cap N is hard at N and soft from N-1 on (docs/semantics.md); no run is longer
    # than the period, so a cap one above its length never binds nor costs.
    data.setdefault("constraints", {})["max_consecutive_working_days"] = period_days(data) + 1


def _describe_transition(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
    t = request.constraints.shift_transitions[int(match["i"])]
    rule = "may not be followed by" if t.rule == "forbid" else "must be followed by"
    return (
        f"for {group.employee}, shift {t.from_shift_id} {rule} shift {t.to_shift_id} the next day"
    )


def _relax_transition(data: Json, match: re.Match[str]) -> None:
    """Make the rule soft: it still costs its penalty."""
    make_soft(data["constraints"]["shift_transitions"][int(match["i"])], "transition rule")


MAX_CONSECUTIVE_DAYS = HardRule(
    "max_consecutive_days",
    r"constraints\.max_consecutive_working_days",
    _describe_cap,
    "Raise max_consecutive_working_days.",
    _relax_cap,
)
SHIFT_TRANSITION = HardRule(
    "shift_transition",
    r"constraints\.shift_transitions\[(?P<i>\d+)\]",
    _describe_transition,
    "Make this transition rule soft or remove it.",
    _relax_transition,
)

MAX_CONSECUTIVE_WORKING_DAYS = RuleFamily(
    "max_consecutive_working_days",
    "the cap on consecutive working days",
    add_consecutive_days,
    hard=True,
    hard_rules=(MAX_CONSECUTIVE_DAYS,),
    soft_terms=("consecutive_days:",),
    switch_off=_unbounded_cap,
)
SHIFT_TRANSITIONS = RuleFamily(
    "shift_transitions",
    "forbidden and required shift sequences",
    add_shift_transitions,
    hard=True,
    hard_rules=(SHIFT_TRANSITION,),
    soft_terms=("shift_transition:",),
    switch_off=drop_constraint("shift_transitions"),
)
