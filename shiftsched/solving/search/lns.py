"""Large neighbourhood search over a roster: free a part, re-optimise it, keep the rest.

Each step keeps every decision outside a neighbourhood
(:mod:`shiftsched.solving.search.neighbourhoods`) at the incumbent roster, hints the incumbent, and
lets CP-SAT re-optimise the freed part for a short while. The sub-model holds only what the freed
decisions can reach (:mod:`shiftsched.solving.search.submodel`), with everything else folded in as
constants, so a step costs in proportion to its neighbourhood, not the model: on a 364-day request
CP-SAT spent about 1.5 s loading and presolving the whole model for each sub-solve. A model
the cutter cannot read, or a small one (CUT_FROM_VARIABLES), uses a clone of the whole
model instead, with the kept decisions fixed through their domains (only the cells that
changed since the last step touched).

Sub-solves use CP-SAT's stronger LP relaxation (``linearization_level`` 2): with the rest
of the roster fixed the part is small, and the LP both finds and proves its best quickly.
A step accepts a sub-solution of equal cost too, which lets the search walk plateaus.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.model.tight import evaluate
from shiftsched.solving.search.adaptive import Selector, initial_fraction
from shiftsched.solving.search.neighbourhoods import (
    NEIGHBOURHOODS,
    Cell,
    applicable,
    shape_of,
    with_gains,
    with_required,
    with_roster,
    with_shortfalls,
)
from shiftsched.solving.search.submodel import Extractor

TARGET_FREE_DECISIONS = 800  # first neighbourhoods free about this many decisions
SUB_LINEARIZATION = 2
# Below this many model variables the whole-model clone did better at 10 s: three
# synthetic requests of 5,000-23,000 variables, three runs each, medians +5 %, +9 % and
# 0 % with cutting. From 113,000 (Curtois & Qu 21) cutting did better
# (benchmarks/docs/search.md, "Large models: cut-down sub-models").
CUT_FROM_VARIABLES = 100_000
MIN_SOLVE_SECONDS = 0.01  # a step whose cut left less than this does not solve


@dataclass(frozen=True)
class StepLimits:
    """How long one sub-solve may run: wall seconds, or deterministic work (reproducible)."""

    seconds: float = 1.0  # the whole step: cutting the sub-model and solving it
    deterministic: float | None = None  # set: the sub-solve stops on CP-SAT's work count


@dataclass(frozen=True)
class Step:
    """What one step did; ``objective`` is the incumbent's model objective after it."""

    neighbourhood: str
    free_cells: int
    status: str
    improved: bool
    objective: float
    proved_optimal: bool  # the whole roster was freed and proven optimal


