"""OAuth authorization codes and the access and refresh tokens they buy.

Why apart: this is what the MCP endpoint's token routes and every token-authenticated
request touch (``shiftsched.service.mcp.oauth``), while the approval and the connected
apps are the dashboard's. Codes and tokens are 256-bit random and stored as SHA-256
hashes only (``shiftsched.service.store.credentials``). A token is live only while its
connection is not revoked and the connection's key is enabled
(``shiftsched.service.store.connections``); each token remembers the code it descends
from, so a replayed code revokes its whole family.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, Literal

import sqlalchemy as sa

from shiftsched.service.store.credentials import ACCESS_TOKEN_PREFIX, hash_key
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import aware, now
from shiftsched.service.store.tables import api_keys, connections, oauth_codes, oauth_tokens

REFRESH_TOKEN_PREFIX: Final = "mcp_rt_"
ACCESS_TOKEN_LIFETIME: Final = timedelta(hours=1)
REFRESH_TOKEN_LIFETIME: Final = timedelta(days=30)
CODE_LIFETIME: Final = timedelta(minutes=5)


@dataclass(frozen=True)
class TokenRecord:
    """A live OAuth token and what it acts for."""

    token: str
    kind: Literal["access", "refresh"]
    client_id: str
    account_id: str
    connection_id: str
    scopes: list[str]
    expires_at: datetime
    resource: str | None


@dataclass(frozen=True)
class CodeRecord:
    """An authorization code of a live connection; ``spent`` once it bought its tokens."""

    client_id: str
    account_id: str
    params: dict[str, Any]
    expires_at: datetime
    spent: bool


@dataclass(frozen=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: list[str]


def mint_code(conn: Any, connection_id: str, params: dict[str, Any]) -> str:
    """A new one-time code for a connection (plaintext; only its hash is stored), inside
    the caller's transaction (an approval, ``shiftsched.service.store.authorizations``)."""
    code = secrets.token_urlsafe(32)
    conn.execute(
        oauth_codes.insert().values(
            code_hash=hash_key(code),
            connection_id=connection_id,
            params_json=params,
            expires_at=now() + CODE_LIFETIME,
        )
    )
    return code


