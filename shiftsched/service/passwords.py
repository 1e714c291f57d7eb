"""Password hashes: argon2id (``argon2-cffi`` defaults), rehashed when the parameters change.

Why apart from the dashboard's other safeguards (``shiftsched.service.dashboard.security``):
the demo account's sign-in (``shiftsched.service.ops.demo``) sets and checks a password
too, and sits below the dashboard.
"""

from __future__ import annotations

from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_HASHER: Final = PasswordHasher()
_DUMMY_HASH: Final = _HASHER.hash("not a real password, only for timing")


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def check_password(password_hash: str | None, password: str) -> bool:
    """True when the password matches; the same work is done for an unknown user."""
    try:
        return _HASHER.verify(password_hash or _DUMMY_HASH, password) and bool(password_hash)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    return _HASHER.check_needs_rehash(password_hash)
