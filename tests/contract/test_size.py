"""Problem size, size class and units (docs/semantics.md, "Size and units")."""

from __future__ import annotations

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import (
    LARGE_SIZE_THRESHOLD,
    problem_size,
    request_size,
    schedule_days,
    size_class,
    suggested_time_limit,
    units_for,
)
from tests.factories import minimal_request_dict, request_with


def test_size_multiplies_employees_shifts_duties_days() -> None:
    assert problem_size(employees=31, shifts=2, duties=1, days=700) == 43_400
    assert problem_size(employees=10, shifts=3, duties=4, days=28) == 3_360


def test_no_duties_count_as_one() -> None:
    assert problem_size(employees=5, shifts=2, duties=0, days=7) == 70


def test_request_size_of_the_minimal_request() -> None:
    assert request_size(parse_request(minimal_request_dict())) == 3 * 2 * 1 * 7


def test_request_size_without_duties() -> None:
    assert request_size(parse_request(request_with(duties=[]))) == 3 * 2 * 7


def test_schedule_days_counts_both_ends() -> None:
    assert schedule_days(parse_request(minimal_request_dict()).schedule_period) == 7


@pytest.mark.parametrize(
    ("size", "expected"),
    [(0, "basic"), (42, "basic"), (LARGE_SIZE_THRESHOLD, "basic"), (80_001, "large")],
)
def test_size_class_is_large_strictly_above_the_threshold(size: int, expected: str) -> None:
    assert size_class(size) == expected


@pytest.mark.parametrize(
    ("size", "units"),
    [(0, 1), (1, 1), (10_000, 1), (10_001, 2), (43_400, 5), (80_000, 8), (80_001, 9)],
)
def test_units_are_one_per_started_ten_thousand_at_least_one(size: int, units: int) -> None:
    assert units_for(size) == units


def test_units_are_exact_for_huge_sizes() -> None:
    assert units_for(10_000 * 10**20 + 1) == 10**20 + 1


@pytest.mark.parametrize(
    ("size", "seconds"), [(0, 2), (756, 3), (20_000, 3), (20_001, 4), (279_000, 16), (10**7, 30)]
)
def test_the_suggested_time_limit_grows_with_size_within_its_range(size: int, seconds: int) -> None:
    assert suggested_time_limit(size) == seconds
