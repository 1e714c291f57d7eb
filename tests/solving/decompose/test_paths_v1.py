"""Pricing v1 requests by paths: every employee rule of the contract, against CP-SAT.

Random small generated requests (shiftsched.data.synthetic, every constraint family), with the
period starting on any date (so weeks and months are cut at either end), a random
consecutive-days cap, and transitions made hard or soft, forbid or require at random. For
each employee, CP-SAT's one-employee model (shiftsched.solving.decompose.pricing) is the reference:

- a row is accepted by the path pricer exactly when CP-SAT accepts it, at the same cost
  (duties, fixed days, windowed soft rules and all);
- at any prices and any multipliers the path's bound is at most CP-SAT's optimum;
- the decomposition priced by paths never proves more than the whole request's optimum.

Every CP-SAT solve here runs one worker on deterministic work and is required proven.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shiftsched.contract.parse import parse_request
from shiftsched.data.synthetic import synthetic_request
from shiftsched.solving.decompose import ColumnGeneration
from shiftsched.solving.decompose.labelling import LabellingPricer, supports
from shiftsched.solving.decompose.master import Master
from shiftsched.solving.decompose.pricing import Column, EmployeePricer, Limit, lp_cost
from shiftsched.solving.decompose.rows import CoverRow
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.problem import Problem, from_request
from shiftsched.solving.solve import solve_problem
from tests.audited import work_limited
from tests.solving.decompose.agreement import (
    SCALE,
    assert_bound_below_optimum,
    assert_rows_agree,
    random_prices,
    reduced,
)

LIMITS = replace(work_limited(10.0), diagnosis_budget_seconds=0)


def _request(draw: st.DrawFn, employees: tuple[int, int], days: tuple[int, int]) -> Any:
    start = dt.date(2026, 1, 1) + dt.timedelta(days=draw(st.integers(0, 400)))
    request = synthetic_request(
        draw(st.integers(*employees)),
        draw(st.integers(2, 4)),
        draw(st.integers(0, 2)),
        draw(st.integers(*days)),
        seed=draw(st.integers(0, 2**16)),
        mix="all",
        start=start,
    )
    constraints = request["constraints"]
    constraints["max_consecutive_working_days"] = draw(st.integers(1, 7))
    for rule in constraints.get("shift_transitions", []):
        rule["rule"] = draw(st.sampled_from(["forbid", "require"]))
        rule["enforcement"] = draw(st.sampled_from(["hard", "soft"]))
    return request


@st.composite
def problems(draw: st.DrawFn) -> Problem:
    return from_request(parse_request(_request(draw, (1, 4), (3, 20))))


@st.composite
def small_problems(draw: st.DrawFn) -> Problem:
    return from_request(parse_request(_request(draw, (2, 3), (3, 9))))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(0, 2**16))
def test_a_path_never_prices_below_what_cp_sat_proves(problem: Problem, seed: int) -> None:
    prices = random_prices(problem, seed, most=400)
    rng = random.Random(seed)
    for e in range(len(problem.employees)):
        assert supports(problem, e)
        paths = LabellingPricer(problem, e, SCALE)
        exact = EmployeePricer(problem, e, SCALE).price(prices, work=30.0, seconds=120.0)
        plain = paths.price(prices)
        multipliers = [rng.randint(0, 300) * SCALE for _ in paths.limits]
        priced = paths.price(prices, multipliers=multipliers)
        # Paths relax the windowed hard rules: no path means no roster, not the reverse.
        assert plain.infeasible == priced.infeasible
        assert exact.infeasible or not plain.infeasible
        if exact.infeasible:
            continue
        assert exact.column is not None and plain.column is not None
        optimum = reduced(exact.column, prices)
        assert exact.lower_bound == optimum  # proven: the reference is exact
        assert plain.lower_bound <= optimum
        assert priced.lower_bound <= optimum
        # CP-SAT's roster, read by the path pricer, costs what CP-SAT says.
        again = paths.column_of(exact.column.cells)
        assert again is not None and again.cost == exact.column.cost
        # Without limits that bind or cost, the path is the optimum itself.
        if not paths.limits:
            assert plain.lower_bound == optimum == reduced(plain.column, prices)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(0, 2**16))
def test_the_path_pricer_accepts_a_row_exactly_when_cp_sat_does(
    problem: Problem, seed: int
) -> None:
    assert_rows_agree(problem, seed, duties=True)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems())
def test_the_bound_by_paths_never_exceeds_the_proven_optimum(problem: Problem) -> None:
    assert_bound_below_optimum(problem, LIMITS, rounds=30)


def test_a_generated_request_converges_by_paths_to_a_bound_below_its_optimum() -> None:
    # Every family of the contract, no shortage in the optimum (185, proven here); the
    # paths' root bound leaves out fairness and pairings, so it stops a little below.
    request = synthetic_request(3, 2, 1, 7, seed=0, mix="all")
    problem = from_request(parse_request(request))
    outcome = solve_problem(problem, LIMITS)
    assert outcome.status == "optimal" and outcome.objective_value == 185
    paths = ColumnGeneration(problem, pricing="paths").run()
    both = ColumnGeneration(problem, pricing="paths_then_exact").run()
    assert paths.converged and both.converged
    assert paths.bound is not None and both.bound is not None
    assert 0.9 * 185 <= paths.bound <= both.bound <= 185


def test_a_diagnosis_problem_is_priced_by_cp_sat() -> None:
    # A diagnosis opens options the request rules out, each behind a gate: the path
    # pricer does not model gates.
    request = parse_request(synthetic_request(4, 2, 1, 14, seed=1, mix="all"))
    assert all(supports(from_request(request), e) for e in range(4))
    gated = from_request(request, gated=True)
    assert all(spec.day_gates for spec in gated.employees)  # a holiday, at least
    assert not any(supports(gated, e) for e in range(4))
    with pytest.raises(ValueError, match="does not hold"):
        LabellingPricer(gated, 0, SCALE)


def test_a_soft_limit_is_a_slack_at_its_weight_in_the_master() -> None:
    # One employee, one head missing at 10 a head; a soft limit "at most 0 days" at 3
    # a day: working costs 3 in the LP, and the column's cost there leaves it out.
    row = CoverRow("r", ((0, 0, 0, None),), 1, None, 10, 0)
    soft = Limit(0, +1, 1, weight=3.0)
    works = Column(0, ((0, 0, None),), 3 + 5, usage=(1,))  # 5 of its own, 3 of the limit
    assert lp_cost(works, (soft,)) == pytest.approx(5.0)
    master = Master(1, [row], [(soft,)])
    master.add(works)
    solution = master.solve()
    assert solution.value == pytest.approx(8.0)  # the whole roster's cost
    assert master.reduced_cost(works, solution) == pytest.approx(0.0, abs=1e-6)
    assert -solution.limit_prices[0][0] <= 3.0 + 1e-9  # the dual never passes the weight


@pytest.mark.slow
def test_starting_from_a_roster_s_duals_reaches_the_same_root_bound() -> None:
    # With the greedy roster in the master first, the first prices are its LP's duals,
    # not full prices; the root LP optimum, and so the converged bound, is the same.
    problem = from_request(parse_request(synthetic_request(6, 3, 1, 14, seed=2, mix="all")))
    warm = ColumnGeneration(problem, pricing="paths")
    assert warm.add_roster(greedy_roster(problem)) == len(problem.employees)
    cold_result = ColumnGeneration(problem, pricing="paths").run()
    warm_result = warm.run()
    assert cold_result.converged and warm_result.converged
    assert cold_result.bound == warm_result.bound
    assert warm_result.lp_value == pytest.approx(cold_result.lp_value)


def test_heading_in_with_missing_heads_capped_reaches_the_same_root_bound() -> None:
    # Demand this small staff cannot meet: the optimum (100,495) prices missing heads
    # at 10,000. Heading in with a missing head capped at 150, the loop lifts the cap
    # once it converges there, and ends at the same root LP as without the cap.
    problem = from_request(parse_request(synthetic_request(3, 3, 1, 8, seed=1, mix="all")))
    capped = ColumnGeneration(problem, pricing="paths", shortage_cap=150.0).run()
    plain = ColumnGeneration(problem, pricing="paths", shortage_cap=None).run()
    assert capped.converged and plain.converged
    assert capped.bound == plain.bound
    assert plain.bound is not None and 100_000 < plain.bound <= 100_495
    assert capped.lp_value == pytest.approx(plain.lp_value)


def test_a_capped_master_prices_a_missing_head_at_the_cap() -> None:
    row = CoverRow("r", ((0, 0, 0, None),), 1, None, 10_000, 0)
    master = Master(1, [row])
    master.add(Column(0, (), 0))  # the only roster rests: the head goes missing
    assert master.solve().value == pytest.approx(10_000)
    master.cap_shortage(150.0)
    solution = master.solve()
    assert solution.value == pytest.approx(150.0)
    assert solution.row_prices[0] == pytest.approx(150.0)
    master.cap_shortage(None)
    assert master.solve().value == pytest.approx(10_000)


def test_the_master_re_solves_from_its_last_basis() -> None:
    # Handed its last basis, GLOP needs no iteration for an unchanged LP (with presolve
    # on, it ignored the basis and started again).
    problem = from_request(parse_request(synthetic_request(6, 3, 1, 14, seed=2, mix="all")))
    generation = ColumnGeneration(problem, pricing="paths")
    generation.run(max_rounds=8)
    master = generation.master
    first = master.solve()
    again = master.solve()
    assert again.iterations == 0
    assert again.value == pytest.approx(first.value)
