"""Pool tasks a test holds and releases itself, so outcomes follow the order of events.

A held task keeps its solver process busy until the test creates its flag file; the
bounds here are backstops only, reached when something hangs.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from shiftsched.service.solving.workers import SolvePool

LONG_SECONDS = 120.0  # outlasts every wait and deadline below by far


def hold(release: str, value: str, started: str | None = None) -> str:
    """A pool task (module level, so a spawned process imports it): runs until released;
    creates the file ``started`` first, when given."""
    if started is not None:
        Path(started).touch()
    deadline = time.monotonic() + LONG_SECONDS
    while not Path(release).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


class Background:
    """A task holding a pool process until :meth:`release`, run from a thread."""

    def __init__(self, pool: SolvePool, folder: Path, expected: float = LONG_SECONDS) -> None:
        self.flag = folder / f"release-{id(self)}"
        self.started = folder / f"started-{id(self)}"
        self.outcome: Any = None
        self.thread = threading.Thread(target=self._run, args=(pool, expected))
        self.thread.start()

    def _run(self, pool: SolvePool, expected: float) -> None:
        try:
            self.outcome = pool.run(hold, (str(self.flag), "done", str(self.started)), expected)
        except Exception as exc:
            self.outcome = exc

    def wait_started(self) -> None:
        """Until the task runs in its process (bounded: fails loudly rather than hang)."""
        for _ in range(6000):
            if self.started.exists():
                return
            time.sleep(0.01)
        raise AssertionError("the task never started in its process")

    def release(self) -> None:
        self.flag.touch()

    def result(self) -> Any:
        self.thread.join(LONG_SECONDS * 2)
        assert not self.thread.is_alive()
        return self.outcome


def wait_until_running(pool: SolvePool, count: int) -> None:
    """Until ``count`` tasks hold a slot (bounded: fails loudly rather than hang)."""
    for _ in range(6000):
        if pool.running_count() >= count:
            return
        time.sleep(0.01)
    raise AssertionError(f"{count} task(s) never started")