class Tokens:
    """Codes and tokens of connected apps on the service database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def code(self, code: str) -> CodeRecord | None:
        """The code, spent or not, of a live connection; None for an unknown one."""
        query = (
            sa.select(
                connections.c.client_id,
                connections.c.account_id,
                oauth_codes.c.params_json,
                oauth_codes.c.expires_at,
                oauth_codes.c.spent_at,
            )
            .join(connections, connections.c.id == oauth_codes.c.connection_id)
            .where(oauth_codes.c.code_hash == hash_key(code), connections.c.revoked_at.is_(None))
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        return CodeRecord(
            client_id=row.client_id,
            account_id=row.account_id,
            params=dict(row.params_json),
            expires_at=aware(row.expires_at),
            spent=row.spent_at is not None,
        )

    def exchange_code(self, code: str, resource: str | None) -> IssuedTokens | None:
        """Spend a code once for a token pair; None if it was spent or revoked meanwhile.

        The spent code is kept (it cannot buy anything more) for a refresh token's
        lifetime, so that a replay is recognised and ``revoke_code_grant`` called."""
        code_hash = hash_key(code)
        moment = now()
        with self.db.write() as conn:
            row = conn.execute(
                sa.select(oauth_codes).where(
                    oauth_codes.c.code_hash == code_hash, oauth_codes.c.spent_at.is_(None)
                )
            ).first()
            if row is None:
                return None
            spent = conn.execute(
                oauth_codes.update()
                .where(oauth_codes.c.code_hash == code_hash, oauth_codes.c.spent_at.is_(None))
                .values(spent_at=moment, expires_at=moment + REFRESH_TOKEN_LIFETIME)
            )
            if spent.rowcount != 1:
                return None
            scopes = list(dict(row.params_json).get("scopes") or [])
            return _issue_tokens(conn, row.connection_id, scopes, resource, code_hash)

    def revoke_code_grant(self, code: str) -> int:
        """Revoke every token descended from ``code`` (a replayed code, RFC 6749 §4.1.2):
        its first pair and every pair refreshed from them. The number of tokens revoked."""
        with self.db.write() as conn:
            changed = conn.execute(
                oauth_tokens.update()
                .where(
                    oauth_tokens.c.code_hash == hash_key(code),
                    oauth_tokens.c.revoked.is_(False),
                )
                .values(revoked=True)
            )
        return int(changed.rowcount)

    def token(self, token: str) -> TokenRecord | None:
        """A live token of a connection not revoked whose key is enabled."""
        kind: Literal["access", "refresh"]
        if token.startswith(ACCESS_TOKEN_PREFIX):
            kind = "access"
        elif token.startswith(REFRESH_TOKEN_PREFIX):
            kind = "refresh"
        else:
            return None
        query = (
            sa.select(oauth_tokens, connections.c.client_id, connections.c.account_id)
            .join(connections, connections.c.id == oauth_tokens.c.connection_id)
            .join(api_keys, api_keys.c.id == connections.c.api_key_id)
            .where(
                oauth_tokens.c.token_hash == hash_key(token),
                oauth_tokens.c.kind == kind,
                oauth_tokens.c.revoked.is_(False),
                oauth_tokens.c.expires_at > now(),
                connections.c.revoked_at.is_(None),
                api_keys.c.disabled.is_(False),
            )
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        return TokenRecord(
            token=token,
            kind=kind,
            client_id=row.client_id,
            account_id=row.account_id,
            connection_id=row.connection_id,
            scopes=row.scopes.split(),
            expires_at=aware(row.expires_at),
            resource=row.resource,
        )

    def rotate_refresh_token(
        self, refresh_token: str, scopes: list[str], resource: str | None
    ) -> IssuedTokens | None:
        """A new pair for a live refresh token, which is revoked (used once)."""
        with self.db.write() as conn:
            changed = conn.execute(
                oauth_tokens.update()
                .where(
                    oauth_tokens.c.token_hash == hash_key(refresh_token),
                    oauth_tokens.c.kind == "refresh",
                    oauth_tokens.c.revoked.is_(False),
                )
                .values(revoked=True)
                .returning(oauth_tokens.c.connection_id, oauth_tokens.c.code_hash)
            ).first()
            if changed is None:
                return None
            return _issue_tokens(conn, changed.connection_id, scopes, resource, changed.code_hash)

    def revoke_token_family(self, token: str) -> None:
        """Revoke every token of the token's connection (access and refresh alike)."""
        with self.db.write() as conn:
            connection_id = conn.execute(
                sa.select(oauth_tokens.c.connection_id).where(
                    oauth_tokens.c.token_hash == hash_key(token)
                )
            ).scalar_one_or_none()
            if connection_id is not None:
                conn.execute(
                    oauth_tokens.update()
                    .where(oauth_tokens.c.connection_id == connection_id)
                    .values(revoked=True)
                )

    def purge_expired(self) -> int:
        """Delete codes and tokens past their expiry (run at start); the number removed."""
        moment = now()
        removed = 0
        with self.db.write() as conn:
            for table in (oauth_codes, oauth_tokens):
                removed += conn.execute(table.delete().where(table.c.expires_at < moment)).rowcount
        return removed


def _issue_tokens(
    conn: Any,
    connection_id: str,
    scopes: list[str],
    resource: str | None,
    code_hash: str | None,
) -> IssuedTokens:
    """A new access and refresh token, marked with the code they descend from."""
    access = ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32)
    refresh = REFRESH_TOKEN_PREFIX + secrets.token_urlsafe(32)
    moment = now()
    for token, kind, lifetime in (
        (access, "access", ACCESS_TOKEN_LIFETIME),
        (refresh, "refresh", REFRESH_TOKEN_LIFETIME),
    ):
        conn.execute(
            oauth_tokens.insert().values(
                token_hash=hash_key(token),
                kind=kind,
                connection_id=connection_id,
                scopes=" ".join(scopes),
                resource=resource,
                expires_at=moment + lifetime,
                revoked=False,
                code_hash=code_hash,
            )
        )
    return IssuedTokens(access, refresh, int(ACCESS_TOKEN_LIFETIME.total_seconds()), scopes)
