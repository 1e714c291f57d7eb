"""Accounts and their API keys: creating them, authenticating a request, the demo account.

Why apart from the ledger: these change rarely and by an operator or a user (issue,
disable, tier, top-up), while the ledger changes on every solve. Keys are kept as
hashes (``shiftsched.service.store.credentials``); the free quota belongs to the account, not the
key, so a re-issued key does not reset it.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import timedelta
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Connection

from shiftsched.service.store.credentials import (
    ACCESS_TOKEN_PREFIX,
    check_explicit_key,
    generate_key,
    hash_key,
)
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import (
    TIERS,
    Account,
    Tier,
    UnknownAccount,
    account_from_row,
    aware,
    fetch_account,
    insert_account,
    insert_key,
    now,
    require_account,
)
from shiftsched.service.store.tables import accounts, api_keys, connections, oauth_tokens

DEFAULT_FREE_QUOTA: Final = 100
"""Free units of a new account: about a hundred small solves in the open beta."""
DEMO_FREE_QUOTA: Final = 1000
DEMO_ACCOUNT_ID: Final = "demo"
"""A fixed id, so two workers starting at once cannot both create a demo account."""
LAST_USED_RESOLUTION: Final = timedelta(minutes=1)


class Accounts:
    """Accounts and API keys on the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create_account(
        self,
        name: str,
        tier: Tier = "basic",
        free_quota: int = DEFAULT_FREE_QUOTA,
        balance: int = 0,
    ) -> Account:
        _check_name(name)
        _check_tier(tier)
        _check_non_negative(free_quota=free_quota, balance=balance)
        account_id = uuid.uuid4().hex
        with self.db.write() as conn:
            insert_account(conn, account_id, name, tier, free_quota, balance)
            return require_account(conn, account_id)

    def issue_key(
        self,
        account_id: str,
        key: str | None = None,
        *,
        label: str | None = None,
        kind: str | None = None,
    ) -> str:
        """Store a new key for the account and return its plaintext, the only time it is seen.

        An explicit key (a fixed demo key) must be 20-200 visible ASCII characters.
        """
        key = check_explicit_key(key) if key is not None else generate_key()
        try:
            with self.db.write() as conn:
                require_account(conn, account_id)
                insert_key(conn, account_id, key, label=label, kind=kind)
        except exc.IntegrityError as error:
            raise ValueError("this key is already issued") from error
        return key

    def disable_key(self, key_or_prefix: str) -> bool:
        """Disable the key given in full or by its display prefix; False when none matches.

        A prefix shared by several keys is refused (ValueError) rather than guessed.
        """
        match = sa.or_(
            api_keys.c.key_hash == hash_key(key_or_prefix), api_keys.c.prefix == key_or_prefix
        )
        with self.db.write() as conn:
            ids = conn.execute(sa.select(api_keys.c.id).where(match)).scalars().all()
            if len(ids) > 1:
                raise ValueError(f"prefix {key_or_prefix!r} matches {len(ids)} keys; give the key")
            if not ids:
                return False
            conn.execute(api_keys.update().where(api_keys.c.id == ids[0]).values(disabled=True))
            return True

    def set_tier(self, account_id: str, tier: Tier) -> Account:
        _check_tier(tier)
        return self._update_account(account_id, tier=tier)

    def add_balance(self, account_id: str, units: int) -> Account:
        """Credit prepaid units (a purchase); `units` must be positive."""
        if units <= 0:
            raise ValueError("units must be a positive integer")
        return self._update_account(account_id, balance_units=accounts.c.balance_units + units)

    def get_account(self, account_id: str) -> Account | None:
        with self.db.read() as conn:
            return fetch_account(conn, account_id)

    def authenticate(self, api_key: str) -> Account | None:
        """The account of an enabled key, or of a live OAuth access token whose connected
        app is not revoked and whose key is enabled; None otherwise.

        A key's ``last_used_at`` is refreshed at most once a minute, so authenticating
        stays a read on almost every request.
        """
        if not api_key:
            return None
        digest = hash_key(api_key)
        if api_key.startswith(ACCESS_TOKEN_PREFIX):
            key_id = _key_of_access_token(digest)
        else:
            key_id = api_keys.c.id
        query = (
            sa.select(*accounts.c, api_keys.c.id.label("key_id"), api_keys.c.last_used_at)
            .join(api_keys, api_keys.c.account_id == accounts.c.id)
            .where(api_keys.c.disabled.is_(False))
        )
        if api_key.startswith(ACCESS_TOKEN_PREFIX):
            query = query.where(api_keys.c.id == key_id)
        else:
            query = query.where(api_keys.c.key_hash == digest)
        with self.db.read() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        moment = now()
        if row.last_used_at is None or moment - aware(row.last_used_at) > LAST_USED_RESOLUTION:
            with self.db.write() as conn:
                conn.execute(
                    api_keys.update().where(api_keys.c.id == row.key_id).values(last_used_at=moment)
                )
        return replace(account_from_row(row), key_id=row.key_id)

    def ensure_demo_account(self, key: str | None = None) -> tuple[Account, str | None]:
        """The demo account (pro tier, DEMO_FREE_QUOTA), created once, with a key.

        Returns the plaintext key when one was issued now: a random one when the account
        was just created, or the explicit `key` when it was not stored yet. A key that is
        already stored is left as it is (even if an operator disabled it).
        """
        try:
            return self._ensure_demo(key)
        except exc.IntegrityError:
            # Another worker created the account or key at the same moment; it exists now.
            return self._ensure_demo(key)

    def _update_account(self, account_id: str, **values: Any) -> Account:
        with self.db.write() as conn:
            changed = conn.execute(
                accounts.update().where(accounts.c.id == account_id).values(**values)
            )
            if changed.rowcount != 1:
                raise UnknownAccount(account_id)
            return require_account(conn, account_id)

    def _ensure_demo(self, key: str | None) -> tuple[Account, str | None]:
        if key is not None:
            check_explicit_key(key)
        with self.db.write() as conn:
            created = fetch_account(conn, DEMO_ACCOUNT_ID) is None
            if created:
                insert_account(conn, DEMO_ACCOUNT_ID, "demo", "pro", DEMO_FREE_QUOTA, 0)
            issued = _demo_key_to_issue(conn, key, created)
            if issued is not None:
                insert_key(conn, DEMO_ACCOUNT_ID, issued)
            return require_account(conn, DEMO_ACCOUNT_ID), issued


