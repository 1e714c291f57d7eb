"""What the payment tests share: the stand-in process, the app wired to it, and payers
that build credentials with the protocols' own client-side models (x402, pympp)."""

from __future__ import annotations

import base64
import json
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import httpx
from mpp import Challenge, Credential
from starlette.testclient import TestClient
from x402.http.utils import encode_payment_signature_header
from x402.schemas import PaymentPayload, PaymentRequirements
from x402.schemas.v1 import PaymentPayloadV1

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.billing.payments.config import MppSettings, X402Settings
from shiftsched.service.http.api import Settings, create_app
from tests.service.processes import ROOT, free_port, stop

PAY_TO = "0x1111111111111111111111111111111111111111"
ASSET = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
NETWORK = "eip155:84532"
PRICE_PER_UNIT = 1000
MPP_ACCOUNT = "acct_shiftsched"
MPP_PRICE_MINOR = 5
JSON = {"Content-Type": "application/json"}
# The app's waits for the stand-in: prompt answers get a generous timeout, so a busy
# machine never turns one into a timeout. A slow answer is scripted to take
# SLOW_ANSWER_SECONDS and tested against an app that waits SHORT_TIMEOUT_SECONDS: a
# timeout however fast the machine, while its prompt calls still have seconds to spare.
PROMPT_TIMEOUT_SECONDS = 30.0
SHORT_TIMEOUT_SECONDS = 3.0
SLOW_ANSWER_SECONDS = 5.0
STANDIN_START_SECONDS = 60


class StandIn:
    """Control of a running ``tests.service.payment_standin`` process."""

    def __init__(self, url: str) -> None:
        self.url = url

    def script(self, **answers: Any) -> None:
        httpx.post(
            f"{self.url}/_script", json=answers, timeout=PROMPT_TIMEOUT_SECONDS
        ).raise_for_status()

    def reset(self) -> None:
        httpx.post(f"{self.url}/_reset", timeout=PROMPT_TIMEOUT_SECONDS).raise_for_status()

    def calls(self, path_prefix: str = "") -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = httpx.get(
            f"{self.url}/_calls", timeout=PROMPT_TIMEOUT_SECONDS
        ).json()
        return [call for call in calls if call["path"].startswith(path_prefix)]

    def add_payment(
        self,
        amount_minor: int,
        *,
        status: str = "authorized",
        currency: str = "usd",
        account: str = MPP_ACCOUNT,
    ) -> str:
        payment_id = "pay_" + secrets.token_hex(8)
        payment = {
            "id": payment_id,
            "status": status,
            "amount_minor": str(amount_minor),
            "currency": currency,
            "account": account,
            "payer": "cus_test",
        }
        httpx.post(
            f"{self.url}/_payments", json=payment, timeout=PROMPT_TIMEOUT_SECONDS
        ).raise_for_status()
        return payment_id

    def payment(self, payment_id: str) -> dict[str, Any]:
        answer: dict[str, Any] = httpx.get(
            f"{self.url}/payments/{payment_id}", timeout=PROMPT_TIMEOUT_SECONDS
        ).json()
        return answer


@contextmanager
def running_standin() -> Iterator[StandIn]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.service.payment_standin", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == b"ready"
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STANDIN_START_SECONDS
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{url}/_calls", timeout=PROMPT_TIMEOUT_SECONDS)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield StandIn(url)
    finally:
        stop(process)
        if process.stdout is not None:
            process.stdout.close()


def x402_settings(standin: StandIn, **overrides: Any) -> X402Settings:
    base = X402Settings(
        pay_to=PAY_TO,
        network=NETWORK,
        asset=ASSET,
        price_per_unit=str(PRICE_PER_UNIT),
        facilitator_url=standin.url,
        facilitator_timeout_seconds=PROMPT_TIMEOUT_SECONDS,
    )
    return replace(base, **overrides)


