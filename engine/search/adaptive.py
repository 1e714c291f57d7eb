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
GROW = 1.25
SHRINK = 0.8


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

    def choose(self, rng: random.Random) -> tuple[str, float]:
        weights = [self.arms[name].success + CHOICE_FLOOR for name in self.names]
        name = rng.choices(self.names, weights)[0]
        return name, self.arms[name].fraction

    def report(self, name: str, improved: bool, finished: bool) -> None:
        """One sub-solve's outcome: did it improve, and did it finish within its limit."""
        arm = self.arms[name]
        arm.tried += 1
        arm.improved += improved
        arm.success = SUCCESS_MEMORY * arm.success + (1 - SUCCESS_MEMORY) * improved
        factor = GROW if finished else SHRINK
        arm.fraction = min(1.0, max(1.0 / max(1, self.cells), arm.fraction * factor))


def initial_fraction(cells: int, target_cells: int) -> float:
    """Start every kind at about ``target_cells`` freed cells (all, on a small roster)."""
    return min(1.0, target_cells / max(1, cells))
