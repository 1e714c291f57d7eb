"""The one way async handlers call blocking code: the store, identity, password hashing,
the job queue.

Why: SQLAlchemy, argon2 and the Redis client block the calling thread; run on the event
loop they would stall every request in the process. Each call runs in a worker thread
of anyio's default limiter, and the handler awaits it; exceptions (``StoreUnavailable``
among them) reach the handler unchanged. Solves are not run here: they wait in their
own line (``shiftsched.service.solving.outcome``), so a long queue of solves never starves a
sign-in.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import ParamSpec, TypeVar

import anyio

P = ParamSpec("P")
T = TypeVar("T")


async def in_thread(call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``call(*args, **kwargs)`` in a worker thread; the result once it returns."""
    return await anyio.to_thread.run_sync(partial(call, *args, **kwargs))