def _key_of_access_token(digest: str) -> Any:
    """The api_keys.id behind a live access token of a connected app not revoked."""
    return (
        sa.select(connections.c.api_key_id)
        .join(oauth_tokens, oauth_tokens.c.connection_id == connections.c.id)
        .where(
            oauth_tokens.c.token_hash == digest,
            oauth_tokens.c.kind == "access",
            oauth_tokens.c.revoked.is_(False),
            oauth_tokens.c.expires_at > now(),
            connections.c.revoked_at.is_(None),
        )
        .scalar_subquery()
    )


def _demo_key_to_issue(conn: Connection, key: str | None, created: bool) -> str | None:
    """The demo key to store now: a random one for a new account, or a new explicit one."""
    if key is None:
        return generate_key() if created else None
    owner = conn.execute(
        sa.select(api_keys.c.account_id).where(api_keys.c.key_hash == hash_key(key))
    ).scalar()
    if owner is None:
        return key
    if owner != DEMO_ACCOUNT_ID:
        raise ValueError("the demo key is already issued to another account")
    return None


def _check_name(name: str) -> None:
    if not 1 <= len(name) <= 200:
        raise ValueError("an account name has 1 to 200 characters")


def _check_tier(tier: str) -> None:
    if tier not in TIERS:
        raise ValueError(f"tier must be one of {', '.join(TIERS)}, not {tier!r}")


def _check_non_negative(**values: int) -> None:
    for label, value in values.items():
        if value < 0:
            raise ValueError(f"{label} must be >= 0")
