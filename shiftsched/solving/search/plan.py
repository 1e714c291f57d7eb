"""How a solve splits its workers (:func:`plan_for`) and how long each sub-solve of the
neighbourhood search may run (:func:`step_limit`).

The measurements behind both are in ``benchmarks/docs/search.md`` ("Search portfolio").
"""

from __future__ import annotations

from dataclasses import dataclass, field

FULL_LINEARIZATION = 2  # the full-model worker's LP: the bound the gap rests on
MAX_LINEARIZED_VARIABLES = 200_000  # above this, the stronger LP slows the first roster
STEP_SECONDS_SHARE = 1 / 60  # a sub-solve gets this share of the budget ...
STEP_SECONDS_RANGE = (0.5, 2.0)  # ... within these bounds
STEP_RAMP = 1 / 20  # ... and at most this share of the time the search has run ...
STEP_RAMP_FLOOR = 0.1  # ... but never less than this


@dataclass(frozen=True)
class Plan:
    """How a solve uses its workers: CP-SAT threads on the full model, and LNS threads."""

    full_workers: int
    neighbourhood_threads: int
    full_parameters: dict[str, object] = field(default_factory=dict)
    decomposition: bool = False  # prove bounds by column generation (shiftsched.solving.decompose)
    local_threads: int = 0  # compiled local search threads (shiftsched.solving.local)


def plan_for(workers: int, variables: int, hinted: bool = True) -> Plan:
    """The split of ``workers`` threads (see the module docstring for the measurements).

    One worker stays a plain CP-SAT solve, reproducible with a fixed seed. From two on,
    one thread runs the neighbourhood search, and the full-model solve keeps the rest; a
    lone full-model worker uses the stronger LP relaxation (CP-SAT's ``max_lp`` setting),
    which proves far better bounds on rosters than the default, unless the model is so
    large that solving its LP would delay the first roster. Eight or more full-model
    workers are CP-SAT's own portfolio; from 12 workers on, a second search thread runs.
    From two workers on, the compiled local search (``shiftsched.solving.local``) runs too,
    sharing the neighbourhood search's core by measured gain
    (``shiftsched.solving.search.turns``).

    ``hinted``: the model carries a complete, feasible hint, so CP-SAT's first roster is
    the hint itself. Without one, finding a first roster is a search of its own, which
    one worker with the stronger LP does far more slowly (a 120,000-size request: 11 s
    against 4 s): CP-SAT then keeps every worker, and the neighbourhood search, which
    waits for a roster anyway, joins as an extra thread once one exists.
    """
    if workers <= 1:
        return Plan(full_workers=1, neighbourhood_threads=0)
    threads = 2 if workers >= 12 else 1
    if not hinted:
        return Plan(
            full_workers=workers,
            neighbourhood_threads=threads,
            decomposition=True,
            local_threads=1,
        )
    full = workers - threads
    parameters: dict[str, object] = {}
    if full == 1 and variables <= MAX_LINEARIZED_VARIABLES:
        parameters["linearization_level"] = FULL_LINEARIZATION
    return Plan(
        full_workers=full,
        neighbourhood_threads=threads,
        full_parameters=parameters,
        decomposition=True,
        local_threads=1,
    )


def step_seconds(search_seconds: float | None) -> float:
    """The longest a sub-solve may run: a share of the budget, within bounds."""
    low, high = STEP_SECONDS_RANGE
    if search_seconds is None:
        return high
    return min(high, max(low, search_seconds * STEP_SECONDS_SHARE))


def step_limit(longest: float, searched: float, left: float) -> float:
    """The time limit of the next sub-solve, ``searched`` seconds into the search.

    Early on almost every sub-solve improves the roster, so many short ones beat a few
    long ones; later, improvements need larger neighbourhoods and longer sub-solves. The
    limit therefore ramps up with the time searched, from STEP_RAMP_FLOOR to ``longest``
    (:func:`step_seconds`). Measured side by side on 2 cores (benchmarks/docs/search.md,
    "Search portfolio"): Curtois 12 at 60 s 4,317 and 4,338 against 4,614 without it;
    on synthetic requests at 10 s, four of five better in the median and one worse.
    """
    return min(longest, max(STEP_RAMP_FLOOR, STEP_RAMP * searched), left)
