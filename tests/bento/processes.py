"""Helpers for tests that run real processes: a free loopback port, a huey consumer, a
`bentoml serve` in a session of its own and the processes below it."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).parent.parent.parent


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_huey_consumer(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`huey_consumer bento.jobs.huey` (one thread, one solver) with extra environment."""
    consumer = Path(sys.executable).parent / "huey_consumer"
    return subprocess.Popen(
        [str(consumer), "bento.jobs.huey", "--workers", "1", "--worker-type", "thread"],
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


def serve_environment(home: Path, port: int, **extra: str) -> dict[str, str]:
    """The environment of `PORT=<port> make serve` on a SQLite file under ``home``, with
    one CP-SAT worker per solve and BentoML's state kept in ``home``."""
    return {
        **{name: value for name, value in os.environ.items() if name != "PUBLIC_URL"},
        "PORT": str(port),
        "DATABASE_URL": f"sqlite:///{home / 'service.db'}",
        "CP_SAT_WORKERS": "1",
        "BENTOML_HOME": str(home / "bentoml"),
        "BENTOML_DO_NOT_TRACK": "true",
        **extra,
    }


def start_serve(
    home: Path, env: dict[str, str], command: list[str] | None = None
) -> subprocess.Popen[bytes]:
    """`bentoml serve` (or ``command``) in a session of its own, its output in
    ``home/serve.log``: a test may then signal its whole process group."""
    bentoml = Path(sys.executable).parent / "bentoml"
    port = env["PORT"]
    argv = command or [
        str(bentoml), "serve", "bento.service:ShiftScheduler",
        "--port", port, "--host", "127.0.0.1",
    ]  # fmt: skip
    with (home / "serve.log").open("ab") as log:
        return subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


def wait_serving(process: subprocess.Popen[bytes], root: str, home: Path) -> None:
    """Until the server at ``root`` answers /readyz 200 (bounded)."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{root}/readyz", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert process.poll() is None, (home / "serve.log").read_text()[-3000:]
        time.sleep(0.5)
    raise AssertionError("bentoml serve did not become ready within its start-up time")


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
