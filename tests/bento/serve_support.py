"""`bentoml serve` in a subprocess that a test can SIGKILL whole, as a lost host would.

Why not ``processes.stop``: that sends SIGTERM and waits. A crash test kills the server
and every process it started, whatever session they moved to (the worker runs in one
of its own), so nothing of it lives on to finish a request or hold the port.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
import pytest

from tests.bento.processes import ROOT, free_port

STARTUP_SECONDS = 180  # bentoml serve on a busy machine; only a broken start reaches it
WAIT_SECONDS = 120  # for killed processes to be gone; only a stuck kernel takes this long


@contextmanager
def served(env: dict[str, str], log: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`bentoml serve` on a free port, in a session of its own; killed at the end."""
    port = free_port()
    with log.open("a") as out:
        process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "bentoml"),
                "serve",
                "bento.service:ShiftScheduler",
                "--port",
                str(port),
                "--host",
                "127.0.0.1",
            ],
            cwd=ROOT,
            env={**env, "PORT": str(port)},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}/v1/public"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/openapi.json", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, log.read_text()[-2000:]
            time.sleep(0.5)
        else:
            pytest.fail("bentoml serve did not answer within its start-up time")
        yield process, base
    finally:
        kill_all(process)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux: /proc), whatever session it moved to."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_all(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the server and every process it started, as a lost host would."""
    if process.poll() is not None:
        return
    victims = [process.pid, *descendants(process.pid)]
    for pid in victims:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + WAIT_SECONDS
    while any(Path(f"/proc/{pid}").exists() for pid in victims[1:]):
        assert time.monotonic() < deadline, "a process of the server outlived SIGKILL"
        time.sleep(0.05)


def service_env(home: Path, database_url: str, **settings: str) -> dict[str, str]:
    """This process's environment without any payment or database setting, plus one
    solver process, a BentoML home under ``home``, the database and ``settings``."""
    keep = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("X402_", "MPP_", "PAYMENT_", "PUBLIC_URL", "DATABASE_URL"))
    }
    return {
        **keep,
        "DATABASE_URL": database_url,
        "SOLVE_PROCESSES": "1",
        "CP_SAT_WORKERS": "1",
        "BENTOML_HOME": str(home / "bentoml"),
        "BENTOML_DO_NOT_TRACK": "true",
        **settings,
    }
