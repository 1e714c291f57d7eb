"""Webhooks end to end: a pro key registers a loopback receiver, a queued job ends, and
the receiver gets one signed event per job, retried while it is down; on the real app,
store and solver. Time is the outbox's: the sweeps are run at chosen moments, so the
retry schedule (minutes to hours) is followed without waiting for it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import httpx
import pytest
from standardwebhooks.webhooks import Webhook
from starlette.testclient import TestClient

from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.store import Store
from shiftsched.service.store.rows import now
from shiftsched.service.webhooks.sender import sweep
from tests.service.http.test_http import assert_problem, bearer, fresh_key, post
from tests.service.http.test_planning_http import four_employees

pytestmark = pytest.mark.slow


class Receiver:
    """A loopback HTTP receiver that answers 503 to its first ``down`` requests."""

    def __init__(self, down: int) -> None:
        self.down = down
        self.received: list[tuple[dict[str, str], bytes]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.received.append((dict(self.headers.items()), body))
                self.send_response(503 if len(outer.received) <= outer.down else 200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    listening = Receiver(down=3)
    yield listening
    listening.server.shutdown()
    listening.server.server_close()


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home = tmp_path_factory.mktemp("webhooks")
    settings = Settings(
        database_url=f"sqlite:///{home / 'service.db'}",
        jobs_db_path=str(home / "jobs.db"),
        solve_processes=1,
        cp_sat_workers=1,
        errors_base="https://api.test/v1/public/errors",
        public_url="https://rosters.example.org",
        webhook_allow_loopback=True,  # the receiver is on loopback; no sender of its own
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def swept(client: TestClient, moment: datetime) -> int:
    """One sweep of the outbox as the sender runs it, at ``moment``."""
    store, settings = client.app.state.store, client.app.state.settings  # type: ignore[attr-defined]

    async def once() -> int:
        async with httpx.AsyncClient(timeout=10) as http:
            return await sweep(store, settings, http, moment)

    return anyio.run(once)


def queued_body() -> dict[str, Any]:
    queued = four_employees()
    queued["options"] = {"solver_timeout_seconds": 60}  # over 30 s: the queued path
    return queued


def ended_job(client: TestClient, key: str, **headers: str) -> str:
    """A queued solve run to its end by the app's consumer; its id."""
    accepted = post(client, "/solve", queued_body(), {**bearer(key), **headers})
    assert accepted.status_code == 202, accepted.text
    job_id: str = accepted.json()["job_id"]
    for _ in range(600):
        if client.get(f"/solve/jobs/{job_id}", headers=bearer(key)).json()["status"] != "running":
            return job_id
        threading.Event().wait(0.1)
    raise AssertionError("the queued job never ended")


def test_an_ended_job_is_signed_and_retried_until_the_receiver_takes_it(
    client: TestClient, receiver: Receiver
) -> None:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    key = fresh_key(store, free=10)
    made = post(client, "/webhooks", {"url": receiver.url, "description": "ops"}, bearer(key))
    assert made.status_code == 201, made.text
    endpoint = made.json()
    assert endpoint["secret"].startswith("whsec_")
    job_id = ended_job(client, key)
    start = now()
    # Down for 3 attempts (5 s, 5 min and 30 min apart), taken on the fourth.
    for moment in (0, 6, 6 + 301, 6 + 301 + 1801):
        assert swept(client, start + timedelta(seconds=moment)) == 1
    assert swept(client, start + timedelta(days=2)) == 0  # delivered: never again
    assert len(receiver.received) == 4
    ids = {headers["webhook-id"] for headers, _ in receiver.received}
    assert len(ids) == 1  # one event, the id a receiver drops duplicates by
    headers, body = receiver.received[-1]
    event = Webhook(endpoint["secret"]).verify(body, headers)
    assert event["type"] == "job.completed"
    data = event["data"]
    assert (data["job_id"], data["status"], data["units_charged"]) == (job_id, "completed", 1)
    assert data["links"]["job"] == f"https://rosters.example.org/v1/public/solve/jobs/{job_id}"
    assert "solution" not in json.dumps(event)  # the roster is fetched, never pushed
    listed = client.get(f"/webhooks/{endpoint['id']}/deliveries", headers=bearer(key)).json()
    [delivery] = listed["deliveries"]
    assert delivery["state"] == "delivered" and delivery["job_id"] == job_id
    assert [a["status"] for a in delivery["attempts"]] == [503, 503, 503, 200]


def test_endpoints_are_managed_by_their_pro_account(client: TestClient, receiver: Receiver) -> None:
    receiver.down = 0
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    key = fresh_key(store, free=10)
    endpoint = post(client, "/webhooks", {"url": receiver.url}, bearer(key)).json()
    listed = client.get("/webhooks", headers=bearer(key)).json()["endpoints"]
    assert [e["id"] for e in listed] == [endpoint["id"]] and "secret" not in listed[0]
    rotated = post(client, f"/webhooks/{endpoint['id']}/rotate", {}, bearer(key)).json()
    assert rotated["secret"] != endpoint["secret"]
    tested = post(client, f"/webhooks/{endpoint['id']}/test", {}, bearer(key))
    assert tested.status_code == 202
    assert swept(client, now()) == 1
    headers, body = receiver.received[-1]
    assert Webhook(rotated["secret"]).verify(body, headers)["type"] == "webhook.test"
    other = fresh_key(store, free=10)
    gone = client.delete(f"/webhooks/{endpoint['id']}", headers=bearer(other))
    assert_problem(gone, 404, "not-found")
    assert client.delete(f"/webhooks/{endpoint['id']}", headers=bearer(key)).status_code == 204
    assert client.get("/webhooks", headers=bearer(key)).json() == {"endpoints": []}
    basic = fresh_key(store, tier="basic", free=10)
    refused = post(client, "/webhooks", {"url": receiver.url}, bearer(basic))
    assert_problem(refused, 422, "tier-limit-exceeded")


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org/hook",  # not https
        "https://10.1.2.3/hook",  # a private address
        "https://169.254.169.254/latest/meta-data",  # link-local: a cloud's metadata
        "https://user:pw@example.org/hook",
        "ftp://example.org/hook",
    ],
)
def test_an_address_inside_or_in_the_clear_is_refused(client: TestClient, url: str) -> None:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    key = fresh_key(store, free=10)
    refused = assert_problem(
        post(client, "/webhooks", {"url": url}, bearer(key)), 422, "validation-error"
    )
    [fault] = refused["errors"]
    assert fault["path"] == ["url"] and fault["code"] == "webhook_address_refused"


def test_a_job_naming_its_callback_is_told_to_that_endpoint_alone(client: TestClient) -> None:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    key = fresh_key(store, free=10)
    first, named = Receiver(down=0), Receiver(down=0)
    try:
        for receiver in (first, named):
            made = post(client, "/webhooks", {"url": receiver.url}, bearer(key))
            assert made.status_code == 201
        unknown = {**bearer(key), "Callback-Url": "https://example.org/not-registered"}
        refused = post(client, "/solve", queued_body(), unknown)
        assert assert_problem(refused, 422, "validation-error")["errors"][0]["path"] == [
            "headers",
            "Callback-Url",
        ]
        job_id = ended_job(client, key, **{"Callback-Url": named.url})
        assert swept(client, now()) == 1
        assert first.received == [] and len(named.received) == 1
        assert json.loads(named.received[0][1])["data"]["job_id"] == job_id
        account = store.accounts.authenticate(key)
        assert account is not None and store.ledger.usage(account.id)[2] == 9  # one charge
    finally:
        for receiver in (first, named):
            receiver.server.shutdown()
            receiver.server.server_close()
