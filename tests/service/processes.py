"""Helpers for tests that run real processes: a free loopback port, a huey consumer, a
`bentoml serve` in a session of its own and the processes below it, and the admin
reconciliation a crash test ends with.

Every served test starts its server here (:func:`served`, or :func:`start_serve` and
:func:`wait_serving` for one that restarts it), so each runs with the same environment
rules (one CP-SAT worker: the suite refuses multi-worker solves) and leaves nothing
running behind it.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import psutil

ROOT = Path(__file__).parent.parent.parent
T = TypeVar("T")


# Ports a test serves on are drawn below Linux's ephemeral range (32768-60999): BentoML
# reserves its own control ports by binding port 0, which draws from that range, and once
# handed the port a test had just probed and released, its start failed on "Address
# already in use". Drawn at random, so parallel test workers rarely probe the same one.
SERVE_PORTS = range(20000, 32000)
_PICKER = random.SystemRandom()  # not the global one, which a test may seed


def free_port() -> int:
    """A loopback port nobody listens on right now, outside the ephemeral range."""
    for _ in range(200):
        port = _PICKER.choice(SERVE_PORTS)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free loopback port in {SERVE_PORTS}")


def start_huey_consumer(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`huey_consumer shiftsched.service.solving.jobs.huey` (one thread, one solver) with
    extra environment."""
    consumer = Path(sys.executable).parent / "huey_consumer"
    return subprocess.Popen(
        [
            str(consumer),
            "shiftsched.service.solving.jobs.huey",
            "--workers",
            "1",
            "--worker-type",
            "thread",
        ],
        cwd=ROOT,
        env={**os.environ, "SOLVE_PROCESSES": "1", "CP_SAT_WORKERS": "1", **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop(process: subprocess.Popen[bytes], timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL if the process has not exited within ``timeout`` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


STARTUP_SECONDS = 180  # bentoml serve on a busy machine; only a broken start reaches it
GONE_SECONDS = 120  # for processes told to stop; only a service that hangs reaches it
# Settings of the runner's own environment a served test must not inherit: each test
# names the database, payment schemes and limits it serves with.
NOT_INHERITED = ("PUBLIC_URL", "DATABASE_URL", "SIGN_IN_LIMIT_STORAGE", "X402_", "MPP_", "PAYMENT_")


def serve_environment(home: Path, port: int | None = None, **extra: str) -> dict[str, str]:
    """The environment of `PORT=<port> make serve` (a free port unless given) on a SQLite
    file under ``home``, with one solver process of one CP-SAT worker and BentoML's state
    kept in ``home``; ``extra`` overrides any of it (``DATABASE_URL`` included)."""
    return {
        **{name: value for name, value in os.environ.items() if not name.startswith(NOT_INHERITED)},
        "PORT": str(free_port() if port is None else port),
        "DATABASE_URL": f"sqlite:///{home / 'service.db'}",
        # The embedded queue's file and the billing outbox in ``home`` whatever the database:
        # on PostgreSQL they would otherwise be the repository's var/, shared by every test.
        "JOBS_DB_PATH": str(home / "jobs.db"),
        "SOLVE_PROCESSES": "1",
        "CP_SAT_WORKERS": "1",
        "BENTOML_HOME": str(home / "bentoml"),
        "BENTOML_DO_NOT_TRACK": "true",
        # Served tests send many calls from one address and key; the limits themselves
        # are tested in-process (tests/service/http/test_work_limits.py).
        "ANONYMOUS_RATE_LIMIT": "off",
        "KEY_RATE_LIMIT": "off",
        # Most served tests never ask for free work: its process starts on first use.
        "LIGHT_PRESTART": "false",
        **extra,
    }


def start_serve(
    env: dict[str, str], log: Path, command: list[str] | None = None
) -> subprocess.Popen[bytes]:
    """`bentoml serve` on ``env["PORT"]`` (or ``command``) in a session of its own, its
    output appended to ``log``: a test may then signal its whole process group."""
    bentoml = Path(sys.executable).parent / "bentoml"
    port = env["PORT"]
    argv = command or [
        str(bentoml), "serve", "shiftsched.service.app:ShiftScheduler",
        "--port", port, "--host", "127.0.0.1",
    ]  # fmt: skip
    with log.open("ab") as out:
        return subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def wait_serving(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    """Until ``url`` answers 200 (bounded); the server's log if it ends before."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert process.poll() is None, log.read_text(errors="replace")[-3000:]
        time.sleep(0.5)
    raise AssertionError(
        f"{url} did not answer within the start-up time:\n"
        + log.read_text(errors="replace")[-3000:]
    )


@dataclass(frozen=True)
class Server:
    """A started `bentoml serve`: its process, port and log."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api(self) -> str:
        return f"{self.root}/v1/public"


@contextmanager
def served(
    env: dict[str, str], log: Path, ready: str = "/readyz", timeout: float = GONE_SECONDS
) -> Iterator[Server]:
    """`bentoml serve` with ``env`` (from :func:`serve_environment`), ready once the path
    ``ready`` answers 200; at the end its whole process tree is SIGKILLed, so nothing of
    it outlives the test to hold the port or finish a request."""
    process = start_serve(env, log)
    try:
        server = Server(process, int(env["PORT"]), log)
        wait_serving(process, server.root + ready, log)
        yield server
    finally:
        kill_tree(process, timeout)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (its worker and the worker's solver processes)."""
    return [child.pid for child in psutil.Process(pid).children(recursive=True)]


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not reaped, counts as gone)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def port_answers(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def wait_all_gone(pids: list[int], port: int) -> None:
    """Until none of ``pids`` runs and nothing answers on ``port`` (bounded)."""
    deadline = time.monotonic() + GONE_SECONDS
    while time.monotonic() < deadline:
        if not any(alive(pid) for pid in pids) and not port_answers(port):
            return
        time.sleep(0.2)
    survivors = [pid for pid in pids if alive(pid)]
    raise AssertionError(f"still running: {survivors}; port {port} answers: {port_answers(port)}")


def kill_all(pids: list[int]) -> None:
    """SIGKILL whatever of ``pids`` still runs (a test's clean-up)."""
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            psutil.Process(pid).kill()


def kill_tree(process: subprocess.Popen[bytes], timeout: float = GONE_SECONDS) -> None:
    """SIGKILL ``process`` and every process below it at once, as a crash of the host
    would: nothing gets to settle anything. Descendants are found by parent (psutil), so
    the worker is found though it runs in a session of its own. Returns once all are gone
    (bounded by ``timeout``)."""
    if process.poll() is not None:
        return  # its children, if any are left, belong to init now
    victims = [psutil.Process(process.pid)]
    with contextlib.suppress(psutil.NoSuchProcess):
        victims += victims[0].children(recursive=True)
    for victim in victims:
        with contextlib.suppress(psutil.NoSuchProcess):
            victim.kill()
    process.wait(timeout)
    _, survivors = psutil.wait_procs(victims[1:], timeout=timeout)
    survivors = [victim for victim in survivors if alive(victim.pid)]
    assert not survivors, f"outlived SIGKILL: {[victim.pid for victim in survivors]}"


def reconcile(database_url: str) -> dict[str, Any]:
    """``python -m shiftsched.service.ops.admin reconcile`` in a process of its own, as an operator
    runs it: exit 0 and a consistent ledger asserted; its report."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "shiftsched.service.ops.admin",
            "--database-url",
            database_url,
            "reconcile",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["ok"] is True and report["violations"] == {}
    return report


def wait_until(what: str, check: Callable[[], T | None], seconds: float) -> T:
    """Poll ``check`` until it returns something true, and return that; a failure naming
    ``what`` after ``seconds``, a bound only a broken system reaches."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError(f"never happened within {seconds} s: {what}")
