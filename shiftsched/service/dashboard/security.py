"""What keeps the dashboard safe: password hashes, session cookies, CSRF, sign-in limits.

* Passwords: argon2id, rehashed when the parameters change (``shiftsched.service.passwords``).
* Sessions: the cookie holds a random session id, signed (``itsdangerous``) with the
  dashboard secret; the database holds only its hash, so signing out ends it
  everywhere and a stolen database holds no usable session. Signing in always starts a
  *new* session id (and drops the old one), so an id planted before sign-in is worthless
  (no session fixation). Cookies are HttpOnly, SameSite=Lax (the OAuth approval page is
  reached by a top-level redirect) and Secure when the public URL is https.
* CSRF: every form carries a token that is an HMAC of the visitor's cookie id (the
  session id when signed in, an anonymous id before), checked on every POST.
* Sign-in attempts are rate-limited per email and per client address, and sign-ups per
  client address and for the whole service (``limits``, moving windows; in Redis with
  ``SIGN_IN_LIMIT_STORAGE``), so passwords cannot be guessed quickly and free quotas
  cannot be farmed.
* The client address those limits count is the one a trusted proxy saw, never what the
  client wrote in ``X-Forwarded-For`` (``shiftsched.service.http.addresses.client_address``).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from itsdangerous import BadSignature, URLSafeSerializer
from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerMinute
from limits.strategies import MovingWindowRateLimiter

from shiftsched.service.http.rate_limits import limit_storage

SESSION_COOKIE: Final = "shiftsched_session"
ANONYMOUS_COOKIE: Final = "shiftsched_visitor"
MIN_PASSWORD_LENGTH: Final = 10


def password_problem(password: str, confirm: str) -> str | None:
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"Use at least {MIN_PASSWORD_LENGTH} characters."
    if len(password) > 1024:
        return "Use at most 1024 characters."
    if password != confirm:
        return "The two passwords differ."
    return None


@dataclass
class CookieSigner:
    """Signs cookie ids and derives CSRF tokens from them, with one secret."""

    secret: str
    secure: bool = False
    _serializer: URLSafeSerializer = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._serializer = URLSafeSerializer(self.secret, salt="shiftsched-cookie")

    def sign(self, value: str) -> str:
        return str(self._serializer.dumps(value))

    def unsign(self, cookie: str | None) -> str | None:
        if not cookie:
            return None
        try:
            value = self._serializer.loads(cookie)
        except BadSignature:
            return None
        return value if isinstance(value, str) else None

    def csrf_token(self, visitor_id: str) -> str:
        mac = hmac.new(self.secret.encode(), f"csrf:{visitor_id}".encode(), hashlib.sha256)
        return mac.hexdigest()

    def csrf_ok(self, visitor_id: str | None, token: str | None) -> bool:
        if not visitor_id or not token:
            return False
        return hmac.compare_digest(self.csrf_token(visitor_id), token)


def new_visitor_id() -> str:
    return secrets.token_urlsafe(24)


class SignInLimiter:
    """At most ``per_email`` attempts a minute for one email, ``per_address`` for one
    client address. Counted in this process's memory, or in the ``limits`` storage named
    by ``storage_uri`` (``redis://host:6379/1``) so that every replica shares the count."""

    def __init__(
        self,
        per_email: int = 5,
        per_address: int = 20,
        storage_uri: str | None = None,
    ) -> None:
        self._limiter = MovingWindowRateLimiter(limit_storage(storage_uri))
        self._per_email = RateLimitItemPerMinute(per_email)
        self._per_address = RateLimitItemPerMinute(per_address)

    def allow(self, email: str, address: str) -> bool:
        email_ok = self._limiter.hit(self._per_email, "email", email.strip().lower())
        address_ok = self._limiter.hit(self._per_address, "address", address)
        return email_ok and address_ok


SIGN_UPS_PER_ADDRESS_PER_HOUR: Final = 10
SIGN_UPS_PER_HOUR: Final = 200


class SignUpLimiter:
    """At most ``per_address`` sign-ups an hour from one client address, and ``total`` an
    hour for the whole service. Every account starts with a free quota of units, so
    unlimited sign-ups would hand out unlimited units; the ceiling for the service bounds
    what many addresses together can take (and what a sign-up flood costs in password
    hashing), at the price of refusing honest sign-ups while one is under way."""

    def __init__(
        self,
        per_address: int = SIGN_UPS_PER_ADDRESS_PER_HOUR,
        total: int = SIGN_UPS_PER_HOUR,
        storage_uri: str | None = None,
    ) -> None:
        self._limiter = MovingWindowRateLimiter(limit_storage(storage_uri))
        self._per_address = RateLimitItemPerHour(per_address)
        self._total = RateLimitItemPerHour(total)

    def allow(self, address: str) -> int | None:
        """None when this sign-up may go ahead (and it is counted); otherwise the seconds
        until it could."""
        for item, keys in ((self._per_address, ("sign-up", address)), (self._total, ("sign-up",))):
            if not self._limiter.hit(item, *keys):
                return self._seconds_until_free(item, keys)
        return None

    def _seconds_until_free(self, item: RateLimitItem, keys: Sequence[str]) -> int:
        reset_at = self._limiter.get_window_stats(item, *keys).reset_time
        return max(1, math.ceil(reset_at - time.time()))


def safe_next(target: str | None, default: str) -> str:
    """A local path to go to after sign-in; anything pointing elsewhere is refused."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return default
    if "\\" in target:
        return default
    return target
