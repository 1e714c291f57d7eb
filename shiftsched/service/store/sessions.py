"""Dashboard sign-in sessions: a random id in the cookie, only its hash in the database.

Why apart from users: a session changes on every sign-in and sign-out and is read on
every dashboard page, while a user changes at sign-up or with a new password. A session
id is 256-bit random and kept as a SHA-256 hash (``shiftsched.service.store.credentials``),
like an API key, so a copy of the database signs no one in.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Final

import sqlalchemy as sa

from shiftsched.service.store.credentials import hash_key
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import now
from shiftsched.service.store.tables import users, web_sessions
from shiftsched.service.store.users import User, user_from_row

SESSION_LIFETIME: Final = timedelta(days=7)


class Sessions:
    """Sign-in sessions on the service database."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
        return user_from_row(row) if row is not None else None

    def end_session(self, session_id: str) -> None:
        with self.db.write() as conn:
            conn.execute(
                web_sessions.delete().where(web_sessions.c.id_hash == hash_key(session_id))
            )

    def purge_expired(self) -> int:
        """Delete sessions past their expiry (run at start); the number removed."""
        with self.db.write() as conn:
            removed = conn.execute(web_sessions.delete().where(web_sessions.c.expires_at < now()))
        return int(removed.rowcount)
