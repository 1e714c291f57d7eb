"""What an API key looks like and the form in which it is stored.

Why apart: keys, OAuth codes and tokens and session ids are all kept as SHA-256 hashes
(never in plaintext) by the accounts, ``shiftsched.service.store.tokens`` and
``shiftsched.service.store.sessions``; one definition of the hash keeps every lookup
comparing like with like. The plaintext of a key is returned
once, when issued.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Final

KEY_PREFIX: Final = "sk_live_"
ACCESS_TOKEN_PREFIX: Final = "mcp_at_"
"""OAuth access tokens of connected apps; they authenticate like the key they map to."""

_EXPLICIT_KEY = re.compile(r"[\x21-\x7e]{20,200}")


def generate_key() -> str:
    """A new random API key: `sk_live_` and 64 hex characters (256 bits)."""
    return KEY_PREFIX + secrets.token_hex(32)


def hash_key(key: str) -> str:
    """The stored form of a key; lookups go by this hash, so no secret is compared."""
    return hashlib.sha256(key.encode()).hexdigest()


def check_explicit_key(key: str) -> str:
    """A key chosen by an operator (a fixed demo key): 20-200 visible ASCII characters."""
    if not _EXPLICIT_KEY.fullmatch(key):
        raise ValueError("an API key has 20 to 200 visible ASCII characters, no spaces")
    return key