class NeighbourhoodSearch:
    """The LNS state: the model (cut per step, or a clone), the incumbent, the selector.

    ``solution`` is a full assignment of the compiled model's variables (a CP-SAT
    solution vector), and ``objective`` its model objective. Not thread-safe: one
    thread steps it and adopts better rosters into it (:meth:`adopt`); only
    :meth:`stop` may be called from another thread.
    """

    def __init__(
        self,
        compiled: CompiledModel,
        solution: Sequence[int],
        objective: float,
        seed: int = 0,
        stopped: Callable[[], bool] = lambda: False,
        cut: bool | None = None,
    ) -> None:
        """``stopped``: checked while the model is read (long on large models); once it
        is true the search does nothing (as after :meth:`stop`). ``cut``: solve cut-down
        sub-models (True) or clones of the whole model (False); by default, cut from
        CUT_FROM_VARIABLES on."""
        self._current: cp_model.CpSolver | None = None
        self._stopped = False
        cells: dict[Cell, list[int]] = defaultdict(list)
        for (e, d, _s), x in compiled.x.items():
            cells[e, d].append(x.index)
        for (e, d, _s, _k), y in compiled.y.items():
            cells[e, d].append(y.index)
        self._cells = dict(cells)
        self._slots = compiled.shortages
        shifts = [(x.index, e, d, s) for (e, d, s), x in compiled.x.items()]
        self._shift_of = np.asarray(shifts, dtype=np.int64).reshape(-1, 4).T  # index, e, d, s
        decisions = [i for indices in self._cells.values() for i in indices]
        if cut is None:
            cut = len(compiled.model.proto.variables) >= CUT_FROM_VARIABLES
        self._extractor = Extractor.of(compiled.model, decisions, stopped) if cut else None
        if cut and self._extractor is None and stopped():
            self._stopped = True
        self._shape = with_required(shape_of(compiled.problem), _required(compiled))
        self.selector = Selector(
            applicable(self._shape),
            self._shape.cells,
            initial_fraction(len(decisions), TARGET_FREE_DECISIONS),
        )
        self.rng = random.Random(seed)
        self._seed = seed
        self.steps = 0
        self._values = np.asarray(solution, dtype=np.int64)
        self.objective = objective
        self._whole: _WholeModel | None = None
        if self._extractor is None and not self._stopped:
            self._whole = _WholeModel(compiled, self._cells)
            self._whole.fix_all(self._values)

    # --- the incumbent -----------------------------------------------------------------

    @property
    def solution(self) -> list[int]:
        return self._values.tolist()  # type: ignore[no-any-return]

    def adopt(self, solution: Sequence[int], objective: float) -> None:
        """Take a better roster found elsewhere (the full-model solve) as the incumbent."""
        self._values = np.asarray(solution, dtype=np.int64)
        self.objective = objective
        if self._whole is not None:
            self._whole.fix_all(self._values)

    def guide(self, gains: Sequence[float]) -> None:
        """Per employee, how far their row in the incumbent is from right at the
        decomposition's prices (reduced costs): the priced-rows neighbourhood draws by
        them from now on."""
        if len(gains) != self._shape.employees:
            return
        self._shape = with_gains(self._shape, tuple(gains))
        self.selector.add("priced_rows")

    def roster(self) -> dict[Cell, int]:
        """The incumbent's shift per worked cell (a gather: a year's roster has 500,000
        shift decisions, and a loop over them took 0.1 s a step)."""
        index, employee, day, shift = self._shift_of
        worked = self._values[index] != 0
        cells = zip(employee[worked].tolist(), day[worked].tolist(), strict=True)
        return dict(zip(cells, shift[worked].tolist(), strict=True))

    def _shortfalls(self) -> tuple[tuple[int, int | None, int], ...]:
        """Demand the incumbent leaves short: (day, shift, missing heads)."""
        values = self._values
        found = []
        for slot in self._slots:
            missing = int(evaluate(slot.missing, values))  # type: ignore[arg-type]
            if missing > 0:
                found.append((slot.day, slot.shift, missing))
        return tuple(found)

    # --- one step ----------------------------------------------------------------------

    def step(self, limits: StepLimits) -> Step:
        name, fraction = self.selector.choose(self.rng)
        if self._stopped:
            self.steps += 1
            return Step(name, 0, "UNKNOWN", False, self.objective, proved_optimal=False)
        shape = self._shape
        if name in ("shift_type", "cover_swap"):
            shape = with_roster(shape, self.roster())
        if name in ("shortfall", "cover_swap"):
            shape = with_shortfalls(shape, self._shortfalls())
        began = time.perf_counter()
        cells = self._cells
        free = frozenset(
            cell for cell in NEIGHBOURHOODS[name](shape, self.rng, fraction) if cell in cells
        )
        if self._extractor is not None:
            sub = self._extractor.extract([i for cell in free for i in cells[cell]], self._values)
            model = sub.model
        else:
            assert self._whole is not None
            sub = None
            model = self._whole.free_only(free, self._values)
        solver = cp_model.CpSolver()
        parameters = solver.parameters
        parameters.num_workers = 1
        parameters.random_seed = (self._seed + self.steps) % 2**31
        parameters.symmetry_level = 0
        parameters.linearization_level = SUB_LINEARIZATION
        if limits.deterministic is not None:
            parameters.max_deterministic_time = limits.deterministic
            skip = False
        else:  # the seconds are the whole step's: cutting the sub-model counts
            seconds = limits.seconds - (time.perf_counter() - began)
            parameters.max_time_in_seconds = max(0.0, seconds)
            skip = seconds < MIN_SOLVE_SECONDS
        self._current = solver  # stop() reaches a running sub-solve through this
        status = cp_model.UNKNOWN if self._stopped or skip else solver.solve(model)
        self._current = None
        self.steps += 1
        improved = False
        found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        if found and solver.objective_value <= self.objective:
            improved = solver.objective_value < self.objective
            found_values = solver.response_proto.solution
            self._values = (
                sub.expand(self._values, found_values)
                if sub is not None
                else np.asarray(found_values, dtype=np.int64)
            )
            self.objective = solver.objective_value
        finished = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        self.selector.report(name, improved, finished, stuck=status == cp_model.UNKNOWN)
        whole = len(free) >= len(cells)
        return Step(
            name,
            len(free),
            solver.status_name(status),
            improved,
            self.objective,
            proved_optimal=whole and status == cp_model.OPTIMAL,
        )

    def stop(self) -> None:
        """Stop the running sub-solve and any later one (from another thread)."""
        self._stopped = True
        current = self._current
        if current is not None:
            current.stop_search()


def _required(compiled: CompiledModel) -> dict[tuple[int, int], int]:
    """Heads each (day, shift) needs: its staffing minimum or cover target."""
    required: dict[tuple[int, int], int] = {}
    for slot in compiled.shortages:
        if slot.kind == "staffing" and slot.shift is not None and slot.duty is None:
            key = (slot.day, slot.shift)
            required[key] = max(required.get(key, 0), slot.required)
    return required


class _WholeModel:
    """The fallback sub-model: a clone of the whole model, kept decisions fixed by domain."""

    def __init__(self, compiled: CompiledModel, cells: dict[Cell, list[int]]) -> None:
        self.model = compiled.model.clone()
        self._proto = self.model.proto
        self._cells = cells
        variables = self._proto.variables
        self._domain = {
            i: (variables[i].domain[0], variables[i].domain[len(variables[i].domain) - 1])
            for indices in cells.values()
            for i in indices
        }
        self._free: frozenset[Cell] = frozenset()
        hint = self._proto.solution_hint
        hint.vars.clear()
        hint.vars.extend(range(len(variables)))

    def _set(self, indices: list[int], values: np.ndarray, fixed: bool) -> None:
        variables, domain = self._proto.variables, self._domain
        for i in indices:
            bounds = variables[i].domain
            if fixed:
                bounds[0] = bounds[1] = int(values[i])
            else:
                bounds[0], bounds[1] = domain[i]

    def fix_all(self, values: np.ndarray) -> None:
        for indices in self._cells.values():
            self._set(indices, values, fixed=True)
        self._free = frozenset()

    def free_only(self, free: frozenset[Cell], values: np.ndarray) -> cp_model.CpModel:
        """Fix the previous neighbourhood to the incumbent, free the new one, hint it."""
        cells = self._cells
        for cell in self._free - free:
            self._set(cells[cell], values, fixed=True)
        for cell in free - self._free:
            self._set(cells[cell], values, fixed=False)
        self._free = free
        hint = self._proto.solution_hint
        hint.values.clear()
        hint.values.extend(values.tolist())
        return self.model
