"""The store and the solver pool, opened from the settings: the service and a separate
job consumer open them the same way."""

from __future__ import annotations

from bento.settings import Settings
from bento.store import Store
from bento.workers import SolvePool


def open_store(settings: Settings) -> Store:
    """The database of the settings (else DATABASE_URL, else the SQLite default), with
    its tables created or upgraded."""
    store = Store(settings.database_url) if settings.database_url else Store.from_env()
    store.migrate()
    return store


def open_pool(settings: Settings) -> SolvePool:
    """The worker processes that run solves, with their memory cap and CP-SAT workers."""
    return SolvePool(settings.solve_processes, settings.solver_memory_mb, settings.cp_sat_workers)
