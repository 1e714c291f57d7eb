"""Which cells each term of the objective reads: where a move can lower a cost.

A random cell rarely touches a term that costs anything: on a year of 200 employees most
cells are fine as they are. So part of the moves start from a term that costs now (an
entry of the objective row with a positive value) and change one of the cells it reads.
The cells of a term are those of the decisions its definition reaches, down the chain of
definitions; a term that reads more than :data:`MOST_CELLS` cells (a fairness total over
everyone, say) is left to the random moves.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]
MOST_CELLS = 2_000


def hot_cells(
    rv_start: Ints,
    rv_var: Ints,
    dl_start: Ints,
    dl_row: Ints,
    def_var: Ints,
    objective_row: int,
    var_cell: Ints,
) -> tuple[Ints, Ints]:
    """Per entry of the objective row, the cells its variable depends on (CSR)."""
    definition_of = {int(v): j for j, v in enumerate(def_var)}
    reached: dict[int, frozenset[int] | None] = {}

    def cells(v: int) -> frozenset[int] | None:
        if var_cell[v] >= 0:
            return frozenset((int(var_cell[v]),))
        j = definition_of.get(v)
        if j is None:
            return frozenset()
        if j in reached:
            return reached[j]
        found: set[int] = set()
        for row in dl_row[dl_start[j] : dl_start[j + 1]]:
            for u in rv_var[rv_start[row] : rv_start[row + 1]]:
                more = cells(int(u))
                if more is None:
                    reached[j] = None
                    return None
                found |= more
                if len(found) > MOST_CELLS:
                    reached[j] = None
                    return None
        reached[j] = frozenset(found)
        return reached[j]

    start = [0]
    flat: list[int] = []
    for v in rv_var[rv_start[objective_row] : rv_start[objective_row + 1]]:
        flat.extend(sorted(cells(int(v)) or ()))
        start.append(len(flat))
    return np.asarray(start, dtype=np.int64), np.asarray(flat, dtype=np.int64)
