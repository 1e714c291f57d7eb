"""Faults: a solver process killed mid-solve fails that request only (503 with
Retry-After), and costs nothing."""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import shiftsched.service.solving.workers
from shiftsched.service.http.api import Settings, create_app
from tests.factories import minimal_request_dict

pytestmark = pytest.mark.slow  # kills a solver process mid-solve

ROOT = Path(__file__).parent.parent.parent.parent
KEY = "sk_test_" + "a" * 64


BUSY_CPU_SECONDS = 0.3  # CPU a solver process spends only while it solves, never idle
KILL_WAIT_SECONDS = 60  # for the solve to start; only a broken service takes this long


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux: /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def kill_the_solver_once_it_solves() -> threading.Thread:
    """Kill the solver process as soon as it is seen solving, in the middle of its solve.

    Not after a fixed delay: on a busy machine the solve may not have started by then (a
    process killed while idle is replaced and the solve then succeeds), and on a fast one
    it may be over. Busy is told from idle by the CPU time the process uses.
    """
    idle = {child.pid: cpu_seconds(child.pid) for child in multiprocessing.active_children()}
    assert idle, "no solver process to kill"

    def kill() -> None:
        deadline = time.monotonic() + KILL_WAIT_SECONDS
        while time.monotonic() < deadline:
            for child in multiprocessing.active_children():
                if (
                    child.pid in idle
                    and cpu_seconds(child.pid) - idle[child.pid] > BUSY_CPU_SECONDS
                ):
                    child.kill()
                    return
            time.sleep(0.02)

    thread = threading.Thread(target=kill)
    thread.start()
    return thread


def test_killed_solve_fails_cleanly_and_the_server_keeps_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shiftsched.service.solving.workers, "DEADLINE_GRACE_SECONDS", 1.0)
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'service.db'}",
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
        diagnosis_budget_seconds=1,
    )
    # Never proven optimal: the solve lasts its whole limit unless it is killed.
    slow: dict[str, Any] = json.loads((ROOT / "datasets" / "factory_three_shifts.json").read_text())
    slow["options"] = {"solver_timeout_seconds": 4}
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"}
    small = json.dumps(minimal_request_dict())
    with TestClient(create_app(settings)) as client:
        warm = client.post("/solve", content=small, headers=headers)  # the process is ready
        assert warm.status_code == 200, warm.text
        before = client.get("/usage", headers=headers).json()["available_units"]
        killer = kill_the_solver_once_it_solves()
        response = client.post("/solve", content=json.dumps(slow), headers=headers)
        killer.join()
        # Lost like this (the out-of-memory killer, an operator), a retry is likely to
        # work: 503 with Retry-After, never a 500.
        assert response.status_code == 503, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        assert int(response.headers["retry-after"]) >= 1
        assert response.json()["type"].endswith("/service-unavailable")
        assert "nothing was charged" in response.json()["detail"]
        assert client.get("/usage", headers=headers).json()["available_units"] == before

        again = client.post("/solve", content=small, headers=headers)
        assert again.status_code == 200, again.text
        assert again.json()["status"] == "completed"
