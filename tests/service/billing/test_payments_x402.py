"""x402 on POST /solve over the real HTTP stack, against a facilitator in its own process.

Every Authentication rule of the contract that concerns x402, and every settle status,
is exercised here: the 402 offer, X-PAYMENT (version 1) and PAYMENT-SIGNATURE (version
2), rejection before and at verification, an unreachable/slow/failing facilitator,
settlement failures after delivery, replay and concurrent use of one payment. Each
backend (SQLite file, PostgreSQL) holds the payment claims in turn. Every roster is
checked by the independent auditor.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import shiftsched.service.billing.payments.x402_gateway
from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from tests.factories import minimal_request_dict
from tests.service.payments_support import (
    ASSET,
    NETWORK,
    PAY_TO,
    PRICE_PER_UNIT,
    SHORT_TIMEOUT_SECONDS,
    SLOW_ANSWER_SECONDS,
    StandIn,
    assert_audited_roster,
    decoded,
    mpp_settings,
    paid_app,
    post_solve,
    problem_of,
    x402_settings,
    x402_v1,
    x402_v2,
)
from tests.service.processes import free_port

ROOT = Path(__file__).parent.parent.parent.parent
DEMO_KEY = "sk_test_" + "b" * 64
SMALL_UNITS = units_for(request_size(parse_request(minimal_request_dict())))
SMALL_PRICE = SMALL_UNITS * PRICE_PER_UNIT


@pytest.fixture(scope="module")
def client(module_database_url: str, payment_standin: StandIn) -> Iterator[TestClient]:
    x402 = x402_settings(payment_standin)
    mpp = mpp_settings(payment_standin)
    with paid_app(module_database_url, x402, mpp, DEMO_KEY) as client:
        yield client


@pytest.fixture(scope="module")
def impatient(module_database_url: str, payment_standin: StandIn) -> Iterator[TestClient]:
    """The app waiting only SHORT_TIMEOUT_SECONDS for the facilitator, for slow answers."""
    x402 = x402_settings(payment_standin, facilitator_timeout_seconds=SHORT_TIMEOUT_SECONDS)
    with paid_app(module_database_url, x402, None, DEMO_KEY) as client:
        yield client


def claim_key(header: str) -> str:
    """The key under which the service claims the payment of an ``X-PAYMENT`` value."""
    authorization = decoded(header)["payload"]["authorization"]
    parts = [NETWORK, ASSET, authorization["from"], authorization["nonce"]]
    return ("x402:" + ":".join(parts)).lower()


def settles_of(standin: StandIn, header: str) -> list[dict[str, Any]]:
    """The stand-in's settle calls for the authorization of ``header`` (held settlements
    of earlier tests may be tried again in the background of a later one)."""
    nonce = decoded(header)["payload"]["authorization"]["nonce"]
    return [
        call
        for call in standin.calls("/settle")
        if call["body"]["paymentPayload"]["payload"]["authorization"]["nonce"] == nonce
    ]


def assert_x402_refused(response: Any) -> dict[str, Any]:
    body = problem_of(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("X402 ")
    return body


# ------------------------------------------------------------------------- the 402 offer


@pytest.mark.slow
def test_no_credential_gets_402_listing_every_scheme_with_a_challenge_each(
    client: TestClient, standin: StandIn
) -> None:
    response = post_solve(client, minimal_request_dict())
    body = problem_of(response, 402, "payment-required")
    schemes = [entry["scheme"] for entry in body["accepts"]]
    assert schemes == ["api_key", "x402", "mpp"]
    x402 = body["accepts"][1]
    assert x402 == {
        "scheme": "x402",
        "version": 2,
        "x402_scheme": "exact",
        "network": NETWORK,
        "pay_to": PAY_TO,
        "asset": ASSET,
        "max_amount_required": str(SMALL_PRICE),
        "max_timeout_seconds": 300,
        "description": x402["description"],
        "docs": "https://api.test/v1/public/openapi.json",
    }
    assert re.fullmatch(r"[1-9][0-9]*", x402["max_amount_required"])
    challenges = response.headers.get_list("www-authenticate")
    assert [c.split(" ")[0] for c in challenges] == ["Bearer", "X402", "Payment"]
    assert 'profile="payments-link"' in challenges[2]
    assert response.headers["cache-control"] == "no-store"
    required = decoded(response.headers["payment-required"])
    assert required["x402Version"] == 2
    assert required["resource"]["url"] == "https://api.test/solve"
    assert required["accepts"] == [
        {
            "scheme": "exact",
            "network": NETWORK,
            "asset": ASSET,
            "amount": str(SMALL_PRICE),
            "payTo": PAY_TO,
            "maxTimeoutSeconds": 300,
            "extra": {"name": "USDC", "version": "2"},
        }
    ]
    assert standin.calls() == []


def test_the_price_follows_the_size_of_the_request(client: TestClient) -> None:
    data = json.loads((ROOT / "datasets" / "max_size.json").read_text())
    units = units_for(request_size(parse_request(data)))
    assert units > SMALL_UNITS
    body = post_solve(client, data).json()
    assert body["accepts"][1]["max_amount_required"] == str(units * PRICE_PER_UNIT)


def test_an_invalid_body_is_offered_at_the_one_unit_price(client: TestClient) -> None:
    body = post_solve(client, {"employees": []}).json()
    assert body["status"] == 402
    assert body["accepts"][1]["max_amount_required"] == str(PRICE_PER_UNIT)


# ------------------------------------------------------------------------- paid solves


@pytest.mark.slow
def test_x_payment_v1_is_verified_solved_then_settled(client: TestClient, standin: StandIn) -> None:
    data = minimal_request_dict()
    response = post_solve(client, data, {"X-PAYMENT": x402_v1(SMALL_PRICE)})
    assert_audited_roster(response, data)
    settle = decoded(response.headers["x-payment-response"])
    assert settle["success"] is True and settle["network"] == NETWORK
    assert settle["transaction"].startswith("0x")
    assert "x-service-settle-status" not in response.headers
    assert response.headers["x-units-consumed"] == "0"  # no account units
    assert "x-units-remaining" not in response.headers
    calls = standin.calls()
    assert [call["path"] for call in calls] == ["/verify", "/settle"]
    requirements = calls[0]["body"]["paymentRequirements"]
    assert calls[0]["body"]["x402Version"] == 1
    assert requirements["maxAmountRequired"] == str(SMALL_PRICE)
    assert requirements["payTo"] == PAY_TO
    assert requirements["resource"] == "https://api.test/solve"


@pytest.mark.slow
def test_payment_signature_v2_pays_the_offer_of_the_402(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    offer = post_solve(client, data).headers["payment-required"]
    response = post_solve(client, data, {"PAYMENT-SIGNATURE": x402_v2(offer)})
    assert_audited_roster(response, data)
    assert response.headers["payment-response"] == response.headers["x-payment-response"]
    assert decoded(response.headers["payment-response"])["success"] is True
    verify = standin.calls("/verify")[0]["body"]
    assert verify["x402Version"] == 2
    assert verify["paymentRequirements"]["amount"] == str(SMALL_PRICE)


def test_a_paid_solve_takes_no_units_from_any_account(client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    before = store.ledger.usage("demo")
    response = post_solve(client, minimal_request_dict(), {"X-PAYMENT": x402_v1(SMALL_PRICE)})
    assert response.status_code == 200
    assert store.ledger.usage("demo") == before


def test_a_diagnosed_infeasibility_is_delivered_and_settled(
    client: TestClient, standin: StandIn
) -> None:
    data = json.loads((ROOT / "datasets" / "infeasible" / "assignable_shift.json").read_text())
    price = units_for(request_size(parse_request(data))) * PRICE_PER_UNIT
    response = post_solve(client, data, {"X-PAYMENT": x402_v1(price)})
    body = problem_of(response, 422, "solver-infeasible")
    assert body["diagnosis"]["causes"]
    assert decoded(response.headers["x-payment-response"])["success"] is True


# ------------------------------------------------------------ refused before verification


@pytest.mark.parametrize(
    "header",
    [
        "not base64 at all!",
        "eyJ4NDAyVmVyc2lvbiI6MX0=",  # {"x402Version":1}: no scheme, network, payload
        "W10=",  # []
        "",
    ],
)
def test_a_malformed_x_payment_is_401_x402_and_never_reaches_the_facilitator(
    client: TestClient, standin: StandIn, header: str
) -> None:
    body = assert_x402_refused(post_solve(client, minimal_request_dict(), {"X-PAYMENT": header}))
    assert "base64 x402 payload" in body["detail"]
    assert standin.calls() == []


def test_a_payment_below_the_price_is_refused_before_solving(
    client: TestClient, standin: StandIn
) -> None:
    response = post_solve(client, minimal_request_dict(), {"X-PAYMENT": x402_v1(SMALL_PRICE - 1)})
    body = assert_x402_refused(response)
    assert f"costs {SMALL_PRICE}" in body["detail"]
    assert decoded(response.headers["payment-required"])["accepts"][0]["amount"] == str(SMALL_PRICE)
    assert standin.calls() == []


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"network": "eip155:8453"}, "not exact on eip155:8453"),
        ({"to": "0x3333333333333333333333333333333333333333"}, "not to this service"),
    ],
)
def test_a_payment_on_another_network_or_to_another_address_is_refused(
    client: TestClient, standin: StandIn, options: dict[str, str], words: str
) -> None:
    response = post_solve(
        client, minimal_request_dict(), {"X-PAYMENT": x402_v1(SMALL_PRICE, **options)}
    )
    assert words in assert_x402_refused(response)["detail"]
    assert standin.calls() == []


def test_invalid_input_with_a_payment_is_422_and_the_payment_stays_unused(
    client: TestClient, standin: StandIn
) -> None:
    header = x402_v1(SMALL_PRICE)
    bad = minimal_request_dict()
    bad["employees"][0]["assignable_shift_ids"] = ["nope"]
    body = problem_of(post_solve(client, bad, {"X-PAYMENT": header}), 422, "validation-error")
    assert body["errors"][0]["path"][:2] == ["employees", 0]
    assert standin.calls() == []
    data = minimal_request_dict()
    assert_audited_roster(post_solve(client, data, {"X-PAYMENT": header}), data)


def test_a_large_problem_paid_by_x402_is_422_tier_limit_exceeded(
    client: TestClient, standin: StandIn
) -> None:
    data = json.loads((ROOT / "datasets" / "max_size.json").read_text())
    response = post_solve(client, data, {"X-PAYMENT": x402_v1(10**12)})
    problem_of(response, 422, "tier-limit-exceeded")
    assert standin.calls() == []


def test_a_paid_solve_asking_for_more_than_30_seconds_is_501(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    data["options"] = {"solver_timeout_seconds": 60}
    problem_of(
        post_solve(client, data, {"X-PAYMENT": x402_v1(SMALL_PRICE)}), 501, "not-implemented"
    )
    assert standin.calls() == []


def test_an_invalid_bearer_key_beside_a_payment_is_401_bearer(client: TestClient) -> None:
    headers = {"X-PAYMENT": x402_v1(SMALL_PRICE), "Authorization": "Bearer sk_live_unknown"}
    response = post_solve(client, minimal_request_dict(), headers)
    problem_of(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("Bearer ")


# --------------------------------------------------------------------------- verification


def test_a_payment_the_facilitator_rejects_is_401_with_its_reason(
    client: TestClient, standin: StandIn
) -> None:
    response = post_solve(
        client, minimal_request_dict(), {"X-PAYMENT": x402_v1(SMALL_PRICE, signature="0xbad")}
    )
    assert "invalid_exact_evm_payload_signature" in assert_x402_refused(response)["detail"]
    assert [call["path"] for call in standin.calls()] == ["/verify"]


def test_a_rejected_payment_can_be_retried_once_the_facilitator_accepts_it(
    client: TestClient, standin: StandIn
) -> None:
    header = x402_v1(SMALL_PRICE)
    standin.script(verify="invalid")
    assert (
        "insufficient_funds"
        in assert_x402_refused(post_solve(client, minimal_request_dict(), {"X-PAYMENT": header}))[
            "detail"
        ]
    )
    standin.script(verify="check")
    data = minimal_request_dict()
    assert_audited_roster(post_solve(client, data, {"X-PAYMENT": header}), data)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["error", "slow", "garbage"])
def test_no_verdict_from_the_facilitator_is_503_with_retry_after_and_costs_nothing(
    impatient: TestClient, standin: StandIn, mode: str
) -> None:
    header = x402_v1(SMALL_PRICE)
    standin.script(verify=mode, delay=SLOW_ANSWER_SECONDS)  # over the facilitator timeout
    response = post_solve(impatient, minimal_request_dict(), {"X-PAYMENT": header})
    problem_of(response, 503, "service-unavailable")
    assert int(response.headers["retry-after"]) > 0
    assert standin.calls("/settle") == []
    standin.script(verify="check")
    data = minimal_request_dict()
    assert_audited_roster(post_solve(impatient, data, {"X-PAYMENT": header}), data)


def test_an_unreachable_facilitator_is_503(
    module_database_url: str, payment_standin: StandIn
) -> None:
    x402 = x402_settings(payment_standin, facilitator_url=f"http://127.0.0.1:{free_port()}")
    with paid_app(module_database_url, x402, None, DEMO_KEY) as client:
        response = post_solve(client, minimal_request_dict(), {"X-PAYMENT": x402_v1(SMALL_PRICE)})
    problem_of(response, 503, "service-unavailable")
    assert response.headers["retry-after"] == "30"


# ----------------------------------------------------------------------------- settlement


def test_a_refused_settlement_withholds_the_roster_and_gives_the_payment_back(
    client: TestClient, standin: StandIn
) -> None:
    header = x402_v1(SMALL_PRICE)
    data = minimal_request_dict()
    standin.script(settle="fail")
    refused = post_solve(client, data, {"X-PAYMENT": header})
    body = assert_x402_refused(refused)
    assert "transaction_failed" in body["detail"] and "withheld" in body["detail"]
    assert refused.headers["x-service-settle-status"] == "failed"
    assert "x-payment-response" not in refused.headers
    assert "solution" not in body
    store = client.app.state.store  # type: ignore[attr-defined]
    assert store.payments.payment_state(claim_key(header)) is None  # no money moved: given back
    standin.script(settle="check")
    paid = post_solve(client, data, {"X-PAYMENT": header})
    assert_audited_roster(paid, data)
    assert decoded(paid.headers["x-payment-response"])["success"] is True
    assert store.payments.payment_state(claim_key(header)) == "settled"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["drop", "slow", "error"])
def test_no_verdict_at_settlement_delivers_the_roster_flagged_and_holds_the_payment(
    impatient: TestClient, standin: StandIn, mode: str
) -> None:
    standin.script(settle=mode, delay=SLOW_ANSWER_SECONDS)
    header = x402_v1(SMALL_PRICE)
    data = minimal_request_dict()
    response = post_solve(impatient, data, {"X-PAYMENT": header})
    assert_audited_roster(response, data)
    assert response.headers["x-service-settle-status"] == "facilitator_error"
    assert "x-payment-response" not in response.headers
    store = impatient.app.state.store  # type: ignore[attr-defined]
    assert store.payments.payment_state(claim_key(header)) == "settle_failed"
    standin.script(settle="check")
    again = post_solve(impatient, data, {"X-PAYMENT": header})
    assert "already used" in assert_x402_refused(again)["detail"]


def test_an_unexpected_fault_while_settling_is_internal_error(
    client: TestClient, standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(answer: Any) -> str:
        raise RuntimeError("encoder fault")

    monkeypatch.setattr(
        shiftsched.service.billing.payments.x402_gateway, "encode_payment_response_header", broken
    )
    data = minimal_request_dict()
    response = post_solve(client, data, {"X-PAYMENT": x402_v1(SMALL_PRICE)})
    assert_audited_roster(response, data)
    assert response.headers["x-service-settle-status"] == "internal_error"


# -------------------------------------------------------------------------------- replay


def test_a_payment_is_used_once(client: TestClient, standin: StandIn) -> None:
    header = x402_v1(SMALL_PRICE)
    data = minimal_request_dict()
    assert_audited_roster(post_solve(client, data, {"X-PAYMENT": header}), data)
    again = post_solve(client, data, {"X-PAYMENT": header})
    assert "already used" in assert_x402_refused(again)["detail"]
    assert len(standin.calls("/verify")) == 1
    assert len(settles_of(standin, header)) == 1


def test_one_payment_sent_by_four_requests_at_once_pays_for_one(
    client: TestClient, standin: StandIn
) -> None:
    header = x402_v1(SMALL_PRICE)
    data = minimal_request_dict()
    with ThreadPoolExecutor(4) as pool:
        responses = list(
            pool.map(lambda _: post_solve(client, data, {"X-PAYMENT": header}), range(4))
        )
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200, 401, 401, 401]
    for response in responses:
        if response.status_code == 200:
            assert_audited_roster(response, data)
        else:
            assert "already used" in assert_x402_refused(response)["detail"]
    assert len(settles_of(standin, header)) == 1


@pytest.fixture(scope="module")
def dual(module_database_url: str, payment_standin: StandIn) -> Iterator[TestClient]:
    """Version 1 clients sign for the network name, version 2 for its CAIP-2 id."""
    x402 = x402_settings(payment_standin, network_v1="base-sepolia")
    with paid_app(module_database_url, x402, None, DEMO_KEY) as client:
        yield client


def one_authorization_both_ways(client: TestClient) -> tuple[str, str]:
    """(X-PAYMENT, PAYMENT-SIGNATURE) carrying one authorization: same payer, nonce."""
    nonce = "0x" + secrets.token_hex(32)
    offer = post_solve(client, minimal_request_dict()).headers["payment-required"]
    v1 = x402_v1(SMALL_PRICE, network="base-sepolia", nonce=nonce)
    return v1, x402_v2(offer, nonce=nonce)


def test_one_authorization_has_one_claim_key_in_both_versions(dual: TestClient) -> None:
    gateway = dual.app.state.x402  # type: ignore[attr-defined]
    v1, v2 = (gateway.decode(header) for header in one_authorization_both_ways(dual))
    assert v1.get_network() == "base-sepolia" and v2.get_network() == NETWORK
    key = gateway.replay_key(v1)
    assert key == gateway.replay_key(v2)
    nonce = v1.payload["authorization"]["nonce"]
    payer = v1.payload["authorization"]["from"]
    assert key == f"x402:{NETWORK}:{ASSET}:{payer}:{nonce}".lower()


@pytest.mark.slow
def test_one_authorization_sent_as_v1_then_v2_pays_for_one_solve(
    dual: TestClient, standin: StandIn
) -> None:
    v1, v2 = one_authorization_both_ways(dual)
    data = minimal_request_dict()
    assert_audited_roster(post_solve(dual, data, {"X-PAYMENT": v1}), data)
    again = post_solve(dual, data, {"PAYMENT-SIGNATURE": v2})
    assert "already used" in assert_x402_refused(again)["detail"]
    assert len(settles_of(standin, v1)) == 1


@pytest.mark.slow
def test_one_authorization_sent_as_v1_and_v2_at_once_pays_for_one_solve(
    dual: TestClient, standin: StandIn
) -> None:
    v1, v2 = one_authorization_both_ways(dual)
    data = minimal_request_dict()
    headers = [{"X-PAYMENT": v1}, {"PAYMENT-SIGNATURE": v2}]
    barrier = threading.Barrier(len(headers))

    def send(header: dict[str, str]) -> Any:
        barrier.wait()
        return post_solve(dual, data, header)

    with ThreadPoolExecutor(len(headers)) as pool:
        responses = list(pool.map(send, headers))
    assert sorted(response.status_code for response in responses) == [200, 401]
    for response in responses:
        if response.status_code == 200:
            assert_audited_roster(response, data)
        else:
            assert "already used" in assert_x402_refused(response)["detail"]
    assert len(settles_of(standin, v1)) == 1


# ------------------------------------------------------------------------- configuration


def test_x_payment_where_x402_is_not_configured_is_401_x402(
    module_database_url: str, payment_standin: StandIn
) -> None:
    with paid_app(module_database_url, None, None, DEMO_KEY) as client:
        response = post_solve(client, minimal_request_dict(), {"X-PAYMENT": x402_v1(SMALL_PRICE)})
        offer = post_solve(client, minimal_request_dict())
    assert "not configured" in assert_x402_refused(response)["detail"]
    assert [entry["scheme"] for entry in offer.json()["accepts"]] == ["api_key"]
    assert offer.headers.get_list("www-authenticate") == ['Bearer realm="shiftsched"']
    assert "payment-required" not in offer.headers


@pytest.mark.parametrize("network", ["base sepolia", "eip155", "EIP155:8453"])
def test_an_invalid_network_identifier_in_the_configuration_is_503(
    module_database_url: str, payment_standin: StandIn, network: str
) -> None:
    x402 = x402_settings(payment_standin, network=network)
    with paid_app(module_database_url, x402, None, DEMO_KEY) as client:
        offer = post_solve(client, minimal_request_dict())
        paid = post_solve(client, minimal_request_dict(), {"X-PAYMENT": x402_v1(SMALL_PRICE)})
    for response in (offer, paid):
        body = problem_of(response, 503, "service-unavailable")
        assert "X402_NETWORK" in body["detail"]
        assert response.headers["retry-after"] == "30"


def test_a_version_1_network_name_of_another_chain_is_503(
    module_database_url: str, payment_standin: StandIn
) -> None:
    x402 = x402_settings(payment_standin, network_v1="base")  # eip155:8453, not 84532
    with paid_app(module_database_url, x402, None, DEMO_KEY) as client:
        response = post_solve(client, minimal_request_dict())
    body = problem_of(response, 503, "service-unavailable")
    assert "X402_NETWORK_V1 'base' is eip155:8453" in body["detail"]


@pytest.mark.slow
def test_a_payment_left_settling_by_a_dead_request_stays_refused(
    client: TestClient, standin: StandIn
) -> None:
    """No facilitator says whether an authorization was settled, so a claim its request
    left while settling waits for an operator (the chain would tell), past its lease too."""
    header = x402_v1(SMALL_PRICE)
    store = client.app.state.store  # type: ignore[attr-defined]
    assert store.payments.claim_payment(
        claim_key(header), "x402", str(SMALL_PRICE), "req-dead", -1.0
    )
    assert store.payments.start_settling(claim_key(header), "req-dead", -1.0)
    refused = post_solve(client, minimal_request_dict(), {"X-PAYMENT": header})
    assert "already used" in assert_x402_refused(refused)["detail"]
    assert store.payments.payment_state(claim_key(header)) == "settling"
    assert standin.calls() == []
