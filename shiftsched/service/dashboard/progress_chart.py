"""A job's search over time as inline SVG: the best objective and the proven bound in one
chart, the gap between them in another, drawn on the server like the usage chart.

Why two charts: the first roster of a large request often costs a hundred times the
last, so on one linear axis the late, small figures sit on the floor; the gap is a share
(0 to 100 %) and stays readable whatever the objective's scale. Each chart has a title,
a description and a table beside it, and needs no JavaScript.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, Final

from shiftsched.service.dashboard.job_view import shown_gap

WIDTH: Final = 720
HEIGHT: Final = 220
LEFT: Final = 72  # room for the y-axis labels and title
RIGHT: Final = 16
TOP: Final = 28  # room for the legend
BOTTOM: Final = 34  # room for the seconds and their title
NO_BOUND_YET: Final = (
    '<p class="chart-note" id="gap-chart">Gap: no bound yet. The search has rosters but '
    "has proven no bound above 0, so how far they are from the best is not known; the gap "
    "is drawn once a bound is proven.</p>"
)


@dataclass(frozen=True)
class TracePoint:
    """The best objective and bound at ``seconds`` into the solve (None: not yet known)."""

    seconds: float
    objective: float | None
    bound: float | None

    @property
    def gap(self) -> float | None:
        """None until a bound above 0 is proven (``shown_gap``)."""
        return shown_gap(self.objective, self.bound)


def trace_of(progress: Any, final: TracePoint | None = None) -> list[TracePoint]:
    """The trace of a job's progress record, oldest first; a record without one (written
    before traces were kept) gives its improvements, objective only. ``final``, the
    ended job's own figures, closes the trace."""
    record = progress if isinstance(progress, dict) else {}
    points = [
        TracePoint(float(item["elapsed_seconds"]), item.get("objective"), _bound(item.get("bound")))
        for item in record.get("trace") or []
    ]
    if not points:
        points = [
            TracePoint(float(item["elapsed_seconds"]), float(item["objective"]), None)
            for item in record.get("improvements") or []
        ]
    if final is not None and (final.objective is not None or final.bound is not None):
        points.append(final)
    return points


def nice_step(span: float, count: int = 4) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving at most ``count`` + 1 ticks."""
    if span <= 0:
        return 1.0
    raw = span / count
    power: float = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def objective_chart(points: Sequence[TracePoint], now: float) -> str:
    """The best objective and the bound over the seconds of the solve."""
    values = [v for p in points for v in (p.objective, p.bound) if v is not None]
    if not values:
        return ""
    top = max(values)
    step = nice_step(top)
    plot = _Plot(now, step * max(1, math.ceil(top / step)), step)
    series = [
        plot.path("objective", [(p.seconds, p.objective) for p in points]),
        plot.path("bound", [(p.seconds, p.bound) for p in points]),
    ]
    last = points[-1]
    description = (
        f"Best objective {_number(last.objective)} and bound {_number(last.bound)} "
        f"after {last.seconds:.1f} s."
    )
    legend = [("objective", "best objective"), ("bound", "proven bound")]
    return plot.svg("objective-chart", "Objective and bound over time", description, legend, series)


def gap_chart(points: Sequence[TracePoint], now: float) -> str:
    """The relative gap, in percent, over the seconds of the solve."""
    gaps = [(p.seconds, None if p.gap is None else 100 * p.gap) for p in points]
    if all(value is None for _, value in gaps):
        if all(p.objective is None for p in points):
            return ""
        return NO_BOUND_YET
    plot = _Plot(now, 100.0, 25.0, unit="%")
    last = next(value for _, value in reversed(gaps) if value is not None)
    description = f"Gap {last:.1f} % at the last point."
    return plot.svg(
        "gap-chart", "Gap over time", description, [("gap", "gap")], [plot.path("gap", gaps)]
    )


class _Plot:
    """Seconds from 0 to ``now`` across, 0 to ``top`` up, ticks every ``step``."""

    def __init__(self, now: float, top: float, step: float, unit: str = "") -> None:
        self.now = max(now, 1.0)
        self.top = top
        self.step = step
        self.unit = unit
        self.width = WIDTH - LEFT - RIGHT
        self.height = HEIGHT - TOP - BOTTOM

    def x(self, seconds: float) -> float:
        return LEFT + self.width * min(seconds, self.now) / self.now

    def y(self, value: float) -> float:
        return TOP + self.height * (1 - min(max(value, 0.0), self.top) / self.top)

    def path(self, name: str, values: Sequence[tuple[float, float | None]]) -> str:
        """A step line: each value holds until the next one, the last until ``now``."""
        known = [(t, v) for t, v in values if v is not None]
        if not known:
            return ""
        steps = [f"M{self.x(known[0][0]):.1f},{self.y(known[0][1]):.1f}"]
        for t, v in known[1:]:
            steps.append(f"H{self.x(t):.1f}V{self.y(v):.1f}")
        steps.append(f"H{self.x(self.now):.1f}")
        return f'<path class="series {name}" d="{"".join(steps)}"/>'

    def svg(
        self,
        chart_id: str,
        title: str,
        description: str,
        legend: Sequence[tuple[str, str]],
        series: Sequence[str],
    ) -> str:
        return (
            f'<svg class="chart progress" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'aria-labelledby="{chart_id}-title {chart_id}-desc" '
            f'xmlns="http://www.w3.org/2000/svg" id="{chart_id}">'
            f'<title id="{chart_id}-title">{escape(title)}</title>'
            f'<desc id="{chart_id}-desc">{escape(description)}</desc>'
            f"{''.join(self._axes())}{''.join(_legend(legend))}{''.join(series)}</svg>"
        )

    def _axes(self) -> list[str]:
        base = TOP + self.height
        parts = [
            f'<line class="axis" x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}"/>',
            f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}"/>',
            f'<text class="tick" x="{LEFT + self.width / 2:.1f}" y="{HEIGHT - 4}" '
            'text-anchor="middle">seconds solving</text>',
        ]
        parts += _ticks(self.top, self.step, lambda v: (LEFT - 6, self.y(v) + 4), "end", self.unit)
        seconds = nice_step(self.now, 6)
        parts += _ticks(self.now, seconds, lambda v: (self.x(v), base + 14), "middle", "")
        return parts


def _ticks(
    top: float,
    step: float,
    where: Callable[[float], tuple[float, float]],
    anchor: str,
    unit: str,
) -> list[str]:
    labels = []
    for index in range(int(top / step + 1e-9) + 1):
        value = index * step
        x, y = where(value)
        labels.append(
            f'<text class="tick" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">'
            f"{_number(value)}{unit}</text>"
        )
    return labels


def _legend(entries: Sequence[tuple[str, str]]) -> list[str]:
    parts = []
    for index, (name, label) in enumerate(entries):
        x = LEFT + index * 150
        parts.append(
            f'<line class="series {name}" x1="{x}" y1="12" x2="{x + 24}" y2="12"/>'
            f'<text class="tick" x="{x + 30}" y="16">{escape(label)}</text>'
        )
    return parts


def _bound(value: Any) -> float | None:
    """A bound as the page shows it: never below 0, since no penalty is negative."""
    return None if value is None else max(0.0, float(value))


def _number(value: float | None) -> str:
    if value is None:
        return "none"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
