"""The composition root: settings, store, solve pool and job queue, opened one way for
both the web service (its lifespan) and a separate job consumer (``make consumer``).

A consumer process opens nothing at import: huey_consumer imports
``shiftsched.service.solving.jobs`` to find the queue, and the store and pool open on the first task
(:func:`open_runtime`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from huey import RedisHuey, SqliteHuey
from sqlalchemy.engine import make_url

from shiftsched.service.settings import Settings
from shiftsched.service.solving.workers import SolvePool
from shiftsched.service.store import Store

QUEUE_NAME: Final = "shiftsched-jobs"
JOBS_DB_NAME: Final = "jobs.db"


@dataclass(frozen=True)
class Runtime:
    """What serving or solving a job needs: the store, the solve pool and the settings."""

    store: Store
    pool: SolvePool
    settings: Settings


def open_runtime(settings: Settings) -> Runtime:
    """The store (migrated) and the solve pool of ``settings``."""
    return Runtime(open_store(settings), open_pool(settings), settings)


def open_store(settings: Settings) -> Store:
    """The database of the settings (else DATABASE_URL, else the SQLite default), with
    its tables created or upgraded."""
    store = Store(settings.database_url) if settings.database_url else Store.from_env()
    store.db.migrate()
    return store


def open_pool(settings: Settings) -> SolvePool:
    """The worker processes that run solves, with their memory cap and CP-SAT workers."""
    return SolvePool(settings.solve_processes, settings.solver_memory_mb, settings.cp_sat_workers)


def open_queue(settings: Settings) -> Any:
    """The job queue's backend: RedisHuey when JOBS_REDIS_URL is set, else SqliteHuey on
    a local file (:func:`jobs_db_path`)."""
    if settings.jobs_redis_url:
        return RedisHuey(QUEUE_NAME, url=settings.jobs_redis_url, results=False)
    path = jobs_db_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    return SqliteHuey(QUEUE_NAME, filename=str(path), results=False)


def jobs_db_path(settings: Settings) -> Path:
    """The embedded queue's file: JOBS_DB_PATH, else beside the SQLite database, else var/."""
    if settings.jobs_db_path:
        return Path(settings.jobs_db_path)
    if settings.database_url:
        url = make_url(settings.database_url)
        if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
            return Path(str(url.database)).parent / JOBS_DB_NAME
    return Path.cwd() / "var" / JOBS_DB_NAME
