"""Readiness (bento.health) against real stores and queues: reachable ones are ready, a
database or a queue nobody answers for is not, and the probe never raises, never runs
two checks at once and keeps its answer for its time to live."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from starlette.testclient import TestClient

from bento.api import create_app
from bento.health import Health, Readiness, check, check_app
from bento.runtime import open_queue
from bento.settings import Settings
from bento.store import Store
from tests.bento.processes import free_port


def sqlite_queue(tmp_path: Path) -> object:
    return open_queue(Settings(jobs_db_path=str(tmp_path / "jobs.db")))


def test_a_reachable_store_and_embedded_queue_are_ready(store: Store, tmp_path: Path) -> None:
    assert check(store, sqlite_queue(tmp_path)) == Health()


def test_a_reachable_redis_queue_is_ready(tmp_path: Path, redis_server: str) -> None:
    with Store(f"sqlite:///{tmp_path / 'store.db'}") as store:
        queue = open_queue(Settings(jobs_redis_url=redis_server))
        assert check(store, queue).ok


def test_an_unreachable_database_is_not_ready(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nowhere"
    with Store(url) as store:
        health = check(store, sqlite_queue(tmp_path))
    assert not health.ok
    assert [problem.split(":")[0] for problem in health.problems] == ["database"]


def test_an_unreachable_redis_queue_is_not_ready(tmp_path: Path) -> None:
    queue = open_queue(Settings(jobs_redis_url=f"redis://127.0.0.1:{free_port()}/0"))
    with Store(f"sqlite:///{tmp_path / 'store.db'}") as store:
        health = check(store, queue)
    assert [problem.split(":")[0] for problem in health.problems] == ["job queue"]


def test_an_embedded_queue_whose_file_is_gone_is_not_ready(tmp_path: Path) -> None:
    queue = sqlite_queue(tmp_path)
    (tmp_path / "jobs.db").unlink()
    with Store(f"sqlite:///{tmp_path / 'store.db'}") as store:
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
