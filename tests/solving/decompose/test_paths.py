"""Pricing by paths over the days agrees with CP-SAT on the employee's own model.

Random small benchmark instances (shiftsched.formats.curtois): shifts with forbidden
successors, runs of work and of rest, total minutes, shift counts, weekends (the period
starting on any weekday, so a weekend may be cut by either end), days off and
preferences. For each employee, CP-SAT's one-employee model (shiftsched.solving.decompose.pricing)
is the reference:

- a row is accepted by the path pricer exactly when CP-SAT accepts it, at the same cost;
- at any prices and any multipliers the path's bound is at most CP-SAT's optimum, and
  with no multipliers a path that keeps every rule is that optimum;
- the decomposition priced by paths never proves more than the whole problem's optimum.

Every CP-SAT solve here runs one worker on deterministic work and is required proven.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shiftsched.formats import curtois
from shiftsched.solving.decompose import ColumnGeneration
from shiftsched.solving.decompose.labelling import LabellingPricer, supports
from shiftsched.solving.decompose.pricing import EmployeePricer
from shiftsched.solving.decompose.rows import Member
from shiftsched.solving.problem import Problem
from tests.audited import work_limited
from tests.formats.tiny import Staff, text
from tests.solving.decompose.agreement import (
    SCALE,
    assert_bound_below_optimum,
    assert_rows_agree,
    random_prices,
    reduced,
)

LIMITS = replace(work_limited(5.0), diagnosis_budget_seconds=0)


@st.composite
def instances(draw: st.DrawFn) -> Problem:
    horizon = draw(st.integers(4, 15))
    names = draw(st.lists(st.sampled_from("DEN"), min_size=1, max_size=3, unique=True))
    minutes = {"D": 480, "E": 420, "N": 600}
    shifts = []
    for name in names:
        after = draw(st.lists(st.sampled_from(names), max_size=2, unique=True))
        shifts.append(f"{name},{minutes[name]},{'|'.join(after)}")
    staff = []
    for i in range(draw(st.integers(1, 3))):
        most = "|".join(f"{n}={draw(st.integers(0, horizon))}" for n in names)
        high = draw(st.integers(1, 7))
        staff.append(
            Staff(
                id=f"S{i}",
                max_shifts=most,
                max_minutes=draw(st.integers(0, 600 * horizon)),
                min_minutes=draw(st.sampled_from([0, 0, 480, 120 * horizon])),
                max_run=high,
                min_run=draw(st.integers(1, high)),
                min_off=draw(st.integers(1, 3)),
                max_weekends=draw(st.integers(0, 3)),
            )
        )
    days = st.integers(0, horizon - 1)
    days_off = [
        f"S{i},{','.join(str(d) for d in draw(st.lists(days, max_size=2, unique=True)))}"
        for i in range(len(staff))
    ]
    # One request per (staff, day, shift) and kind: a repeated one is one term, named once.
    requests = st.lists(
        st.tuples(st.integers(0, len(staff) - 1), days, st.sampled_from(names)), unique=True
    )
    on = [f"S{i},{d},{n},{draw(st.integers(1, 3))}" for i, d, n in draw(requests)]
    off = [f"S{i},{d},{n},{draw(st.integers(1, 3))}" for i, d, n in draw(requests)]
    cover = [
        (d, n, draw(st.integers(0, 2)), 100, 1)
        for d in range(horizon)
        for n in names
        if draw(st.booleans())
    ]
    source = text(horizon, staff, cover=cover, shifts=shifts, days_off=days_off, on=on, off=off)
    start = dt.date(2024, 1, 1) + dt.timedelta(days=draw(st.integers(0, 6)))
    return curtois.to_problem(curtois.parse(source), start)


def _prices(problem: Problem, seed: int) -> dict[Member, int]:
    return random_prices(problem, seed)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(0, 2**16), st.integers(0, 2**16))
def test_a_path_never_prices_below_what_cp_sat_proves(
    problem: Problem, seed: int, multiplier_seed: int
) -> None:
    prices = _prices(problem, seed)
    rng = random.Random(multiplier_seed)
    for e in range(len(problem.employees)):
        assert supports(problem, e)
        paths = LabellingPricer(problem, e, SCALE)
        exact = EmployeePricer(problem, e, SCALE).price(prices, work=30.0, seconds=120.0)
        plain = paths.price(prices)
        multipliers = [rng.randint(0, 200) * SCALE for _ in paths.limits]
        priced = paths.price(prices, multipliers=multipliers)
        if exact.infeasible:
            continue  # no roster keeps the rules: nothing to bound
        assert exact.column is not None
        optimum = reduced(exact.column, prices)
        assert exact.lower_bound == optimum  # proven: the reference is exact
        assert not plain.infeasible and not priced.infeasible
        assert plain.lower_bound <= optimum
        assert priced.lower_bound <= optimum
        assert plain.column is not None
        if plain.column.kept:  # the relaxation's answer keeps every rule: it is optimal
            assert plain.lower_bound == optimum
            assert reduced(plain.column, prices) == optimum


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(0, 2**16))
def test_the_path_pricer_accepts_a_row_exactly_when_cp_sat_does(
    problem: Problem, seed: int
) -> None:
    assert_rows_agree(problem, seed)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_the_bound_by_paths_never_exceeds_the_proven_optimum(problem: Problem) -> None:
    assert_bound_below_optimum(problem, LIMITS, rounds=40)


@pytest.mark.slow
def test_paths_then_exact_proves_as_much_as_exact_on_curtois_2() -> None:
    # Instance 2's optimum is 828 (proven in the literature); exact pricing alone
    # reaches it at the root, and the paths' LP on their own stop a little below.
    problem = curtois.to_problem(curtois.load(2))
    paths = ColumnGeneration(problem, pricing="paths").run()
    both = ColumnGeneration(problem, pricing="paths_then_exact").run()
    assert paths.bound is not None and both.bound is not None
    assert paths.bound <= both.bound == 828
    assert both.converged


def test_every_column_the_paths_keep_is_a_roster_cp_sat_accepts() -> None:
    problem = curtois.to_problem(curtois.load(5))
    generation = ColumnGeneration(problem, pricing="paths")
    generation.run(max_rounds=10)
    kept = [c for c in generation.master.columns if c.kept]
    assert kept  # the paths found rosters, not only relaxed mixes
    for column in kept[:40]:
        reference = EmployeePricer(problem, column.employee, SCALE).column_of(column.cells)
        assert reference is not None and reference.cost == column.cost


def test_a_negative_multiplier_is_refused() -> None:
    problem = curtois.to_problem(curtois.load(1))
    pricer = LabellingPricer(problem, 0, SCALE)
    assert pricer.limits
    with pytest.raises(ValueError, match="never negative"):
        pricer.price({}, multipliers=[-1] * len(pricer.limits))


def test_the_master_holds_a_limit_and_retires_rosters_that_break_it() -> None:
    from shiftsched.solving.decompose.master import LIMIT_PENALTY, Master
    from shiftsched.solving.decompose.pricing import Column, Limit
    from shiftsched.solving.decompose.rows import CoverRow

    # One employee, one day's demand of one head at 10 a missing head; the employee's
    # limit allows at most 0 worked minutes, so working costs the limit's penalty.
    row = CoverRow("r", ((0, 0, 0, None),), 1, None, 10, 0)
    master = Master(1, [row], [(Limit(0, +1, 480),)])
    works = Column(0, ((0, 0, None),), 0, usage=(480,), kept=False)
    master.add(works)
    assert not master.retire(0)  # no roster that keeps the limit yet: nothing retired
    solution = master.solve()
    # The only column must be used: a day's worth beyond the limit costs the penalty.
    assert solution.value == pytest.approx(LIMIT_PENALTY * 10)
    assert solution.limit_prices[0][0] < 0  # the limit's dual prices the minutes used
    assert master.reduced_cost(works, solution) == pytest.approx(0.0, abs=1e-6)
    rests = Column(0, (), 0, usage=(0,), kept=True)
    master.add(rests)
    assert master.solve().value == pytest.approx(10.0)  # resting: the head goes missing
    assert master.retire(0)
    assert master.solve().value == pytest.approx(10.0)
    assert master.columns == [works, rests]  # retired, not removed: its bound is 0
    # With the limit allowing the shift, the same mix costs nothing.
    loose = Master(1, [row], [(Limit(480, +1, 480),)])
    loose.add(Column(0, ((0, 0, None),), 0, usage=(480,), kept=True))
    assert loose.solve().value == pytest.approx(0.0)
