"""Helpers for tests that run real processes: a free loopback port, a huey consumer."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

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
