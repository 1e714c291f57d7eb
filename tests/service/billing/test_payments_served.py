"""One x402 authorization buys one solve, probed against `bentoml serve` as deployed.

The service is configured from the environment as an operator would
(``X402_NETWORK_V1=base-sepolia`` beside ``X402_NETWORK=eip155:84532``), and each round
sends one signed authorization twice at once: as ``X-PAYMENT`` (version 1, by network
name) and as ``PAYMENT-SIGNATURE`` (version 2, by CAIP-2 id). Every round must deliver
exactly one roster and settle the authorization once.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import httpx
import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from tests.factories import minimal_request_dict
from tests.service.payments_support import (
    NETWORK,
    PAY_TO,
    PRICE_PER_UNIT,
    StandIn,
    x402_v1,
    x402_v2,
)
from tests.service.processes import serve_environment, served

pytestmark = pytest.mark.slow  # serves in a process of its own

ROUNDS = 4
PRICE = units_for(request_size(parse_request(minimal_request_dict()))) * PRICE_PER_UNIT
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory, payment_standin: StandIn) -> Iterator[str]:
    home = tmp_path_factory.mktemp("served-x402")
    env = serve_environment(
        home,
        SOLVE_PROCESSES="2",
        X402_PAY_TO=PAY_TO,
        X402_NETWORK=NETWORK,
        X402_NETWORK_V1="base-sepolia",
        X402_PRICE_PER_UNIT=str(PRICE_PER_UNIT),
        X402_FACILITATOR_URL=payment_standin.url,
    )
    with served(env, home / "serve.log", ready="/v1/public/openapi.json") as server:
        yield server.api


def send(
    base: str, body: str, barrier: threading.Barrier, header: dict[str, str]
) -> httpx.Response:
    """POST /solve with ``header`` as soon as the other sender is ready too."""
    barrier.wait()
    return httpx.post(f"{base}/solve", content=body, headers={**JSON, **header}, timeout=120)


def test_one_authorization_as_v1_and_v2_at_once_buys_one_solve(base: str, standin: StandIn) -> None:
    body = json.dumps(minimal_request_dict())
    offer = httpx.post(f"{base}/solve", content=body, headers=JSON, timeout=60)
    required = offer.headers["payment-required"]
    for _ in range(ROUNDS):
        nonce = "0x" + secrets.token_hex(32)
        headers = [
            {"X-PAYMENT": x402_v1(PRICE, network="base-sepolia", nonce=nonce)},
            {"PAYMENT-SIGNATURE": x402_v2(required, nonce=nonce)},
        ]
        barrier = threading.Barrier(len(headers))
        with ThreadPoolExecutor(len(headers)) as pool:
            answers = list(pool.map(partial(send, base, body, barrier), headers))
        assert sorted(answer.status_code for answer in answers) == [200, 401], [
            answer.text for answer in answers
        ]
        for answer in answers:
            if answer.status_code == 200:
                assert answer.json()["status"] == "completed"
                assert "x-service-settle-status" not in answer.headers
            else:
                assert "already used" in answer.json()["detail"]
        settles = [
            call
            for call in standin.calls("/settle")
            if call["body"]["paymentPayload"]["payload"]["authorization"]["nonce"] == nonce
        ]
        assert len(settles) == 1