def mpp_settings(standin: StandIn, **overrides: Any) -> MppSettings:
    base = MppSettings(
        payments_account=MPP_ACCOUNT,
        provider_url=standin.url,
        provider_key="pk_test",
        price_per_unit_minor=str(MPP_PRICE_MINOR),
        secret_key="test-secret-" + "s" * 32,
        provider_timeout_seconds=PROMPT_TIMEOUT_SECONDS,
    )
    return replace(base, **overrides)


@contextmanager
def paid_app(
    database_url: str, x402: X402Settings | None, mpp: MppSettings | None, demo_key: str
) -> Iterator[TestClient]:
    settings = Settings(
        database_url=database_url,
        demo_api_key=demo_key,
        solve_processes=2,
        cp_sat_workers=1,
        diagnosis_budget_seconds=60,  # small diagnoses end on their own long before
        errors_base="https://api.test/v1/public/errors",
        public_url="https://api.test",  # the client's base: its links name this host
        x402=x402,
        mpp=mpp,
    )
    with TestClient(create_app(settings), base_url="https://api.test") as client:
        yield client


def post_solve(client: TestClient, body: Any, headers: dict[str, str] | None = None) -> Any:
    return client.post("/solve", content=json.dumps(body), headers={**JSON, **(headers or {})})


ERRORS = "https://api.test/v1/public/errors"


def problem_of(response: Any, status: int, slug: str) -> dict[str, Any]:
    """The problem+json body of ``response``, which must have this status and type."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["type"] == f"{ERRORS}/{slug}"
    return body


def assert_audited_roster(response: Any, data: dict[str, Any]) -> SolveResponse:
    """A 200 with a completed roster for ``data`` that the independent audit accepts."""
    assert response.status_code == 200, response.text
    result = SolveResponse.model_validate(response.json())
    assert result.status == "completed" and result.solution is not None
    report = audit(parse_request(data), result.solution.assignments)
    assert report.feasible
    assert compare_with_metrics(report, result.solution.metrics) == []
    return result


# x402 payer --------------------------------------------------------------------------------


def authorization(value: int, *, to: str = PAY_TO, nonce: str | None = None) -> dict[str, Any]:
    """An EIP-3009 transfer authorization as an ``exact`` EVM payload carries it."""
    return {
        "from": "0x2222222222222222222222222222222222222222",
        "to": to,
        "value": str(value),
        "validAfter": "0",
        "validBefore": str(int(time.time()) + 600),
        "nonce": nonce or "0x" + secrets.token_hex(32),
    }


def x402_v1(
    value: int,
    *,
    network: str = NETWORK,
    signature: str = "0xsigned",
    **authorization_options: Any,
) -> str:
    """An ``X-PAYMENT`` value (protocol version 1)."""
    payload = PaymentPayloadV1(
        scheme="exact",
        network=network,
        payload={
            "signature": signature,
            "authorization": authorization(value, **authorization_options),
        },
    )
    return encode_payment_signature_header(payload)


def x402_v2(required_header: str, *, signature: str = "0xsigned", nonce: str | None = None) -> str:
    """A ``PAYMENT-SIGNATURE`` value (version 2) paying the offer of a PAYMENT-REQUIRED."""
    offer = json.loads(base64.b64decode(required_header))
    accepted = PaymentRequirements.model_validate(offer["accepts"][0])
    payload = PaymentPayload(
        accepted=accepted,
        payload={
            "signature": signature,
            "authorization": authorization(int(accepted.amount), to=accepted.pay_to, nonce=nonce),
        },
    )
    return encode_payment_signature_header(payload)


def decoded(header: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(base64.b64decode(header))
    return data


# mpp payer ---------------------------------------------------------------------------------


def payment_challenge(response: Any) -> Challenge:
    """The ``Payment`` challenge among a response's WWW-Authenticate fields."""
    for value in response.headers.get_list("www-authenticate"):
        if value.startswith("Payment "):
            return Challenge.from_www_authenticate(value)
    raise AssertionError("no Payment challenge in " + str(response.headers))


def mpp_credential(challenge: Challenge, payment_id: str) -> str:
    """``Payment <credential>``: the challenge echoed, with the provider's payment id."""
    return Credential(
        challenge=challenge.to_echo(), payload={"payment_id": payment_id}
    ).to_authorization()
