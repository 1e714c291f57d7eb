"""Faults: a solver process killed mid-solve fails that request only, and costs nothing."""

from __future__ import annotations

import json
import multiprocessing
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import bento.workers
from bento.http import Settings, create_app
from tests.factories import minimal_request_dict

ROOT = Path(__file__).parent.parent.parent
KEY = "sk_test_" + "a" * 64


def kill_solver_processes_soon(delay: float) -> threading.Thread:
    def kill() -> None:
        time.sleep(delay)
        for child in multiprocessing.active_children():
            child.kill()

    thread = threading.Thread(target=kill)
    thread.start()
    return thread


def test_killed_solve_fails_cleanly_and_the_server_keeps_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bento.workers, "DEADLINE_GRACE_SECONDS", 1.0)
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'service.db'}",
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
        diagnosis_budget_seconds=1,
    )
    slow: dict[str, Any] = json.loads((ROOT / "datasets" / "factory_three_shifts.json").read_text())
    slow["options"] = {"solver_timeout_seconds": 4}
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"}
    with TestClient(create_app(settings)) as client:
        before = client.get("/usage", headers=headers).json()["available_units"]
        killer = kill_solver_processes_soon(1.5)
        response = client.post("/solve", content=json.dumps(slow), headers=headers)
        killer.join()
        assert response.status_code == 500
        assert response.headers["content-type"].startswith("application/problem+json")
        assert "nothing was charged" in response.json()["detail"]
        assert client.get("/usage", headers=headers).json()["available_units"] == before

        again = client.post("/solve", content=json.dumps(minimal_request_dict()), headers=headers)
        assert again.status_code == 200, again.text
        assert again.json()["status"] == "completed"
