"""What a caller of :class:`LocalSearch` relies on: the same seed gives the same roster,
and the best roster is a feasible solution of the model never worse than the start.

"Best" is checked four ways: the search's own verification (``best_solution`` is not
None), the judge (v1 audit or Curtois & Qu checker: no broken hard rule, the same
price), the model's exact price, and CP-SAT with every variable fixed to the returned
vector (it is a complete solution of the model at that objective). No assertion is about
which of several equally good rosters comes back, only about the same one coming back.
"""

from __future__ import annotations

import numpy as np
import pytest

from shiftsched.solving.local.search import LocalSearch
from tests.solving.local.cases import ALL, case, cp_sat_objective, model_price

pytestmark = pytest.mark.slow  # searches a model of every source

CHUNKS = (1, 1, 30, 800, 4_000)  # the moves of each run, across calls
REPEATED = (
    "synthetic-all",
    "synthetic-teams",
    "history-all",
    "dataset-call_centre_duties",
    "curtois-2",
    "inrc2-n005w4",
)


@pytest.mark.parametrize("label", REPEATED)
@pytest.mark.parametrize("seed", [0, 91])
def test_the_same_seed_and_runs_give_the_same_rosters(label: str, seed: int) -> None:
    subject = case(label)
    one = LocalSearch(subject.local, subject.start, seed)
    two = LocalSearch(subject.local, subject.start, seed)
    for moves in CHUNKS:
        assert one.run(moves) == two.run(moves)
        assert one.best_solution() == two.best_solution()
        assert one.current_solution() == two.current_solution()


@pytest.mark.parametrize("label", ALL)
def test_the_best_roster_is_feasible_and_never_worse_than_the_start(label: str) -> None:
    subject = case(label)
    start_cost = model_price(subject.compiled, subject.start)
    search = LocalSearch(subject.local, subject.start, seed=17)
    assert (search.cost, search.best_cost) == (start_cost, start_cost)
    lowest = start_cost
    for moves in CHUNKS:
        chunk = search.run(moves)
        assert chunk.current == search.cost <= start_cost  # accepted against costs reached
        assert chunk.best == search.best_cost <= chunk.current
        lowest = min(lowest, search.cost)
    best = search.best_solution()
    assert best is not None, "the best roster breaks a rule"
    values, cost = best
    assert cost == search.best_cost <= lowest <= start_cost
    assert model_price(subject.compiled, values) == cost
    if subject.judge is not None:
        verdict = subject.judge(values)
        assert verdict.feasible, verdict.broken
        assert verdict.objective == cost
    assert cp_sat_objective(subject.compiled, values) == cost


@pytest.mark.parametrize("label", ["synthetic-all", "history-workload-ledger", "curtois-3"])
def test_a_loaded_roster_comes_back_as_it_went_in(label: str) -> None:
    """The round trip through the cells: the decisions, and the model's tight completion."""
    subject = case(label)
    search = LocalSearch(subject.local, subject.start, seed=3)
    current = search.current_solution()
    assert current is not None
    decisions = np.concatenate([subject.local.opt_x, subject.local.oy_var])
    assert np.array_equal(np.asarray(current[0])[decisions], np.asarray(subject.start)[decisions])
    assert current[1] == search.cost == model_price(subject.compiled, subject.start)
    assert search.best_solution() == current
