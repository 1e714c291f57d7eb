"""Stopping a solver from another thread when the caller asks for it.

Why a helper: a caller (a queued job whose client asked to stop it) sets a
``threading.Event`` at any moment, but CP-SAT's ``stop_search`` only reaches a solve that
is already running; one made a moment before ``solve`` starts is lost. The watcher
therefore repeats the stop every :data:`REPEAT_SECONDS` until the block ends, so a stop
set at any time ends the solve within that interval of its start.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

REPEAT_SECONDS: Final = 0.05


def requested(stop: threading.Event | None) -> bool:
    """Whether the caller asked to stop (no event: never)."""
    return stop is not None and stop.is_set()


@contextmanager
def stopping(stop: threading.Event | None, halt: Callable[[], None]) -> Iterator[None]:
    """Call ``halt`` (e.g. ``solver.stop_search``) once ``stop`` is set, while the block
    runs; nothing at all when there is no event."""
    if stop is None:
        yield
        return
    finished = threading.Event()

    def watch() -> None:
        while not finished.is_set():
            if stop.wait(REPEAT_SECONDS) and not finished.is_set():
                halt()
                finished.wait(REPEAT_SECONDS)

    watcher = threading.Thread(target=watch, name="solve-stop", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()
