"""Readiness (shiftsched.service.ops.health) against real stores and queues: reachable ones are
ready, a database or a queue nobody answers for is not, and the probe never raises, never runs
two checks at once and keeps its answer for its time to live."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from shiftsched.service.http.api import create_app
from shiftsched.service.ops.health import (
    Health,
    Readiness,
    check,
    check_app,
    stopping,
    store_problem,
)
from shiftsched.service.settings import Settings
from shiftsched.service.solving.runtime import open_queue
from shiftsched.service.store import Store, StoreUnavailable
from shiftsched.service.store.tables import write_probe
from tests.service.processes import free_port


def sqlite_queue(tmp_path: Path) -> object:
    return open_queue(Settings(jobs_db_path=str(tmp_path / "jobs.db")))


def sqlite_store(tmp_path: Path) -> Store:
    """A migrated store on a SQLite file (the service migrates before it serves)."""
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    store.db.migrate()
    return store


def test_a_reachable_store_and_embedded_queue_are_ready(store: Store, tmp_path: Path) -> None:
    assert check(store, sqlite_queue(tmp_path)) == Health()


def test_a_reachable_redis_queue_is_ready(tmp_path: Path, redis_server: str) -> None:
    with sqlite_store(tmp_path) as store:
        queue = open_queue(Settings(jobs_redis_url=redis_server))
        assert check(store, queue).ok


@pytest.mark.slow
def test_an_unreachable_database_is_not_ready(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nowhere"
    with Store(url) as store:
        health = check(store, sqlite_queue(tmp_path))
    assert not health.ok
    assert [problem.split(":")[0] for problem in health.problems] == ["database"]


def test_an_unreachable_redis_queue_is_not_ready(tmp_path: Path) -> None:
    queue = open_queue(Settings(jobs_redis_url=f"redis://127.0.0.1:{free_port()}/0"))
    with sqlite_store(tmp_path) as store:
        health = check(store, queue)
    assert [problem.split(":")[0] for problem in health.problems] == ["job queue"]


def test_an_embedded_queue_whose_file_is_gone_is_not_ready(tmp_path: Path) -> None:
    queue = sqlite_queue(tmp_path)
    (tmp_path / "jobs.db").unlink()
    with sqlite_store(tmp_path) as store:
        health = check(store, queue)
    assert [problem.split(":")[0] for problem in health.problems] == ["job queue"]
    assert not (tmp_path / "jobs.db").exists()  # the check never creates the file


def test_the_app_is_ready_only_while_its_lifespan_has_the_store_and_queue_open(
    tmp_path: Path,
) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'service.db'}", solve_processes=1, cp_sat_workers=1
    )
    app = create_app(settings)
    assert check_app(app).problems[0].startswith("starting")
    with TestClient(app):
        assert check_app(app) == Health()


def test_a_store_that_takes_no_write_is_not_ready(store: Store, tmp_path: Path) -> None:
    """Reads still answer, as on a full or read-only disk; the write probe does not."""
    queue = sqlite_queue(tmp_path)
    assert check(store, queue).ok
    with store.db.write() as conn:
        assert conn.execute(sa.select(write_probe.c.id)).scalar_one() == 1
    refuse_writes(store)
    with store.db.read() as conn:
        assert conn.execute(sa.text("SELECT 1")).scalar_one() == 1
    health = check(store, queue)
    assert [problem.split(":")[0] for problem in health.problems] == ["database"]


def refuse_writes(store: Store) -> None:
    """Every connection the store opens from now on refuses writes, as a database on a
    read-only disk does: SQLite's query_only, PostgreSQL's read-only transactions."""
    store.close()  # pooled connections are opened again, through the hook below
    engine = store.db.engine

    @sa.event.listens_for(engine, "connect")
    def read_only(dbapi_connection: Any, _record: Any) -> None:
        if store.db.postgres:
            dbapi_connection.execute("SET default_transaction_read_only = on")
            dbapi_connection.commit()
        else:
            dbapi_connection.execute("PRAGMA query_only = ON")


def test_a_sqlite_store_on_a_full_disk_is_not_ready(tmp_path: Path) -> None:
    """SQLite may take a small write into room it already has on a full disk: the free
    space beside the file is checked too (here against more than any disk has free)."""
    with sqlite_store(tmp_path) as store:
        assert store_problem(store) is None
        problem = store_problem(store, min_free_bytes=2**62)
    assert problem is not None and "disk is full" in problem


def test_a_sqlite_file_deleted_while_serving_is_not_ready_and_never_recreated(
    tmp_path: Path,
) -> None:
    queue = sqlite_queue(tmp_path)
    with sqlite_store(tmp_path) as store:
        account = store.accounts.create_account("Acme")
        assert check(store, queue).ok
        (tmp_path / "store.db").unlink()
        health = check(store, queue)
        assert [problem.split(":")[0] for problem in health.problems] == ["database"]
        assert "deleted or replaced" in health.problems[0]
        with pytest.raises(StoreUnavailable, match="deleted or replaced"):
            store.accounts.get_account(account.id)  # not from the deleted file, still open
        with pytest.raises(StoreUnavailable):
            store.db.migrate()  # not even a restart of the schema creates it again
        # Another process opening the same URL (a solver process) creates nothing either.
        with Store(f"sqlite:///{tmp_path / 'store.db'}") as other, pytest.raises(StoreUnavailable):
            other.accounts.get_account(account.id)
    assert not (tmp_path / "store.db").exists()


def test_a_sqlite_file_replaced_while_serving_is_not_ready(tmp_path: Path) -> None:
    with sqlite_store(tmp_path) as store:
        store.accounts.create_account("Acme")
        (tmp_path / "store.db").rename(tmp_path / "moved.db")
        (tmp_path / "elsewhere").mkdir()
        with sqlite_store(tmp_path / "elsewhere") as fresh:
            fresh.accounts.create_account("Other")
        (tmp_path / "elsewhere" / "store.db").rename(tmp_path / "store.db")
        assert "deleted or replaced" in (store_problem(store) or "")


def test_a_stopping_app_is_not_ready(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'service.db'}", solve_processes=1, cp_sat_workers=1
    )
    app = create_app(settings)
    with TestClient(app):
        assert not stopping(app)
        app.state.stop.begin()
        assert stopping(app)
        assert check_app(app).problems[0].startswith("stopping")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_answer_is_kept_for_its_time_to_live() -> None:
    clock, answers = Clock(), [Health(), Health(("database: down",))]
    checks: list[Health] = []

    def next_answer() -> Health:
        checks.append(answers[len(checks)])
        return checks[-1]

    readiness = Readiness(next_answer, ttl=1.0, clock=clock)

    async def probe() -> bool:
        return await readiness.ready()

    assert asyncio.run(probe()) is True
    clock.now = 0.9
    assert asyncio.run(probe()) is True  # the kept answer: no second check
    assert len(checks) == 1
    clock.now = 1.0
    assert asyncio.run(probe()) is False
    assert len(checks) == 2


def test_a_check_that_raises_means_not_ready() -> None:
    def broken() -> Health:
        raise RuntimeError("the app has not started")

    readiness = Readiness(broken)
    health = asyncio.run(readiness.health())
    assert not health.ok
    assert "the app has not started" in health.problems[0]


def test_a_hung_check_answers_not_ready_and_is_never_run_twice_at_once() -> None:
    release, started = threading.Event(), threading.Event()
    calls: list[int] = []

    def hung() -> Health:
        calls.append(1)
        started.set()
        release.wait()
        return Health()

    readiness = Readiness(hung, ttl=0.0, timeout=0.05)

    async def storm() -> list[bool]:
        return list(await asyncio.gather(*(readiness.ready() for _ in range(20))))

    try:
        assert asyncio.run(storm()) == [False] * 20
        assert started.wait(30)
        assert asyncio.run(storm()) == [False] * 20  # still the one check, still hung
        assert len(calls) == 1
    finally:
        release.set()
