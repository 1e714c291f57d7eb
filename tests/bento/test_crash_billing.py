"""Crashes and outages during a synchronous solve never keep units held for good.

- The service is killed outright (SIGKILL of every process it runs) while a synchronous
  solve holds units; started again, it releases the hold once the lease has run out, the
  solve's record ends ``interrupted``, and ``admin reconcile`` finds the ledger whole.
- The database becomes unreachable while a solve runs (PostgreSQL refusing connections
  to the test's database): the roster is delivered flagged ``X-Service-Billing-Status:
  failed`` and claims no units remaining; once the database is back, the kept end is
  written, the unit captured once, the roster pollable, and the ledger whole.

Every wait is a polling loop with a deadline only a broken service reaches; the figures
printed (crash to release) are for people, never asserted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from bento.admission import SYNC_TIME_LIMIT_SECONDS
from bento.api import Settings, create_app
from bento.settlement import RECONCILE_EVERY_SECONDS, sync_lease_seconds
from bento.store import DEMO_ACCOUNT_ID, Store
from bento.tables import jobs, ledger
from tests.bento.conftest import PostgresServer
from tests.bento.processes import ROOT, free_port, stop

pytestmark = pytest.mark.timeout(600)

KEY = "sk_test_" + "c" * 64
STARTUP_SECONDS = 180  # bentoml serve on a busy machine; only a broken start reaches it
WAIT_SECONDS = 240  # for a solve to start or a hold to settle: only a broken system fails
SOLVE_SECONDS = 10  # the solve's time limit; it lasts all of it unless killed
QUEUE_WAIT_SECONDS = 2.0
DIAGNOSIS_SECONDS = 1.0


def slow_request(seconds: int) -> dict[str, Any]:
    """Never proven optimal: the solve lasts its whole time limit."""
    data: dict[str, Any] = json.loads((ROOT / "datasets" / "factory_three_shifts.json").read_text())
    data["options"] = {"solver_timeout_seconds": seconds}
    return data


def wait_until(what: str, check: Callable[[], Any], seconds: float = WAIT_SECONDS) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.2)
    pytest.fail(f"never happened within {seconds} s: {what}")


def sync_job(store: Store) -> Any:
    """The one synchronous solve's record with its hold's state, once it exists."""
    query = sa.select(jobs.c.id, jobs.c.status, jobs.c.error_code, ledger.c.state).join(
        ledger, ledger.c.reservation_id == jobs.c.reservation_id
    )
    with store.read() as conn:
        return conn.execute(query.where(jobs.c.kind == "sync")).first()


def reconcile(database_url: str) -> dict[str, Any]:
    """``python -m bento.admin reconcile`` in a process of its own; exit 0 asserted."""
    done = subprocess.run(
        [sys.executable, "-m", "bento.admin", "--database-url", database_url, "reconcile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["ok"] is True and report["violations"] == {}
    return report


# ----------------------------------------------------------------------- SIGKILL


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (from /proc), in whatever session it runs."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def kill_everything(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the service and every process under it at once, as a crash of the host's
    service would: nothing gets to settle anything."""
    victims = descendants(process.pid) | {process.pid}
    for pid in victims:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait()
    wait_until("every process of the service is gone", lambda: not _alive(victims))


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2 :].split()[0] != "Z":
            alive.add(pid)
    return alive


