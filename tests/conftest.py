"""Settings for the whole suite.

Hypothesis fails an example that runs past its deadline (200 ms by default), so a busy
machine could fail a test the code passes; no test here is about how fast an example
runs, so there is no deadline.

No test may depend on how fast the machine is, and a solve's roster depends on it in two
ways; both are refused here on every run, not only on the run that happens to be slow:

- More than one CP-SAT worker: equally good rosters come back in a different order from
  run to run. The engine refuses such a solve while ``SHIFTSCHED_TEST_GUARD`` is set
  (:mod:`shiftsched.solving.suite_guard`); it is set below, at import, so the services, solver
  pools, command lines and notebooks the suite starts inherit it. In this process every
  CP-SAT solve, a test's own included, must also run one worker (CP-SAT's default, 0,
  is every core). A test that asserts only what holds for any roster is marked
  ``multi_worker``.
- A wall-clock limit short enough to end the search, with no deterministic limit
  (CP-SAT's ``max_deterministic_time``): where the search got to by then depends on the
  load. In this process, a solve with a limit under :data:`SHORTEST_BACKSTOP_SECONDS`
  and no deterministic limit fails; a test about the limit itself is marked
  ``wall_clock``. Services the suite starts are not held to this, since a request's own
  short limit (one that must end in 504) is what some of them test.

The checks are installed once, at import; a marker widens what they allow for its test
(and for what the test starts) through the guard's variable. A fixture wider than one
test is held to the rules of the test that first sets it up.

The fast lane (``make test-fast``) leaves out what starts a server or a browser, builds
the Bento or is marked ``slow``. The server marks come from the fixtures, here, so a new
test is sorted by what it uses: a test that needs ``postgres_server`` (also through the
``postgresql`` parameter of the backend fixtures, ``tests.service.conftest.BACKENDS``) is
marked ``postgres``, ``redis_server`` ``redis``, ``browser_loop`` ``browser``. A test
that reaches one of these fixtures some other way without its mark fails, rather than
slowing the lane unseen. ``bento_build``, the screenshots' ``browser`` and ``slow`` (a
second or more) are marked by hand.
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Generator
from typing import Any

import pytest
from hypothesis import settings
from ortools.sat.python import cp_model

from shiftsched.solving.solve import SolveLimits
from shiftsched.solving.suite_guard import (
    ALLOW_MULTI_WORKER,
    VARIABLE,
    TimingDependentSolve,
    allowances,
)

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

# Before any fixture starts a process: every process of the suite inherits it.
os.environ[VARIABLE] = "on"

# A wall-clock limit at least this long is a backstop that only a broken solve reaches.
SHORTEST_BACKSTOP_SECONDS = 30.0
ALLOW_WALL_CLOCK = "wall_clock"  # a word of the guard's value, in this process only
MARKERS = (ALLOW_MULTI_WORKER, ALLOW_WALL_CLOCK)  # each marker allows its own word
# The fixtures that start a server or a browser, and the mark that keeps their tests out
# of the fast lane.
SERVER_FIXTURES = {
    "postgres_server": "postgres",
    "redis_server": "redis",
    "browser_loop": "browser",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by the servers its fixtures start."""
    for item in items:
        used = getattr(item, "fixturenames", ())
        for fixture, marker in SERVER_FIXTURES.items():
            if fixture in used:
                item.add_marker(marker)


class UnmarkedServers:
    """Fails a test that starts a server without its mark (one that asks for the fixture by
    ``request.getfixturevalue``): unmarked, it would run in the fast lane.

    A plugin rather than hooks of this file: a session-wide fixture is set up through the
    session's hooks, which leave out the hooks of conftest files below the root. It fails
    the test at its teardown, once the fixture is in place: failing the setup itself
    would leave the fixture half set up for the tests after it."""

    def __init__(self) -> None:
        self.running: pytest.Item | None = None
        self.started: list[str] = []  # server fixtures the running test set up unmarked

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        self.running, self.started = item, []
        try:
            return (yield)
        finally:
            self.running = None

    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[Any]) -> None:
        marker = SERVER_FIXTURES.get(fixturedef.argname)
        test = self.running
        if marker is not None and test is not None and test.get_closest_marker(marker) is None:
            self.started.append(fixturedef.argname)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, object, object]:
        result = yield
        if self.started:
            names = ", ".join(f"{f} but is not marked {SERVER_FIXTURES[f]}" for f in self.started)
            pytest.fail(
                f"{item.nodeid} starts {names}: mark it, or its parameter as "
                "tests.service.conftest.BACKENDS does",
                pytrace=False,
            )
        return result


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(UnmarkedServers(), "unmarked-servers")


@pytest.fixture(autouse=True)
def _solves_are_repeatable(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """What this test's markers allow, for the test and the processes it starts."""
    words = [word for word in MARKERS if request.node.get_closest_marker(word) is not None]
    if words:
        monkeypatch.setenv(VARIABLE, ",".join(["on", *words]))


def _allowed(word: str) -> bool:
    allowed = allowances()
    return allowed is None or word in allowed


def _one_worker_only(solve: Any) -> Any:
    """``CpSolver.solve``, refusing any number of workers but one."""

    def checked(solver: cp_model.CpSolver, *args: Any, **kwargs: Any) -> Any:
        workers = solver.parameters.num_workers
        if workers != 1 and not _allowed(ALLOW_MULTI_WORKER):
            raise TimingDependentSolve(
                f"a CP-SAT solve with num_workers={workers} (0: every core): its roster can "
                "differ from run to run. Set num_workers=1 and a fixed random_seed, or mark "
                "the test multi_worker and assert only what holds for any roster."
            )
        return solve(solver, *args, **kwargs)

    return checked


def _refusing_short_clock_limits(set_parameters: Any) -> Any:
    """``shiftsched.solving.solve._parameters`` (the CP-SAT parameter setup of every solve, re-plan
    and portfolio), which then refuses a short wall-clock limit with no work limit."""

    def checked(solver: Any, limits: SolveLimits, *args: Any, **kwargs: Any) -> None:
        set_parameters(solver, limits, *args, **kwargs)
        seconds = limits.time_limit_seconds
        work_limited = (  # a deterministic solve sets its work limit after this setup
            math.isfinite(solver.parameters.max_deterministic_time) or limits.deterministic
        )
        short = seconds is not None and seconds < SHORTEST_BACKSTOP_SECONDS
        if short and not work_limited and not _allowed(ALLOW_WALL_CLOCK):
            raise TimingDependentSolve(
                f"a solve limited only by {seconds} s of wall clock: on a busy machine the "
                "limit, not a proof, decides its roster. Give it a backstop of at least "
                f"{SHORTEST_BACKSTOP_SECONDS:g} s (it ends on its proof) or a deterministic "
                "limit (tests.audited.work_limited), or mark the test wall_clock."
            )

    return checked


# Installed once for the whole session (and in each xdist worker, which imports this).
cp_model.CpSolver.solve = _one_worker_only(cp_model.CpSolver.solve)  # type: ignore[method-assign]
# The module itself: as an attribute of the package, shiftsched.solving.solve is the function.
_solve_module = importlib.import_module("shiftsched.solving.solve")
_solve_module._parameters = _refusing_short_clock_limits(_solve_module._parameters)
