"""The people who sign in to the dashboard: a user is an email and a password hash on an
account.

Why apart: sign-up, sign-in and the operator's demo user change the ``users`` table
only, and nothing on the billing path reads it. Passwords arrive as argon2id hashes made
by the caller (``shiftsched.service.dashboard.security``); an email is kept lower-cased
and trimmed, so one address cannot sign up twice in another case.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import exc

from shiftsched.service.store.accounts import DEFAULT_FREE_QUOTA
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import insert_account, now
from shiftsched.service.store.tables import users

_EMAIL: Final = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]{2,}$")


class EmailTaken(Exception):
    """Sign-up with an email that already has an account."""


@dataclass(frozen=True)
class User:
    id: str
    email: str
    account_id: str
    password_hash: str


def normalize_email(email: str) -> str:
    """Lower-cased and trimmed; ValueError when it is not an address."""
    cleaned = email.strip().lower()
    if not _EMAIL.fullmatch(cleaned) or len(cleaned) > 254:
        raise ValueError("enter a valid email address")
    return cleaned


def user_from_row(row: Any) -> User:
    """The user of a ``users`` row (also read by ``shiftsched.service.store.sessions``)."""
    return User(row.id, row.email, row.account_id, row.password_hash)


class Users:
    """Users and their passwords on the service database."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
        return user_from_row(row) if row is not None else None

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        with self.db.write() as conn:
            conn.execute(
                users.update().where(users.c.id == user_id).values(password_hash=password_hash)
            )


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
