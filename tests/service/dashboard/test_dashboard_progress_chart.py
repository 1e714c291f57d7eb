"""The job page's charts of the search: objective and bound on one axis that covers
both, the gap in percent, each a step line running to the present second."""

from __future__ import annotations

import re

import pytest

from shiftsched.service.dashboard.job_view import gap, shown_gap
from shiftsched.service.dashboard.progress_chart import (
    BOTTOM,
    HEIGHT,
    LEFT,
    RIGHT,
    TOP,
    WIDTH,
    TracePoint,
    gap_chart,
    nice_step,
    objective_chart,
    trace_of,
)

POINTS = [
    TracePoint(0.5, None, 0.0),
    TracePoint(1.0, 1_400_000.0, 0.0),
    TracePoint(4.0, 30.0, 20.0),
]


def path_of(svg: str, name: str) -> list[tuple[str, float]]:
    match = re.search(rf'class="series {name}" d="([^"]+)"', svg)
    assert match, name
    return [(op, float(value)) for op, value in re.findall(r"([MHV])([\d.]+)", match.group(1))]


def test_the_objective_axis_covers_every_value_and_the_lines_run_to_now() -> None:
    svg = objective_chart(POINTS, now=10.0)
    ticks = [float(t.replace(",", "")) for t in re.findall(r'anchor="end">([\d,.]+)</text>', svg)]
    assert ticks[0] == 0 and ticks[-1] >= 1_400_000 and len(ticks) <= 5
    objective, bound = path_of(svg, "objective"), path_of(svg, "bound")
    assert objective[-1] == ("H", WIDTH - RIGHT) and bound[-1] == ("H", WIDTH - RIGHT)
    assert objective[0] == ("M", pytest.approx(LEFT + (WIDTH - LEFT - RIGHT) * 0.1, abs=0.05))
    assert "Best objective 30 and bound 20 after 4.0 s." in svg
    assert objective_chart([TracePoint(1.0, None, None)], now=2.0) == ""


def test_the_gap_is_the_engines_and_reads_in_percent() -> None:
    assert gap(30.0, 20.0) == pytest.approx(1 / 3)
    assert gap(0.0, 0.0) == 0.0 and gap(None, 3.0) is None
    svg = gap_chart(POINTS, now=4.0)
    assert re.findall(r'anchor="end">([\d.]+%)</text>', svg) == ["0%", "25%", "50%", "75%", "100%"]
    steps = path_of(svg, "gap")
    # The line starts at the first bound above 0, not at a flat 100 % against the bound 0.
    assert steps[0] == ("M", pytest.approx(WIDTH - RIGHT, abs=0.05))
    start = re.search(r'class="series gap" d="M[\d.]+,([\d.]+)', svg)
    assert start and float(start.group(1)) == pytest.approx(
        TOP + (HEIGHT - TOP - BOTTOM) * 2 / 3, abs=0.05
    )
    assert "Gap 33.3 % at the last point." in svg
    assert gap_chart([TracePoint(1.0, None, 5.0)], now=2.0) == ""


def test_no_gap_is_drawn_before_a_bound_above_zero() -> None:
    assert shown_gap(1_400_000.0, 0.0) is None and shown_gap(0.0, 0.0) == 0.0
    assert shown_gap(30.0, None) is None and shown_gap(30.0, 20.0) == pytest.approx(1 / 3)
    note = gap_chart(POINTS[:2], now=4.0)
    assert "no bound yet" in note and "<path" not in note and "100%" not in note
    svg = gap_chart(POINTS, now=8.0)
    steps = path_of(svg, "gap")
    assert steps[0] == ("M", pytest.approx(LEFT + (WIDTH - LEFT - RIGHT) * 0.5, abs=0.05))


def test_a_record_without_a_trace_gives_its_improvements_and_the_end_closes_it() -> None:
    record = {"improvements": [{"elapsed_seconds": 1.5, "objective": 70.0}]}
    final = TracePoint(3.0, 60.0, 60.0)
    assert trace_of(record, final) == [TracePoint(1.5, 70.0, None), final]
    trace = {"trace": [{"elapsed_seconds": 0.2, "objective": None, "bound": -5.0}]}
    assert trace_of(trace) == [TracePoint(0.2, None, 0.0)]  # no penalty is negative
    assert trace_of(None) == []
    assert [nice_step(span) for span in (0, 7, 100, 1_400_000)] == [1.0, 2, 50, 500_000]
