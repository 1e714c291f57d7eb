"""The graceful stop's steps on a real solver pool (shiftsched.service.solving.stopping): no new
solve once it begins, a running solve that ends within the grace is delivered, one still running
when the grace ends is cut off (SolverLost, ``stopping``), and a second stop ends the grace.

Tasks hold their process until the test releases them, so the outcomes follow the order
of events, never the machine's speed; tests/service/solving/test_stopping.py stops a served one.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from shiftsched.service.failures import SolverLost
from shiftsched.service.solving.stopping import GracefulStop
from shiftsched.service.solving.workers import SolvePool
from tests.service.pool_support import LONG_SECONDS, Background

pytestmark = pytest.mark.slow  # a real solver pool, stopped within and past its grace


@pytest.fixture
def pool() -> Iterator[SolvePool]:
    opened = SolvePool(processes=1, memory_mb=0, cp_sat_workers=1)
    yield opened
    opened.close()


def test_a_stop_refuses_new_solves_and_stops_the_consumer_taking_jobs(pool: SolvePool) -> None:
    told: list[str] = []
    stop = GracefulStop(pool, lambda: told.append("no new jobs"), grace_seconds=LONG_SECONDS)
    assert not stop.begun
    assert stop.begin()
    assert stop.begun and told == ["no new jobs"]
    with pytest.raises(SolverLost, match="stopping") as refused:
        pool.run(os.getpid, (), expected_seconds=1)
    assert refused.value.stopping and refused.value.retry_after_seconds >= 1


def test_a_solve_that_ends_within_the_grace_is_delivered(pool: SolvePool, tmp_path: Path) -> None:
    held = Background(pool, tmp_path)
    held.wait_started()
    stop = GracefulStop(pool, lambda: None, grace_seconds=LONG_SECONDS)
    stop.begin()

    async def drain_while_it_ends() -> None:
        draining = asyncio.create_task(stop.drain())
        await asyncio.sleep(0)  # the drain is under way, the solve still running
        assert not draining.done()
        held.release()
        await asyncio.wait_for(draining, LONG_SECONDS)

    asyncio.run(drain_while_it_ends())
    assert held.result() == "done"


def test_a_second_stop_ends_the_grace_and_cuts_off_what_runs(
    pool: SolvePool, tmp_path: Path
) -> None:
    held = Background(pool, tmp_path)
    held.wait_started()
    stop = GracefulStop(pool, lambda: None, grace_seconds=LONG_SECONDS)
    stop.begin()

    async def drain_then_stop_again() -> None:
        draining = asyncio.create_task(stop.drain())
        await asyncio.sleep(0)
        assert not stop.begin()  # not a new stop: the end of this one's grace
        await asyncio.wait_for(draining, LONG_SECONDS)

    asyncio.run(drain_then_stop_again())
    cut_off = held.result()
    assert isinstance(cut_off, SolverLost) and cut_off.stopping


def test_a_grace_that_runs_out_cuts_off_what_runs(pool: SolvePool, tmp_path: Path) -> None:
    held = Background(pool, tmp_path)
    held.wait_started()
    stop = GracefulStop(pool, lambda: None, grace_seconds=0)
    stop.begin()
    asyncio.run(asyncio.wait_for(stop.drain(), LONG_SECONDS))
    cut_off = held.result()
    assert isinstance(cut_off, SolverLost) and cut_off.stopping
