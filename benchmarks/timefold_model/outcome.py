"""What a Timefold solve is asked for and what it hands back, as plain data.

Kept apart from :mod:`benchmarks.timefold_model.run` so that the pricing, the command and
the tests read a run without importing Timefold.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shiftsched.contract.v1 import Assignment


@dataclass(frozen=True)
class Limit:
    """When to stop: ``seconds`` of the whole call (setup included), or ``calculations``
    score calculations, which gives the same roster on every machine however busy."""

    seconds: float | None = None
    calculations: int | None = None

    def __post_init__(self) -> None:
        if (self.seconds is None) == (self.calculations is None):
            raise ValueError("a limit is seconds or calculations, one of the two")


@dataclass(frozen=True)
class Improvement:
    """A new best roster: when (seconds from the call) and its score, negated."""

    seconds: float
    hard: int
    soft: int


@dataclass(frozen=True)
class TimefoldRun:
    """The best roster of a solve, Timefold's score of it, and the solve's clocks.

    ``hard`` and ``soft`` are minus Timefold's score levels (0 hard: no hard rule broken);
    ``constraints`` is minus each constraint's share of the score, by constraint name.
    """

    assignments: list[Assignment]
    score: str
    hard: int
    soft: int
    constraints: dict[str, int]
    setup_seconds: float
    wall_seconds: float
    improvements: list[Improvement] = field(default_factory=list)
    version: str = ""

    @property
    def first_roster_seconds(self) -> float | None:
        """When the first roster came (the construction heuristic's, as a rule)."""
        return self.improvements[0].seconds if self.improvements else None

    @property
    def first_feasible_seconds(self) -> float | None:
        """When the first roster that breaks no hard rule came."""
        return next((i.seconds for i in self.improvements if i.hard == 0), None)

    @property
    def best_seconds(self) -> float | None:
        return self.improvements[-1].seconds if self.improvements else None
