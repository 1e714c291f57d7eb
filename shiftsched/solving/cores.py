"""How many cores this process may use: one answer for the engine and the service.

Kept apart from shiftsched.solving.solve so that the service's settings can read it without
importing OR-Tools.
"""

from __future__ import annotations

import os


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
