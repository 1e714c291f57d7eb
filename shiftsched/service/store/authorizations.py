"""OAuth clients and their authorization requests, from registration to the user's answer.

Why apart: this is the consent step. An app registers (dynamic client registration), its
``/authorize`` request is parked here until the user, signed in to the dashboard,
approves or denies it; approval connects the app to the account
(``shiftsched.service.store.connections``) and mints the one-time code
(``shiftsched.service.store.tokens``) in the same transaction, so a request is consumed
exactly once.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any, Final

import sqlalchemy as sa

from shiftsched.service.store.connections import connect
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import now
from shiftsched.service.store.tables import oauth_clients, oauth_requests
from shiftsched.service.store.tokens import mint_code

REQUEST_LIFETIME: Final = timedelta(minutes=15)


class Authorizations:
    """Registered OAuth clients and parked authorization requests on the service database."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
            connection_id = connect(conn, account_id, row.client_id, params.get("scopes") or [])
            code = mint_code(conn, connection_id, params)
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

    def purge_expired(self) -> int:
        """Delete parked requests past their expiry (run at start); the number removed."""
        with self.db.write() as conn:
            removed = conn.execute(
                oauth_requests.delete().where(oauth_requests.c.expires_at < now())
            )
        return int(removed.rowcount)
