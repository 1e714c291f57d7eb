"""Sign-in limits: per email and per address, and shared by replicas through Redis."""

from __future__ import annotations

import secrets

from bento.dashboard.security import SignInLimiter


def test_the_sixth_attempt_for_one_email_within_a_minute_is_refused() -> None:
    limiter = SignInLimiter(per_email=5, per_address=100)
    email = f"{secrets.token_hex(4)}@example.com"
    assert [limiter.allow(email, f"10.0.0.{i}") for i in range(6)] == [True] * 5 + [False]
    assert limiter.allow("other@example.com", "10.0.0.9")


def test_one_address_is_limited_across_emails() -> None:
    limiter = SignInLimiter(per_email=100, per_address=3)
    results = [limiter.allow(f"user{i}@example.com", "192.0.2.7") for i in range(4)]
    assert results == [True, True, True, False]


def test_replicas_share_the_count_in_redis(redis_server: str) -> None:
    uri = redis_server.rsplit("/", 1)[0] + "/3"
    first, second = (
        SignInLimiter(per_email=2, storage_uri=uri),
        SignInLimiter(per_email=2, storage_uri=uri),
    )
    email = f"{secrets.token_hex(4)}@example.com"
    assert first.allow(email, "198.51.100.1")
    assert second.allow(email, "198.51.100.2")
    assert not first.allow(email, "198.51.100.3")
