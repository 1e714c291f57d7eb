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
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from shiftsched.service.billing.admission import SYNC_TIME_LIMIT_SECONDS
from shiftsched.service.billing.settlement import RECONCILE_EVERY_SECONDS, sync_lease_seconds
from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.store import DEMO_ACCOUNT_ID, Store
from shiftsched.service.store.tables import jobs, ledger
from tests.service.conftest import PostgresServer
from tests.service.processes import (
    ROOT,
    kill_tree,
    reconcile,
    serve_environment,
    start_serve,
    wait_serving,
    wait_until,
)

# Serves in a process of its own and kills it.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

KEY = "sk_test_" + "c" * 64
WAIT_SECONDS = 240  # for a solve to start or a hold to settle: only a broken system fails
SOLVE_SECONDS = 10  # the solve's time limit; it lasts all of it unless killed
QUEUE_WAIT_SECONDS = 2.0
DIAGNOSIS_SECONDS = 1.0


def slow_request(seconds: int) -> dict[str, Any]:
    """Never proven optimal: the solve lasts its whole time limit."""
    data: dict[str, Any] = json.loads((ROOT / "datasets" / "factory_three_shifts.json").read_text())
    data["options"] = {"solver_timeout_seconds": seconds}
    return data


def sync_job(store: Store) -> Any:
    """The one synchronous solve's record with its hold's state, once it exists."""
    query = sa.select(jobs.c.id, jobs.c.status, jobs.c.error_code, ledger.c.state).join(
        ledger, ledger.c.reservation_id == jobs.c.reservation_id
    )
    with store.db.read() as conn:
        return conn.execute(query.where(jobs.c.kind == "sync")).first()


# ----------------------------------------------------------------------- SIGKILL


@pytest.fixture
def served_env(tmp_path: Path) -> dict[str, str]:
    return serve_environment(
        tmp_path,
        DEMO_API_KEY=KEY,
        DIAGNOSIS_BUDGET_SECONDS=str(DIAGNOSIS_SECONDS),
        SOLVE_QUEUE_WAIT_SECONDS=str(QUEUE_WAIT_SECONDS),
    )


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
    process = start_serve(served_env, log)
    try:
        wait_serving(process, f"{base}/openapi.json", log)
        before = httpx.get(f"{base}/usage", headers=headers, timeout=30).json()
        body = json.dumps(slow_request(SOLVE_SECONDS))

        def solve() -> None:
            with suppress(httpx.TransportError):  # the service is killed under it
                httpx.post(f"{base}/solve", content=body, headers=headers, timeout=120)

        client = threading.Thread(target=solve)
        client.start()
        with Store(database_url) as store:
            held = wait_until("the solve holds its units", lambda: sync_job(store), WAIT_SECONDS)
            assert (held.status, held.state) == ("running", "reserved")
            kill_tree(process, WAIT_SECONDS)
            crashed_at = time.monotonic()
            client.join()
            process = start_serve(served_env, log)
            wait_serving(process, f"{base}/openapi.json", log)
            settled = wait_until(
                "the hold is released",
                lambda: (row := sync_job(store)).state != "reserved" and row,
                WAIT_SECONDS,
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
        kill_tree(process)


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
        settle_patience_seconds=1.0,  # an outage longer than the request waits for
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
            wait_until("the solve holds its units", lambda: sync_job(store), WAIT_SECONDS)
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

            polled = wait_until("the kept end is written", kept, WAIT_SECONDS)
            assert polled["status"] == "completed"
            assert polled["solution"] == delivered["solution"]
            row = wait_until("the hold is settled", lambda: sync_job(store), WAIT_SECONDS)
            assert row.state == "captured"
            after = client.get("/usage", headers=headers).json()["available_units"]
            assert after == before - units
        report = reconcile(database_url)
        assert report["holds"] == {"captured": 1}
        assert report["units_captured_by_cause"] == {"sync_solves": units}
        assert store.accounts.get_account(DEMO_ACCOUNT_ID) is not None
    finally:
        store.close()
