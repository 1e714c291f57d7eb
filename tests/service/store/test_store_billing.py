"""Units: free quota first, atomic reservations, settled exactly once.

The rules are in docs/semantics.md, "When a solve is charged".
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier

import pytest
import sqlalchemy as sa

from shiftsched.service.store import Reservation, Store, UnknownAccount, ledger

THREADS = 8
PROCESSES = 4
ATTEMPTS_PER_PROCESS = 3
UNITS = 2
ENOUGH_FOR = 5
# Waits for the racers to line up and finish: generous, so only a hang reaches them (four
# spawned processes importing the store can take a while on a busy machine).
START_SECONDS = 120
FINISH_SECONDS = 180


def test_free_quota_is_used_before_the_balance(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=3, balance=10)
    first = store.ledger.reserve(account.id, 2, "r1")
    assert first == Reservation("r1", account.id, 2, 2, 0, "reserved")
    assert store.ledger.usage(account.id) == (1, 10, 11)
    second = store.ledger.reserve(account.id, 4, "r2")
    assert second is not None and (second.free_part, second.balance_part) == (1, 3)
    assert store.ledger.usage(account.id) == (0, 7, 7)


def test_capture_keeps_and_release_returns_both_parts(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=3, balance=10)
    store.ledger.reserve(account.id, 2, "kept")
    store.ledger.reserve(account.id, 4, "returned")
    assert store.ledger.capture("kept") is True
    assert store.ledger.usage(account.id) == (0, 7, 7)
    assert store.ledger.release("returned") is True
    assert store.ledger.usage(account.id) == (1, 10, 11)
    states = {r: store.ledger.get_reservation(r) for r in ("kept", "returned")}
    assert {r: s.state for r, s in states.items() if s} == {
        "kept": "captured",
        "returned": "released",
    }


def test_settlement_happens_exactly_once(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=2, balance=4)
    for reservation_id in ("a", "b"):
        store.ledger.reserve(account.id, 3, reservation_id)
    assert store.ledger.capture("a") is True
    assert store.ledger.capture("a") is False
    assert store.ledger.release("a") is False  # no refund after capture
    assert store.ledger.release("b") is True
    assert store.ledger.release("b") is False  # refunded once
    assert store.ledger.capture("b") is False  # no charge after release
    assert store.ledger.usage(account.id) == (0, 3, 3)
    assert store.ledger.capture("unknown") is False and store.ledger.release("unknown") is False


def test_insufficient_units_reserve_nothing(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=1, balance=2)
    assert store.ledger.reserve(account.id, 4, "too-much") is None
    assert store.ledger.usage(account.id) == (1, 2, 3)
    assert store.ledger.get_reservation("too-much") is None
    exact = store.ledger.reserve(account.id, 3, "exact")
    assert exact is not None and store.ledger.usage(account.id) == (0, 0, 0)
    assert store.ledger.reserve(account.id, 1, "nothing-left") is None


def test_repeated_reservation_id_never_charges_twice(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=5)
    first = store.ledger.reserve(account.id, 2, "retry")
    assert store.ledger.reserve(account.id, 2, "retry") == first
    assert store.ledger.usage(account.id) == (3, 0, 3)
    with pytest.raises(ValueError, match="already in use"):
        store.ledger.reserve(account.id, 1, "retry")
    other = store.accounts.create_account("Other", free_quota=5)
    with pytest.raises(ValueError, match="already in use"):
        store.ledger.reserve(other.id, 2, "retry")
    assert store.ledger.usage(account.id) == (3, 0, 3) and store.ledger.usage(other.id) == (5, 0, 5)


def test_reserve_arguments_are_checked(store: Store) -> None:
    account = store.accounts.create_account("Acme")
    with pytest.raises(ValueError, match="positive"):
        store.ledger.reserve(account.id, 0, "zero")
    with pytest.raises(ValueError, match="reservation id"):
        store.ledger.reserve(account.id, 1, "")
    with pytest.raises(UnknownAccount):
        store.ledger.reserve("nope", 1, "r")


def _exactly_enough(store: Store) -> str:
    """An account with units for ENOUGH_FOR reservations, split over quota and balance."""
    total = UNITS * ENOUGH_FOR
    return store.accounts.create_account(
        "Busy", free_quota=total // 2 + 1, balance=total // 2 - 1
    ).id


def _assert_spent_exactly(store: Store, database_url: str, account_id: str) -> None:
    assert store.ledger.usage(account_id) == (0, 0, 0)
    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as conn:
            reserved = conn.execute(sa.select(sa.func.sum(ledger.c.units))).scalar_one()
    finally:
        engine.dispose()
    assert reserved == UNITS * ENOUGH_FOR


def test_concurrent_threads_never_overspend(store: Store, database_url: str) -> None:
    account_id = _exactly_enough(store)
    start = threading.Barrier(THREADS)

    def attempt(index: int) -> bool:
        start.wait(timeout=START_SECONDS)
        return store.ledger.reserve(account_id, UNITS, f"thread-{index}") is not None

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(attempt, range(THREADS)))
    assert results.count(True) == ENOUGH_FOR
    _assert_spent_exactly(store, database_url, account_id)


def _reserve_in_process(
    url: str, account_id: str, index: int, start: Barrier, results: Queue[int]
) -> None:
    """Runs in a spawned process with a store (and connection pool) of its own."""
    store = Store(url)
    try:
        start.wait(timeout=START_SECONDS)
        granted = 0
        for attempt in range(ATTEMPTS_PER_PROCESS):
            reservation = store.ledger.reserve(account_id, UNITS, f"process-{index}-{attempt}")
            granted += reservation is not None
        results.put(granted)
    finally:
        store.close()


@pytest.mark.slow
def test_concurrent_processes_never_overspend(store: Store, database_url: str) -> None:
    account_id = _exactly_enough(store)
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(PROCESSES)
    results: Queue[int] = context.Queue()
    workers = [
        context.Process(
            target=_reserve_in_process, args=(database_url, account_id, i, start, results)
        )
        for i in range(PROCESSES)
    ]
    for worker in workers:
        worker.start()
    granted = [results.get(timeout=FINISH_SECONDS) for _ in workers]
    for worker in workers:
        worker.join(timeout=FINISH_SECONDS)
        assert worker.exitcode == 0
    results.close()
    results.join_thread()
    assert sum(granted) == ENOUGH_FOR
    _assert_spent_exactly(store, database_url, account_id)


@pytest.mark.parametrize(
    "settle",
    [
        pytest.param(lambda s, r, i: s.ledger.release(r), id="release-race"),
        pytest.param(lambda s, r, i: s.ledger.capture(r), id="capture-race"),
        pytest.param(
            lambda s, r, i: s.ledger.capture(r) if i % 2 else s.ledger.release(r), id="mixed-race"
        ),
    ],
)
def test_concurrent_settlement_happens_once(
    store: Store, settle: Callable[[Store, str, int], bool]
) -> None:
    account = store.accounts.create_account("Acme", free_quota=2, balance=3)
    store.ledger.reserve(account.id, 5, "contested")
    start = threading.Barrier(THREADS)

    def attempt(index: int) -> bool:
        start.wait(timeout=START_SECONDS)
        return settle(store, "contested", index)

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(attempt, range(THREADS)))
    assert results.count(True) == 1
    reservation = store.ledger.get_reservation("contested")
    assert reservation is not None
    refunded = reservation.state == "released"
    assert store.ledger.usage(account.id) == ((2, 3, 5) if refunded else (0, 0, 0))
