"""The local search prices and checks a roster exactly as the model and its judges do.

For v1 requests of every family mix (with and without duties, with a history), the
shipped datasets (but max_size, read in test_evaluable only, for time), Curtois & Qu
instances 1-4 and INRC-II weeks, on the greedy start, on rosters the
search reached and on rosters with random cells rewritten (which often break a hard
rule), a full evaluation by the search must give:

- its cost equal to the model's exact price of the decisions (tight values), and to the
  audit's (or the Curtois & Qu checker's) objective;
- feasible exactly when the judge finds no broken hard rule, and exactly when CP-SAT
  accepts the roster's tight completion as a solution of the model.

Every CP-SAT solve here has every variable fixed (one worker): it cannot depend on time.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

import pytest

from shiftsched.solving.local.arrays import LocalModel
from shiftsched.solving.local.search import LocalSearch
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.model.tight import tight_values
from tests.solving.local.cases import ALL, case, cp_sat_objective, model_price

pytestmark = pytest.mark.slow  # builds and searches a model of every source

SEARCHED = ((1, 300), (3, 4_000))  # (seed, moves) of the rosters the search reaches
REWRITTEN = (2, 8)  # cells rewritten at random in the rewritten rosters


def accepted_by_cp_sat(compiled: CompiledModel, values: Sequence[int]) -> bool:
    """Whether the model holds with every variable fixed to the tight completion."""
    return cp_sat_objective(compiled, tight_values(compiled, values)) is not None


def rewritten(local: LocalModel, values: Sequence[int], cells: int, seed: int) -> list[int]:
    """``values`` with ``cells`` random cells set to a random option (or off) and duty."""
    rng = random.Random(seed)
    out = list(values)
    open_cells = [
        c
        for c in range(local.employees * local.days)
        if local.cell_start[c + 1] > local.cell_start[c]
    ]
    for c in rng.sample(open_cells, min(cells, len(open_cells))):
        options = range(local.cell_start[c], local.cell_start[c + 1])
        for option in options:
            out[local.opt_x[option]] = 0
            for y in range(local.oy_start[option], local.oy_start[option + 1]):
                out[local.oy_var[y]] = 0
        option = rng.choice([-1, *options])
        if option >= 0:
            out[local.opt_x[option]] = 1
            duties = range(local.oy_start[option], local.oy_start[option + 1])
            duty = rng.choice([-1, *duties])
            if duty >= 0:
                out[local.oy_var[duty]] = 1
    return out


@cache
def rosters(label: str) -> list[tuple[str, list[int]]]:
    """The start, rosters the search reached from it, and rewritten ones."""
    subject = case(label)
    found = [("start", subject.start)]
    for seed, moves in SEARCHED:
        search = LocalSearch(subject.local, subject.start, seed)
        search.run(moves)
        current = search.current_solution()
        assert current is not None, "the search left a roster that breaks a rule"
        assert (search.cost, search.feasible) == (current[1], True)  # incremental == full
        found.append((f"searched {moves} moves, seed {seed}", current[0]))
    for cells in REWRITTEN:
        found.append(
            (f"{cells} cells rewritten", rewritten(subject.local, found[-1][1], cells, cells))
        )
    return found


@pytest.mark.parametrize("label", ALL)
def test_a_full_evaluation_prices_and_checks_as_the_model_and_the_judge(label: str) -> None:
    subject = case(label)
    broken = 0
    for what, values in rosters(label):
        search = LocalSearch(subject.local, values, seed=0)
        price = model_price(subject.compiled, values)
        assert search.cost == price, f"{label}, {what}: the search costs {search.cost}"
        cp_sat = accepted_by_cp_sat(subject.compiled, values)
        assert search.feasible == cp_sat, f"{label}, {what}: CP-SAT accepts it: {cp_sat}"
        broken += not search.feasible
        if subject.judge is None:
            continue
        verdict = subject.judge(values)
        assert search.feasible == verdict.feasible, f"{label}, {what}: {verdict.broken}"
        assert search.cost == verdict.objective, f"{label}, {what}: judged {verdict.objective}"
    assert broken <= len(REWRITTEN)  # only a rewritten roster may break a rule


def test_some_rewritten_roster_breaks_a_hard_rule() -> None:
    """Guards the test above: the infeasible side of 'feasible == judged' is reached."""
    broken = []
    for label in ALL:
        subject = case(label)
        for what, values in rosters(label):
            if not LocalSearch(subject.local, values, seed=0).feasible:
                broken.append((label, what))
    assert len(broken) >= len(ALL) // 2, broken
