"""Who gets the core: the searches that improve the roster share it by measured gain.

On two cores the full-model solve keeps one; the compiled local search and the
neighbourhood search both want the other. Which is better depends on the request (the
local search on generated requests with many soft terms, the neighbourhood search on
Curtois & Qu's tight hard rules: benchmarks/docs/local.md), and changes as the search
goes on. So each records, after each step, how long it worked and how much cost it
removed; over the last window, the one removing less per second of its own work yields
(:meth:`Turns.pause`): it sleeps so that it runs its :data:`YIELDING_DUTY` of the time,
which keeps it measured, and the other has the core. The neighbourhood search keeps more
than the local search: the local search gains fast from a poor roster, and a core taken
from the neighbourhood search early cost Curtois & Qu 8 (benchmarks/docs/local.md).
"""

from __future__ import annotations

import threading
import time
from collections import deque

WINDOW_SECONDS = 2.0  # the gains that count: at least this recent, or ...
WINDOW_SHARE = 0.25  # ... this share of the time searched, if longer
YIELDING_DUTY = {"local": 0.2, "neighbourhood": 0.5}  # what the slower search keeps


class Turns:
    """The steps of each search (when, seconds worked, cost removed), and the verdict."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self._lock = threading.Lock()
        self._started = time.perf_counter()
        self._steps: dict[str, deque[tuple[float, float, float]]] = {n: deque() for n in names}

    def record(self, name: str, seconds: float, gain: float) -> None:
        with self._lock:
            self._steps[name].append((time.perf_counter(), seconds, max(0.0, gain)))

    def rate(self, name: str, now: float | None = None) -> float | None:
        """Cost removed per second worked over the window; None before any step in it."""
        now = time.perf_counter() if now is None else now
        window = max(WINDOW_SECONDS, WINDOW_SHARE * (now - self._started))
        with self._lock:
            steps = self._steps[name]
            while steps and steps[0][0] < now - window:
                steps.popleft()
            worked = sum(s for _, s, _ in steps)
            gained = sum(g for _, _, g in steps)
        return None if worked <= 0 else gained / worked

    def pause(self, name: str, spent: float) -> float:
        """How long ``name`` should sleep after a step of ``spent`` seconds: 0 unless
        another search removes more cost per second than it does."""
        now = time.perf_counter()
        mine = self.rate(name, now)
        if mine is None:
            return 0.0
        others = [r for n in self._steps if n != name and (r := self.rate(n, now)) is not None]
        if not others or mine >= max(others):
            return 0.0
        return spent * (1 / YIELDING_DUTY.get(name, 0.2) - 1)
