"""A local search over one model: load a roster, run moves, read the best roster back.

The roster a caller hands over and the one it reads back are complete CP-SAT solution
vectors of the model (every auxiliary at its least value), so the portfolio's threads
trade them as they are; :meth:`LocalSearch.verified` evaluates a roster from its
decisions alone before it leaves the search, so a roster that breaks a rule never does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from shiftsched.solving.local.arrays import LocalModel
from shiftsched.solving.local.compiled import entry
from shiftsched.solving.local.kernels import VIOLATED, new_state

HISTORY = 2_000  # late acceptance: the costs of this many moves ago
JOURNAL = 1 << 16  # journal entries per move before a rejected move is re-evaluated


@dataclass(frozen=True)
class Chunk:
    """What one run of moves did."""

    best: int
    current: int
    accepted: int
    evaluated: int


class LocalSearch:
    """The state of one search: the current roster, the best seen, the acceptance history."""

    def __init__(self, model: LocalModel, solution: Sequence[int], seed: int) -> None:
        self.model = model
        self.seed = seed
        self._m = model.kernel_arrays()
        self._cells = model.cell_arrays()
        cell_count = model.employees * model.days
        self._roster = (np.full(cell_count, -1, np.int64), np.full(cell_count, -1, np.int64))
        self._best = (self._roster[0].copy(), self._roster[1].copy())
        self._st = new_state(model.variables, model.rows, len(model.def_var), JOURNAL)
        self._history = np.zeros(HISTORY, np.int64)
        self.best_cost = 0
        self.moves = 0
        self.load(solution)

    @property
    def cost(self) -> int:
        return int(self._st[1][self.model.objective_row])

    @property
    def feasible(self) -> bool:
        return int(self._st[3][VIOLATED]) == 0

    def load(self, solution: Sequence[int]) -> None:
        """Start again from ``solution`` (its decisions; the rest is recomputed)."""
        values = self._st[0]
        values[:] = self.model.initial
        decisions = np.concatenate([self.model.opt_x, self.model.oy_var])
        values[decisions] = np.asarray(solution, dtype=np.int64)[decisions]
        entry("evaluate_all")(self._m, self._st)
        entry("read_cells")(self._m, self._st, self._cells, self._roster)
        self._best[0][:] = self._roster[0]
        self._best[1][:] = self._roster[1]
        self.best_cost = self.cost
        self._history[:] = self.cost

    def run(self, moves: int) -> Chunk:
        """Run ``moves`` moves (the same seed and moves give the same roster)."""
        self.seed += 1
        best, current, accepted, evaluated = entry("run_moves")(
            self._m,
            self._st,
            self._cells,
            self._roster,
            self._best,
            self._history,
            self.model.employees,
            self.model.days,
            self.model.objective_row,
            moves,
            self.seed,
            self.best_cost,
        )
        self.best_cost = int(best)
        self.moves += moves
        return Chunk(int(best), int(current), int(accepted), int(evaluated))

    def best_solution(self) -> tuple[list[int], int] | None:
        """The best roster seen as a full solution vector and its cost, evaluated from its
        decisions alone; None if that evaluation finds it breaks a rule (never expected)."""
        return self.verified(self._best)

    def current_solution(self) -> tuple[list[int], int] | None:
        return self.verified(self._roster)

    def verified(self, roster: tuple[np.ndarray, np.ndarray]) -> tuple[list[int], int] | None:
        st = new_state(self.model.variables, self.model.rows, len(self.model.def_var), 1)
        st[0][:] = self.model.initial
        entry("write_cells")(self._m, st, self._cells, roster)
        if int(st[3][VIOLATED]) != 0:
            return None
        return st[0].tolist(), int(st[1][self.model.objective_row])
