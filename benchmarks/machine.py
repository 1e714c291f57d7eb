"""What a result was measured on: machine, software and source revision.

Solve times mean nothing without the CPU, the cores the process may use and the code
that ran, so every result file gets a sidecar JSON with these facts.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

from shiftsched.solving.cores import available_cores

ROOT = Path(__file__).resolve().parent.parent


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _version(package: str) -> str | None:
    try:
        return package_version(package)
    except PackageNotFoundError:
        return None


def load_average() -> list[float] | None:
    """1, 5 and 15 minute load: other work on the machine skews every time measured."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def git_revision() -> dict[str, Any]:
    """HEAD's commit and whether the working tree had uncommitted changes."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=True
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip()

    status = git("status", "--porcelain", "--untracked-files=no")
    return {
        "commit": git("rev-parse", "HEAD"),
        "dirty": bool(status) if status is not None else None,
    }


def machine_info() -> dict[str, Any]:
    return {
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "cores_available": available_cores(),
        "ram_gb": _ram_gb(),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "ortools": _version("ortools"),
        "polars": _version("polars"),
        "load_average": load_average(),
    }
