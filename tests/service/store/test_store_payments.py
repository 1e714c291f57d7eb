"""Payment claims: a payment is taken once, by one request, and given back only unsettled;
a claim left in flight by a request that died is taken over once its lease has run out.
Every test runs on a SQLite file and on PostgreSQL."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from shiftsched.service.store import Store
from shiftsched.service.store.tables import payments

THREADS = 8


def test_a_payment_is_claimed_once(store: Store) -> None:
    assert store.payments.claim_payment("x402:eip155:84532:0xabc", "x402", "1000", "req-1")
    assert not store.payments.claim_payment("x402:eip155:84532:0xabc", "x402", "1000", "req-2")
    assert store.payments.payment_state("x402:eip155:84532:0xabc") == "verifying"


def test_an_unsettled_claim_is_given_back_and_can_be_claimed_again(store: Store) -> None:
    assert store.payments.claim_payment("mpp:pay_1", "mpp", "5", "req-1")
    assert store.payments.release_payment("mpp:pay_1")
    assert store.payments.payment_state("mpp:pay_1") is None
    assert not store.payments.release_payment("mpp:pay_1")
    assert store.payments.claim_payment("mpp:pay_1", "mpp", "5", "req-2")


@pytest.mark.parametrize("state", ["settling", "settled", "settle_failed"])
def test_a_claim_past_verification_is_never_given_back(store: Store, state: str) -> None:
    store.payments.claim_payment("mpp:pay_2", "mpp", "5", "req-1")
    assert store.payments.mark_payment("mpp:pay_2", state, "detail")  # type: ignore[arg-type]
    assert not store.payments.release_payment("mpp:pay_2")
    assert store.payments.payment_state("mpp:pay_2") == state
    assert not store.payments.claim_payment("mpp:pay_2", "mpp", "5", "req-2")


def test_marking_an_unknown_payment_changes_nothing(store: Store) -> None:
    assert not store.payments.mark_payment("mpp:nobody", "settled")


def test_concurrent_claims_of_one_payment_have_one_winner(store: Store) -> None:
    barrier = threading.Barrier(THREADS)

    def claim(index: int) -> bool:
        barrier.wait()
        return store.payments.claim_payment("x402:sha256:same", "x402", "1000", f"req-{index}")

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(claim, range(THREADS)))
    assert results.count(True) == 1


def test_a_payment_key_has_at_most_200_characters(store: Store) -> None:
    with pytest.raises(ValueError, match="1 to 200"):
        store.payments.claim_payment("k" * 201, "x402", "1", "req")


# ------------------------------------------------------------------------------- leases

NEW_COLUMNS = {"lease_until", "settle_with"}
EXPIRED = -1.0  # a lease that has already run out when it is written
HOUR = 3600.0


def test_a_claim_in_flight_past_its_lease_is_taken_over_once(store: Store) -> None:
    assert store.payments.claim_payment("mpp:pay_dead", "mpp", "5", "req-dead", EXPIRED)
    assert store.payments.claim_payment("mpp:pay_dead", "mpp", "5", "req-retry", HOUR)
    assert store.payments.payment_state("mpp:pay_dead") == "verifying"
    assert not store.payments.claim_payment("mpp:pay_dead", "mpp", "5", "req-third", HOUR)
    # the first holder, if it was only slow, can neither settle nor give the claim back
    assert not store.payments.start_settling("mpp:pay_dead", "req-dead")
    assert not store.payments.release_payment("mpp:pay_dead", "req-dead")
    assert store.payments.start_settling("mpp:pay_dead", "req-retry")
    assert store.payments.payment_state("mpp:pay_dead") == "settling"


def test_a_claim_within_its_lease_is_not_taken_over(store: Store) -> None:
    assert store.payments.claim_payment("mpp:pay_live", "mpp", "5", "req-1", HOUR)
    assert not store.payments.claim_payment("mpp:pay_live", "mpp", "5", "req-2", HOUR)
    assert store.payments.release_payment("mpp:pay_live", "req-1")


@pytest.mark.parametrize("state", ["settling", "settled", "settle_failed"])
def test_a_claim_past_verification_is_never_taken_over(store: Store, state: str) -> None:
    assert store.payments.claim_payment("mpp:pay_3", "mpp", "5", "req-1", EXPIRED)
    assert store.payments.start_settling("mpp:pay_3", "req-1", EXPIRED)
    if state != "settling":
        assert store.payments.mark_payment("mpp:pay_3", state)  # type: ignore[arg-type]
    assert not store.payments.claim_payment("mpp:pay_3", "mpp", "5", "req-2", HOUR)
    assert store.payments.payment_state("mpp:pay_3") == state
    expected = [("mpp:pay_3", "mpp", "req-1")] if state == "settling" else []
    assert store.payments.stale_settlements(datetime.now(UTC)) == expected


def test_a_claim_written_before_leases_counts_from_its_last_change(store: Store) -> None:
    assert store.payments.claim_payment("mpp:pay_old", "mpp", "5", "req-1", HOUR)
    with store.db.write() as conn:
        conn.execute(
            payments.update()
            .where(payments.c.key == "mpp:pay_old")
            .values(lease_until=None, updated_at=datetime.now(UTC) - timedelta(hours=2))
        )
    assert store.payments.claim_payment("mpp:pay_old", "mpp", "5", "req-2", HOUR)
    assert not store.payments.claim_payment("mpp:pay_old", "mpp", "5", "req-3", HOUR)


def test_a_stale_claim_taken_over_concurrently_has_one_winner(store: Store) -> None:
    assert store.payments.claim_payment("x402:sha256:stale", "x402", "1000", "req-dead", EXPIRED)
    barrier = threading.Barrier(THREADS)

    def claim(index: int) -> bool:
        barrier.wait()
        return store.payments.claim_payment(
            "x402:sha256:stale", "x402", "1000", f"req-{index}", HOUR
        )

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(claim, range(THREADS)))
    assert results.count(True) == 1


def test_a_settlement_refused_outright_gives_the_claim_back(store: Store) -> None:
    assert store.payments.claim_payment("mpp:pay_4", "mpp", "5", "req-1")
    assert store.payments.start_settling("mpp:pay_4", "req-1")
    assert not store.payments.release_payment("mpp:pay_4", "req-1")  # settling: only when told
    assert store.payments.release_payment("mpp:pay_4", "req-1", settling=True)
    assert store.payments.claim_payment("mpp:pay_4", "mpp", "5", "req-2")


def test_a_claim_left_settling_past_its_lease_is_resolved_once(store: Store) -> None:
    for key in ("mpp:pay_moved", "mpp:pay_unmoved"):
        assert store.payments.claim_payment(key, "mpp", "5", "req-dead", EXPIRED)
        assert store.payments.start_settling(key, "req-dead", EXPIRED)
        assert store.payments.stale_settling(key)
    assert store.payments.resolve_stale_settling("mpp:pay_moved", True, "captured")
    assert store.payments.payment_state("mpp:pay_moved") == "settled"
    assert store.payments.resolve_stale_settling("mpp:pay_unmoved", False, "not captured")
    assert store.payments.payment_state("mpp:pay_unmoved") is None  # given back
    assert not store.payments.resolve_stale_settling("mpp:pay_moved", False, "twice")
    assert store.payments.payment_state("mpp:pay_moved") == "settled"


def test_a_claim_settling_within_its_lease_is_not_stale(store: Store) -> None:
    assert store.payments.claim_payment("mpp:pay_busy", "mpp", "5", "req-1")
    assert store.payments.start_settling("mpp:pay_busy", "req-1", HOUR)
    assert not store.payments.stale_settling("mpp:pay_busy")
    assert not store.payments.resolve_stale_settling("mpp:pay_busy", False, "in flight")
    assert store.payments.payment_state("mpp:pay_busy") == "settling"


def test_an_old_payments_table_gains_the_lease_columns(database_url: str) -> None:
    """A database created before leases: migrate adds the columns, and a claim left in
    verifying back then is taken over once its last change is older than the lease."""
    old = sa.MetaData()
    sa.Table(  # the table as releases before leases created it
        "payments",
        old,
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("scheme", sa.String(16), nullable=False),
        sa.Column("amount", sa.String(80), nullable=False),
        sa.Column("request_id", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("detail", sa.String(500), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    # A plain engine, as an old release opened the database: it creates a SQLite file
    # (the store's own connections only open an existing one).
    engine = sa.create_engine(database_url)
    try:
        with engine.begin() as conn:
            old.create_all(conn)
            conn.execute(
                payments.insert().values(
                    key="mpp:pay_legacy",
                    scheme="mpp",
                    amount="5",
                    request_id="req-old",
                    state="verifying",
                    created_at=datetime.now(UTC) - timedelta(hours=2),
                    updated_at=datetime.now(UTC) - timedelta(hours=2),
                )
            )
    finally:
        engine.dispose()
    with Store(database_url) as store:
        store.db.migrate()
        with store.db.read() as conn:
            columns = {column["name"] for column in sa.inspect(conn).get_columns("payments")}
        assert columns >= NEW_COLUMNS
        assert store.payments.claim_payment("mpp:pay_legacy", "mpp", "5", "req-new", HOUR)
        assert store.payments.start_settling("mpp:pay_legacy", "req-new")
