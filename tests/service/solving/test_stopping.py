"""Stopping the served service, gently and not: `bentoml serve` (and `make serve`) in a
session of its own, driven over loopback HTTP and signalled like an operator, a service
manager or the out-of-memory killer would.

- SIGTERM: /readyz turns 503 at once, a new solve is refused with 503 and Retry-After,
  a running synchronous solve finishes within the grace and is charged; whatever still
  runs when the grace ends (here: a second SIGTERM ends it) is answered 503 with
  Retry-After, a queued job ends ``interrupted``, and nothing stays reserved.
- SIGKILL of the supervisor, or of its whole process group: no process of the server
  survives, and nothing answers on the port.
- SIGTERM to `make serve`: the same.
- The SQLite file deleted while serving: not ready, every solve 503, no new file.

Every wait polls with a generous bound; the solves' time limits only order events with
margins of many seconds (a 10 s solve ends long before a 30 s one).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import sqlalchemy as sa

from shiftsched.service.store import Store, ledger
from tests.factories import minimal_request_dict
from tests.service.processes import (
    GONE_SECONDS,
    ROOT,
    descendants,
    free_port,
    kill_all,
    serve_environment,
    start_serve,
    wait_all_gone,
    wait_serving,
    wait_until,
)

pytestmark = pytest.mark.slow  # serves in processes of its own and stops them

KEY = "sk_test_" + "f" * 64
HEADERS = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"}
BUSY_CPU_SECONDS = 0.5  # CPU a solver process spends only while it solves
# Never proven optimal: each solve lasts its whole time limit unless it is cut off.
SLOW: dict[str, Any] = json.loads((ROOT / "datasets" / "factory_three_shifts.json").read_text())


def slow(seconds: int) -> str:
    return json.dumps({**SLOW, "options": {"solver_timeout_seconds": seconds}})


class Served:
    """One `bentoml serve` under test, and every process below it."""

    def __init__(self, home: Path, **extra: str) -> None:
        self.home = home
        self.port = free_port()
        self.root = f"http://127.0.0.1:{self.port}"
        self.api = f"{self.root}/v1/public"
        self.env = serve_environment(home, self.port, DEMO_API_KEY=KEY, **extra)
        self.url = self.env["DATABASE_URL"]
        self.process: subprocess.Popen[bytes] | None = None
        self.seen: list[int] = []

    def start(self, command: list[str] | None = None) -> subprocess.Popen[bytes]:
        self.process = start_serve(self.env, self.home / "serve.log", command)
        wait_serving(self.process, f"{self.root}/readyz", self.home / "serve.log")
        self.seen = self.pids()  # to clean up after, whatever the test killed
        return self.process

    def pids(self) -> list[int]:
        assert self.process is not None
        return descendants(self.process.pid)

    def worker(self) -> int:
        [worker] = [pid for pid in self.pids() if "_bentoml_impl.worker" in _cmdline(pid)]
        return worker

    def solvers(self) -> list[int]:
        """The solver processes: spawned children at the default CPU priority (the light
        processes, spawned too, run at a lower one: shiftsched.service.solving.light)."""
        return [
            pid
            for pid in descendants(self.worker())
            if "spawn_main" in _cmdline(pid) and _niceness(pid) == 0
        ]

    def log(self) -> str:
        return (self.home / "serve.log").read_text(errors="replace")[-4000:]

    def close(self) -> None:
        if self.process is None:
            return
        pids = [self.process.pid, *self.seen, *_quietly(self.pids)]
        kill_all(pids)
        self.process.wait(GONE_SECONDS)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = Served(tmp_path)
    yield server
    server.close()


def _cmdline(pid: int) -> str:
    try:
        return " ".join(psutil.Process(pid).cmdline())
    except psutil.NoSuchProcess:
        return ""


def _niceness(pid: int) -> int | None:
    try:
        return int(psutil.Process(pid).nice())
    except psutil.NoSuchProcess:
        return None


def _quietly(pids: Any) -> list[int]:
    try:
        return list(pids())
    except (psutil.NoSuchProcess, ValueError, AssertionError):
        return []


def cpu_seconds(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def wait_idle(pids: list[int]) -> None:
    """Until no solver process uses CPU for a second: each has imported the engine and
    waits for work (bounded)."""
    deadline = time.monotonic() + GONE_SECONDS
    while time.monotonic() < deadline:
        before = {pid: cpu_seconds(pid) for pid in pids}
        time.sleep(1.0)
        if all(cpu_seconds(pid) == before[pid] for pid in pids):
            return
    raise AssertionError("the solver processes never went idle")


def wait_busy(pids: list[int], idle: dict[int, float]) -> None:
    """Until every solver process is seen solving (bounded)."""
    deadline = time.monotonic() + GONE_SECONDS
    while time.monotonic() < deadline:
        if all(cpu_seconds(pid) - idle[pid] > BUSY_CPU_SECONDS for pid in pids):
            return
        time.sleep(0.1)
    raise AssertionError("the solves never started")


def post(url: str, body: str) -> httpx.Response:
    return httpx.post(url, content=body, headers=HEADERS, timeout=GONE_SECONDS)


class Call(threading.Thread):
    """One request in a thread of its own; ``answer`` once it came back."""

    def __init__(self, url: str, body: str) -> None:
        super().__init__()
        self.url, self.body = url, body
        self.answer: httpx.Response | None = None
        self.answered_at = 0.0
        self.start()

    def run(self) -> None:
        self.answer = post(self.url, self.body)
        self.answered_at = time.monotonic()

    def result(self) -> httpx.Response:
        self.join(GONE_SECONDS * 2)
        assert self.answer is not None, "no answer"
        return self.answer


def ready_status(root: str) -> int | None:
    try:
        return httpx.get(f"{root}/readyz", timeout=5).status_code
    except httpx.TransportError:
        return None


def assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"].endswith("/service-unavailable")
    assert int(response.headers["retry-after"]) >= 1
    assert "nothing was charged" in response.json()["detail"]


def test_sigterm_drains_then_cuts_off_with_503_and_interrupts_jobs(served: Served) -> None:
    # Three solver processes: two synchronous solves and one queued job at once.
    served.env.update(SOLVE_PROCESSES="3", JOBS_WORKERS="1", SHUTDOWN_GRACE_SECONDS="600")
    process = served.start()
    solvers = served.solvers()
    assert len(solvers) == 3
    wait_idle(solvers)
    idle = {pid: cpu_seconds(pid) for pid in solvers}

    queued = post(f"{served.api}/solve", slow(120))
    assert queued.status_code == 202, queued.text
    job_id = queued.json()["job_id"]
    short, long = Call(f"{served.api}/solve", slow(10)), Call(f"{served.api}/solve", slow(30))
    wait_busy(solvers, idle)

    process.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    wait_until("/readyz 503 while draining", lambda: ready_status(served.root) == 503, GONE_SECONDS)
    assert_unavailable(post(f"{served.api}/solve", json.dumps(minimal_request_dict())))

    finished = short.result()  # within the grace: delivered and charged
    assert finished.status_code == 200, finished.text
    assert finished.headers["x-units-consumed"] == "1"
    assert short.answered_at > signalled
    assert long.answer is None  # still solving

    os.kill(served.worker(), signal.SIGTERM)  # a second SIGTERM ends the grace now
    assert_unavailable(long.result())
    wait_all_gone([process.pid, *solvers], served.port)

    with Store(served.url) as store:
        job = store.jobs.find_job(job_id)
        assert job is not None
        assert (job.status, job.error_code) == ("failed", "interrupted")
        with store.db.read() as conn:
            states = conn.execute(sa.select(ledger.c.state)).scalars().all()
    # The short solve captured; the long one, the job and the refused one released.
    assert sorted(states) == ["captured", "released", "released", "released"]


@pytest.mark.parametrize("target", ["supervisor", "process group"])
def test_a_killed_server_leaves_no_process_and_frees_its_port(served: Served, target: str) -> None:
    process = served.start()
    pids = served.pids()
    assert served.worker() in pids and served.solvers()
    if target == "supervisor":
        process.kill()
    else:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(GONE_SECONDS)
    wait_all_gone(pids, served.port)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.skipif(
    not (ROOT / ".venv" / "bin" / "bentoml").exists(), reason="make serve runs .venv's bentoml"
)
def test_sigterm_to_make_serve_stops_the_server(served: Served) -> None:
    # -o: the virtual environment counts as up to date (the test does not install it).
    process = served.start(["make", "--no-print-directory", "-o", ".venv/.installed", "serve"])
    pids = served.pids()
    assert len(pids) >= 3  # bentoml serve, its worker, a solver process
    process.send_signal(signal.SIGTERM)  # make only: it must pass the stop on
    process.wait(GONE_SECONDS)
    wait_all_gone(pids, served.port)


def test_a_sqlite_file_deleted_while_serving_is_fatal(served: Served) -> None:
    served.start()
    body = json.dumps(minimal_request_dict())
    assert post(f"{served.api}/solve", body).status_code == 200
    database = served.home / "service.db"
    database.unlink()

    wait_until(
        "/readyz 503 without its database", lambda: ready_status(served.root) == 503, GONE_SECONDS
    )
    refused = post(f"{served.api}/solve", body)
    assert refused.status_code == 503, refused.text
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert "nothing was charged" in refused.json()["detail"]
    assert ready_status(served.root) == 503
    assert not database.exists(), "a new, empty database was created"
