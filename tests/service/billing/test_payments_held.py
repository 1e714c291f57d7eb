"""A delivered solve whose settlement got no verdict is *held* and settled later.

The first settlement fails for want of an answer (the stand-in drops the connection or
answers 502), so the roster goes out flagged and the claim keeps what settling needs.
Once the facilitator or provider answers again, the next paid solve of that scheme
settles the held one in its background, exactly once, and so does each service process's
timer when no paid solve follows; a refusal on retry is recorded for good. Each backend
holds the claims in turn.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.service.billing.payments.resettle import resettle_periodically, settle_held
from shiftsched.service.store import Store
from shiftsched.service.store.tables import payments
from tests.factories import minimal_request_dict
from tests.service.payments_support import (
    ASSET,
    MPP_PRICE_MINOR,
    NETWORK,
    PRICE_PER_UNIT,
    SHORT_TIMEOUT_SECONDS,
    SLOW_ANSWER_SECONDS,
    StandIn,
    assert_audited_roster,
    decoded,
    mpp_credential,
    mpp_settings,
    paid_app,
    payment_challenge,
    post_solve,
    x402_settings,
    x402_v1,
)

pytestmark = pytest.mark.slow  # paid solves on solver processes, settled later

DEMO_KEY = "sk_test_" + "h" * 64
UNITS = units_for(request_size(parse_request(minimal_request_dict())))
WAIT_SECONDS = 60  # for the stand-in's slow answer to land; only a broken one takes this long
TIMER_SECONDS = 0.2  # the held-settlement timer's round, short for the test


@pytest.fixture
def client(database_url: str, standin: StandIn) -> Iterator[TestClient]:
    x402 = x402_settings(standin, facilitator_timeout_seconds=SHORT_TIMEOUT_SECONDS)
    mpp = mpp_settings(standin, provider_timeout_seconds=SHORT_TIMEOUT_SECONDS)
    with paid_app(database_url, x402, mpp, DEMO_KEY) as client:
        yield client


def x402_key(header: str) -> str:
    authorization = decoded(header)["payload"]["authorization"]
    parts = [NETWORK, ASSET, authorization["from"], authorization["nonce"]]
    return ("x402:" + ":".join(parts)).lower()


def store_of(client: TestClient) -> Store:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    return store


def settle_with_of(store: Store, key: str) -> str | None:
    with store.db.read() as conn:
        value: str | None = conn.execute(
            payments.select().with_only_columns(payments.c.settle_with).where(payments.c.key == key)
        ).scalar_one()
    return value


def settle_held_now(client: TestClient, scheme: str) -> dict[str, str]:
    """``settle_held`` as the app runs it: on the app's event loop, with its clients."""
    gateway = getattr(client.app.state, scheme)  # type: ignore[attr-defined]
    outcomes: dict[str, str] = client.portal.call(settle_held, store_of(client), gateway)  # type: ignore[union-attr]
    return outcomes


def flagged_x402(client: TestClient, standin: StandIn, mode: str) -> str:
    """A roster delivered flagged facilitator_error; the header of its held payment."""
    standin.script(settle=mode)
    header = x402_v1(UNITS * PRICE_PER_UNIT)
    data = minimal_request_dict()
    response = post_solve(client, data, {"X-PAYMENT": header})
    assert_audited_roster(response, data)
    assert response.headers["x-service-settle-status"] == "facilitator_error"
    store = store_of(client)
    assert store.payments.payment_state(x402_key(header)) == "settle_failed"
    assert settle_with_of(store, x402_key(header)) is not None
    return header


@pytest.mark.parametrize("mode", ["drop", "error"])
def test_a_held_x402_settlement_is_settled_by_the_next_paid_solve(
    client: TestClient, standin: StandIn, mode: str
) -> None:
    held = flagged_x402(client, standin, mode)
    standin.script(settle="check")
    data = minimal_request_dict()
    later = post_solve(client, data, {"X-PAYMENT": x402_v1(UNITS * PRICE_PER_UNIT)})
    assert_audited_roster(later, data)
    assert "x-service-settle-status" not in later.headers
    store = store_of(client)
    assert store.payments.payment_state(x402_key(held)) == "settled"
    assert settle_with_of(store, x402_key(held)) is None
    nonce = decoded(held)["payload"]["authorization"]["nonce"]
    settles = [call["body"] for call in standin.calls("/settle")]
    paid = [body["paymentPayload"]["payload"]["authorization"]["nonce"] for body in settles]
    assert paid.count(nonce) == 2  # the try with no verdict, and the one that settled
    assert settle_held_now(client, "x402") == {}


