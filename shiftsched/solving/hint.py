"""A roster handed to CP-SAT as its hint, and the hint completed into a first solution.

A hint of the decisions alone leaves slack and helper variables to the search; completed
(every variable fixed by a trivial solve), CP-SAT takes it as its first solution at once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ortools.sat.python import cp_model

from shiftsched.solving.greedy_views import Roster
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.stopping import requested, stopping


@dataclass(frozen=True)
class Completion:
    """A complete, feasible first solution of the model: every variable's value."""

    values: list[int]
    objective: float


def complete_hint(
    compiled: CompiledModel, seconds: float, stop: threading.Event | None = None
) -> Completion | None:
    """Extend a hint of the decisions to every variable of the model, when it is feasible.

    CP-SAT takes a complete, feasible hint as its first solution at once; a hint of the
    decisions alone leaves slack and helper variables to the search, which on large
    models can take longer than finding a roster from scratch. The completion is a
    trivial solve: decisions fixed to the hint, the rest minimized (as in polishing).
    Returns the completed solution, or None, leaving the partial hint, when the hinted
    roster breaks a hard rule, the completion runs out of time or ``stop`` is set.
    """
    model = compiled.model.clone()
    completer = cp_model.CpSolver()
    completer.parameters.fix_variables_to_their_hinted_value = True
    completer.parameters.num_workers = 1
    completer.parameters.max_time_in_seconds = seconds
    with stopping(stop, completer.stop_search):
        status = completer.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE) or requested(stop):
        return None
    values = list(completer.response_proto.solution)
    target = compiled.model
    target.clear_hints()  # type: ignore[no-untyped-call]
    hint = target.proto.solution_hint
    hint.vars.extend(range(len(values)))
    hint.values.extend(values)
    return Completion(values, completer.objective_value)


def add_roster_hint(compiled: CompiledModel, roster: Roster) -> None:
    """Hint every decision variable from a roster (1 where it assigns, 0 elsewhere)."""
    model = compiled.model
    for key, x in compiled.x.items():
        model.add_hint(x, key in roster)
    for (e, d, s, k), y in compiled.y.items():
        model.add_hint(y, roster.get((e, d, s)) == k)
