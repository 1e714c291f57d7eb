"""Solver processes live and die with their pool (shiftsched.service.solving.lifeline,
shiftsched.service.solving.workers).

The pool is the real one (pebble processes); tasks hold their process until the test
releases them, and every wait for a process to end polls with a generous bound.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shiftsched.service.failures import SolverBusy, SolverLost
from shiftsched.service.solving.workers import LOST_RETRY_AFTER_SECONDS, SolvePool
from tests.service.pool_support import Background

pytestmark = pytest.mark.slow  # solver processes started and killed

ROOT = Path(__file__).parent.parent.parent.parent
GONE_SECONDS = 60.0  # a process told to go is gone long before; only a bug waits this long


def children() -> set[int]:
    return {child.pid for child in multiprocessing.active_children() if child.pid is not None}


OTHERS: set[int] = set()  # processes of pools other tests in this process keep open


@pytest.fixture
def pool() -> Iterator[SolvePool]:
    OTHERS.clear()
    OTHERS.update(children())
    opened = SolvePool(processes=1, memory_mb=0, cp_sat_workers=1)
    yield opened
    opened.close()


def solver_pids() -> list[int]:
    """The processes of the test's own pool."""
    return sorted(children() - OTHERS)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def wait_gone(pids: list[int]) -> list[int]:
    """The pids still alive once all are gone or the bound is reached."""
    deadline = time.monotonic() + GONE_SECONDS
    while time.monotonic() < deadline:
        if not [pid for pid in pids if alive(pid)]:
            return []
        time.sleep(0.1)
    return [pid for pid in pids if alive(pid)]


def test_a_sigterm_from_elsewhere_leaves_the_solve_to_finish(
    pool: SolvePool, tmp_path: Path
) -> None:
    """As BentoML's supervisor sends its stop to every child of the web worker: the
    solve goes on, its process stays, and the pool's owner decides."""
    held = Background(pool, tmp_path)
    held.wait_started()
    [pid] = solver_pids()
    subprocess.run(["kill", "-TERM", str(pid)], check=True)  # sent by another process
    held.release()
    assert held.result() == "done"
    assert alive(pid)


def test_a_process_killed_mid_solve_is_lost_and_answered_like_busy(
    pool: SolvePool, tmp_path: Path
) -> None:
    held = Background(pool, tmp_path)
    held.wait_started()
    [pid] = solver_pids()
    os.kill(pid, signal.SIGKILL)
    lost = held.result()
    assert isinstance(lost, SolverLost) and isinstance(lost, SolverBusy)
    assert not lost.stopping
    assert lost.retry_after_seconds == LOST_RETRY_AFTER_SECONDS
    assert "exit code -9" in str(lost)


def test_a_stop_refuses_new_solves_and_cuts_off_running_ones(
    pool: SolvePool, tmp_path: Path
) -> None:
    held = Background(pool, tmp_path)
    held.wait_started()
    [pid] = solver_pids()
    pool.refuse_new_solves()
    with pytest.raises(SolverLost, match="stopping") as refused:
        pool.run(os.getpid, (), expected_seconds=1)
    assert refused.value.stopping
    pool.stop_solving()
    cut_off = held.result()
    assert isinstance(cut_off, SolverLost) and cut_off.stopping
    assert wait_gone([pid]) == []  # the owner's SIGTERM ends the process at once


OWNER = """
import sys, time
from shiftsched.service.solving.workers import SolvePool
pool = SolvePool(processes=2, memory_mb=0, cp_sat_workers=1)
import multiprocessing
print(" ".join(str(child.pid) for child in multiprocessing.active_children()), flush=True)
time.sleep(600)
"""


def test_solver_processes_exit_when_their_owner_is_killed() -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert owner.stdout is not None
        pids = [int(pid) for pid in owner.stdout.readline().split()]
        assert len(pids) >= 2 and all(alive(pid) for pid in pids)
        owner.kill()
        owner.wait()
        assert wait_gone(pids) == []
    finally:
        owner.kill()
        owner.communicate()


PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1]], start_new_session=True)
print("child", child.pid, flush=True)
time.sleep(600)
"""
CHILD = """
import time
from shiftsched.service.solving import lifeline
assert lifeline.die_with_parent()
print("bound", flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_worker_in_a_session_of_its_own_dies_with_its_parent() -> None:
    """As BentoML's web worker does when its supervisor is killed outright."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, CHILD], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    child = 0
    try:
        assert parent.stdout is not None
        said = [parent.stdout.readline().split() for _ in range(2)]  # both write to it
        assert ["bound"] in said  # the child has asked to die with its parent
        [child] = [int(words[1]) for words in said if words[0] == "child"]
        parent.kill()
        parent.wait()
        assert wait_gone([child]) == []
    finally:
        parent.kill()
        parent.communicate()
        if child and alive(child):
            os.kill(child, signal.SIGKILL)
