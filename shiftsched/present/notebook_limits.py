"""How the notebooks solve: quickly for a person at the screen, or the same every run.

A person exploring gets up to two CP-SAT workers (the portfolio of
:mod:`shiftsched.solving.search`), which find good rosters sooner, but equally good rosters come
back in a different order from run to run. A notebook started with ``--work-limit W`` instead solves
on one worker with a fixed seed and stops after ``W`` deterministic seconds of CP-SAT work (or on
its proof, if sooner): its wall-clock limit is then only a backstop, of at least
:data:`BACKSTOP_SECONDS`, and its rosters are the same on any machine under any load.
Exports that must not change and the tests use that.
"""

from __future__ import annotations

from dataclasses import replace

from shiftsched.solving.cores import available_cores
from shiftsched.solving.solve import SolveLimits

INTERACTIVE_WORKERS = 2
SEED = 0
BACKSTOP_SECONDS = 60.0  # with a work limit: a wall clock only a broken solve reaches


def notebook_limits(
    seconds: float, work_limit: float = 0.0, base: SolveLimits | None = None
) -> SolveLimits:
    """Limits of a notebook's solve of at most ``seconds``; ``work_limit`` > 0: one worker,
    :data:`SEED` and that much deterministic work. ``base`` gives the other fields."""
    limits = base or SolveLimits()
    if work_limit <= 0:
        return replace(limits, time_limit_seconds=seconds, num_workers=notebook_workers())
    return replace(
        limits,
        time_limit_seconds=max(seconds, BACKSTOP_SECONDS),
        num_workers=1,
        random_seed=SEED,
        parameters={**limits.parameters, "max_deterministic_time": work_limit},
    )


def notebook_workers(work_limit: float = 0.0) -> int:
    """Workers of a notebook's solve or diagnosis: one when ``work_limit`` > 0."""
    return 1 if work_limit > 0 else min(INTERACTIVE_WORKERS, available_cores())