def serve(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    bentoml = Path(sys.executable).parent / "bentoml"
    command = [str(bentoml), "serve", "bento.service:ShiftScheduler"]
    command += ["--port", env["PORT"], "--host", "127.0.0.1"]
    with log.open("ab") as out:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def wait_up(process: subprocess.Popen[bytes], base: str, log: Path) -> None:
    def up() -> bool:
        assert process.poll() is None, log.read_text(errors="replace")[-3000:]
        try:
            return httpx.get(f"{base}/openapi.json", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    wait_until("the service answers", up, STARTUP_SECONDS)


@pytest.fixture
def served_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    port = free_port()
    yield {
        **{name: value for name, value in os.environ.items() if name != "PUBLIC_URL"},
        "PORT": str(port),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'service.db'}",
        "DEMO_API_KEY": KEY,
        "SOLVE_PROCESSES": "1",
        "CP_SAT_WORKERS": "1",
        "DIAGNOSIS_BUDGET_SECONDS": str(DIAGNOSIS_SECONDS),
        "SOLVE_QUEUE_WAIT_SECONDS": str(QUEUE_WAIT_SECONDS),
        "BENTOML_HOME": str(tmp_path / "bentoml"),
        "BENTOML_DO_NOT_TRACK": "true",
    }


def test_a_hold_of_a_service_killed_mid_solve_is_released_after_a_restart(
    served_env: dict[str, str], tmp_path: Path
) -> None:
    settings = Settings(
        solve_queue_wait_seconds=QUEUE_WAIT_SECONDS, diagnosis_budget_seconds=DIAGNOSIS_SECONDS
    )
    lease = sync_lease_seconds(settings, SOLVE_SECONDS, started=True)
    longest = sync_lease_seconds(Settings(), SYNC_TIME_LIMIT_SECONDS, started=True)
    assert longest + RECONCILE_EVERY_SECONDS <= 60  # at the defaults, any synchronous solve
    base = f"http://127.0.0.1:{served_env['PORT']}/v1/public"
    log = tmp_path / "serve.log"
    database_url = served_env["DATABASE_URL"]
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    process = serve(served_env, log)
    try:
        wait_up(process, base, log)
        before = httpx.get(f"{base}/usage", headers=headers, timeout=30).json()
        body = json.dumps(slow_request(SOLVE_SECONDS))

        def solve() -> None:
            with suppress(httpx.TransportError):  # the service is killed under it
                httpx.post(f"{base}/solve", content=body, headers=headers, timeout=120)

        client = threading.Thread(target=solve)
        client.start()
        with Store(database_url) as store:
            held = wait_until("the solve holds its units", lambda: sync_job(store))
            assert (held.status, held.state) == ("running", "reserved")
            kill_everything(process)
            crashed_at = time.monotonic()
            client.join()
            process = serve(served_env, log)
            wait_up(process, base, log)
            settled = wait_until(
                "the hold is released", lambda: (row := sync_job(store)).state != "reserved" and row
            )
            released_after = time.monotonic() - crashed_at
        assert (settled.status, settled.error_code, settled.state) == (
            "failed",
            "interrupted",
            "released",
        )
        after = httpx.get(f"{base}/usage", headers=headers, timeout=30).json()
        assert after == before
        print(f"\nservice killed -> hold released: {released_after:.1f} s (lease {lease:.0f} s)")
        report = reconcile(database_url)
        assert report["holds"] == {"released": 1}
    finally:
        stop(process, timeout=30)


# ----------------------------------------------------------------------- outage


def lock_out(server: PostgresServer, name: str, allow: bool) -> None:
    """Let the test's database take connections again, or refuse them and end every one
    it has: to the service, the database is gone."""
    with psycopg.connect(server.conninfo("postgres"), autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS {str(allow).lower()}')
        if not allow:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )


def test_a_database_outage_mid_solve_delivers_flagged_and_captures_once_back(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    database_url = postgres_server.new_database()
    name = database_url.rsplit("/", 1)[1]
    settings = Settings(
        database_url=database_url,
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
        diagnosis_budget_seconds=DIAGNOSIS_SECONDS,
        jobs_db_path=str(tmp_path / "jobs.db"),
    )
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    store = Store(database_url)
    try:
        with TestClient(create_app(settings)) as client:
            before = client.get("/usage", headers=headers).json()["available_units"]
            answer: dict[str, Any] = {}

            def solve() -> None:
                body = json.dumps(slow_request(6))
                answer["response"] = client.post("/solve", content=body, headers=headers)

            solving = threading.Thread(target=solve)
            solving.start()
            wait_until("the solve holds its units", lambda: sync_job(store))
            store.close()
            lock_out(postgres_server, name, allow=False)
            try:
                solving.join(WAIT_SECONDS)
                assert not solving.is_alive()
            finally:
                lock_out(postgres_server, name, allow=True)
            response = answer["response"]
            assert response.status_code == 200, response.text
            delivered = response.json()
            assert delivered["status"] == "completed"
            assert response.headers["x-service-billing-status"] == "failed"
            assert "x-units-remaining" not in response.headers  # unknown: never a false 0
            assert "usage" not in delivered
            units = int(response.headers["x-units-consumed"])

            def kept() -> dict[str, Any] | None:
                polled = client.get(f"/solve/jobs/{delivered['job_id']}", headers=headers)
                if polled.status_code == 503:
                    return None  # the pool has not reconnected yet
                assert polled.status_code == 200, polled.text
                body: dict[str, Any] = polled.json()
                return None if body["status"] == "running" else body

            polled = wait_until("the kept end is written", kept)
            assert polled["status"] == "completed"
            assert polled["solution"] == delivered["solution"]
            row = wait_until("the hold is settled", lambda: sync_job(store))
            assert row.state == "captured"
            after = client.get("/usage", headers=headers).json()["available_units"]
            assert after == before - units
        report = reconcile(database_url)
        assert report["holds"] == {"captured": 1}
        assert report["units_captured_by_cause"] == {"sync_solves": units}
        assert store.get_account(DEMO_ACCOUNT_ID) is not None
    finally:
        store.close()
