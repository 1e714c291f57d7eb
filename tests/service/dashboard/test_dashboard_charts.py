"""The usage chart: a labelled unit axis that covers the tallest bar, weekly dates."""

from __future__ import annotations

import itertools
import re
from datetime import date, timedelta

import pytest

from shiftsched.service.dashboard.charts import units_chart


def days_of(units: list[int]) -> list[tuple[date, int]]:
    start = date(2026, 10, 26)
    return [(start + timedelta(days=i), u) for i, u in enumerate(units)]


@pytest.mark.parametrize(
    "units", [[0] * 30, [3, 0, 1] * 10, [0] * 29 + [17], [250] * 30, [4, 5] * 15, [1234] * 30]
)
def test_the_unit_axis_starts_at_zero_and_covers_the_tallest_bar(units: list[int]) -> None:
    svg = units_chart(days_of(units))
    ticks = [int(t) for t in re.findall(r'text-anchor="end">(\d+)</text>', svg)]
    assert ticks[0] == 0 and ticks[-1] >= max(units) and len(ticks) <= 5
    [step] = {b - a for a, b in itertools.pairwise(ticks)}  # evenly spaced
    assert str(step).strip("0") in ("1", "2", "5")  # by a round step
    assert "units per day" in svg
    heights = [float(h) for h in re.findall(r'class="bar"[^>]*height="([\d.]+)"', svg)]
    tallest = max(heights)
    for height, value in zip(heights, units, strict=True):  # bars in proportion
        assert height == pytest.approx(tallest * value / max(max(units), 1), abs=0.2)


def test_dates_are_labelled_weekly_up_to_the_last_day() -> None:
    days = days_of([1] * 30)
    labels = re.findall(r'text-anchor="middle">([A-Z][a-z]{2} \d{2})</text>', units_chart(days))
    assert labels[0] == days[-1][0].strftime("%b %d")
    assert len(labels) == 5  # days 29, 22, 15, 8, 1
    assert units_chart([]) == ""
