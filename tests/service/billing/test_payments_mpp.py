"""mpp (the HTTP ``Payment`` scheme, payments-link profile) on POST /solve, end to end.

The client side is pympp's own Challenge/Credential/Receipt; the payment provider is the
stand-in process. Covered: the challenge of the 402, a paid solve with its receipt, the
credential in ``Payment-Authorization`` beside a Bearer key, every refusal (malformed,
forged, expired, for a smaller price, provider refusal), an unreachable provider, every
capture failure after delivery, replay and concurrent use. Each backend holds the
payment claims in turn; every roster is audited.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mpp import Challenge, Credential, Receipt
from starlette.testclient import TestClient

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.data.synthetic import synthetic_request
from shiftsched.service.billing.payments.mpp_gateway import MppGateway
from shiftsched.service.store.tables import payments
from tests.factories import minimal_request_dict
from tests.service.payments_support import (
    MPP_ACCOUNT,
    MPP_PRICE_MINOR,
    SHORT_TIMEOUT_SECONDS,
    SLOW_ANSWER_SECONDS,
    StandIn,
    assert_audited_roster,
    mpp_credential,
    mpp_settings,
    paid_app,
    payment_challenge,
    post_solve,
    problem_of,
)
from tests.service.processes import free_port

ROOT = Path(__file__).parent.parent.parent.parent
DEMO_KEY = "sk_test_" + "c" * 64
SMALL_UNITS = units_for(request_size(parse_request(minimal_request_dict())))
SMALL_PRICE = SMALL_UNITS * MPP_PRICE_MINOR


@pytest.fixture(scope="module")
def client(module_database_url: str, payment_standin: StandIn) -> Iterator[TestClient]:
    with paid_app(module_database_url, None, mpp_settings(payment_standin), DEMO_KEY) as client:
        yield client


@pytest.fixture(scope="module")
def impatient(module_database_url: str, payment_standin: StandIn) -> Iterator[TestClient]:
    """The app waiting only SHORT_TIMEOUT_SECONDS for the provider, for slow answers."""
    settings = mpp_settings(payment_standin, provider_timeout_seconds=SHORT_TIMEOUT_SECONDS)
    with paid_app(module_database_url, None, settings, DEMO_KEY) as client:
        yield client


def assert_mpp_refused(response: Any) -> dict[str, Any]:
    """401 with a fresh Payment challenge the client can pay instead."""
    body = problem_of(response, 401, "unauthorized")
    challenge = payment_challenge(response)
    assert challenge.method == "payments-link"
    return body


def challenge_for(client: TestClient, data: dict[str, Any]) -> Challenge:
    return payment_challenge(post_solve(client, data))


def pay(client: TestClient, standin: StandIn, data: dict[str, Any], amount: int) -> str:
    """Answer the 402 of ``data`` with a payment of ``amount`` made at the provider."""
    return mpp_credential(challenge_for(client, data), standin.add_payment(amount))


# ------------------------------------------------------------------------- the 402 offer


def test_the_402_carries_a_payment_challenge_and_an_mpp_entry(client: TestClient) -> None:
    response = post_solve(client, minimal_request_dict())
    body = problem_of(response, 402, "payment-required")
    assert [entry["scheme"] for entry in body["accepts"]] == ["api_key", "mpp"]
    entry = body["accepts"][1]
    assert entry == {
        "scheme": "mpp",
        "profile": "payments-link",
        "payments_account": MPP_ACCOUNT,
        "amount_minor": str(SMALL_PRICE),
        "currency": "usd",
        "description": entry["description"],
        "docs": "https://api.test/v1/public/openapi.json",
    }
    challenge = payment_challenge(response)
    assert challenge.realm == "shiftsched"
    assert (challenge.method, challenge.intent) == ("payments-link", "charge")
    assert challenge.request == {
        "amount": str(SMALL_PRICE),
        "currency": "usd",
        "recipient": MPP_ACCOUNT,
        "profile": "payments-link",
    }
    expires = datetime.fromisoformat(str(challenge.expires).replace("Z", "+00:00"))
    assert expires > datetime.now(UTC)
    assert "payment-required" not in response.headers  # no x402 configured here


def test_two_offers_never_share_a_challenge(client: TestClient) -> None:
    first = challenge_for(client, minimal_request_dict())
    second = challenge_for(client, minimal_request_dict())
    assert first.id != second.id


# ------------------------------------------------------------------------- paid solves


@pytest.mark.slow
def test_a_payment_credential_is_verified_solved_captured_and_receipted(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    challenge = challenge_for(client, data)
    payment_id = standin.add_payment(SMALL_PRICE)
    credential = mpp_credential(challenge, payment_id)
    response = post_solve(client, data, {"Authorization": credential})
    assert_audited_roster(response, data)
    receipt = Receipt.from_payment_receipt(response.headers["payment-receipt"])
    assert receipt.status == "success"
    assert receipt.reference == payment_id
    assert receipt.method == "payments-link"
    assert "x-service-settle-status" not in response.headers
    paths = [call["path"] for call in standin.calls("/payments/")]
    assert paths[0] == f"/payments/{payment_id}"  # verified before solving
    assert paths[-1] == f"/payments/{payment_id}/capture"  # captured after
    assert standin.payment(payment_id)["status"] == "captured"


@pytest.mark.slow
def test_payment_authorization_beside_a_bearer_key_pays_and_the_key_is_not_charged(
    client: TestClient, standin: StandIn
) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    before = store.ledger.usage("demo")
    data = minimal_request_dict()
    headers = {
        "Authorization": f"Bearer {DEMO_KEY}",
        "Payment-Authorization": pay(client, standin, data, SMALL_PRICE),
    }
    response = post_solve(client, data, headers)
    assert_audited_roster(response, data)
    assert "payment-receipt" in response.headers
    assert store.ledger.usage("demo") == before


def test_a_payment_larger_than_the_price_is_accepted(client: TestClient, standin: StandIn) -> None:
    data = minimal_request_dict()
    response = post_solve(client, data, {"Authorization": pay(client, standin, data, 10**6)})
    assert_audited_roster(response, data)


# ---------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "header",
    ["Payment ", "Payment !!!not-base64url!!!", "Payment eyJmb28iOiJiYXIifQ"],
)
def test_a_malformed_credential_is_401_with_a_fresh_challenge(
    client: TestClient, standin: StandIn, header: str
) -> None:
    assert_mpp_refused(post_solve(client, minimal_request_dict(), {"Authorization": header}))
    assert standin.calls() == []


def test_a_credential_without_a_payment_id_is_401(client: TestClient, standin: StandIn) -> None:
    challenge = challenge_for(client, minimal_request_dict())
    header = Credential(challenge=challenge.to_echo(), payload={}).to_authorization()
    body = assert_mpp_refused(post_solve(client, minimal_request_dict(), {"Authorization": header}))
    assert "payment_id" in body["detail"]
    assert standin.calls() == []


def test_a_challenge_issued_for_a_smaller_request_cannot_pay_a_bigger_one(
    client: TestClient, standin: StandIn
) -> None:
    credential = pay(client, standin, minimal_request_dict(), 10**6)
    bigger = synthetic_request(20, 3, 3, 60, mix="coverage")  # 10,800: 2 units
    assert units_for(request_size(parse_request(bigger))) == 2 * SMALL_UNITS
    refused = post_solve(client, bigger, {"Authorization": credential})
    assert "does not match" in assert_mpp_refused(refused)["detail"]
    assert standin.calls("/payments/") == []


def test_a_forged_challenge_is_401(client: TestClient, standin: StandIn) -> None:
    forger = MppGateway(mpp_settings(standin, secret_key="someone-else-" + "x" * 32))
    credential = mpp_credential(forger.challenge(SMALL_UNITS), standin.add_payment(SMALL_PRICE))
    body = assert_mpp_refused(
        post_solve(client, minimal_request_dict(), {"Authorization": credential})
    )
    assert "not issued by this server" in body["detail"]
    assert standin.calls("/payments/") == []


def test_an_expired_challenge_is_401(client: TestClient, standin: StandIn) -> None:
    gateway: MppGateway = client.app.state.mpp  # type: ignore[attr-defined]
    settings = gateway.settings
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat(timespec="seconds")
    expired = Challenge.create(
        secret_key=settings.secret_key,
        realm=settings.realm,
        method="payments-link",
        intent="charge",
        request=gateway.challenge(SMALL_UNITS).request,
        expires=past.replace("+00:00", "Z"),
    )
    credential = mpp_credential(expired, standin.add_payment(SMALL_PRICE))
    body = assert_mpp_refused(
        post_solve(client, minimal_request_dict(), {"Authorization": credential})
    )
    assert "expired" in body["detail"].lower()


@pytest.mark.parametrize(
    ("payment", "words"),
    [
        ({"amount_minor": SMALL_PRICE - 1}, "this solve costs"),
        ({"amount_minor": SMALL_PRICE, "status": "canceled"}, "not authorized"),
        ({"amount_minor": SMALL_PRICE, "currency": "eur"}, "not in usd"),
        ({"amount_minor": SMALL_PRICE, "account": "acct_other"}, "another account"),
    ],
)
def test_a_payment_the_provider_does_not_hold_for_this_price_is_401(
    client: TestClient, standin: StandIn, payment: dict[str, Any], words: str
) -> None:
    data = minimal_request_dict()
    terms = dict(payment)
    amount = terms.pop("amount_minor")
    credential = mpp_credential(challenge_for(client, data), standin.add_payment(amount, **terms))
    body = assert_mpp_refused(post_solve(client, data, {"Authorization": credential}))
    assert words in body["detail"]
    assert not any(call["path"].endswith("/capture") for call in standin.calls())


def test_an_unknown_payment_is_401(client: TestClient, standin: StandIn) -> None:
    data = minimal_request_dict()
    credential = mpp_credential(challenge_for(client, data), "pay_unknown")
    assert (
        "no such payment"
        in assert_mpp_refused(post_solve(client, data, {"Authorization": credential}))["detail"]
    )


def test_a_large_problem_paid_by_mpp_is_422_tier_limit_exceeded(
    client: TestClient, standin: StandIn
) -> None:
    data = json.loads((ROOT / "datasets" / "max_size.json").read_text())
    credential = pay(client, standin, data, 10**6)
    problem_of(post_solve(client, data, {"Authorization": credential}), 422, "tier-limit-exceeded")
    assert standin.calls("/payments/") == []


def test_mpp_where_it_is_not_configured_is_401(module_database_url: str) -> None:
    with paid_app(module_database_url, None, None, DEMO_KEY) as client:
        response = post_solve(client, minimal_request_dict(), {"Authorization": "Payment abc"})
    body = problem_of(response, 401, "unauthorized")
    assert "not configured" in body["detail"]


# ------------------------------------------------------------------- provider failures


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["error", "slow"])
def test_no_answer_from_the_provider_is_503_and_the_payment_stays_usable(
    impatient: TestClient, standin: StandIn, mode: str
) -> None:
    data = minimal_request_dict()
    credential = pay(impatient, standin, data, SMALL_PRICE)
    standin.script(provider=mode, delay=SLOW_ANSWER_SECONDS)  # over the provider timeout
    response = post_solve(impatient, data, {"Authorization": credential})
    problem_of(response, 503, "service-unavailable")
    assert response.headers["retry-after"] == "30"
    standin.script(provider="ok")
    assert_audited_roster(post_solve(impatient, data, {"Authorization": credential}), data)


def test_an_unreachable_provider_is_503(module_database_url: str, payment_standin: StandIn) -> None:
    settings = mpp_settings(payment_standin, provider_url=f"http://127.0.0.1:{free_port()}")
    with paid_app(module_database_url, None, settings, DEMO_KEY) as client:
        data = minimal_request_dict()
        credential = mpp_credential(challenge_for(client, data), "pay_anything")
        response = post_solve(client, data, {"Authorization": credential})
    problem_of(response, 503, "service-unavailable")


def test_a_refused_capture_withholds_the_roster_and_gives_the_payment_back(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment_id = standin.add_payment(SMALL_PRICE)
    credential = mpp_credential(challenge_for(client, data), payment_id)
    standin.script(capture="fail")
    refused = post_solve(client, data, {"Authorization": credential})
    body = assert_mpp_refused(refused)
    assert "refused the capture" in body["detail"] and "withheld" in body["detail"]
    assert refused.headers["x-service-settle-status"] == "failed"
    assert "payment-receipt" not in refused.headers
    store = client.app.state.store  # type: ignore[attr-defined]
    assert store.payments.payment_state(f"mpp:{payment_id}") is None
    assert standin.payment(payment_id)["status"] == "authorized"  # no money moved
    standin.script(capture="ok")
    paid = post_solve(client, data, {"Authorization": credential})
    assert_audited_roster(paid, data)
    assert "payment-receipt" in paid.headers
    assert standin.payment(payment_id)["status"] == "captured"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["drop", "slow"])
def test_no_verdict_at_capture_delivers_the_roster_flagged_and_holds_the_payment(
    impatient: TestClient, standin: StandIn, mode: str
) -> None:
    data = minimal_request_dict()
    payment_id = standin.add_payment(SMALL_PRICE)
    credential = mpp_credential(challenge_for(impatient, data), payment_id)
    standin.script(capture=mode, delay=SLOW_ANSWER_SECONDS)
    response = post_solve(impatient, data, {"Authorization": credential})
    assert_audited_roster(response, data)
    assert response.headers["x-service-settle-status"] == "facilitator_error"
    assert "payment-receipt" not in response.headers
    store = impatient.app.state.store  # type: ignore[attr-defined]
    assert store.payments.payment_state(f"mpp:{payment_id}") == "settle_failed"
    standin.script(capture="ok")
    again = post_solve(impatient, data, {"Authorization": credential})
    assert "already used" in assert_mpp_refused(again)["detail"]


def test_an_unexpected_fault_while_settling_is_internal_error(
    client: TestClient, standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(receipt: Receipt) -> str:
        raise RuntimeError("receipt encoder fault")

    monkeypatch.setattr(Receipt, "to_payment_receipt", broken)
    data = minimal_request_dict()
    response = post_solve(client, data, {"Authorization": pay(client, standin, data, SMALL_PRICE)})
    assert_audited_roster(response, data)
    assert response.headers["x-service-settle-status"] == "internal_error"


# ------------------------------------------------------------------------------ replay


def test_a_payment_pays_for_one_solve_even_with_a_fresh_challenge(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment_id = standin.add_payment(SMALL_PRICE)
    first = post_solve(
        client, data, {"Authorization": mpp_credential(challenge_for(client, data), payment_id)}
    )
    assert_audited_roster(first, data)
    again = mpp_credential(challenge_for(client, data), payment_id)
    body = assert_mpp_refused(post_solve(client, data, {"Authorization": again}))
    assert "already used" in body["detail"]


def test_one_credential_sent_by_four_requests_at_once_pays_for_one(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment_id = standin.add_payment(SMALL_PRICE)
    credential = mpp_credential(challenge_for(client, data), payment_id)
    with ThreadPoolExecutor(4) as pool:
        responses = list(
            pool.map(lambda _: post_solve(client, data, {"Authorization": credential}), range(4))
        )
    assert sorted(response.status_code for response in responses) == [200, 401, 401, 401]
    for response in responses:
        if response.status_code == 200:
            assert_audited_roster(response, data)
    captures = standin.calls(f"/payments/{payment_id}/capture")  # held ones may be retried
    assert len(captures) == 1


# ------------------------------------------------------------- a request that died settling


def left_settling(client: TestClient, payment_id: str) -> None:
    """The claim as a request leaves it when it dies while capturing: in settling, its
    lease run out."""
    store = client.app.state.store  # type: ignore[attr-defined]
    key = f"mpp:{payment_id}"
    assert store.payments.claim_payment(key, "mpp", str(SMALL_PRICE), "req-dead", -1.0)
    assert store.payments.start_settling(key, "req-dead", -1.0)


def test_a_payment_left_settling_uncaptured_is_given_back_and_pays_the_retry(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment_id = standin.add_payment(SMALL_PRICE)
    left_settling(client, payment_id)
    retry = post_solve(
        client, data, {"Authorization": mpp_credential(challenge_for(client, data), payment_id)}
    )
    assert_audited_roster(retry, data)
    assert "payment-receipt" in retry.headers
    assert standin.payment(payment_id)["status"] == "captured"
    assert len(standin.calls(f"/payments/{payment_id}/capture")) == 1
    store = client.app.state.store  # type: ignore[attr-defined]
    assert store.payments.payment_state(f"mpp:{payment_id}") == "settled"


@pytest.mark.slow
def test_a_payment_left_settling_but_captured_is_recorded_and_not_used_again(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment_id = standin.add_payment(SMALL_PRICE, status="captured")
    left_settling(client, payment_id)
    credential = mpp_credential(challenge_for(client, data), payment_id)
    body = assert_mpp_refused(post_solve(client, data, {"Authorization": credential}))
    assert "already used" in body["detail"]
    assert standin.calls(f"/payments/{payment_id}/capture") == []
    store = client.app.state.store  # type: ignore[attr-defined]
    assert store.payments.payment_state(f"mpp:{payment_id}") == "settled"
    with store.db.read() as conn:
        detail = conn.execute(
            payments.select()
            .with_only_columns(payments.c.detail)
            .where(payments.c.key == f"mpp:{payment_id}")
        ).scalar_one()
    assert "may not have gone out" in detail
