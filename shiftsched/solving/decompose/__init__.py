"""A per-employee decomposition: a proven bound on every roster, from rosters and prices.

The full CP-SAT model proves little on long horizons: its LP relaxation is weak where
demand is covered by many interchangeable employees. Splitting the problem by employee
is how the field proves optimality on rostering benchmarks: each employee's rules are
solved alone against prices on the demand rows (pricing), an LP over the rosters found so
far sets the prices (the master), and at every round the prices give a Lagrangian lower
bound on the whole objective.

- :mod:`shiftsched.solving.decompose.rows`: the demand rows that tie employees together, and
  their costs;
- :mod:`shiftsched.solving.decompose.capacity`: bounds from staff capacity, before any search;
- :mod:`shiftsched.solving.decompose.pricing`: one employee's cheapest roster at given prices
  (CP-SAT);
- :mod:`shiftsched.solving.decompose.labelling` and :mod:`shiftsched.solving.decompose.paths`: the
  same by a compiled shortest path over the days, the rules over weeks, months and the period
  priced in by multipliers (every rule of an employee but a diagnosis' gates);
- :mod:`shiftsched.solving.decompose.master`: the LP over rosters (GLOP);
- :mod:`shiftsched.solving.decompose.generation`: the loop, and the bound it proves each round;
- :mod:`shiftsched.solving.decompose.lagrangian`: the same bound by subgradient, no LP (where the
  master LP is too slow).
"""

from shiftsched.solving.decompose.capacity import capacity_bound
from shiftsched.solving.decompose.generation import ColumnGeneration, Generation
from shiftsched.solving.decompose.lagrangian import Lagrange, Lagrangian
from shiftsched.solving.decompose.rows import CoverRow, cover_rows

__all__ = [
    "ColumnGeneration",
    "CoverRow",
    "Generation",
    "Lagrange",
    "Lagrangian",
    "capacity_bound",
    "cover_rows",
]
