"""Units consumed per day as an inline SVG bar chart: no JavaScript, readable by screen
readers (a title, a description and a label per bar), with a table beside it."""

from __future__ import annotations

from datetime import date
from html import escape
from typing import Final

WIDTH: Final = 720
HEIGHT: Final = 180
MARGIN: Final = 28


def units_chart(days: list[tuple[date, int]]) -> str:
    """SVG markup of one bar per day; the tallest bar spans the plot height."""
    if not days:
        return ""
    top = max(max(units for _, units in days), 1)
    slot = (WIDTH - 2 * MARGIN) / len(days)
    plot = HEIGHT - 2 * MARGIN
    total = sum(units for _, units in days)
    bars = []
    for index, (day, units) in enumerate(days):
        height = plot * units / top
        x = MARGIN + index * slot + slot * 0.15
        y = MARGIN + plot - height
        label = f"{day.isoformat()}: {units} unit{'s' if units != 1 else ''}"
        bars.append(
            f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{slot * 0.7:.1f}" '
            f'height="{max(height, 0.0):.1f}"><title>{escape(label)}</title></rect>'
        )
    first, last = days[0][0].isoformat(), days[-1][0].isoformat()
    axis = (
        f'<line class="axis" x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - MARGIN}" '
        f'y2="{HEIGHT - MARGIN}"/>'
        f'<text class="tick" x="{MARGIN}" y="{HEIGHT - 8}">{first}</text>'
        f'<text class="tick" x="{WIDTH - MARGIN}" y="{HEIGHT - 8}" text-anchor="end">{last}</text>'
        f'<text class="tick" x="{MARGIN}" y="{MARGIN - 10}">max {top} / day</text>'
    )
    description = f"{total} units consumed from {first} to {last}, at most {top} on one day."
    return (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="chart-title">Units consumed per day</title>'
        f'<desc id="chart-desc">{escape(description)}</desc>{axis}{"".join(bars)}</svg>'
    )
