"""How a solve can fail to run, apart from its result: the pool was busy, its process
was lost, or it overran.

Kept apart from the pool (``shiftsched.service.solving.workers``) so that whatever counts or answers
these failures (metrics, the HTTP face, the jobs) needs no import of the pool itself.
"""

from __future__ import annotations


class SolveFailed(Exception):
    """The worker died or missed its deadline; nothing was solved."""


class DeadlineMissed(SolveFailed):
    """The work overran its deadline and its process was stopped; nothing was delivered."""


class SolverBusy(Exception):
    """No solver process came free within the wait allowed; nothing was started."""

    def __init__(self, retry_after_seconds: int) -> None:
        super().__init__(f"every solver process is busy; retry in {retry_after_seconds} s")
        self.retry_after_seconds = retry_after_seconds


class SolverLost(SolveFailed, SolverBusy):
    """The solve's process was lost (killed from outside, or stopped because the service
    is stopping); nothing was delivered, and a retry is likely to work.

    Both a failed solve (metrics count it as an error) and, to every caller that answers,
    a busy pool: 503 with Retry-After, nothing charged, whichever way the caller pays.
    ``stopping`` tells the two apart: a queued job cut off by a stop ends ``interrupted``.
    """

    def __init__(self, reason: str, retry_after_seconds: int, *, stopping: bool = False) -> None:
        Exception.__init__(self, f"{reason}; retry in {retry_after_seconds} s")
        self.retry_after_seconds = retry_after_seconds
        self.stopping = stopping
