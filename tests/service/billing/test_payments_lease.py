"""A paid request killed mid-way strands nothing: its claim's lease runs out, and the
retry of the same payment is solved and captured once.

The real thing end to end: `bentoml serve` in a subprocess, an mpp payment at the
stand-in provider, and the service SIGKILLed (every process of it) while the payment is
being verified, so its claim is left in ``verifying`` in the database. A fresh server on
the same database then takes the payment once the claim's lease has run out. Each
backend holds the claims in turn.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import httpx
import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.store import Store
from tests.factories import minimal_request_dict
from tests.service.payments_support import (
    MPP_ACCOUNT,
    MPP_PRICE_MINOR,
    StandIn,
    mpp_credential,
    payment_challenge,
)
from tests.service.processes import kill_tree, serve_environment, served

pytestmark = pytest.mark.slow  # serves in a process of its own and kills it

LEASE_SECONDS = 2  # the claim of the killed request; the retries poll past it
HANGING_PROVIDER_SECONDS = 120  # the provider holds the first verification this long
WAIT_SECONDS = 120  # for a state the test waits on; only a broken service takes this long
PRICE = units_for(request_size(parse_request(minimal_request_dict()))) * MPP_PRICE_MINOR
JSON = {"Content-Type": "application/json"}
OPENAPI = "/v1/public/openapi.json"  # the path that tells the server is up


def serve_env(home: Path, database_url: str, standin: StandIn) -> dict[str, str]:
    return serve_environment(
        home,
        DATABASE_URL=database_url,
        MPP_PAYMENTS_ACCOUNT=MPP_ACCOUNT,
        MPP_PRICE_PER_UNIT_MINOR=str(MPP_PRICE_MINOR),
        MPP_PROVIDER_URL=standin.url,
        MPP_PROVIDER_TIMEOUT_SECONDS=str(HANGING_PROVIDER_SECONDS * 2),
        MPP_SECRET_KEY="lease-secret-" + "s" * 32,
        PAYMENT_CLAIM_LEASE_SECONDS=str(LEASE_SECONDS),
    )


def wait_for(condition: str, check: Callable[[], object]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {condition}"
        time.sleep(0.1)


def test_a_killed_paid_request_strands_nothing(
    database_url: str, standin: StandIn, tmp_path: Path
) -> None:
    env = serve_env(tmp_path, database_url, standin)
    log = tmp_path / "serve.log"
    body = json.dumps(minimal_request_dict())
    payment_id = standin.add_payment(PRICE)
    key = f"mpp:{payment_id}"
    store = Store(database_url)
    try:
        with served(env, log, ready=OPENAPI) as server:
            base = server.api
            offer = httpx.post(f"{base}/solve", content=body, headers=JSON, timeout=60)
            credential = mpp_credential(payment_challenge(offer), payment_id)
            paid = {**JSON, "Authorization": credential}
            standin.script(provider="slow", delay=HANGING_PROVIDER_SECONDS)

            def first() -> None:
                with suppress(httpx.TransportError):  # the server is killed under it
                    httpx.post(f"{base}/solve", content=body, headers=paid, timeout=300)

            sender = threading.Thread(target=first, daemon=True)
            sender.start()
            wait_for("the provider to be asked", lambda: standin.calls(f"/payments/{payment_id}"))
            assert store.payments.payment_state(key) == "verifying"
            kill_tree(server.process)
            sender.join(WAIT_SECONDS)
        assert (
            store.payments.payment_state(key) == "verifying"
        )  # stranded, until its lease runs out
        standin.script(provider="ok")

        with served(env, log, ready=OPENAPI) as server:
            base = server.api
            answers: list[httpx.Response] = []
            deadline = time.monotonic() + WAIT_SECONDS
            while time.monotonic() < deadline:
                answer = httpx.post(f"{base}/solve", content=body, headers=paid, timeout=120)
                answers.append(answer)
                if answer.status_code != 401:
                    break
                time.sleep(0.2)
            *refused, retried = answers
            for answer in refused:  # within the lease: the claim of the killed request holds
                assert "already used" in answer.json()["detail"], answer.text
            assert retried.status_code == 200, retried.text
            result = SolveResponse.model_validate(retried.json())
            assert result.status == "completed" and result.solution is not None
            report = audit(parse_request(minimal_request_dict()), result.solution.assignments)
            assert report.feasible
            assert compare_with_metrics(report, result.solution.metrics) == []
            assert "payment-receipt" in retried.headers
            assert "x-service-settle-status" not in retried.headers
            again = httpx.post(f"{base}/solve", content=body, headers=paid, timeout=120)
            assert again.status_code == 401 and "already used" in again.json()["detail"]
        assert store.payments.payment_state(key) == "settled"
        assert standin.payment(payment_id)["status"] == "captured"
        captures = [call for call in standin.calls() if call["path"].endswith("/capture")]
        assert len(captures) == 1
    finally:
        store.close()
