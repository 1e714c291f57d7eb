"""Connected apps: an OAuth client an account approved, and the API key its tokens act for.

A *connection* is (account, OAuth client) plus that key. Every connection of an account
shares one key of kind ``connection``, created at the first approval and reused after,
so usage and billing are the account's exactly as with a Bearer key. Revoking a
connection revokes its tokens at once (they are checked against the connection on every
request, ``shiftsched.service.store.tokens``); disabling the key stops them all.

Why apart from the tokens: a connection is what the user sees and revokes on the
dashboard; it outlives every token pair it was issued.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import sqlalchemy as sa

from shiftsched.service.store.credentials import generate_key
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import aware, insert_key, now
from shiftsched.service.store.tables import (
    api_keys,
    connections,
    oauth_clients,
    oauth_codes,
    oauth_tokens,
)

CONNECTION_KEY_LABEL: Final = "Connected apps (OAuth)"


@dataclass(frozen=True)
class Connection:
    id: str
    client_id: str
    client_name: str
    scopes: list[str]
    created_at: datetime
    last_used_at: datetime | None


def client_name(info: dict[str, Any]) -> str:
    """The name an app is shown by: its registered ``client_name``, else its id's start."""
    name = info.get("client_name")
    return str(name) if name else f"App {str(info.get('client_id', ''))[:8]}"


class Connections:
    """An account's connected apps on the service database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def of_account(self, account_id: str) -> list[Connection]:
        """The account's connections not revoked, newest first."""
        query = (
            sa.select(connections, oauth_clients.c.info_json, api_keys.c.last_used_at)
            .join(oauth_clients, oauth_clients.c.client_id == connections.c.client_id)
            .join(api_keys, api_keys.c.id == connections.c.api_key_id)
            .where(connections.c.account_id == account_id, connections.c.revoked_at.is_(None))
            .order_by(connections.c.created_at.desc())
        )
        with self.db.read() as conn:
            return [
                Connection(
                    id=row.id,
                    client_id=row.client_id,
                    client_name=client_name(dict(row.info_json)),
                    scopes=row.scopes.split(),
                    created_at=aware(row.created_at),
                    last_used_at=aware(row.last_used_at) if row.last_used_at else None,
                )
                for row in conn.execute(query)
            ]

    def revoke_connection(self, account_id: str, connection_id: str) -> bool:
        """Disconnect one of the account's apps; its tokens stop working at once."""
        with self.db.write() as conn:
            changed = conn.execute(
                connections.update()
                .where(
                    connections.c.id == connection_id,
                    connections.c.account_id == account_id,
                    connections.c.revoked_at.is_(None),
                )
                .values(revoked_at=now())
            )
            if changed.rowcount != 1:
                return False
            conn.execute(
                oauth_tokens.update()
                .where(oauth_tokens.c.connection_id == connection_id)
                .values(revoked=True)
            )
            conn.execute(oauth_codes.delete().where(oauth_codes.c.connection_id == connection_id))
        return True


def connect(conn: Any, account_id: str, client_id: str, scopes: list[str]) -> str:
    """The live connection of (account, client), created if needed, on the account's
    connection key (created at the first connection, reused after); inside the caller's
    transaction (an approval, ``shiftsched.service.store.authorizations``)."""
    existing = conn.execute(
        sa.select(connections.c.id).where(
            connections.c.account_id == account_id,
            connections.c.client_id == client_id,
            connections.c.revoked_at.is_(None),
        )
    ).scalar_one_or_none()
    if existing is not None:
        conn.execute(
            connections.update().where(connections.c.id == existing).values(scopes=" ".join(scopes))
        )
        return str(existing)
    key_id = conn.execute(
        sa.select(api_keys.c.id).where(
            api_keys.c.account_id == account_id,
            api_keys.c.kind == "connection",
            api_keys.c.disabled.is_(False),
        )
    ).scalar()
    if key_id is None:  # its plaintext is never shown: tokens act for it
        key_id = insert_key(
            conn, account_id, generate_key(), label=CONNECTION_KEY_LABEL, kind="connection"
        )
    connection_id = uuid.uuid4().hex
    conn.execute(
        connections.insert().values(
            id=connection_id,
            account_id=account_id,
            client_id=client_id,
            api_key_id=key_id,
            scopes=" ".join(scopes),
            created_at=now(),
        )
    )
    return connection_id
