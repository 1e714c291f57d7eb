"""A paid call retried with its Idempotency-Key is answered again, never settled twice.

A call paid per request (x402, mpp) is keyed by its payment: the key is claimed with the
payment, and the same payment, key and body sent again get the delivered answer byte for
byte (``Idempotent-Replayed: true``) with no second verification or settlement; another
body gets 422, a retry while the first still runs 409, and a first call that delivered
nothing leaves the payment free for the retry. Against the payment stand-in in its own
process, on each backend.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from tests.factories import minimal_request_dict
from tests.service.payments_support import (
    MPP_PRICE_MINOR,
    PRICE_PER_UNIT,
    StandIn,
    assert_audited_roster,
    decoded,
    mpp_credential,
    mpp_settings,
    paid_app,
    payment_challenge,
    post_solve,
    problem_of,
    x402_settings,
    x402_v1,
)

DEMO_KEY = "sk_test_" + "d" * 64
SMALL_UNITS = units_for(request_size(parse_request(minimal_request_dict())))


@pytest.fixture(scope="module")
def client(module_database_url: str, payment_standin: StandIn) -> Iterator[TestClient]:
    x402, mpp = x402_settings(payment_standin), mpp_settings(payment_standin)
    with paid_app(module_database_url, x402, mpp, DEMO_KEY) as client:
        yield client


def nonce_of(header: str) -> str:
    return str(decoded(header)["payload"]["authorization"]["nonce"])


def settles(standin: StandIn, header: str) -> int:
    """How many times the facilitator was asked to settle the payment of ``header``."""
    nonce = nonce_of(header)
    return sum(
        call["body"]["paymentPayload"]["payload"]["authorization"]["nonce"] == nonce
        for call in standin.calls("/settle")
    )


def keyed(payment: dict[str, str], key: str) -> dict[str, str]:
    return {**payment, "Idempotency-Key": key}


def assert_replay_of(first: Any, again: Any) -> None:
    """``again`` is ``first`` answered again: its status, body and payment proof."""
    assert again.status_code == first.status_code
    assert again.content == first.content
    assert again.headers["idempotent-replayed"] == "true"
    for header in ("x-payment-response", "payment-receipt", "x-units-consumed"):
        assert again.headers.get(header) == first.headers.get(header)


def test_an_x402_call_retried_with_its_key_is_answered_again_and_settled_once(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment = {"X-PAYMENT": x402_v1(SMALL_UNITS * PRICE_PER_UNIT)}
    first = post_solve(client, data, keyed(payment, "x402-retry-1"))
    assert_audited_roster(first, data)
    assert "idempotent-replayed" not in first.headers
    reordered = json.loads(json.dumps(data, sort_keys=True))  # formatting never counts
    again = post_solve(client, reordered, keyed(payment, "x402-retry-1"))
    assert_replay_of(first, again)
    assert len(standin.calls("/verify")) == 1
    assert settles(standin, payment["X-PAYMENT"]) == 1


def test_an_mpp_call_retried_with_its_key_is_answered_again_and_captured_once(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    challenge = payment_challenge(post_solve(client, data))
    payment_id = standin.add_payment(SMALL_UNITS * MPP_PRICE_MINOR)
    payment = {"Authorization": mpp_credential(challenge, payment_id)}
    first = post_solve(client, data, keyed(payment, "mpp-retry-1"))
    assert_audited_roster(first, data)
    again = post_solve(client, data, keyed(payment, "mpp-retry-1"))
    assert_replay_of(first, again)
    captures = [call for call in standin.calls() if call["path"].endswith("/capture")]
    assert [call["path"] for call in captures] == [f"/payments/{payment_id}/capture"]
    assert standin.payment(payment_id)["status"] == "captured"


def test_the_same_payment_and_key_with_another_body_is_422_and_settles_nothing_more(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment = {"X-PAYMENT": x402_v1(SMALL_UNITS * PRICE_PER_UNIT)}
    assert post_solve(client, data, keyed(payment, "x402-reused")).status_code == 200
    other = {**data, "options": {"solver_timeout_seconds": 7}}
    refused = post_solve(client, other, keyed(payment, "x402-reused"))
    problem_of(refused, 422, "idempotency-key-reused")
    assert settles(standin, payment["X-PAYMENT"]) == 1


def test_without_a_key_a_payment_sent_again_is_still_refused_as_used(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment = {"X-PAYMENT": x402_v1(SMALL_UNITS * PRICE_PER_UNIT)}
    assert post_solve(client, data, keyed(payment, "x402-then-bare")).status_code == 200
    again = post_solve(client, data, payment)
    assert "already used" in problem_of(again, 401, "unauthorized")["detail"]
    other_key = post_solve(client, data, keyed(payment, "x402-another-key"))
    assert "already used" in problem_of(other_key, 401, "unauthorized")["detail"]
    assert settles(standin, payment["X-PAYMENT"]) == 1


def test_four_retries_at_once_settle_once_and_end_with_one_answer(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment = keyed({"X-PAYMENT": x402_v1(SMALL_UNITS * PRICE_PER_UNIT)}, "x402-four")
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: post_solve(client, data, payment), range(4)))
    statuses = sorted(answer.status_code for answer in answers)
    assert set(statuses) <= {200, 409} and 200 in statuses, statuses
    for answer in answers:
        if answer.status_code == 409:
            problem_of(answer, 409, "idempotency-conflict")
            assert int(answer.headers["retry-after"]) >= 1
    delivered = [answer for answer in answers if answer.status_code == 200]
    assert len({answer.content for answer in delivered}) == 1
    last = post_solve(client, data, payment)
    assert last.content == delivered[0].content
    assert last.headers["idempotent-replayed"] == "true"
    assert settles(standin, payment["X-PAYMENT"]) == 1


def test_a_first_call_that_delivered_nothing_leaves_the_payment_to_its_retry(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment = keyed({"X-PAYMENT": x402_v1(SMALL_UNITS * PRICE_PER_UNIT)}, "x402-undelivered")
    standin.script(settle="fail")  # refused outright: the roster is withheld, no money moved
    problem_of(post_solve(client, data, payment), 401, "unauthorized")
    standin.script(settle="check")
    retried = post_solve(client, data, payment)
    assert_audited_roster(retried, data)
    assert "idempotent-replayed" not in retried.headers


def test_answers_past_the_key_lifetime_are_dropped_and_the_payment_stays_used(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    payment = keyed({"X-PAYMENT": x402_v1(SMALL_UNITS * PRICE_PER_UNIT)}, "x402-expiring")
    assert post_solve(client, data, payment).status_code == 200
    store = client.app.state.store  # type: ignore[attr-defined]
    assert store.payments.purge_paid_answers(timedelta(0)) >= 1
    again = post_solve(client, data, payment)
    assert "already used" in problem_of(again, 401, "unauthorized")["detail"]
    assert settles(standin, payment["X-PAYMENT"]) == 1
