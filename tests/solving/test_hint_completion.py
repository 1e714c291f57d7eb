"""A greedy roster that keeps the hard rules becomes a complete hint of the whole model.

CP-SAT takes a complete, feasible hint as its first solution; a partial one (decisions
only) can leave the search without a roster for many seconds on large models.
"""

from __future__ import annotations

import json
from pathlib import Path

from ortools.sat.python import cp_model

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.solving.greedy import greedy_roster, roster_assignments
from shiftsched.solving.hint import add_roster_hint, complete_hint
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.problem import Problem, from_request
from tests.audited import BACKSTOP_SECONDS
from tests.solving.model.conftest import employee, parse, shift
from tests.solving.model.conftest import request as make_request

DATASETS = Path(__file__).parent.parent.parent / "datasets"


def compiled_with_hint(name: str) -> tuple[Problem, CompiledModel]:
    request = parse_request(json.loads((DATASETS / f"{name}.json").read_text()))
    problem = from_request(request)
    compiled = build(problem)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    add_roster_hint(compiled, greedy_roster(problem))
    return problem, compiled


def hinted_indices(model: cp_model.CpModel) -> list[int]:
    return list(model.proto.solution_hint.vars)


def test_a_feasible_greedy_roster_hints_every_variable_feasibly() -> None:
    problem, compiled = compiled_with_hint("call_centre_duties")
    request = parse_request(json.loads((DATASETS / "call_centre_duties.json").read_text()))
    assert audit(request, roster_assignments(problem, greedy_roster(problem))).feasible
    decisions = len(hinted_indices(compiled.model))
    assert complete_hint(compiled, BACKSTOP_SECONDS)
    variables = len(compiled.model.proto.variables)
    assert (
        sorted(hinted_indices(compiled.model)) == list(range(variables)) and variables > decisions
    )
    # The completed hint is itself a solution: fixing every variable to it is feasible.
    check = compiled.model.clone()
    solver = cp_model.CpSolver()
    solver.parameters.fix_variables_to_their_hinted_value = True
    solver.parameters.num_workers = 1
    assert solver.solve(check) in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    # ...and its decisions are the greedy roster's.
    values = solver.response_proto.solution
    roster = greedy_roster(problem)
    assert {key for key, x in compiled.x.items() if values[x.index]} == set(roster)


def test_a_greedy_roster_that_breaks_a_hard_rule_keeps_the_partial_hint() -> None:
    # The greedy pass cannot see a required follow-up shift: N on day 0 needs E on day 1,
    # but day 1 has no demand, so the greedy roster leaves e0 off and breaks the rule.
    request = parse(
        make_request(
            3,
            [shift("N", 3, on={0: (1, 1)}), shift("E", 3)],
            [employee("e0", ["N", "E"])],
            shift_transitions=[
                {"from_shift_id": "N", "to_shift_id": "E", "rule": "require"},
            ],
        )
    )
    problem = from_request(request)
    compiled = build(problem)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    add_roster_hint(compiled, greedy_roster(problem))
    broken = audit(request, roster_assignments(problem, greedy_roster(problem))).hard_violations
    assert [v.code for v in broken] == ["shift_transition"]
    before = hinted_indices(compiled.model)
    assert not complete_hint(compiled, BACKSTOP_SECONDS)
    assert hinted_indices(compiled.model) == before
