"""People and connected apps: users, sign-in sessions, keys as a user sees them, OAuth.

Why a repository of its own: the billing core (units, jobs, payments) is what every
request touches; this is what the dashboard and the OAuth flow need. It works on the same
database and schema (``shiftsched.service.store.tables``) as the others, and ``Store.identity`` is
how callers reach it.

Secrets are stored as SHA-256 hashes only: session ids, authorization codes, access and
refresh tokens (all 256-bit random), like API keys. Passwords are argon2id hashes made
by the caller (``shiftsched.service.dashboard.security``).

A connected app is a *connection*: (account, OAuth client) plus the API key its tokens
act for. Every connection of an account shares one key of kind ``connection``, created
at the first approval and reused after, so usage and billing are the account's exactly
as with a Bearer key. Revoking a connection revokes its tokens at once (they are
checked against the connection on every request); disabling the key stops them all.
"""

from __future__ import annotations

import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final, Literal

import sqlalchemy as sa
from sqlalchemy import exc

from shiftsched.service.store.accounts import DEFAULT_FREE_QUOTA, Accounts
from shiftsched.service.store.credentials import ACCESS_TOKEN_PREFIX, generate_key, hash_key
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import (
    Account,
    account_from_row,
    aware,
    insert_account,
    insert_key,
    now,
)
from shiftsched.service.store.tables import (
    accounts,
    api_keys,
    connections,
    ledger,
    oauth_clients,
    oauth_codes,
    oauth_requests,
    oauth_tokens,
    users,
    web_sessions,
)

REFRESH_TOKEN_PREFIX: Final = "mcp_rt_"
SESSION_LIFETIME: Final = timedelta(days=7)
ACCESS_TOKEN_LIFETIME: Final = timedelta(hours=1)
REFRESH_TOKEN_LIFETIME: Final = timedelta(days=30)
CODE_LIFETIME: Final = timedelta(minutes=5)
REQUEST_LIFETIME: Final = timedelta(minutes=15)
CONNECTION_KEY_LABEL: Final = "Connected apps (OAuth)"
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]{2,}$")


class EmailTaken(Exception):
    """Sign-up with an email that already has an account."""


@dataclass(frozen=True)
class User:
    id: str
    email: str
    account_id: str
    password_hash: str


@dataclass(frozen=True)
class KeyInfo:
    id: str
    prefix: str
    label: str | None
    kind: Literal["manual", "connection"]
    disabled: bool
    created_at: datetime
    last_used_at: datetime | None


@dataclass(frozen=True)
class Connection:
    id: str
    client_id: str
    client_name: str
    scopes: list[str]
    created_at: datetime
    last_used_at: datetime | None


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


def normalize_email(email: str) -> str:
    """Lower-cased and trimmed; ValueError when it is not an address."""
    cleaned = email.strip().lower()
    if not _EMAIL.fullmatch(cleaned) or len(cleaned) > 254:
        raise ValueError("enter a valid email address")
    return cleaned


