"""Sequences: maximum consecutive working days and shift transitions."""

from __future__ import annotations

import random
from typing import Any

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.solving.model.build import build
from shiftsched.solving.model.sequences import forbidden_rows
from shiftsched.solving.problem import from_request
from shiftsched.solving.specs import TransitionSpec
from shiftsched.solving.weights import CONSECUTIVE_DAYS, SHIFT_TRANSITION, SHORTAGE
from tests.solving.model.conftest import (
    NIGHT_HOURS,
    date,
    employee,
    request,
    shift,
    solve_and_audit,
    solve_request,
)

DAY, NIGHT = "D", "N"
A = "A"


def _fixed(*days_and_shifts: tuple[int, str]) -> list[dict[str, Any]]:
    return [{"date": date(d), "shift_id": s} for d, s in days_and_shifts]


# ------------------------------------------------------------------- consecutive days


def _daily(days: int, **constraints: Any) -> dict[str, Any]:
    """One employee, one shift needing one head every day."""
    return request(days, [shift(DAY, days, 1)], [employee(A, [DAY])], **constraints)


def test_without_a_cap_three_days_in_a_row_are_worked() -> None:
    result = solve_and_audit(_daily(3))
    assert sorted(result.roster(A)) == [date(0), date(1), date(2)]
    assert result.violations == {}


def test_hard_cap_breaks_the_run_and_soft_cap_places_the_gap() -> None:
    # N = 2: at most 2 in a row (hard); every 2 in a row costs (soft cap 1), so the
    # cheapest roster with one shortage works days 0 and 2.
    result = solve_and_audit(_daily(3, max_consecutive_working_days=2))
    assert sorted(result.roster(A)) == [date(0), date(2)]
    assert [s.date.isoformat() for s in result.shortages] == [date(1)]
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}


def test_soft_cap_is_n_minus_one() -> None:
    result = solve_and_audit(_daily(3, max_consecutive_working_days=3))
    assert len(result.roster(A)) == 3
    assert result.violations == {f"consecutive_days:{A}": (CONSECUTIVE_DAYS, 1)}


def test_soft_cap_counts_every_full_window() -> None:
    data = request(
        5,
        [shift(DAY, 5)],
        [employee(A, [DAY], fixed_assignments=_fixed((0, DAY), (1, DAY), (3, DAY), (4, DAY)))],
        max_consecutive_working_days=2,
    )
    result = solve_and_audit(data)
    assert result.violations == {f"consecutive_days:{A}": (2 * CONSECUTIVE_DAYS, 2)}


def test_default_soft_cap_is_five() -> None:
    result = solve_and_audit(_daily(6))
    assert len(result.roster(A)) == 6
    assert result.violations == {f"consecutive_days:{A}": (CONSECUTIVE_DAYS, 1)}


def test_default_hard_cap_is_six() -> None:
    result = solve_and_audit(_daily(7))
    assert len(result.roster(A)) == 6
    # The day off falls inside the week, so no run reaches the soft cap.
    assert date(0) in result.roster(A)
    assert date(6) in result.roster(A)
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}


def test_cap_of_one_is_hard_only() -> None:
    result = solve_and_audit(_daily(3, max_consecutive_working_days=1))
    assert sorted(result.roster(A)) == [date(0), date(2)]
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}


def test_a_holiday_breaks_a_run() -> None:
    fixed = _fixed((0, DAY), (1, DAY), (3, DAY), (4, DAY))
    data = request(
        5,
        [shift(DAY, 5)],
        [employee(A, [DAY], fixed_assignments=fixed)],
        holidays=[date(2)],
        max_consecutive_working_days=3,
    )
    result = solve_and_audit(data)
    assert result.violations == {}


def test_a_run_counts_worked_dates_whatever_the_shift() -> None:
    fixed = _fixed((0, DAY), (1, NIGHT), (2, DAY))
    data = request(
        3,
        [shift(DAY, 3), shift(NIGHT, 3, hours=NIGHT_HOURS)],
        [employee(A, [DAY, NIGHT], fixed_assignments=fixed)],
        max_consecutive_working_days=3,
    )
    result = solve_and_audit(data)
    assert result.violations == {f"consecutive_days:{A}": (CONSECUTIVE_DAYS, 1)}


