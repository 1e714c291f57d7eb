"""Refuse, inside the test suite only, a solve whose roster depends on timing.

With two or more CP-SAT workers (and the portfolio of :mod:`shiftsched.solving.search`) the workers
race: equally good rosters come back in a different order from run to run, so a second
solve of the same request need not return the first one's roster. A test that compares
two solves, or expects one particular roster, then passes alone and fails now and then
on a busy machine. One worker and a fixed seed make a solve repeatable.

The suite sets :data:`VARIABLE` in its own environment (``tests/conftest.py``), so every
process it starts inherits it: the services, the solver pools, the command line and the
notebooks run as scripts. The engine then refuses a multi-worker solve before it
searches, on every run, with :class:`TimingDependentSolve`; a test that asserts only what
holds for any roster opts in (the ``multi_worker`` marker sets ``multi_worker`` in the
value). Unset, as everywhere outside the suite, the check does nothing: the service, the
command line and the notebooks keep their workers.
"""

from __future__ import annotations

import os

VARIABLE = "SHIFTSCHED_TEST_GUARD"
ALLOW_MULTI_WORKER = "multi_worker"  # a word of the value: several workers are allowed


class TimingDependentSolve(RuntimeError):
    """A solve under the test guard whose roster could differ from run to run."""


def allowances() -> frozenset[str] | None:
    """The words of the guard's value (comma-separated); None when the guard is off."""
    value = os.environ.get(VARIABLE, "").strip()
    if not value or value == "off":
        return None
    return frozenset(word.strip() for word in value.split(",") if word.strip())


def check_workers(requested: int | None, workers: int) -> None:
    """Raise when the guard is on and several workers are not allowed, but the solve runs
    ``workers`` > 1, or ``requested`` None (every core: one worker on a one-core machine,
    several elsewhere, so such a test would fail on some machines only)."""
    allowed = allowances()
    if allowed is None or ALLOW_MULTI_WORKER in allowed:
        return
    if requested is not None and workers <= 1:
        return
    asked = "every available core" if requested is None else f"{workers} CP-SAT workers"
    raise TimingDependentSolve(
        f"a solve with {asked} under {VARIABLE}: its roster can differ from run to run. "
        "Solve with num_workers=1 and a fixed random_seed, or mark the test multi_worker "
        "and assert only what holds for any roster."
    )
