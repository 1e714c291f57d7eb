"""A keyed synchronous solve whose service is killed mid-run is never charged twice.

The service is served for real, sent a ``POST /solve`` with an ``Idempotency-Key`` that
lasts its whole time limit, and SIGKILLed (every process it runs) once the solve holds
its units. Started again on the same database, the same call with the same key, retried
on 409 and 503 as docs/api.md tells a client to, waits while the killed call's job still
runs; once its lease has passed the job ends ``interrupted`` with its hold released, so
the call charged nothing, and like any call that charged nothing its key is free: the
retry is one fresh run, charged once. The key names exactly one job, a further retry
gets that answer again byte for byte, and ``admin reconcile`` finds the ledger whole.
On a SQLite file and PostgreSQL in turn.

Every wait is a polling loop with a deadline only a broken service reaches; the figures
printed (crash to answer, conflicts seen) are for people, never asserted.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from contextlib import suppress
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from shiftsched.service.http.idempotency import HEADER, REPLAYED
from shiftsched.service.store import DEMO_ACCOUNT_ID, Store
from shiftsched.service.store.tables import idempotency_keys, jobs, ledger
from tests.service.billing.test_crash_billing import (
    DIAGNOSIS_SECONDS,
    KEY,
    QUEUE_WAIT_SECONDS,
    SOLVE_SECONDS,
    WAIT_SECONDS,
    slow_request,
    sync_job,
)
from tests.service.processes import (
    kill_tree,
    reconcile,
    serve_environment,
    start_serve,
    wait_serving,
    wait_until,
)

# Serves in a process of its own and kills it.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def keyed_call(store: Store, key: str) -> Any:
    """The row of ``key`` for the demo account's solves, if claimed."""
    query = sa.select(idempotency_keys).where(
        idempotency_keys.c.account_id == DEMO_ACCOUNT_ID,
        idempotency_keys.c.operation == "solve",
        idempotency_keys.c.idempotency_key == key,
    )
    with store.db.read() as conn:
        return conn.execute(query).first()


def holds(store: Store) -> list[Any]:
    """Every hold of the demo account's solves: its job, state and units."""
    query = sa.select(jobs.c.id, ledger.c.state, ledger.c.units).join(
        ledger, ledger.c.reservation_id == jobs.c.reservation_id
    )
    with store.db.read() as conn:
        return list(conn.execute(query.where(jobs.c.account_id == DEMO_ACCOUNT_ID)))


def jobs_named(store: Store, job_id: str) -> int:
    with store.db.read() as conn:
        query = sa.select(sa.func.count()).where(jobs.c.id == job_id)
        return int(conn.execute(query).scalar_one())


def assert_run_afresh(answer: httpx.Response, killed: str, keyed: str, settled: list[Any]) -> None:
    """The retry's answer is one fresh run of its own, charged once: the killed call had
    charged nothing (its job ended ``interrupted``, its hold released), so, as for any
    call that charged nothing (docs/api.md), its key was freed for the retry to run."""
    assert answer.status_code == 200, answer.text
    assert REPLAYED not in answer.headers, answer.text
    body = answer.json()
    assert body["status"] == "completed" and body["job_id"] == keyed != killed
    states = {row.id: (row.state, row.units) for row in settled}
    units = int(answer.headers["x-units-consumed"])
    assert states == {killed: ("released", states[killed][1]), keyed: ("captured", units)}


class Retrier:
    """A client's retries of one keyed call: sent again on 409 and 503 after the
    answer's Retry-After (and on a dropped connection), until any other answer."""

    def __init__(self, url: str, body: str, headers: dict[str, str]) -> None:
        self.url, self.body, self.headers = url, body, headers
        self.waited: list[int] = []  # the status of each answer it waited on

    def send(self) -> httpx.Response | None:
        try:
            response = httpx.post(self.url, content=self.body, headers=self.headers, timeout=120)
        except httpx.TransportError:
            self.waited.append(0)
            time.sleep(1)
            return None
        if response.status_code in (409, 503):
            self.waited.append(response.status_code)
            time.sleep(float(response.headers.get("Retry-After", 2)))
            return None
        return response


def test_a_keyed_solve_killed_mid_run_is_run_afresh_once_and_charged_once(
    tmp_path: Path,
) -> None:
    # SQLite only: the claim's logic is the same SQL on both backends, and both run the
    # in-process key tests (tests/service/http/test_idempotency.py); a served crash costs
    # about a minute each.
    database_url = f"sqlite:///{tmp_path / 'service.db'}"
    env = serve_environment(
        tmp_path,
        DATABASE_URL=database_url,
        DEMO_API_KEY=KEY,
        DIAGNOSIS_BUDGET_SECONDS=str(DIAGNOSIS_SECONDS),
        SOLVE_QUEUE_WAIT_SECONDS=str(QUEUE_WAIT_SECONDS),
    )
    base = f"http://127.0.0.1:{env['PORT']}/v1/public"
    log = tmp_path / "serve.log"
    key = f"crash-{uuid.uuid4()}"
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json", HEADER: key}
    body = json.dumps(slow_request(SOLVE_SECONDS))
    process = start_serve(env, log)
    try:
        wait_serving(process, f"{base}/openapi.json", log)
        before = httpx.get(f"{base}/usage", headers=headers, timeout=30).json()

        def solve() -> None:
            with suppress(httpx.TransportError):  # the service is killed under it
                httpx.post(f"{base}/solve", content=body, headers=headers, timeout=120)

        client = threading.Thread(target=solve)
        client.start()
        with Store(database_url) as store:
            held = wait_until("the solve holds its units", lambda: sync_job(store), WAIT_SECONDS)
            assert (held.status, held.state) == ("running", "reserved")
            claimed = keyed_call(store, key)
            assert claimed.job_id == held.id and claimed.status_code is None
            kill_tree(process, WAIT_SECONDS)
            crashed_at = time.monotonic()
            client.join()
            process = start_serve(env, log)
            wait_serving(process, f"{base}/openapi.json", log)
            retrier = Retrier(f"{base}/solve", body, headers)
            first = wait_until("the retry is answered", retrier.send, WAIT_SECONDS)
            answered_after = time.monotonic() - crashed_at
            again = Retrier(f"{base}/solve", body, headers)
            second = wait_until("the second retry is answered", again.send, WAIT_SECONDS)
            after = httpx.get(f"{base}/usage", headers=headers, timeout=30).json()
            call = keyed_call(store, key)
            settled = holds(store)
            assert jobs_named(store, call.job_id) == 1  # the key names one job
        print(
            f"\nkilled -> retry answered {first.status_code} in {answered_after:.1f} s, "
            f"after waiting on {retrier.waited}; holds {[tuple(row) for row in settled]}"
        )
        assert_run_afresh(first, held.id, call.job_id, settled)
        assert second.status_code == first.status_code and second.content == first.content
        assert second.headers[REPLAYED] == "true" and not again.waited
        for name in ("x-units-consumed", "x-units-remaining", "content-type"):
            assert second.headers.get(name) == first.headers.get(name)
        charged = int(first.headers["x-units-consumed"])
        assert after["available_units"] == before["available_units"] - charged
        report = reconcile(database_url)
        assert report["holds"] == {"released": 1, "captured": 1}
    finally:
        kill_tree(process)