def test_hard_cap_against_fixed_assignments_has_no_solution() -> None:
    data = request(
        3,
        [shift(DAY, 3)],
        [employee(A, [DAY], fixed_assignments=_fixed((0, DAY), (1, DAY), (2, DAY)))],
        max_consecutive_working_days=2,
    )
    response = solve_request(data)
    assert response.status == "failed"
    assert response.error is not None and response.error.code == "no_solution"


# ---------------------------------------------------------------------------- transitions


def _after_night(
    *, rule: str | None = None, to: str = DAY, enforcement: str = "hard"
) -> dict[str, Any]:
    """A works a fixed night on day 0; only the day shift is needed on day 1."""
    transitions = []
    if rule is not None:
        transitions = [
            {"from_shift_id": NIGHT, "to_shift_id": to, "rule": rule, "enforcement": enforcement}
        ]
    return request(
        2,
        [shift(DAY, 2, on={1: (1, 9)}), shift(NIGHT, 2, hours=NIGHT_HOURS)],
        [employee(A, [DAY, NIGHT], fixed_assignments=_fixed((0, NIGHT)))],
        shift_transitions=transitions,
    )


def test_without_transition_rules_the_day_shift_follows_the_night() -> None:
    result = solve_and_audit(_after_night())
    assert result.roster(A) == {date(0): NIGHT, date(1): DAY}
    assert result.violations == {}


def test_hard_forbid_keeps_the_day_shift_off_after_a_night() -> None:
    result = solve_and_audit(_after_night(rule="forbid"))
    assert result.roster(A).get(date(1)) != DAY
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}


def test_soft_forbid_costs_per_occurrence() -> None:
    result = solve_and_audit(_after_night(rule="forbid", enforcement="soft"))
    assert result.roster(A) == {date(0): NIGHT, date(1): DAY}
    assert result.violations == {
        f"shift_transition:forbid:{NIGHT}:{DAY}:{A}": (SHIFT_TRANSITION, 1)
    }


def test_soft_forbid_counts_every_occurrence() -> None:
    data = request(
        4,
        [shift(DAY, 4), shift(NIGHT, 4, hours=NIGHT_HOURS)],
        [
            employee(
                A,
                [DAY, NIGHT],
                fixed_assignments=_fixed((0, NIGHT), (1, DAY), (2, NIGHT), (3, DAY)),
            )
        ],
        shift_transitions=[
            {"from_shift_id": NIGHT, "to_shift_id": DAY, "rule": "forbid", "enforcement": "soft"}
        ],
    )
    result = solve_and_audit(data)
    assert result.violations == {
        f"shift_transition:forbid:{NIGHT}:{DAY}:{A}": (2 * SHIFT_TRANSITION, 2)
    }


def test_hard_require_forces_the_follow_up_shift() -> None:
    result = solve_and_audit(_after_night(rule="require", to=NIGHT))
    assert result.roster(A) == {date(0): NIGHT, date(1): NIGHT}
    assert result.violations == {"staffing_shortage": (SHORTAGE, 1)}


def test_soft_require_costs_when_the_follow_up_is_missing() -> None:
    result = solve_and_audit(_after_night(rule="require", to=NIGHT, enforcement="soft"))
    assert result.roster(A) == {date(0): NIGHT, date(1): DAY}
    assert result.violations == {
        f"shift_transition:require:{NIGHT}:{NIGHT}:{A}": (SHIFT_TRANSITION, 1)
    }


@pytest.mark.parametrize("enforcement", ["hard", "soft"])
def test_require_never_counts_on_the_last_date(enforcement: str) -> None:
    data = request(
        2,
        [shift(DAY, 2), shift(NIGHT, 2, hours=NIGHT_HOURS)],
        [employee(A, [DAY, NIGHT], fixed_assignments=_fixed((1, NIGHT)))],
        shift_transitions=[
            {
                "from_shift_id": NIGHT,
                "to_shift_id": DAY,
                "rule": "require",
                "enforcement": enforcement,
            }
        ],
    )
    result = solve_and_audit(data)
    assert result.roster(A) == {date(1): NIGHT}
    assert result.violations == {}


