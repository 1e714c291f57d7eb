"""Upgrading in place: a database made by an older release gains the new columns and
tables at start, and its keys keep working."""

from __future__ import annotations

import sqlalchemy as sa

from shiftsched.service.store import Store, hash_key
from shiftsched.service.store.tables import api_keys

OLD_SCHEMA = [
    """CREATE TABLE accounts (id VARCHAR(64) PRIMARY KEY, name VARCHAR(200) NOT NULL,
       tier VARCHAR(16) NOT NULL, free_quota_remaining BIGINT NOT NULL,
       balance_units BIGINT NOT NULL, created_at TIMESTAMP NOT NULL)""",
    """CREATE TABLE api_keys (id VARCHAR(32) PRIMARY KEY, account_id VARCHAR(64) NOT NULL
       REFERENCES accounts(id), prefix VARCHAR(16) NOT NULL, key_hash VARCHAR(64) NOT NULL
       UNIQUE, disabled BOOLEAN NOT NULL, created_at TIMESTAMP NOT NULL)""",
]
KEY = "sk_live_" + "0" * 64


def test_an_older_database_is_upgraded_in_place(database_url: str) -> None:
    engine = sa.create_engine(database_url)
    with engine.begin() as conn:
        for statement in OLD_SCHEMA:
            conn.execute(sa.text(statement))
        conn.execute(
            sa.text(
                "INSERT INTO accounts VALUES ('a1', 'Old Co', 'basic', 5, 0, CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(
            sa.text(
                "INSERT INTO api_keys VALUES ('k1', 'a1', :prefix, :hash, false, CURRENT_TIMESTAMP)"
            ),
            {"prefix": KEY[:16], "hash": hash_key(KEY)},
        )
    engine.dispose()
    with Store(database_url) as store:
        store.db.migrate()
        store.db.migrate()  # idempotent
        account = store.accounts.authenticate(KEY)
        assert account is not None and account.name == "Old Co"
        with store.db.read() as conn:
            row = conn.execute(sa.select(api_keys).where(api_keys.c.id == "k1")).one()
            assert row.label is None and row.kind is None and row.last_used_at is not None
            tables = set(sa.inspect(conn).get_table_names())
        assert {"users", "web_sessions", "connections", "oauth_tokens", "payments"} <= tables


def test_expired_sessions_requests_codes_and_tokens_are_purged(store: Store) -> None:
    from datetime import UTC, datetime, timedelta

    from shiftsched.service.store.tables import oauth_clients, oauth_requests, web_sessions

    user = store.users.create_user("purge@example.com", "$argon2id$placeholder")
    live = store.sessions.start_session(user.id)
    old = store.sessions.start_session(user.id)
    past = datetime.now(UTC) - timedelta(days=1)
    with store.db.write() as conn:
        conn.execute(
            web_sessions.update()
            .where(web_sessions.c.id_hash == hash_key(old))
            .values(expires_at=past)
        )
        conn.execute(oauth_clients.insert().values(client_id="c1", info_json={}, created_at=past))
        conn.execute(
            oauth_requests.insert().values(id="r1", client_id="c1", params_json={}, expires_at=past)
        )
    expiring = (store.sessions, store.authorizations, store.tokens)
    assert [repository.purge_expired() for repository in expiring] == [1, 1, 0]
    assert store.sessions.session_user(live) is not None
    assert store.authorizations.pending_request("r1") is None
    assert [repository.purge_expired() for repository in expiring] == [0, 0, 0]
