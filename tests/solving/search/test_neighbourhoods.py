"""Neighbourhoods free whole rows, windows and blocks of real rosters, sized by a fraction.

Shapes come from the shipped datasets (through the contract model), from Curtois & Qu
instances 1 and 4, and from random requests; each chooser is drawn with a fixed
``random.Random`` seed, so every assertion is about the cells it returns, never timing.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shiftsched.contract.parse import parse_request
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.problem import Problem, from_request
from shiftsched.solving.search.neighbourhoods import (
    BLOCK_DAYS,
    NEIGHBOURHOODS,
    SWAP_REACH,
    Cell,
    Shape,
    applicable,
    block,
    cover_swap,
    day_window,
    group_employees,
    priced_rows,
    random_employees,
    shape_of,
    shift_type,
    shortfall,
    similar_employees,
    spare_heads,
    with_gains,
    with_required,
    with_roster,
    with_shortfalls,
)
from tests.solving.search.rosters import DATASET_NAMES, curtois_problem, dataset_problem
from tests.strategies import requests

SOURCES = (*DATASET_NAMES, "curtois-1", "curtois-4")
ROW_CHOOSERS = ("random_employees", "similar_employees", "group_employees")

fractions = st.floats(min_value=1e-4, max_value=1.0, allow_nan=False)
seeds = st.integers(0, 2**32 - 1)


def problem_of(source: str) -> Problem:
    if source.startswith("curtois-"):
        return curtois_problem(int(source.removeprefix("curtois-")))
    return dataset_problem(source)


@cache
def plain(source: str) -> Shape:
    return shape_of(problem_of(source))


@cache
def rostered(source: str) -> Shape:
    """The shape with the greedy roster of the problem as the incumbent."""
    roster = {(e, d): s for (e, d, s) in greedy_roster(problem_of(source))}
    assert roster, source
    return with_roster(plain(source), roster)


def count(total: int, fraction: float) -> int:
    return max(1, min(total, math.ceil(fraction * total)))


def rows_and_days(cells: frozenset[Cell]) -> tuple[set[int], list[int]]:
    return {e for e, _ in cells}, sorted({d for _, d in cells})


def assert_product(cells: frozenset[Cell]) -> tuple[set[int], list[int]]:
    """The cells are whole rows over one run of consecutive days; returns both."""
    rows, days = rows_and_days(cells)
    assert days == list(range(days[0], days[0] + len(days))), "days are not consecutive"
    assert cells == {(e, d) for e in rows for d in days}, "not every row over every day"
    return rows, days


def assert_in_range(shape: Shape, cells: frozenset[Cell]) -> None:
    assert all(0 <= e < shape.employees and 0 <= d < shape.days for e, d in cells)


# --------------------------------------------------------------------------- the shape


def test_shape_of_reads_who_can_work_what_from_the_problem() -> None:
    problem = dataset_problem("call_centre_duties")
    shape = shape_of(problem)
    assert (shape.employees, shape.days) == (len(problem.employees), problem.num_days)
    assert shape.cells == shape.employees * shape.days
    for e, employee in enumerate(problem.employees):
        assert shape.reach[e] == {s for options in employee.day_options for s in options}
        assert shape.duties[e] == {k for ks in employee.duty_options.values() for k in ks}
    assert any(shape.duties), "the duties dataset has duty holders"
    for s, workers in enumerate(shape.shift_workers):
        assert workers == tuple(e for e in range(shape.employees) if s in shape.reach[e])
    assert shape.groups and all(len(group) >= 2 for group in shape.groups)
    assert shape.roster == {} and shape.shortfalls == ()


def test_similar_employees_rank_shared_shifts_then_shared_duties() -> None:
    shape = Shape(
        employees=4,
        days=7,
        reach=(frozenset({0, 1}), frozenset({0, 1}), frozenset({2}), frozenset({0})),
        duties=(frozenset({5}), frozenset(), frozenset(), frozenset({5})),
        groups=(),
        shift_workers=((0, 1, 3), (0, 1), (2,)),
        roster={},
    )
    # 1 shares both shifts (1 + 0), 3 shares one of two shifts and the duty (0.5 + 1).
    assert shape.similar(0) == [3, 1, 2]
    assert shape.similar(2) == [0, 1, 3]  # alike in nothing: ties keep their order
    for e in range(4):
        assert sorted(shape.similar(e)) == [o for o in range(4) if o != e]


def test_applicable_drops_groups_and_shift_types_where_they_cannot_apply() -> None:
    everything = [n for n in NEIGHBOURHOODS if n != "priced_rows"]  # no prices yet
    assert "cover_swap" in everything
    assert applicable(plain("ward_24_7")) == everything
    priced = with_gains(plain("ward_24_7"), (1.0,) * plain("ward_24_7").employees)
    assert applicable(priced) == list(NEIGHBOURHOODS)
    # Curtois 1: one shift type and no fairness group or pairing.
    assert plain("curtois-1").groups == () and len(plain("curtois-1").shift_workers) == 1
    assert applicable(plain("curtois-1")) == [
        n for n in everything if n not in ("group_employees", "shift_type")
    ]
    # Two months of three shifts, but no group: only the group search goes.
    assert plain("two_month_period").groups == ()
    assert applicable(plain("two_month_period")) == [
        n for n in everything if n != "group_employees"
    ]
    assert applicable(plain("curtois-4")) == [n for n in everything if n != "group_employees"]


# --------------------------------------------------------------- every chooser, any size


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, st.floats(1.0, 8.0), seeds, st.data())
def test_every_neighbourhood_is_in_range_non_empty_and_grows_with_its_fraction(
    source: str, fraction: float, factor: float, seed: int, data: st.DataObject
) -> None:
    shape = plain(source)
    day = data.draw(st.integers(0, shape.days - 1), label="short day")
    shift = data.draw(st.integers(0, len(shape.shift_workers) - 1), label="short shift")
    shape = with_shortfalls(shape, ((day, shift, 1),))
    larger = min(1.0, fraction * factor)
    for name, choose in NEIGHBOURHOODS.items():
        cells = choose(shape, random.Random(seed), fraction)
        assert cells, name
        assert_in_range(shape, cells)
        more = choose(shape, random.Random(seed), larger)
        assert len(more) >= len(cells), (name, fraction, larger)
        everything = choose(shape, random.Random(seed), 1.0)
        assert len(everything) >= len(more), name
    all_cells = {(e, d) for e in range(shape.employees) for d in range(shape.days)}
    for name in (*ROW_CHOOSERS, "day_window"):
        assert NEIGHBOURHOODS[name](shape, random.Random(seed), 1.0) == all_cells, name


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds)
def test_row_neighbourhoods_free_whole_periods_of_the_right_number_of_employees(
    source: str, fraction: float, seed: int
) -> None:
    shape = plain(source)
    wanted = count(shape.employees, fraction)
    for name in ROW_CHOOSERS:
        rows, days = assert_product(NEIGHBOURHOODS[name](shape, random.Random(seed), fraction))
        assert days == list(range(shape.days)), name
        assert len(rows) == wanted, name


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds)
def test_similar_and_group_rows_are_the_most_alike_or_one_group(
    source: str, fraction: float, seed: int
) -> None:
    shape = plain(source)
    wanted = count(shape.employees, fraction)
    rows, _ = rows_and_days(similar_employees(shape, random.Random(seed), fraction))
    assert any(rows - {e} == set(shape.similar(e)[: wanted - 1]) for e in rows)
    rows, _ = rows_and_days(group_employees(shape, random.Random(seed), fraction))
    if shape.groups:
        # One whole group (or as much of it as fits), topped up with others.
        assert any(len(rows & set(g)) == min(wanted, len(g)) for g in shape.groups)
    else:  # no group: the same as the similar search
        assert rows == rows_and_days(similar_employees(shape, random.Random(seed), fraction))[0]


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds)
def test_day_window_frees_everybody_over_consecutive_days(
    source: str, fraction: float, seed: int
) -> None:
    shape = plain(source)
    rows, days = assert_product(day_window(shape, random.Random(seed), fraction))
    assert rows == set(range(shape.employees))
    assert len(days) == min(shape.days, max(2, math.ceil(fraction * shape.days)))


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds)
def test_block_frees_several_employees_over_a_fortnight(
    source: str, fraction: float, seed: int
) -> None:
    shape = plain(source)
    rows, days = assert_product(block(shape, random.Random(seed), fraction))
    assert len(days) == min(BLOCK_DAYS, shape.days)
    assert len(rows) == count(shape.employees, fraction * shape.days / len(days))


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds)
def test_shift_type_frees_who_works_one_shift_in_a_window_or_could_but_is_off(
    source: str, fraction: float, seed: int
) -> None:
    shape = rostered(source)
    cells = shift_type(shape, random.Random(seed), fraction)
    assert_in_range(shape, cells)
    if not cells:
        return  # every worker of the drawn shift works another one all window long
    _, days = rows_and_days(cells)
    length = min(shape.days, max(2, math.ceil(min(1.0, 2 * fraction) * shape.days)))
    assert days[-1] - days[0] < length

    def fits(s: int, cell: Cell) -> bool:
        return cell[0] in shape.shift_workers[s] and shape.roster.get(cell, s) == s

    def window(s: int) -> frozenset[Cell]:
        span = range(days[0], days[-1] + 1)
        return frozenset((e, d) for e in shape.shift_workers[s] for d in span if fits(s, (e, d)))

    # Within its days, exactly who works that shift, or could and is off, is freed.
    assert any(cells == window(s) for s in range(len(shape.shift_workers)))


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds)
def test_shift_type_without_a_roster_frees_every_worker_of_the_shift(
    source: str, fraction: float, seed: int
) -> None:
    shape = plain(source)
    rows, days = assert_product(shift_type(shape, random.Random(seed), fraction))
    assert tuple(sorted(rows)) in shape.shift_workers
    assert len(days) == min(shape.days, max(2, math.ceil(min(1.0, 2 * fraction) * shape.days)))


# --------------------------------------------------------------------------- shortfall


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds, st.data())
def test_shortfall_centres_on_the_short_day_and_frees_who_can_work_the_shift(
    source: str, fraction: float, seed: int, data: st.DataObject
) -> None:
    shape = plain(source)
    day = data.draw(st.integers(0, shape.days - 1), label="day")
    shift = data.draw(st.none() | st.integers(0, len(shape.shift_workers) - 1), label="shift")
    missing = data.draw(st.integers(1, 5), label="missing")
    cells = shortfall(
        with_shortfalls(shape, ((day, shift, missing),)), random.Random(seed), fraction
    )
    rows, days = assert_product(cells)
    assert day in days
    assert len(days) == min(BLOCK_DAYS, shape.days)
    workers = shape.shift_workers[shift] if shift is not None else ()
    candidates = set(workers) or set(range(shape.employees))
    assert rows <= candidates
    assert len(rows) == count(
        len(candidates), fraction * shape.cells / (len(days) * len(candidates))
    )


def test_shortfall_draws_slots_in_proportion_to_their_missing_heads() -> None:
    shape = plain("ward_24_7")
    assert shape.days == 28 and BLOCK_DAYS == 14  # windows around days 1 and 26 are apart
    shape = with_shortfalls(shape, ((1, 0, 1), (26, 1, 19)))
    rng = random.Random(7)
    late = Counter(26 in {d for _, d in shortfall(shape, rng, 0.1)} for _ in range(400))
    # Expected share 19/20; a fixed seed makes the count exact, the bound is generous.
    assert late[True] > 0.85 * 400 and late[False] > 0


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds)
def test_shortfall_without_shortfalls_is_a_block(source: str, fraction: float, seed: int) -> None:
    shape = plain(source)
    assert shortfall(shape, random.Random(seed), fraction) == block(
        shape, random.Random(seed), fraction
    )


# ------------------------------------------------------------------------- cover swap


def swap_shape() -> Shape:
    """Six employees over 14 days, two shifts; (day 5, shift 0) needs 2 heads and has 1.

    - 0 works shift 0 on day 5: already counted there.
    - 1 works shift 1 on day 6, which needs nothing: a donor a day away.
    - 2 works shift 0 on day 8, which needs nothing: a donor three days away.
    - 3 works shift 1 on day 9, four days away (beyond reach), and is off on day 5: it
      may take the head if its totals allow.
    - 4 works shift 1 on day 5, which needs it, and spares nothing nearby.
    - 5 may not work shift 0 at all.
    """
    both, late = frozenset({0, 1}), frozenset({1})
    roster = {(0, 5): 0, (1, 6): 1, (2, 8): 0, (3, 9): 1, (4, 5): 1}
    shape = Shape(
        employees=6,
        days=14,
        reach=(both, both, both, both, both, late),
        duties=(frozenset(),) * 6,
        groups=(),
        shift_workers=((0, 1, 2, 3, 4), (0, 1, 2, 3, 4, 5)),
        roster=roster,
    )
    return with_shortfalls(with_required(shape, {(5, 0): 2, (5, 1): 1}), ((5, 0, 1),))


def test_spare_heads_are_the_heads_above_what_each_slot_needs() -> None:
    assert spare_heads(swap_shape()) == {(6, 1): 1, (8, 0): 1, (9, 1): 1}
    # Two heads where one is needed: one to spare.
    doubled = with_roster(swap_shape(), {**swap_shape().roster, (5, 5): 1})
    assert spare_heads(doubled)[5, 1] == 1


def test_cover_swap_frees_donors_nearest_first_then_who_is_off_over_a_week() -> None:
    shape = swap_shape()
    window = list(range(5 - SWAP_REACH, 5 + SWAP_REACH + 1))
    order: list[set[int]] = []
    for wanted in (1, 2, 3, 4):
        # A fraction that asks for ``wanted`` employees over the week's window.
        fraction = wanted * len(window) / shape.cells
        rows, days = assert_product(cover_swap(shape, random.Random(3), fraction * 0.999))
        assert days == window
        order.append(rows)
    # 1 is the nearest donor, 2 the next; then 3, off on the day (its spare head is
    # beyond reach); never 0 (there already), 4 (needed where it is) or 5 (cannot).
    assert order == [{1}, {1, 2}, {1, 2, 3}, {1, 2, 3}]


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds, st.data())
def test_cover_swap_on_greedy_rosters_frees_who_can_fill_the_missing_head(
    source: str, fraction: float, seed: int, data: st.DataObject
) -> None:
    shape = rostered(source)
    day = data.draw(st.integers(0, shape.days - 1), label="day")
    shift = data.draw(st.integers(0, len(shape.shift_workers) - 1), label="shift")
    shape = with_shortfalls(shape, ((day, shift, 1),))
    cells = cover_swap(shape, random.Random(seed), fraction)
    more = cover_swap(shape, random.Random(seed), min(1.0, 3 * fraction))
    assert cells <= more  # the same ranking, a longer prefix
    rows, days = assert_product(cells)
    if days == list(range(max(0, day - SWAP_REACH), min(shape.days, day + SWAP_REACH + 1))):
        spare = spare_heads(shape)
        for e in rows:
            assert e in shape.shift_workers[shift]
            assert shape.roster.get((e, day)) != shift  # not already there
            donor = any(spare.get((d, shape.roster.get((e, d), -1)), 0) > 0 for d in days)
            assert donor or (e, day) not in shape.roster
    else:  # nobody could: the shortfall neighbourhood
        assert cells == shortfall(shape, random.Random(seed), fraction)


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds)
def test_cover_swap_without_a_roster_is_the_shortfall_neighbourhood(
    source: str, fraction: float, seed: int
) -> None:
    shape = with_shortfalls(plain(source), ((0, 0, 1),))
    assert cover_swap(shape, random.Random(seed), fraction) == shortfall(
        shape, random.Random(seed), fraction
    )


# ------------------------------------------------------------------------ priced rows


def test_priced_rows_draw_employees_in_proportion_to_their_gains() -> None:
    shape = plain("ward_24_7")
    gains = [0.0] * shape.employees
    gains[3], gains[7] = 900.0, 100.0
    shape = with_gains(shape, tuple(gains))
    one = min(BLOCK_DAYS, shape.days) / shape.cells  # one employee over a fortnight
    drawn = Counter(
        next(iter(rows_and_days(priced_rows(shape, random.Random(seed), one))[0]))
        for seed in range(300)
    )
    # Weights 900, 100 and a floor of 5 % of the mean gain (25) for each other row:
    # about 80 %, 9 % and 11 % shared by the rest. Fixed seeds: the counts are exact.
    assert drawn[3] > 0.6 * 300 and drawn[7] > drawn[0]
    assert sum(n for e, n in drawn.items() if e not in (3, 7)) > 0  # the floor draws others


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), fractions, seeds, st.data())
def test_priced_rows_are_blocks_of_the_right_number_growing_with_the_fraction(
    source: str, fraction: float, seed: int, data: st.DataObject
) -> None:
    shape = plain(source)
    gains = data.draw(
        st.lists(st.floats(0, 1e6), min_size=shape.employees, max_size=shape.employees)
    )
    shape = with_gains(shape, tuple(gains))
    cells = priced_rows(shape, random.Random(seed), fraction)
    rows, days = assert_product(cells)
    if any(g > 0 for g in gains):
        assert len(days) == min(BLOCK_DAYS, shape.days)
        assert len(rows) == count(shape.employees, fraction * shape.days / len(days))
        assert cells <= priced_rows(shape, random.Random(seed), min(1.0, 2 * fraction))
    else:  # no prices to go by: random rows
        assert cells == random_employees(plain(source), random.Random(seed), fraction)


# -------------------------------------------------------------------- random requests


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(requests(), fractions, seeds)
def test_neighbourhoods_of_random_requests_stay_in_range(
    data: dict[str, Any], fraction: float, seed: int
) -> None:
    shape = shape_of(from_request(parse_request(data)))
    shape = with_shortfalls(shape, ((shape.days - 1, len(shape.shift_workers) - 1, 2),))
    for name in applicable(shape):
        cells = NEIGHBOURHOODS[name](shape, random.Random(seed), fraction)
        assert_in_range(shape, cells)
        assert cells, name


@pytest.mark.parametrize("source", SOURCES)
def test_random_employees_picks_different_rows_for_different_seeds(source: str) -> None:
    shape = plain(source)
    if shape.employees < 4:
        pytest.skip("too few employees to tell draws apart")
    drawn = {random_employees(shape, random.Random(seed), 0.25) for seed in range(20)}
    assert len(drawn) > 1
