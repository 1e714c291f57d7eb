"""Readiness: can this replica serve right now, i.e. write to its database and reach its
job queue, and is it not stopping?

Why beside BentoML's own probes: BentoML answers ``/readyz`` 200 as soon as the worker
has started, and asks the service's ``__is_ready__`` first (``shiftsched.service.app``); this
module is that answer. ``/livez`` stays BentoML's cheap answer with no I/O, so a database
outage takes a replica out of the load balancer without getting it restarted.

The check writes the store's one probe row (``Database.probe_write``): a database that
answers reads but takes no write (disk full, read-only, the SQLite file deleted) refuses
every solve, so it must not count as ready; on SQLite the free space beside the file is
checked too, since SQLite reuses the room it already has and may take a small write on
a full disk. The queue's backend gets a ping (Redis PING with short socket timeouts, or
opening SqliteHuey's file). A graceful stop (``shiftsched.service.solving.stopping``) makes the
replica not ready at once, without waiting for a check (:func:`stopping`). Probes may come often and
from many places, so :class:`Readiness` runs at most one check at a time, in a thread of its
own, keeps its answer for a second, and gives up waiting after a short timeout (answering
not ready); it never raises. A change of answer is logged once, with what failed.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import redis
from huey.storage import RedisStorage, SqliteStorage
from starlette.applications import Starlette

from shiftsched.service.store import Store

CACHE_SECONDS: Final = 1.0
"""How long an answer is kept: a probe storm costs at most one check a second."""
TIMEOUT_SECONDS: Final = 2.0
"""How long a probe waits for a check; longer counts as not ready."""
PING_TIMEOUT_SECONDS: Final = 1.0
MIN_FREE_BYTES: Final = 16 * 1024 * 1024
"""Below this much free space beside a SQLite file the replica is not ready: room for a
few of the largest records (a request body may be 1 MB) and the write-ahead log."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Health:
    """Whether every dependency answered, and what each one that did not said."""

    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def check_app(app: Starlette) -> Health:
    """The store and queue the public API's lifespan opened; not ready before it has,
    nor once a graceful stop has begun."""
    state = app.state
    if not hasattr(state, "store") or not hasattr(state, "jobs"):
        return Health(("starting: the store and the job queue are not open yet",))
    if stopping(app):
        return Health(("stopping: new solves are refused",))
    light = getattr(state, "light_pool", None)
    if light is not None and light.starting:
        return Health(("starting: the light processes are not up yet",))
    return check(state.store, state.jobs.huey)


def stopping(app: Starlette) -> bool:
    """Whether the public API's graceful stop has begun
    (``shiftsched.service.solving.stopping``)."""
    stop = getattr(app.state, "stop", None)
    return stop is not None and bool(stop.begun)


def check(store: Store, huey: Any) -> Health:
    """The store and the queue backend, each asked once; never raises."""
    problems = [p for p in (store_problem(store), queue_problem(huey)) if p is not None]
    return Health(tuple(problems))


def store_problem(store: Store, min_free_bytes: int = MIN_FREE_BYTES) -> str | None:
    """None when the store takes a write (and, on SQLite, has ``min_free_bytes`` free
    beside its file), else why not."""
    try:
        store.db.probe_write()
    except Exception as exc:
        return f"database: {exc}"
    path = store.db.sqlite_path
    if path is not None:
        try:
            free = shutil.disk_usage(path.parent).free
        except OSError as exc:
            return f"database: {exc}"
        if free < min_free_bytes:
            return f"database: the disk is full ({free:,} bytes free beside {path.name})"
    return None


def queue_problem(huey: Any) -> str | None:
    """None when the queue's backend answers (Redis PING, or SqliteHuey's file opened
    and read), else why not. Another backend has nothing to reach: None."""
    storage = getattr(huey, "storage", None)
    try:
        if isinstance(storage, RedisStorage):
            _ping_redis(storage)
        elif isinstance(storage, SqliteStorage):
            _open_sqlite(Path(storage.filename))
    except Exception as exc:
        return f"job queue: {exc}"
    return None


def _ping_redis(storage: RedisStorage) -> None:
    """PING on a fresh connection with short timeouts: huey's own connections may have
    none, and a PING to a host that drops packets would then wait forever."""
    pool = storage.conn.connection_pool
    kwargs = {
        **pool.connection_kwargs,
        "socket_connect_timeout": PING_TIMEOUT_SECONDS,
        "socket_timeout": PING_TIMEOUT_SECONDS,
    }
    probe = redis.ConnectionPool(connection_class=pool.connection_class, **kwargs)
    try:
        redis.Redis(connection_pool=probe).ping()
    finally:
        probe.disconnect()


def _open_sqlite(path: Path) -> None:
    """Open the existing file read-write (``mode=rw`` never creates one) and read it."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, timeout=1)
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    finally:
        conn.close()


class Readiness:
    """``check`` run at most once per ``ttl`` seconds and one at a time, waited for at most
    ``timeout`` seconds; :meth:`ready` never raises."""

    def __init__(
        self,
        check: Callable[[], Health],
        *,
        ttl: float = CACHE_SECONDS,
        timeout: float = TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._check = check
        self._ttl = ttl
        self._timeout = timeout
        self._clock = clock
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="readiness")
        self._running: Future[Health] | None = None
        self._last: tuple[float, Health] | None = None

    async def ready(self) -> bool:
        """True when the latest check found every dependency answering."""
        return (await self.health()).ok

    async def health(self) -> Health:
        """The latest check's answer, a fresh one when the last is older than ``ttl``."""
        last = self._last
        if last is not None and self._clock() - last[0] < self._ttl:
            return last[1]
        running = self._running
        if running is None or running.done():
            running = self._running = self._executor.submit(self._run)
        try:
            waited = asyncio.shield(asyncio.wrap_future(running))
            return await asyncio.wait_for(waited, self._timeout)
        except TimeoutError:
            return Health((f"the check took longer than {self._timeout:g} s",))

    def _run(self) -> Health:
        try:
            health = self._check()
        except Exception as exc:
            health = Health((f"the check failed: {exc!r}",))
        previous = self._last[1] if self._last is not None else Health()
        if health.ok != previous.ok:
            if health.ok:
                log.warning("ready again")
            else:
                log.warning("not ready: %s", "; ".join(health.problems))
        self._last = (self._clock(), health)
        return health
