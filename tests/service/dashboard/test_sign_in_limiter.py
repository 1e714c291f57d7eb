"""Sign-in limits (per email and per address), sign-up limits (per address and for the
service), both shared by replicas through Redis; and which address they count."""

from __future__ import annotations

import secrets

from shiftsched.service.dashboard.security import SignInLimiter, SignUpLimiter
from shiftsched.service.http.addresses import client_address


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


def test_one_address_gets_a_few_sign_ups_an_hour_then_a_wait() -> None:
    limiter = SignUpLimiter(per_address=3, total=100)
    results = [limiter.allow("192.0.2.7") for _ in range(4)]
    assert results[:3] == [None, None, None]
    wait = results[3]
    assert wait is not None and 0 < wait <= 3600
    assert limiter.allow("192.0.2.8") is None  # another address is counted on its own


def test_the_service_wide_ceiling_holds_across_addresses() -> None:
    limiter = SignUpLimiter(per_address=100, total=3)
    results = [limiter.allow(f"198.51.100.{i}") for i in range(4)]
    assert results[:3] == [None, None, None] and results[3] is not None


def test_sign_ups_are_counted_once_for_every_replica_in_redis(redis_server: str) -> None:
    uri = redis_server.rsplit("/", 1)[0] + "/4"
    address = f"203.0.113.{secrets.randbelow(250)}-{secrets.token_hex(3)}"
    first, second = (
        SignUpLimiter(per_address=2, storage_uri=uri),
        SignUpLimiter(per_address=2, storage_uri=uri),
    )
    assert first.allow(address) is None
    assert second.allow(address) is None
    assert first.allow(address) is not None


def test_the_address_is_the_one_our_outermost_proxy_saw() -> None:
    # nginx appends the peer it saw to whatever the client wrote.
    spoofed = ["10.9.9.9, 10.8.8.8, 203.0.113.5"]
    assert client_address("172.18.0.5", spoofed, trusted_hops=1) == "203.0.113.5"
    # Two proxies, each appending: the outer one's view is second from the right.
    assert client_address("10.0.0.2", ["6.6.6.6, 203.0.113.5, 10.0.0.1"], 2) == "203.0.113.5"
    # Several headers count as one list, in order.
    assert client_address("10.0.0.2", ["6.6.6.6", "203.0.113.5"], 1) == "203.0.113.5"
    # Fewer entries than proxies: all were written by ours; the furthest out is first.
    assert client_address("10.0.0.2", ["203.0.113.5"], 2) == "203.0.113.5"


def test_without_a_proxy_the_header_is_ignored() -> None:
    assert client_address("203.0.113.5", ["6.6.6.6"], trusted_hops=0) == "203.0.113.5"
    assert client_address("203.0.113.5", [], trusted_hops=1) == "203.0.113.5"
    assert client_address("203.0.113.5", [" , "], trusted_hops=1) == "203.0.113.5"
    assert client_address(None, [], trusted_hops=0) == "unknown"
