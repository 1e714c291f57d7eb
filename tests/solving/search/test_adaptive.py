"""The selector learns which neighbourhood pays and how large to make it.

Every draw uses a ``random.Random`` with a fixed seed, so counts are exact on any
machine; the bounds asserted are loose enough to hold for any seed.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shiftsched.solving.search.adaptive import (
    CHOICE_FLOOR,
    GROW,
    SHRINK,
    STUCK,
    Selector,
    initial_fraction,
)

NAMES = ["rows", "window", "block"]


def test_initial_fraction_targets_a_number_of_cells() -> None:
    assert initial_fraction(3000, 300) == pytest.approx(0.1)
    assert initial_fraction(112, 300) == 1.0  # a small roster is freed whole
    assert initial_fraction(0, 300) == 1.0


def test_every_kind_starts_at_the_initial_fraction_and_choose_returns_its_own() -> None:
    selector = Selector(NAMES, cells=1000, initial_fraction=0.3)
    assert set(selector.arms) == set(NAMES)
    assert all(arm.fraction == 0.3 and arm.tried == 0 for arm in selector.arms.values())
    selector.report("rows", improved=False, finished=True)
    rng = random.Random(1)
    for _ in range(50):
        name, fraction = selector.choose(rng)
        assert name in NAMES
        assert fraction == selector.arms[name].fraction
    assert selector.arms["rows"].fraction == pytest.approx(0.3 * GROW)


def test_a_finished_sub_solve_grows_its_kind_and_an_unfinished_one_shrinks_it() -> None:
    assert GROW > 1 > SHRINK > STUCK > 0
    selector = Selector(NAMES, cells=1000, initial_fraction=0.2)
    selector.report("rows", improved=False, finished=True)
    assert selector.arms["rows"].fraction == pytest.approx(0.2 * GROW)
    selector.report("window", improved=True, finished=False)
    assert selector.arms["window"].fraction == pytest.approx(0.2 * SHRINK)
    selector.report("block", improved=False, finished=False, stuck=True)
    assert selector.arms["block"].fraction == pytest.approx(0.2 * STUCK)  # halved, or so
    assert selector.arms["rows"].fraction == pytest.approx(0.2 * GROW)  # others kept
    for _ in range(40):
        selector.report("rows", improved=False, finished=True)
        selector.report("window", improved=False, finished=False)
        selector.report("block", improved=False, finished=False, stuck=True)
    assert selector.arms["rows"].fraction == 1.0  # never more than every cell
    assert selector.arms["window"].fraction == pytest.approx(1 / 1000)  # never below one
    assert selector.arms["block"].fraction == pytest.approx(1 / 1000)
    assert selector.arms["rows"].tried == 41 and selector.arms["window"].improved == 1


@given(
    st.integers(1, 5000),
    st.floats(min_value=1e-4, max_value=1.0),
    st.lists(
        st.tuples(st.sampled_from(NAMES), st.booleans(), st.booleans(), st.booleans()),
        max_size=80,
    ),
)
def test_fractions_stay_within_one_cell_and_all_cells(
    cells: int, initial: float, outcomes: list[tuple[str, bool, bool, bool]]
) -> None:
    selector = Selector(NAMES, cells=cells, initial_fraction=max(initial, 1 / cells))
    for name, improved, finished, stuck in outcomes:
        before = selector.arms[name].fraction
        selector.report(name, improved, finished and not stuck, stuck)
        after = selector.arms[name].fraction
        assert 1 / cells - 1e-12 <= after <= 1.0
        assert after >= before if finished and not stuck else after <= before
        assert 0.0 <= selector.arms[name].success <= 1.0
    for name in NAMES:
        arm = selector.arms[name]
        assert arm.tried == sum(1 for n, *_ in outcomes if n == name)
        assert arm.improved == sum(1 for n, i, *_ in outcomes if n == name and i)


def test_a_kind_that_keeps_improving_is_chosen_far_more_often() -> None:
    selector = Selector(NAMES, cells=1000, initial_fraction=0.3)
    rng = random.Random(0)
    chosen: Counter[str] = Counter()
    for _ in range(3000):
        name, _ = selector.choose(rng)
        chosen[name] += 1
        selector.report(name, improved=name == "window", finished=True)
    # Weights settle at 1 + floor for "window" and the floor alone for each other kind.
    assert chosen["window"] > 3 * (chosen["rows"] + chosen["block"])  # about 5.5 times
    assert selector.arms["window"].success > 0.99
    # The floor keeps the others in play: each is still tried now and then.
    assert chosen["rows"] > 0 and chosen["block"] > 0
    assert CHOICE_FLOOR > 0


def test_a_kind_that_stops_paying_loses_its_lead() -> None:
    selector = Selector(NAMES, cells=1000, initial_fraction=0.3)
    rng = random.Random(3)
    for _ in range(200):
        selector.report("rows", improved=True, finished=True)
    assert selector.arms["rows"].success > 0.99
    for _ in range(30):  # recency-weighted: a few dry runs undo a long streak
        selector.report("rows", improved=False, finished=True)
    selector.report("block", improved=True, finished=True)
    assert selector.arms["block"].success > selector.arms["rows"].success
    late = Counter(selector.choose(rng)[0] for _ in range(2000))
    assert late["block"] > late["rows"]


def test_a_kind_added_later_starts_afresh_and_is_drawn() -> None:
    selector = Selector(list(NAMES), cells=1000, initial_fraction=0.2)
    selector.report("rows", improved=True, finished=True)
    selector.add("priced")
    selector.add("priced")  # once only
    assert selector.names == [*NAMES, "priced"]
    assert selector.arms["priced"].fraction == 0.2 and selector.arms["priced"].tried == 0
    rng = random.Random(5)
    assert "priced" in Counter(selector.choose(rng)[0] for _ in range(200))
    selector.add("rows")  # a kind it has keeps what it learnt
    assert selector.arms["rows"].tried == 1
