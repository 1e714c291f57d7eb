"""Who carries a fairness group's target shifts: Gini coefficient and group burden.

``gini`` is checked against hand-computed values and, by hypothesis, against the textbook
definition (mean absolute difference over twice the mean). ``group_burden`` is checked on
rosters the engine solved (each audited), against the roster's own counts and against the
excess that both the solver and the audit price as ``fairness:<index>``.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Solution, SolveRequest
from shiftsched.questions.fair_share import GroupBurden, Share, gini, group_burden
from tests.audited import EXACT, solved_and_audited
from tests.solving.model.conftest import NIGHT_HOURS, date, employee, request, shift

D, N = "D", "N"
A, B, C = "A", "B", "C"
DAYS = 4
Json = dict[str, Any]

# ------------------------------------------------------------------------------- gini


def _reference_gini(values: list[int]) -> Fraction:
    """Sum of |x_i - x_j| over all ordered pairs, over 2 n^2 mean, in exact arithmetic."""
    n, total = len(values), sum(values)
    if n == 0 or total == 0:
        return Fraction(0)
    differences = sum(abs(x - y) for x in values for y in values)
    return Fraction(differences, 2 * n * total)


@pytest.mark.parametrize(("values", "expected"), [
    ([], 0.0),
    ([0, 0, 0], 0.0),
    ([5], 0.0),
    ([1, 3], 0.25),  # |1-3| x 2 / (2 x 4 x 2)
    ([1, 2, 3], 2 / 9),  # (1 + 2 + 1) x 2 / (2 x 9 x 2)
    ([3, 1, 2], 2 / 9),
    ([0, 0, 1, 1], 0.5),
    ([0, 1], 0.5),
    ([2, 2, 2, 6], 0.25),  # differences 4 x 3 x 2 = 24, over 2 x 16 x 3 = 96
])  # fmt: skip
def test_gini_of_small_hand_examples(values: list[float], expected: float) -> None:
    assert gini(values) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 50])
@pytest.mark.parametrize("value", [1, 4, 0.5])
def test_gini_of_equal_values_is_zero(n: int, value: float) -> None:
    assert gini([value] * n) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 10, 100])
@pytest.mark.parametrize("x", [1, 7, 0.25])
def test_one_carries_all_gives_n_minus_1_over_n(n: int, x: float) -> None:
    assert gini([0] * (n - 1) + [x]) == pytest.approx((n - 1) / n, abs=1e-12)


counts = st.lists(st.integers(min_value=0, max_value=1000), max_size=40)


@given(counts)
def test_gini_matches_the_textbook_definition(values: list[int]) -> None:
    assert gini(values) == pytest.approx(float(_reference_gini(values)), abs=1e-9)


@given(counts)
def test_gini_is_in_zero_one(values: list[int]) -> None:
    g = gini(values)
    assert -1e-12 <= g < 1


@given(counts, st.randoms(use_true_random=False))
def test_gini_ignores_order(values: list[int], random: Any) -> None:
    shuffled = list(values)
    random.shuffle(shuffled)
    assert gini(shuffled) == pytest.approx(gini(values), abs=1e-9)


@given(counts, st.integers(min_value=1, max_value=1000))
def test_gini_ignores_scale(values: list[int], factor: int) -> None:
    assert gini([v * factor for v in values]) == pytest.approx(gini(values), abs=1e-9)
    assert gini([v / factor for v in values]) == pytest.approx(gini(values), abs=1e-9)


# ----------------------------------------------------------------------- group burden


def _request(policy: str, *, months: dict[str, int] | None = None, groups: int = 1) -> Json:
    """Four dates, one head on D and one on N each date; A is fixed on three nights.

    ``months``: employee -> max of ``working_days_per_month`` (min 0), which sets the
    proportional weights (min + max). ``groups=2`` puts a D group first, so the N group
    is ``fairness:1``.
    """
    months = months or {}
    fixed = [{"date": date(d), "shift_id": N} for d in range(3)]

    def fields(e: str) -> dict[str, Any]:
        extra: dict[str, Any] = {"fixed_assignments": fixed} if e == A else {}
        if e in months:
            extra["working_days_per_month"] = {"min": 0, "max": months[e]}
        return extra

    group = {"target_shift_ids": [N], "policy": policy}
    fairness = [{"target_shift_ids": [D], "policy": policy}, group][2 - groups :]
    return request(
        DAYS,
        [shift(D, DAYS, 1, 1), shift(N, DAYS, 1, 1, hours=NIGHT_HOURS)],
        [employee(e, [D, N], **fields(e)) for e in (A, B, C)],
        fairness_groups=fairness,
    )


def _solved(req: SolveRequest) -> Solution:
    """Solve to proven optimality; the roster must pass the audit of this very request."""
    return solved_and_audited(req, EXACT)


def _priced_excess(req: SolveRequest, solution: Solution, index: int) -> tuple[float, float]:
    """``fairness:<index>`` violated_by as the solver and as the audit report it (0: none)."""
    name = f"fairness:{index}"
    solver = next(
        (v.violated_by for v in solution.metrics.soft_constraint_violations if v.name == name), 0
    )
    audited = audit(req, solution.assignments).violation(name)
    return float(solver or 0), float(audited.violated_by or 0) if audited else 0.0


CASES = [
    pytest.param("equal", {}, 1, id="equal"),
    pytest.param("equal", {A: 3, B: 6}, 1, id="equal-with-months"),
    pytest.param("proportional", {}, 1, id="proportional-workable-dates"),
    pytest.param("proportional", {A: 3, B: 6, C: 9}, 1, id="proportional-months"),
    pytest.param("proportional", {A: 3, B: 6, C: 9}, 2, id="proportional-second-group"),
]


@pytest.mark.parametrize(("policy", "months", "groups"), CASES)
def test_group_burden_on_a_solved_roster(policy: str, months: dict[str, int], groups: int) -> None:
    req = parse_request(_request(policy, months=months, groups=groups))
    solution = _solved(req)
    index = groups - 1
    burden = group_burden(req, solution.assignments, index)

    assert isinstance(burden, GroupBurden)
    assert (burden.index, burden.policy, burden.target_shift_ids) == (index, policy, (N,))
    nights = Counter(a.employee_id for a in solution.assignments if a.shift_id == N)
    assert {s.employee_id: s.count for s in burden.shares} == {e: nights[e] for e in (A, B, C)}
    assert burden.total == sum(nights.values()) == DAYS
    assert sum(s.equal_share for s in burden.shares) == pytest.approx(burden.total)
    assert sum(s.proportional_share for s in burden.shares) == pytest.approx(burden.total)
    assert sum(s.policy_share for s in burden.shares) == pytest.approx(burden.total)
    for s in burden.shares:
        own = s.equal_share if policy == "equal" else s.proportional_share
        assert s.policy_share == own
        assert s.excess == pytest.approx(max(0.0, s.count - s.policy_share))
    # The priced excess: the summed excesses, rounded up, as solver and audit report it.
    assert burden.excess == math.ceil(sum(s.excess for s in burden.shares) - 1e-9)
    assert _priced_excess(req, solution, index) == (burden.excess, burden.excess)
    assert burden.excess > 0  # A's three fixed nights are above every share here
    assert burden.gini == pytest.approx(gini([s.count for s in burden.shares]))


def test_shares_by_hand() -> None:
    # A has three fixed nights; the fourth goes to B or C. Weights (min + max): 3, 6, 9.
    req = parse_request(_request("proportional", months={A: 3, B: 6, C: 9}))
    solution = _solved(req)
    burden = group_burden(req, solution.assignments, 0)
    shares = {s.employee_id: s for s in burden.shares}
    assert [shares[e].equal_share for e in (A, B, C)] == pytest.approx([4 / 3] * 3)
    assert [shares[e].proportional_share for e in (A, B, C)] == pytest.approx(
        [4 * 3 / 18, 4 * 6 / 18, 4 * 9 / 18]
    )
    # A's excess is 3 - 2/3 = 7/3; the fourth night stays within B's share (4/3) or C's
    # (2), so it adds nothing: ceil(7/3) = 3.
    assert shares[A].excess == pytest.approx(3 - 2 / 3)
    assert burden.excess == 3
    assert _priced_excess(req, solution, 0) == (3, 3)


def test_equal_and_proportional_shares_differ_with_monthly_ranges() -> None:
    # Weights 3, 5, 10 (W = 18) against equal shares of 4/3 each.
    req = parse_request(_request("equal", months={A: 3, B: 5, C: 10}))
    burden = group_burden(req, _solved(req).assignments, 0)
    assert [s.proportional_share for s in burden.shares] == pytest.approx(
        [4 * 3 / 18, 4 * 5 / 18, 4 * 10 / 18]
    )
    for s in burden.shares:
        assert s.policy_share == s.equal_share == pytest.approx(4 / 3)
        assert s.equal_share != pytest.approx(s.proportional_share)


def test_equal_and_proportional_shares_agree_with_equal_weights() -> None:
    # No monthly ranges and everyone may work a night on all four dates: equal weights.
    req = parse_request(_request("proportional"))
    burden = group_burden(req, _solved(req).assignments, 0)
    for s in burden.shares:
        assert s.equal_share == pytest.approx(s.proportional_share) == pytest.approx(4 / 3)


def test_a_group_with_one_eligible_employee_has_no_excess() -> None:
    # Only A may work N: A is always exactly at the share; nothing is priced.
    data = _request("equal")
    for e in data["employees"][1:]:
        e["assignable_shift_ids"] = [D]
    data["shifts"][0]["staffing_demand"] = [{"min": 2, "max": 2}] * DAYS
    req = parse_request(data)
    solution = _solved(req)
    burden = group_burden(req, solution.assignments, 0)
    assert [s.employee_id for s in burden.shares] == [A]
    assert burden.shares[0] == Share(A, DAYS, DAYS, DAYS, DAYS, 0.0)
    assert burden.excess == 0 and burden.gini == 0
    assert _priced_excess(req, solution, 0) == (0, 0)


def test_a_fair_roster_has_no_excess() -> None:
    # Nobody fixed: four nights over three people cannot be split evenly; the best split,
    # 2/1/1 against shares of 4/3, leaves an excess of 2/3, priced as 1.
    data = _request("equal")
    del data["employees"][0]["fixed_assignments"]
    req = parse_request(data)
    solution = _solved(req)
    burden = group_burden(req, solution.assignments, 0)
    assert _priced_excess(req, solution, 0) == (burden.excess, burden.excess)
    assert burden.excess == 1
    assert sorted(s.count for s in burden.shares) == [1, 1, 2]
    assert burden.gini == pytest.approx(gini([1, 1, 2]))