class Identity:
    """Users, sessions and OAuth records on the service database."""

    def __init__(self, db: Database, accounts: Accounts) -> None:
        self.db = db
        self.accounts = accounts

    # Users and sessions ------------------------------------------------------------------

    def create_user(self, email: str, password_hash: str) -> User:
        """A new user with a new basic account (the default free quota)."""
        email = normalize_email(email)
        account_id = uuid.uuid4().hex
        try:
            with self.db.write() as conn:
                insert_account(conn, account_id, email, "basic", DEFAULT_FREE_QUOTA, 0)
                return _insert_user(conn, email, password_hash, account_id)
        except exc.IntegrityError as error:
            raise EmailTaken(email) from error

    def add_user(self, account_id: str, email: str, password_hash: str) -> User:
        """A user who signs in to an existing account (the demo account's, made by the
        operator's settings rather than by sign-up)."""
        email = normalize_email(email)
        try:
            with self.db.write() as conn:
                return _insert_user(conn, email, password_hash, account_id)
        except exc.IntegrityError as error:
            raise EmailTaken(email) from error

    def user_by_email(self, email: str) -> User | None:
        try:
            email = normalize_email(email)
        except ValueError:
            return None
        with self.db.read() as conn:
            row = conn.execute(sa.select(users).where(users.c.email == email)).first()
        return _user(row) if row is not None else None

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        with self.db.write() as conn:
            conn.execute(
                users.update().where(users.c.id == user_id).values(password_hash=password_hash)
            )

    def start_session(self, user_id: str) -> str:
        """A new session id (plaintext, for the cookie); only its hash is stored."""
        session_id = secrets.token_urlsafe(32)
        moment = now()
        with self.db.write() as conn:
            conn.execute(
                web_sessions.insert().values(
                    id_hash=hash_key(session_id),
                    user_id=user_id,
                    created_at=moment,
                    expires_at=moment + SESSION_LIFETIME,
                )
            )
        return session_id

    def session_user(self, session_id: str) -> User | None:
        query = (
            sa.select(users)
            .join(web_sessions, web_sessions.c.user_id == users.c.id)
            .where(web_sessions.c.id_hash == hash_key(session_id))
            .where(web_sessions.c.expires_at > now())
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        return _user(row) if row is not None else None

    def end_session(self, session_id: str) -> None:
        with self.db.write() as conn:
            conn.execute(
                web_sessions.delete().where(web_sessions.c.id_hash == hash_key(session_id))
            )

    def purge_expired(self) -> int:
        """Delete sessions, parked requests, codes and tokens past their expiry (run at
        start); the number of rows removed."""
        moment = now()
        removed = 0
        with self.db.write() as conn:
            for table in (web_sessions, oauth_requests, oauth_codes, oauth_tokens):
                removed += conn.execute(table.delete().where(table.c.expires_at < moment)).rowcount
        return removed

    # What a user sees of the account -----------------------------------------------------

    def account(self, account_id: str) -> Account:
        with self.db.read() as conn:
            row = conn.execute(sa.select(accounts).where(accounts.c.id == account_id)).one()
        return account_from_row(row)

    def keys(self, account_id: str) -> list[KeyInfo]:
        query = (
            sa.select(api_keys)
            .where(api_keys.c.account_id == account_id)
            .order_by(api_keys.c.created_at.desc())
        )
        with self.db.read() as conn:
            return [_key(row) for row in conn.execute(query)]

    def create_key(self, account_id: str, label: str | None) -> str:
        label = (label or "").strip()[:100] or None
        return self.accounts.issue_key(account_id, label=label)

    def disable_key(self, account_id: str, key_id: str) -> bool:
        """Disable one of the account's own keys; False for any other id."""
        with self.db.write() as conn:
            changed = conn.execute(
                api_keys.update()
                .where(api_keys.c.id == key_id, api_keys.c.account_id == account_id)
                .values(disabled=True)
            )
        return bool(changed.rowcount == 1)

    def units_per_day(self, account_id: str, days: int = 30) -> list[tuple[date, int]]:
        """Units captured per day over the last ``days`` days, oldest first, zeros kept."""
        today = now().date()
        first = today - timedelta(days=days - 1)
        query = sa.select(ledger.c.units, ledger.c.settled_at).where(
            ledger.c.account_id == account_id,
            ledger.c.state == "captured",
            ledger.c.settled_at >= datetime.combine(first, datetime.min.time(), UTC),
        )
        totals = {first + timedelta(days=i): 0 for i in range(days)}
        with self.db.read() as conn:
            for units, settled_at in conn.execute(query):
                day = aware(settled_at).date()
                if day in totals:
                    totals[day] += int(units)
        return sorted(totals.items())

    # OAuth clients and authorization requests --------------------------------------------

    def save_client(self, client_id: str, info: dict[str, Any]) -> None:
        with self.db.write() as conn:
            conn.execute(
                oauth_clients.insert().values(client_id=client_id, info_json=info, created_at=now())
            )

    def client(self, client_id: str) -> dict[str, Any] | None:
        with self.db.read() as conn:
            info = conn.execute(
                sa.select(oauth_clients.c.info_json).where(oauth_clients.c.client_id == client_id)
            ).scalar_one_or_none()
        return dict(info) if info is not None else None

    def save_request(self, client_id: str, params: dict[str, Any]) -> str:
        """Park an authorization request until the user approves it; its id goes in the URL."""
        request_id = secrets.token_urlsafe(24)
        with self.db.write() as conn:
            conn.execute(
                oauth_requests.insert().values(
                    id=request_id,
                    client_id=client_id,
                    params_json=params,
                    expires_at=now() + REQUEST_LIFETIME,
                )
            )
        return request_id

    def pending_request(self, request_id: str) -> tuple[str, dict[str, Any]] | None:
        """(client_id, params) of a parked request not yet expired."""
        query = sa.select(oauth_requests).where(
            oauth_requests.c.id == request_id, oauth_requests.c.expires_at > now()
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        return (row.client_id, dict(row.params_json)) if row is not None else None

    def approve(self, request_id: str, account_id: str) -> tuple[str, dict[str, Any]] | None:
        """Consume a parked request for the account: connect the app (reusing the account's
        connection key) and mint a one-time code. (code, request params), or None."""
        code = secrets.token_urlsafe(32)
        with self.db.write() as conn:
            row = conn.execute(
                sa.select(oauth_requests).where(
                    oauth_requests.c.id == request_id, oauth_requests.c.expires_at > now()
                )
            ).first()
            if row is None:
                return None
            conn.execute(oauth_requests.delete().where(oauth_requests.c.id == request_id))
            params = dict(row.params_json)
            connection_id = _connect(conn, account_id, row.client_id, params.get("scopes") or [])
            conn.execute(
                oauth_codes.insert().values(
                    code_hash=hash_key(code),
                    connection_id=connection_id,
                    params_json=params,
                    expires_at=now() + CODE_LIFETIME,
                )
            )
        return code, params

    def deny(self, request_id: str) -> tuple[str, dict[str, Any]] | None:
        with self.db.write() as conn:
            row = conn.execute(
                sa.select(oauth_requests).where(oauth_requests.c.id == request_id)
            ).first()
            if row is None:
                return None
            conn.execute(oauth_requests.delete().where(oauth_requests.c.id == request_id))
        return row.client_id, dict(row.params_json)

    # Codes and tokens --------------------------------------------------------------------

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

    # Connected apps ----------------------------------------------------------------------

    def connections(self, account_id: str) -> list[Connection]:
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


def client_name(info: dict[str, Any]) -> str:
    name = info.get("client_name")
    return str(name) if name else f"App {str(info.get('client_id', ''))[:8]}"


def _connect(conn: Any, account_id: str, client_id: str, scopes: list[str]) -> str:
    """The live connection of (account, client), created if needed, on the account's
    connection key (created at the first connection, reused after)."""
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


def _insert_user(conn: Any, email: str, password_hash: str, account_id: str) -> User:
    user_id = uuid.uuid4().hex
    conn.execute(
        users.insert().values(
            id=user_id,
            email=email,
            password_hash=password_hash,
            account_id=account_id,
            created_at=now(),
        )
    )
    return User(user_id, email, account_id, password_hash)


def _user(row: Any) -> User:
    return User(row.id, row.email, row.account_id, row.password_hash)


def _key(row: Any) -> KeyInfo:
    return KeyInfo(
        id=row.id,
        prefix=row.prefix,
        label=row.label,
        kind="connection" if row.kind == "connection" else "manual",
        disabled=bool(row.disabled),
        created_at=aware(row.created_at),
        last_used_at=aware(row.last_used_at) if row.last_used_at else None,
    )