def test_the_timer_settles_a_held_settlement_when_no_paid_solve_follows(
    client: TestClient, standin: StandIn
) -> None:
    held = flagged_x402(client, standin, "error")
    standin.script(settle="check")
    store = store_of(client)
    gateway = client.app.state.x402  # type: ignore[attr-defined]
    timer = client.portal.start_task_soon(  # type: ignore[union-attr]
        resettle_periodically, store, [gateway], TIMER_SECONDS
    )
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while store.payments.payment_state(x402_key(held)) != "settled":
            assert time.monotonic() < deadline, "the timer never settled the held claim"
            time.sleep(0.1)
    finally:
        timer.cancel()
    assert settle_with_of(store, x402_key(held)) is None
    nonce = decoded(held)["payload"]["authorization"]["nonce"]
    settles = [call["body"] for call in standin.calls("/settle")]
    paid = [body["paymentPayload"]["payload"]["authorization"]["nonce"] for body in settles]
    assert paid.count(nonce) == 2  # the try with no verdict, and the timer's, once


def test_a_held_settlement_refused_on_retry_is_recorded_for_good(
    client: TestClient, standin: StandIn
) -> None:
    held = flagged_x402(client, standin, "error")
    standin.script(settle="fail")
    store = store_of(client)
    assert settle_held_now(client, "x402") == {x402_key(held): "failed"}
    assert store.payments.payment_state(x402_key(held)) == "settle_failed"
    assert settle_with_of(store, x402_key(held)) is None
    standin.script(settle="check")
    assert settle_held_now(client, "x402") == {}


def test_a_held_settlement_with_still_no_verdict_waits_for_another_try(
    client: TestClient, standin: StandIn
) -> None:
    held = flagged_x402(client, standin, "error")
    assert settle_held_now(client, "x402") == {x402_key(held): "facilitator_error"}
    assert settle_held_now(client, "x402") == {}  # resting before its next try
    assert settle_with_of(store_of(client), x402_key(held)) is not None


def test_a_held_mpp_capture_is_captured_by_the_next_paid_solve(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    price = UNITS * MPP_PRICE_MINOR
    held_id = standin.add_payment(price)
    challenge = payment_challenge(post_solve(client, data))
    standin.script(capture="drop")
    flagged = post_solve(client, data, {"Authorization": mpp_credential(challenge, held_id)})
    assert_audited_roster(flagged, data)
    assert flagged.headers["x-service-settle-status"] == "facilitator_error"
    assert standin.payment(held_id)["status"] == "authorized"
    standin.script(capture="ok")
    challenge = payment_challenge(post_solve(client, data))
    later_id = standin.add_payment(price)
    later = post_solve(client, data, {"Authorization": mpp_credential(challenge, later_id)})
    assert_audited_roster(later, data)
    assert standin.payment(held_id)["status"] == "captured"
    assert store_of(client).payments.payment_state(f"mpp:{held_id}") == "settled"


def test_a_held_mpp_capture_that_landed_late_is_not_captured_twice(
    client: TestClient, standin: StandIn
) -> None:
    data = minimal_request_dict()
    held_id = standin.add_payment(UNITS * MPP_PRICE_MINOR)
    challenge = payment_challenge(post_solve(client, data))
    standin.script(capture="slow", delay=SLOW_ANSWER_SECONDS)  # over the provider timeout
    flagged = post_solve(client, data, {"Authorization": mpp_credential(challenge, held_id)})
    assert flagged.headers["x-service-settle-status"] == "facilitator_error"
    deadline = time.monotonic() + WAIT_SECONDS
    while standin.payment(held_id)["status"] != "captured":  # the slow capture lands
        assert time.monotonic() < deadline
        time.sleep(0.1)
    standin.script(capture="ok")
    assert settle_held_now(client, "mpp") == {f"mpp:{held_id}": "settled"}
    captures = [call for call in standin.calls() if call["path"].endswith("/capture")]
    assert len(captures) == 1
