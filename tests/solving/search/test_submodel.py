"""A cut-down sub-model allows exactly what the full model allows around the incumbent.

Two kinds of checks, both independent of the cutter:

- on small random models of every supported kind (each possibly enforced), CP-SAT
  enumerates every solution of the full model with the kept variables at their values,
  and every solution of the sub-model: the two sets must be equal, objective included;
- on real rostering models, a sub-solution expanded to the full model must be a solution
  of the full model at the sub-model's objective, change only what the part reaches, and
  the sub-model of every decision must have the full model's optimum.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from ortools.sat.python import cp_model

from shiftsched.solving.search.neighbourhoods import NEIGHBOURHOODS, shape_of
from shiftsched.solving.search.submodel import Extractor, Tokens
from tests.solving.search.rosters import (
    BACKSTOP_SECONDS,
    curtois_problem,
    dataset_problem,
    greedy_start,
    model_objective_of,
)

# --- small random models: the sub-model's solutions are the full model's -----------------


Literal = tuple[int, bool]  # (variable, negated)


def random_model(rng: random.Random, count: int) -> tuple[cp_model.CpModel, list[cp_model.IntVar]]:
    """Constraints of every supported kind over ``count`` Booleans and two integers.

    Each constraint holds at a planted assignment, so every model has a solution.
    """
    planted = [rng.randint(0, 1) for _ in range(count)] + [rng.randint(0, 3) for _ in range(2)]
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{i}") for i in range(count)]
    z = [model.new_int_var(0, 3, f"z{i}") for i in range(2)]

    def literals(size: int) -> list[Literal]:
        return [(v, rng.random() < 0.3) for v in rng.sample(range(count), size)]

    def true(literal: Literal) -> bool:
        return bool(planted[literal[0]]) != literal[1]

    def post(literal: Literal) -> cp_model.IntVar:
        return ~x[literal[0]] if literal[1] else x[literal[0]]  # type: ignore[return-value]

    posted = 0
    while posted < 12:
        enforcement = literals(rng.randint(1, 2)) if rng.random() < 0.5 else []
        kind = rng.choice(["or", "and", "at_most_one", "exactly_one", "linear"])
        body = literals(rng.randint(1 if kind == "and" else 2, 4))
        if kind == "linear":
            terms = rng.sample(range(count + 2), rng.randint(2, 5))
            coeffs = [rng.choice([-2, -1, 1, 2, 3]) for _ in terms]
            low, high = rng.randint(-3, 1), rng.randint(1, 5)
            value = sum(c * planted[t] for c, t in zip(coeffs, terms, strict=True))
            holds = low <= value <= high
        else:
            held = sum(true(literal) for literal in body)
            holds = {
                "or": held >= 1,
                "and": held == len(body),
                "at_most_one": held <= 1,
                "exactly_one": held == 1,
            }[kind]
        if not holds and all(true(literal) for literal in enforcement):
            continue  # it would cut off the planted assignment
        lits = [post(literal) for literal in body]
        if kind == "or":
            constraint = model.add_bool_or(lits)
        elif kind == "and":
            constraint = model.add_bool_and(lits)
        elif kind == "at_most_one":
            constraint = model.add_at_most_one(lits)
        elif kind == "exactly_one":
            constraint = model.add_exactly_one(lits)
        else:
            variables = [*x, *z]
            expression = sum(c * variables[t] for c, t in zip(coeffs, terms, strict=True))
            constraint = model.add_linear_constraint(expression, low, high)
        if enforcement:
            constraint.only_enforce_if([post(literal) for literal in enforcement])
        posted += 1
    model.minimize(sum(rng.randint(-3, 5) * v for v in [*x, *z]) + 7)
    return model, [*x, *z]


def all_solutions(
    model: cp_model.CpModel, variables: list[cp_model.IntVar]
) -> set[tuple[int, ...]]:
    class Collect(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.found: set[tuple[int, ...]] = set()

        def on_solution_callback(self) -> None:
            self.found.add(tuple(self.value(v) for v in variables))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = BACKSTOP_SECONDS
    collect = Collect()
    status = solver.solve(model, collect)
    assert status in (cp_model.OPTIMAL, cp_model.INFEASIBLE), solver.status_name(status)
    return collect.found


def objective_of(model: cp_model.CpModel, values: list[int]) -> float:
    objective = model.proto.objective
    total = objective.offset + sum(
        c * values[v] for v, c in zip(objective.vars, objective.coeffs, strict=True)
    )
    return float(total)


@pytest.mark.parametrize("seed", range(40))
def test_sub_model_solutions_equal_full_model_solutions_around_the_incumbent(seed: int) -> None:
    rng = random.Random(seed)
    model, variables = random_model(rng, count=8)
    full = sorted(all_solutions(model, variables))
    assert full, "the planted assignment is a solution"
    incumbent = np.asarray(rng.choice(full), dtype=np.int64)
    # Every variable is a decision here: nothing is reached beyond the freed ones.
    everything = list(range(len(variables)))
    extractor = Extractor.of(model, everything)
    assert extractor is not None
    free = sorted(rng.sample(everything, rng.randint(1, 5)))
    sub = extractor.extract(free, incumbent)
    # Freed variables the model forces (an unconditional conjunction) stay constants.
    assert set(sub.variables.tolist()) <= set(free)

    kept = [v for v in everything if v not in free]
    expected = {s for s in full if all(s[v] == incumbent[v] for v in kept)}
    sub_variables = [
        sub.model.get_int_var_from_proto_index(i) for i in range(len(sub.model.proto.variables))
    ]
    found = {
        tuple(sub.expand(incumbent, list(values)).tolist())
        for values in all_solutions(sub.model, sub_variables)
    }
    assert found == expected
    assert tuple(incumbent.tolist()) in found  # the incumbent itself is kept
    for solution in found:  # the sub-model's objective is the full model's
        local = [solution[v] for v in sub.variables.tolist()]
        assert objective_of(sub.model, local) == objective_of(model, list(solution))


@pytest.mark.parametrize("kind", ["or", "and", "at_most_one", "exactly_one", "linear"])
def test_a_row_whose_held_body_fails_forbids_its_free_enforcement(kind: str) -> None:
    """Every term is held and the body is false there, so the freed enforcement literal
    may not turn the row on (random models rarely hold this case)."""
    model = cp_model.CpModel()
    a, b, c = (model.new_bool_var(name) for name in "abc")
    on = model.new_bool_var("on")
    body = {
        "or": lambda: model.add_bool_or([a, b]),  # a = b = 0
        "and": lambda: model.add_bool_and([a, c]),  # a = 0
        "at_most_one": lambda: model.add_at_most_one([c, ~a]),  # c = 1, not a = 1
        "exactly_one": lambda: model.add_exactly_one([a, b]),  # none
        "linear": lambda: model.add_linear_constraint(2 * a + c, 2, 3),  # 1
    }[kind]()
    body.only_enforce_if(on)
    model.minimize(-on)
    extractor = Extractor.of(model, [0, 1, 2, 3])
    assert extractor is not None
    incumbent = np.asarray([0, 0, 1, 0], dtype=np.int64)
    sub = extractor.extract([3], incumbent)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    assert solver.solve(sub.model) == cp_model.OPTIMAL
    assert sub.expand(incumbent, list(solver.response_proto.solution)).tolist() == [0, 0, 1, 0]


def test_tabulated_texts_equal_formatted_texts() -> None:
    """The text tables widen as values arrive and step aside for far-spread values."""
    tokens = Tokens()
    rng = np.random.default_rng(4)
    for low, high in [(0, 10), (-5, 3), (20, 40), (-3, 2**40), (-(2**63), 2**63 - 1), (0, 50)]:
        values = rng.integers(low, high, size=30, dtype=np.int64, endpoint=True)
        assert tokens.of("vars", values) == [f"vars:{v} " for v in values.tolist()]
    assert tokens.of("vars", np.zeros(0, dtype=np.int64)) == []


def test_a_model_with_another_kind_of_constraint_is_not_cut() -> None:
    model = cp_model.CpModel()
    a, b = model.new_int_var(0, 3, "a"), model.new_int_var(0, 3, "b")
    model.add_max_equality(a, [b, 1])
    assert Extractor.of(model, [0, 1]) is None


# --- real rostering models ----------------------------------------------------------------

PROBLEMS = {
    "curtois_4": lambda: curtois_problem(4),
    "ward_24_7": lambda: dataset_problem("ward_24_7"),
    "call_centre_duties": lambda: dataset_problem("call_centre_duties"),
}


def cells_of(model: object) -> dict[tuple[int, int], list[int]]:
    cells: dict[tuple[int, int], list[int]] = {}
    for (e, d, _s), x in model.x.items():  # type: ignore[attr-defined]
        cells.setdefault((e, d), []).append(x.index)
    for (e, d, _s, _k), y in model.y.items():  # type: ignore[attr-defined]
        cells.setdefault((e, d), []).append(y.index)
    return cells


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_an_expanded_sub_solution_is_a_full_solution_at_the_same_objective(name: str) -> None:
    problem = PROBLEMS[name]()
    start = greedy_start(problem)
    cells = cells_of(start.compiled)
    decisions = [i for indices in cells.values() for i in indices]
    extractor = Extractor.of(start.compiled.model, decisions)
    assert extractor is not None
    shape = shape_of(problem)
    rng = random.Random(3)
    values = np.asarray(start.solution, dtype=np.int64)
    objective = start.objective
    for kind in ("random_employees", "day_window", "block"):
        free_cells = [c for c in NEIGHBOURHOODS[kind](shape, rng, 0.2) if c in cells]
        free = [i for cell in free_cells for i in cells[cell]]
        sub = extractor.extract(free, values)
        reached = set(sub.variables.tolist())
        assert set(free) <= reached
        assert not (reached & (set(decisions) - set(free))), "a kept decision was freed"
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        solver.parameters.max_deterministic_time = 0.5
        solver.parameters.max_time_in_seconds = BACKSTOP_SECONDS
        status = solver.solve(sub.model)
        assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE), solver.status_name(status)
        expanded = sub.expand(values, solver.response_proto.solution)
        changed = np.flatnonzero(expanded != values)
        assert set(changed.tolist()) <= reached
        assert model_objective_of(start.compiled, expanded.tolist()) == solver.objective_value
        assert solver.objective_value <= objective  # the incumbent is hinted, never lost
        values, objective = expanded, solver.objective_value


def test_the_sub_model_of_every_decision_has_the_full_optimum() -> None:
    problem = curtois_problem(1)
    start = greedy_start(problem)
    cells = cells_of(start.compiled)
    decisions = [i for indices in cells.values() for i in indices]
    extractor = Extractor.of(start.compiled.model, decisions)
    assert extractor is not None
    sub = extractor.extract(decisions, np.asarray(start.solution, dtype=np.int64))

    def optimum(model: cp_model.CpModel) -> float:
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_time_in_seconds = BACKSTOP_SECONDS
        assert solver.solve(model) == cp_model.OPTIMAL
        return solver.objective_value

    full = start.compiled.model.clone()
    full.clear_hints()  # type: ignore[no-untyped-call]
    assert optimum(sub.model) == optimum(full) == 607  # Curtois & Qu 1: proven optimum
