"""Units consumed per day as an inline SVG bar chart: no JavaScript, readable by screen
readers (a title, a description and a label per bar), with a table beside it."""

from __future__ import annotations

import math
from datetime import date
from html import escape
from typing import Final

WIDTH: Final = 720
HEIGHT: Final = 200
LEFT: Final = 56  # room for the y-axis labels and title
RIGHT: Final = 12
TOP: Final = 16
BOTTOM: Final = 30  # room for the date labels
DATE_EVERY: Final = 7  # a date label every week


def _ticks(top: int) -> list[int]:
    """Y ticks from 0 to at least ``top``: at most five, a round step apart (1, 2 or 5
    times a power of ten, never below one unit)."""
    wanted = top / 4
    power = 10 ** max(0, math.floor(math.log10(wanted))) if wanted >= 1 else 1
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= wanted)
    return list(range(0, -(-top // step) * step + 1, step))


def units_chart(days: list[tuple[date, int]]) -> str:
    """SVG markup of one bar per day, with a labelled unit axis and weekly dates."""
    if not days:
        return ""
    ticks = _ticks(max(max(units for _, units in days), 1))
    ceiling = ticks[-1]
    slot = (WIDTH - LEFT - RIGHT) / len(days)
    plot = HEIGHT - TOP - BOTTOM
    total = sum(units for _, units in days)
    base = TOP + plot
    bars = []
    for index, (day, units) in enumerate(days):
        height = plot * units / ceiling
        x = LEFT + index * slot + slot * 0.15
        label = f"{day.isoformat()}: {units} unit{'s' if units != 1 else ''}"
        bars.append(
            f'<rect class="bar" x="{x:.1f}" y="{base - height:.1f}" width="{slot * 0.7:.1f}" '
            f'height="{max(height, 0.0):.1f}"><title>{escape(label)}</title></rect>'
        )
    axis = [
        f'<line class="axis" x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}"/>',
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}"/>',
        f'<text class="tick" x="14" y="{TOP + plot / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {TOP + plot / 2:.1f})">units per day</text>',
    ]
    for tick in ticks:
        y = base - plot * tick / ceiling
        axis.append(
            f'<text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>'
        )
    for index in range(len(days) - 1, -1, -DATE_EVERY):  # weekly, ending on the last day
        x = LEFT + (index + 0.5) * slot
        text = days[index][0].strftime("%b %d")
        axis.append(
            f'<text class="tick" x="{x:.1f}" y="{HEIGHT - 10}" text-anchor="middle">{text}</text>'
        )
    first, last = days[0][0].isoformat(), days[-1][0].isoformat()
    top = max(units for _, units in days)
    description = f"{total} units consumed from {first} to {last}, at most {top} on one day."
    return (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="chart-title">Units consumed per day</title>'
        f'<desc id="chart-desc">{escape(description)}</desc>{"".join(axis)}{"".join(bars)}</svg>'
    )
