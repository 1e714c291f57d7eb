"""Minimal conflicts by deletion with core refinement, for any kind of item.

Given a set of items that cannot all hold together (a *core*), :func:`shrink` finds a
subset that still cannot, from which no item can be dropped: a minimal conflict. It tries
to drop each item in turn; when the rest is still infeasible, the re-solve names a core of
that rest, and everything outside it goes at once (core refinement, as in CPMpy's
``mus``), so a large first core shrinks in a handful of re-solves instead of one per item.

Items found necessary stay necessary in every smaller infeasible set (dropping one from a
set made it feasible, and a subset of a feasible set is feasible), so a refined core keeps
them and the search never revisits them. Nothing here knows what an item is: the
diagnosis (:mod:`shiftsched.solving.diagnose`) passes hard-rule groups and a re-solve of its model;
a re-plan and an explanation pass items under literals, re-solved by
:func:`solve_assuming`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal as LiteralType
from typing import Protocol, TypeVar

from ortools.sat.python import cp_model

Item = TypeVar("Item")

Probe = Callable[[list[Item], Item], Sequence[Item] | None]
"""Re-solve with ``kept`` enforced and ``dropped`` left out: a core within ``kept`` when
still infeasible, None when feasible or undecided (then ``dropped`` stays)."""


def shrink(
    core: Sequence[Item], probe: Probe[Item], has_time: Callable[[], bool] = lambda: True
) -> list[Item]:
    """A minimal conflict within ``core``, trying items in the order given.

    Stops early, returning what is left (still a conflict, perhaps not minimal), when
    ``has_time`` says so.
    """
    kept = list(core)
    necessary = 0  # kept[:necessary] cannot be dropped
    while necessary < len(kept) and len(kept) > 1 and has_time():
        dropped = kept[necessary]
        trial = kept[:necessary] + kept[necessary + 1 :]
        refined = probe(trial, dropped)
        if refined is None:
            necessary += 1
            continue
        inside = {id(item) for item in refined}  # items by identity: they need no hash
        if not inside:  # a solver that names no core: the rest as it is
            kept = trial
            continue
        prefix = [item for item in kept[:necessary] if id(item) in inside]
        kept = prefix + [item for item in trial[necessary:] if id(item) in inside]
        necessary = len(prefix)
    return kept


class Literal(Protocol):
    """An item enforced by one literal of a model (a re-plan's item, a hard rule's)."""

    @property
    def literal(self) -> cp_model.IntVar: ...


Enforced = TypeVar("Enforced", bound=Literal)
ProbeOutcome = LiteralType["feasible", "infeasible", "undecided"]


def solve_assuming(
    base: cp_model.CpModel, kept: Sequence[Enforced], seconds: float
) -> tuple[ProbeOutcome, list[Enforced]]:
    """Solve ``base`` with the literals of ``kept`` assumed, one worker, for at most
    ``seconds``: the outcome, and when infeasible a core within ``kept`` (all of it when
    the solver names none)."""
    model = base.clone()
    by_index = {item.literal.index: item for item in kept}
    model.add_assumptions([item.literal for item in kept])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = seconds
    status = solver.solve(model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return "feasible", []
    if status != cp_model.INFEASIBLE:
        return "undecided", []
    found = solver.sufficient_assumptions_for_infeasibility()
    return "infeasible", [by_index[i] for i in found if i in by_index] or list(kept)
