"""Turn a roster (the decisions alone) into a complete solution of the full model.

The portfolio shares complete CP-SAT solution vectors; a roster built outside the model
(the decomposition's columns) has only its decisions. Fixing them and letting CP-SAT set
every auxiliary is a trivial solve on a copy of the model, so the search under way is
not touched. A roster that breaks a hard rule of the full model (a rule the columns did
not see) has no completion.
"""

from __future__ import annotations

import threading

from ortools.sat.python import cp_model

from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.search.stopping import stopping

Roster = dict[tuple[int, int, int], int | None]  # (employee, day, shift) -> duty or None


def complete_roster(
    compiled: CompiledModel, roster: Roster, seconds: float, stop: threading.Event | None = None
) -> tuple[list[int], float] | None:
    """Every variable's value and the model objective, or None (a hard rule broken, out
    of time, or stopped)."""
    model = compiled.model.clone()
    model.clear_hints()  # type: ignore[no-untyped-call]
    hint = model.proto.solution_hint
    variables: list[int] = []
    values: list[int] = []
    for key, x in compiled.x.items():
        variables.append(x.index)
        values.append(int(key in roster))
    for (e, d, s, k), y in compiled.y.items():
        variables.append(y.index)
        values.append(int(roster.get((e, d, s), -1) == k))
    hint.vars.extend(variables)
    hint.values.extend(values)
    solver = cp_model.CpSolver()
    solver.parameters.fix_variables_to_their_hinted_value = True
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = max(0.05, seconds)
    with stopping(stop, solver.stop_search):
        status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return list(solver.response_proto.solution), solver.objective_value
