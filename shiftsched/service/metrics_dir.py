"""A Prometheus multiprocess directory of this instance's own.

BentoML points every worker at one directory in its home folder
(``~/bentoml/prometheus_multiproc_dir``) and empties it each time ``bentoml serve``
starts. Two instances on one host (two ports, a test beside a running service) therefore
share their counters, and each start deletes the other's. A worker started by BentoML
moves to a directory of its instance beside the shared one, keyed by the process that
supervises its workers (``~/bentoml/shiftsched-prometheus-<pid>``), before any metric of
the process exists (``shiftsched.service.metrics`` calls :func:`use_instance_dir`
before it creates its counters; BentoML creates its own when the first request arrives).
``/metrics`` reads the directory the environment names when it is scraped, so it reads
this one. Directories of instances whose supervisor is gone are deleted then.

An operator who sets ``PROMETHEUS_MULTIPROC_DIR`` to a directory of another name keeps it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Final

ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
BENTOML_SHARED_NAME: Final = "prometheus_multiproc_dir"  # BentoML's, in its home folder
PREFIX: Final = "shiftsched-prometheus-"


def use_instance_dir(root: Path | None = None) -> Path | None:
    """Point this process at its instance's directory (in ``root``, by default beside the
    shared one) when it was given BentoML's shared one; the directory, or None when
    nothing changed."""
    shared = os.environ.get(ENV)
    if not shared or Path(shared).name != BENTOML_SHARED_NAME:
        return None
    root = root or Path(shared).parent  # BentoML's home folder: the user's own
    supervisor = os.getppid()
    _remove_stale(root)
    directory = root / f"{PREFIX}{supervisor}"
    directory.mkdir(mode=0o700, exist_ok=True)
    os.environ[ENV] = str(directory)
    return directory


def _remove_stale(root: Path) -> None:
    """Delete directories of supervisors that no longer run."""
    for candidate in root.glob(PREFIX + "*"):
        pid = candidate.name.removeprefix(PREFIX)
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(candidate, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive, and not ours to judge
        return True
    return True


__all__ = ["use_instance_dir"]
