"""Accounts, API keys, tiers, balances and the demo account, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

from shiftsched.service.store import (
    DEFAULT_FREE_QUOTA,
    DEMO_ACCOUNT_ID,
    DEMO_FREE_QUOTA,
    Store,
    UnknownAccount,
    api_keys,
    generate_key,
)

FIXED_KEY = "sk_live_demo_fixed_key_for_the_readme"


def stored_keys(database_url: str) -> list[sa.Row[tuple[str, str, bool]]]:
    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as conn:
            query = sa.select(api_keys.c.prefix, api_keys.c.key_hash, api_keys.c.disabled)
            return list(conn.execute(query))
    finally:
        engine.dispose()


def test_new_account_has_defaults_and_can_be_read_back(store: Store) -> None:
    account = store.accounts.create_account("Acme")
    assert (account.tier, account.free_quota_remaining, account.balance_units) == (
        "basic",
        DEFAULT_FREE_QUOTA,
        0,
    )
    assert account.available_units == DEFAULT_FREE_QUOTA
    assert store.accounts.get_account(account.id) == account
    assert store.accounts.get_account("no-such-account") is None


def test_account_arguments_are_checked(store: Store) -> None:
    with pytest.raises(ValueError, match="tier"):
        store.accounts.create_account("Acme", tier="gold")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="free_quota"):
        store.accounts.create_account("Acme", free_quota=-1)
    with pytest.raises(ValueError, match="name"):
        store.accounts.create_account("")


def test_issued_key_authenticates_and_only_its_hash_is_stored(
    store: Store, database_url: str
) -> None:
    account = store.accounts.create_account("Acme", tier="pro", free_quota=5, balance=7)
    key = store.accounts.issue_key(account.id)
    assert re.fullmatch(r"sk_live_[0-9a-f]{64}", key)
    assert store.accounts.authenticate(key) == account
    [(prefix, key_hash, disabled)] = stored_keys(database_url)
    assert key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert prefix == key[:16] and key not in (prefix, key_hash) and not disabled


def test_unknown_or_empty_key_is_none(store: Store) -> None:
    store.accounts.issue_key(store.accounts.create_account("Acme").id)
    assert store.accounts.authenticate(generate_key()) is None
    assert store.accounts.authenticate("") is None


def test_disabled_key_is_rejected_and_other_keys_still_work(store: Store) -> None:
    account = store.accounts.create_account("Acme")
    first, second = store.accounts.issue_key(account.id), store.accounts.issue_key(account.id)
    assert store.accounts.disable_key(first) is True
    assert store.accounts.authenticate(first) is None
    assert store.accounts.authenticate(second) == account


def test_key_can_be_disabled_by_its_display_prefix(store: Store) -> None:
    key = store.accounts.issue_key(store.accounts.create_account("Acme").id)
    assert store.accounts.disable_key(key[:16]) is True
    assert store.accounts.authenticate(key) is None
    assert store.accounts.disable_key("sk_live_00000000") is False
    assert store.accounts.disable_key("sk_") is False  # only a whole display prefix matches


def test_ambiguous_prefix_is_refused(store: Store) -> None:
    account = store.accounts.create_account("Acme")
    keys = [
        store.accounts.issue_key(account.id, "sk_live_same_prefix_" + tail)
        for tail in ("aaaa", "bbbb")
    ]
    with pytest.raises(ValueError, match="matches 2 keys"):
        store.accounts.disable_key(keys[0][:16])
    assert all(store.accounts.authenticate(key) == account for key in keys)


def test_explicit_key_is_issued_once_and_checked(store: Store) -> None:
    account = store.accounts.create_account("Acme")
    assert store.accounts.issue_key(account.id, FIXED_KEY) == FIXED_KEY
    assert store.accounts.authenticate(FIXED_KEY) == account
    with pytest.raises(ValueError, match="already issued"):
        store.accounts.issue_key(account.id, FIXED_KEY)
    for bad in ("short", "sk_live_with a space in the middle"):
        with pytest.raises(ValueError, match="visible ASCII"):
            store.accounts.issue_key(account.id, bad)


def test_key_for_unknown_account_is_refused(store: Store) -> None:
    with pytest.raises(UnknownAccount):
        store.accounts.issue_key("no-such-account")


def test_tier_and_balance_changes(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=2)
    key = store.accounts.issue_key(account.id)
    assert store.accounts.set_tier(account.id, "pro").tier == "pro"
    assert store.accounts.add_balance(account.id, 30).balance_units == 30
    assert store.accounts.add_balance(account.id, 5).balance_units == 35
    assert store.ledger.usage(account.id) == (2, 35, 37)
    authenticated = store.accounts.authenticate(key)
    assert authenticated is not None and authenticated.tier == "pro"
    assert store.accounts.set_tier(account.id, "basic").tier == "basic"


def test_tier_and_balance_arguments_are_checked(store: Store) -> None:
    account = store.accounts.create_account("Acme")
    with pytest.raises(ValueError, match="tier"):
        store.accounts.set_tier(account.id, "gold")  # type: ignore[arg-type]
    for units in (0, -3):
        with pytest.raises(ValueError, match="positive"):
            store.accounts.add_balance(account.id, units)
    for change in (
        lambda: store.accounts.set_tier("nope", "pro"),
        lambda: store.accounts.add_balance("nope", 1),
        lambda: store.ledger.usage("nope"),
    ):
        with pytest.raises(UnknownAccount):
            change()
    assert store.ledger.usage(account.id) == (DEFAULT_FREE_QUOTA, 0, DEFAULT_FREE_QUOTA)


def test_demo_account_is_created_once_with_a_random_key(store: Store) -> None:
    account, key = store.accounts.ensure_demo_account(None)
    assert key is not None and store.accounts.authenticate(key) == account
    assert (account.id, account.name, account.tier) == (DEMO_ACCOUNT_ID, "demo", "pro")
    assert account.free_quota_remaining == DEMO_FREE_QUOTA
    store.ledger.reserve(account.id, 3, "spent")
    again, no_key = store.accounts.ensure_demo_account(None)
    assert no_key is None
    assert again.free_quota_remaining == DEMO_FREE_QUOTA - 3  # not reset by a restart


def test_demo_account_with_a_fixed_key(store: Store) -> None:
    account, key = store.accounts.ensure_demo_account(FIXED_KEY)
    assert key == FIXED_KEY and store.accounts.authenticate(FIXED_KEY) == account
    assert store.accounts.ensure_demo_account(FIXED_KEY) == (account, None)
    other = "sk_live_another_fixed_demo_key"
    assert store.accounts.ensure_demo_account(other) == (account, other)
    assert store.accounts.authenticate(other) == account == store.accounts.authenticate(FIXED_KEY)


@pytest.mark.parametrize("key", [None, FIXED_KEY], ids=["random-key", "fixed-key"])
def test_workers_starting_together_create_one_demo_account(store: Store, key: str | None) -> None:
    workers = 6
    start = threading.Barrier(workers)

    def start_worker(_: int) -> str | None:
        start.wait(timeout=60)  # only a hang reaches it
        return store.accounts.ensure_demo_account(key)[1]

    with ThreadPoolExecutor(workers) as pool:
        issued = [k for k in pool.map(start_worker, range(workers)) if k is not None]
    assert len(issued) == 1 and store.accounts.authenticate(issued[0]) is not None


def test_demo_key_owned_by_another_account_is_refused(store: Store) -> None:
    store.accounts.issue_key(store.accounts.create_account("Acme").id, FIXED_KEY)
    with pytest.raises(ValueError, match="another account"):
        store.accounts.ensure_demo_account(FIXED_KEY)
    assert store.accounts.get_account(DEMO_ACCOUNT_ID) is None  # rolled back


def test_migrate_is_idempotent_and_keeps_data(store: Store) -> None:
    account = store.accounts.create_account("Acme")
    store.db.migrate()
    store.db.migrate()
    assert store.accounts.get_account(account.id) == account