def _require_before_holiday(enforcement: str) -> dict[str, Any]:
    return request(
        2,
        [shift(DAY, 2), shift(NIGHT, 2, hours=NIGHT_HOURS)],
        [employee(A, [DAY, NIGHT], fixed_assignments=_fixed((0, NIGHT)))],
        holidays=[date(1)],
        shift_transitions=[
            {
                "from_shift_id": NIGHT,
                "to_shift_id": DAY,
                "rule": "require",
                "enforcement": enforcement,
            }
        ],
    )


def test_hard_require_before_a_holiday_has_no_solution() -> None:
    response = solve_request(_require_before_holiday("hard"))
    assert response.status == "failed"
    assert response.error is not None and response.error.code == "no_solution"


def test_soft_require_before_a_holiday_counts() -> None:
    result = solve_and_audit(_require_before_holiday("soft"))
    assert result.violations == {
        f"shift_transition:require:{NIGHT}:{DAY}:{A}": (SHIFT_TRANSITION, 1)
    }


# ------------------------------------------------------- compact hard forbids (blocks)


def _transitions(pairs: set[tuple[int, int]]) -> list[TransitionSpec]:
    return [
        TransitionSpec(0, a, b, forbid=True, hard=True, name=f"shift_transition:forbid:{a}:{b}")
        for a, b in sorted(pairs)
    ]


@pytest.mark.parametrize("seed", range(40))
def test_forbidden_rows_cover_exactly_the_forbidden_pairs(seed: int) -> None:
    # Random succession tables (self-loops, nested and crossing sets): each block is a
    # product of forbidden pairs, the blocks' targets are disjoint, and together they
    # are the table, so one row per block allows exactly what the pairwise clauses allow.
    rng = random.Random(seed)
    shifts = rng.randint(1, 9)
    pairs = {(a, b) for a in range(shifts) for b in range(shifts) if rng.random() < 0.4}
    blocks = forbidden_rows(_transitions(pairs))
    covered = [(a, b) for sources, targets in blocks for a in sources for b in targets]
    assert sorted(covered) == sorted(pairs)  # no pair twice, none missing, none extra
    targets = [b for _, block_targets in blocks for b in block_targets]
    assert len(targets) == len(set(targets))


def test_forbidden_rows_of_a_nested_table_are_one_per_predecessor_set() -> None:
    # Late shifts (2, 3) may not be followed by early ones (0, 1); night (3) not by 2
    # either: predecessor sets {2, 3} (for 0 and 1) and {3} (for 2).
    pairs = {(2, 0), (2, 1), (3, 0), (3, 1), (3, 2)}
    assert forbidden_rows(_transitions(pairs)) == [((2, 3), (0, 1)), ((3,), (2,))]


def test_a_transition_of_its_own_is_still_its_own_group_and_pairwise() -> None:
    # v1 rules have distinct indices: one hard group per rule and employee, as before.
    data = request(
        3,
        [shift(DAY, 3), shift(NIGHT, 3, hours=NIGHT_HOURS)],
        [employee(A, [DAY, NIGHT]), employee("B", [DAY, NIGHT])],
        shift_transitions=[
            {"from_shift_id": NIGHT, "to_shift_id": DAY, "rule": "forbid"},
            {"from_shift_id": NIGHT, "to_shift_id": NIGHT, "rule": "forbid"},
        ],
    )
    problem = from_request(parse_request(data))
    compiled = build(problem)
    groups = [g for g in compiled.hard_groups if g.family == "shift_transition"]
    assert sorted((g.field, g.employee) for g in groups) == [
        ("constraints.shift_transitions[0]", A),
        ("constraints.shift_transitions[0]", "B"),
        ("constraints.shift_transitions[1]", A),
        ("constraints.shift_transitions[1]", "B"),
    ]
    before = len(build(problem, skip=["shift_transitions"]).model.proto.constraints)
    rows = list(compiled.model.proto.constraints)[before:]
    # No family after the transitions posts a row for this request.
    assert len(rows) == 2 * 2 * 2  # rules x employees x date pairs, one clause each
    assert all(r.has_bool_or() and len(r.bool_or.literals) == 2 for r in rows)
