"""Which neighbourhood to try next, and how large: learnt from recent sub-solves.

Two controls, one per concern:

- **Choice** is a bandit: each neighbourhood keeps a recency-weighted rate of success
  (an improvement of the incumbent), and is drawn with probability proportional to that
  rate plus a floor, so a neighbourhood that stopped paying off is still tried now and
  then.
- **Size** follows CP-SAT's own rule for its neighbourhoods: a sub-solve that finishes
  (proves its part optimal or empty) means the part was easy, so the next one of that
  kind is larger; one that runs out of time means it was too large. Each kind keeps its
  own fraction of cells, within ``[1 / cells, 1]``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

SUCCESS_MEMORY = 0.8  # weight of the past in the success rate
CHOICE_FLOOR = 0.1  # every neighbourhood keeps at least this weight
GROW = 1.4
SHRINK = 0.7
STUCK = 0.5  # a sub-solve that could not even restate its hint: far too large


@dataclass
class Arm:
    fraction: float
    success: float = 0.5
    tried: int = 0
    improved: int = 0


@dataclass
class Selector:
    """Adaptive choice of neighbourhood and size; deterministic for a given ``rng``."""

    names: list[str]
    cells: int
    initial_fraction: float
    arms: dict[str, Arm] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.names:
            self.arms[name] = Arm(self.initial_fraction)

    def add(self, name: str) -> None:
        """A neighbourhood that became possible during the search (it starts afresh)."""
        if name not in self.arms:
            self.names.append(name)
            self.arms[name] = Arm(self.initial_fraction)

    def choose(self, rng: random.Random) -> tuple[str, float]:
        weights = [self.arms[name].success + CHOICE_FLOOR for name in self.names]
        name = rng.choices(self.names, weights)[0]
        return name, self.arms[name].fraction

    def report(self, name: str, improved: bool, finished: bool, stuck: bool = False) -> None:
        """One sub-solve's outcome: did it improve, did it finish within its limit, or
        was it stuck (no roster at all, not even the hinted incumbent)."""
        arm = self.arms[name]
        arm.tried += 1
        arm.improved += improved
        arm.success = SUCCESS_MEMORY * arm.success + (1 - SUCCESS_MEMORY) * improved
        factor = STUCK if stuck else GROW if finished else SHRINK
        arm.fraction = min(1.0, max(1.0 / max(1, self.cells), arm.fraction * factor))


def initial_fraction(decisions: int, target: int) -> float:
    """Start every kind at about ``target`` freed decisions (all, on a small roster).

    Counted in decisions, not cells: a cell holds one literal per shift and duty the
    employee may take, from one (a single-shift roster) to dozens (many duties).
    """
    return min(1.0, target / max(1, decisions))
