"""Payment claims: a payment is taken once, by one request, and given back only unsettled."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from bento.store import Store

THREADS = 8


def test_a_payment_is_claimed_once(store: Store) -> None:
    assert store.claim_payment("x402:eip155:84532:0xabc", "x402", "1000", "req-1")
    assert not store.claim_payment("x402:eip155:84532:0xabc", "x402", "1000", "req-2")
    assert store.payment_state("x402:eip155:84532:0xabc") == "verifying"


def test_an_unsettled_claim_is_given_back_and_can_be_claimed_again(store: Store) -> None:
    assert store.claim_payment("mpp:pay_1", "mpp", "5", "req-1")
    assert store.release_payment("mpp:pay_1")
    assert store.payment_state("mpp:pay_1") is None
    assert not store.release_payment("mpp:pay_1")
    assert store.claim_payment("mpp:pay_1", "mpp", "5", "req-2")


@pytest.mark.parametrize("state", ["settling", "settled", "settle_failed"])
def test_a_claim_past_verification_is_never_given_back(store: Store, state: str) -> None:
    store.claim_payment("mpp:pay_2", "mpp", "5", "req-1")
    assert store.mark_payment("mpp:pay_2", state, "detail")  # type: ignore[arg-type]
    assert not store.release_payment("mpp:pay_2")
    assert store.payment_state("mpp:pay_2") == state
    assert not store.claim_payment("mpp:pay_2", "mpp", "5", "req-2")


def test_marking_an_unknown_payment_changes_nothing(store: Store) -> None:
    assert not store.mark_payment("mpp:nobody", "settled")


def test_concurrent_claims_of_one_payment_have_one_winner(store: Store) -> None:
    barrier = threading.Barrier(THREADS)

    def claim(index: int) -> bool:
        barrier.wait()
        return store.claim_payment("x402:sha256:same", "x402", "1000", f"req-{index}")

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(claim, range(THREADS)))
    assert results.count(True) == 1


def test_a_payment_key_has_at_most_200_characters(store: Store) -> None:
    with pytest.raises(ValueError, match="1 to 200"):
        store.claim_payment("k" * 201, "x402", "1", "req")
