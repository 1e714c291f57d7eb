"""Sign-in and sign-up limits behind a proxy, probed as a client who rotates
``X-Forwarded-For`` would: whatever the client writes, the limits count the address the
proxy saw.

In-process, the site sits behind uvicorn's proxy-headers middleware trusting any peer
(``FORWARDED_ALLOW_IPS="*"``, the most trusting server setting, under which uvicorn
reports the leftmost entry as the client), with ``TRUSTED_PROXY_HOPS=1``; the test plays
nginx, appending the real address to what the client wrote. The last test runs the same
probe against ``bentoml serve`` as the compose stack runs it (forwarded headers believed
from the proxy's address only), and as it ran before (believed from anyone). The limits
are the service's own defaults; each test uses real addresses of its own.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from shiftsched.service.dashboard.security import (
    SIGN_UPS_PER_ADDRESS_PER_HOUR,
    SignInLimiter,
    SignUpLimiter,
)
from tests.service import processes
from tests.service.site import DASHBOARD_SECRET, site_app, site_settings

pytestmark = pytest.mark.slow  # a served process, and sign-ups by the dozen

BASE = "http://localhost"
PASSWORD = "correct horse battery"
SIGN_INS_PER_ADDRESS_PER_MINUTE = 20  # SignInLimiter's default


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'limits.db'}"
    app = site_app(
        site_settings(url, BASE, trusted_proxy_hops=1),
        sign_in_limiter=SignInLimiter(),  # the service's defaults
        sign_up_limiter=SignUpLimiter(),
    )
    served = ProxyHeadersMiddleware(app, trusted_hosts="*")  # type: ignore[arg-type]
    with TestClient(served, base_url=BASE, follow_redirects=False) as client:
        yield client


def through_nginx(client_wrote: str, real_address: str) -> dict[str, str]:
    """The header as nginx forwards it when it appends the peer it saw."""
    return {"X-Forwarded-For": f"{client_wrote}, {real_address}"}


def post_form(client: TestClient, page: str, headers: dict[str, str], **fields: str) -> Any:
    client.cookies.clear()
    html = client.get(page, headers=headers).text
    token = re.search(r'name="csrf_token" value="([0-9a-f]+)"', html)
    assert token, html
    return client.post(page, data={"csrf_token": token.group(1), **fields}, headers=headers)


def test_rotating_x_forwarded_for_does_not_escape_the_sign_in_limit(site: TestClient) -> None:
    real = "203.0.113.10"
    statuses = [
        post_form(
            site,
            "/dashboard/sign-in",
            through_nginx(f"10.{i}.{i}.1", real),
            email=f"guess-{i}@example.com",  # a fresh email each time: only the address counts
            password="wrong password!",
        ).status_code
        for i in range(40)
    ]
    limit = SIGN_INS_PER_ADDRESS_PER_MINUTE
    assert statuses[:limit] == [401] * limit
    assert statuses[limit:] == [429] * (40 - limit)
    # The client's own text is not what is counted: a fresh real address gets through.
    elsewhere = post_form(
        site,
        "/dashboard/sign-in",
        through_nginx("10.0.0.1", "203.0.113.11"),
        email="guess-0@example.com",
        password="wrong password!",
    )
    assert elsewhere.status_code == 401


def test_thirty_sign_ups_from_one_address_are_refused_after_the_limit(site: TestClient) -> None:
    real = "203.0.113.20"
    answers = [
        post_form(
            site,
            "/dashboard/sign-up",
            through_nginx(f"10.{i}.{i}.2", real),
            email=f"farm-{i}-{secrets.token_hex(3)}@example.com",
            password=PASSWORD,
            confirm=PASSWORD,
        )
        for i in range(30)
    ]
    limit = SIGN_UPS_PER_ADDRESS_PER_HOUR
    assert [a.status_code for a in answers[:limit]] == [303] * limit
    refused = answers[limit:]
    assert [a.status_code for a in refused] == [429] * (30 - limit)
    for answer in refused:
        assert 0 < int(answer.headers["retry-after"]) <= 3600
        assert "Too many new accounts" in answer.text
    other = post_form(
        site,
        "/dashboard/sign-up",
        through_nginx("10.0.0.2", "203.0.113.21"),
        email=f"honest-{secrets.token_hex(3)}@example.com",
        password=PASSWORD,
        confirm=PASSWORD,
    )
    assert other.status_code == 303


def test_a_refused_sign_up_creates_no_account(site: TestClient) -> None:
    real = "203.0.113.30"
    for i in range(SIGN_UPS_PER_ADDRESS_PER_HOUR):
        post_form(
            site,
            "/dashboard/sign-up",
            through_nginx("10.0.0.3", real),
            email=f"fill-{i}-{secrets.token_hex(3)}@example.com",
            password=PASSWORD,
            confirm=PASSWORD,
        )
    email = f"late-{secrets.token_hex(3)}@example.com"
    refused = post_form(
        site,
        "/dashboard/sign-up",
        through_nginx("10.0.0.3", real),
        email=email,
        password=PASSWORD,
        confirm=PASSWORD,
    )
    assert refused.status_code == 429
    signed_in = post_form(
        site,
        "/dashboard/sign-in",
        through_nginx("10.0.0.3", "203.0.113.31"),
        email=email,
        password=PASSWORD,
    )
    assert signed_in.status_code == 401


@pytest.fixture(scope="module", params=["127.0.0.1", "*"], ids=["as-compose", "trust-any"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``bentoml serve`` with ``TRUSTED_PROXY_HOPS=1``, the test standing where nginx does
    (on loopback). ``FORWARDED_ALLOW_IPS`` as in the compose stack (the proxy's address
    only), and ``*``, as the stack had it before: uvicorn then reports the leftmost entry,
    and only the service's own choice of address keeps the limits."""
    home = tmp_path_factory.mktemp("served-limits")
    env = processes.serve_environment(
        home,
        DASHBOARD_SECRET=DASHBOARD_SECRET,
        FORWARDED_ALLOW_IPS=request.param,
        TRUSTED_PROXY_HOPS="1",
    )
    with processes.served(env, home / "serve.log", ready="/dashboard/sign-in") as server:
        yield server.root


def served_post(base: str, page: str, headers: dict[str, str], **fields: str) -> httpx.Response:
    with httpx.Client(base_url=base, timeout=60, follow_redirects=False) as client:
        html = client.get(page, headers=headers).text
        token = re.search(r'name="csrf_token" value="([0-9a-f]+)"', html)
        assert token, html
        return client.post(page, data={"csrf_token": token.group(1), **fields}, headers=headers)


def test_served_limits_hold_against_a_rotating_x_forwarded_for(served: str) -> None:
    sign_ins = [
        served_post(
            served,
            "/dashboard/sign-in",
            through_nginx(f"10.{i}.{i}.1", "203.0.113.40"),
            email=f"guess-{i}@example.com",
            password="wrong password!",
        ).status_code
        for i in range(40)
    ]
    limit = SIGN_INS_PER_ADDRESS_PER_MINUTE
    assert sign_ins == [401] * limit + [429] * (40 - limit)
    sign_ups = [
        served_post(
            served,
            "/dashboard/sign-up",
            through_nginx(f"10.{i}.{i}.2", "203.0.113.41"),
            email=f"farm-{i}-{secrets.token_hex(3)}@example.com",
            password=PASSWORD,
            confirm=PASSWORD,
        )
        for i in range(30)
    ]
    limit = SIGN_UPS_PER_ADDRESS_PER_HOUR
    assert [a.status_code for a in sign_ups] == [303] * limit + [429] * (30 - limit)
    assert all(0 < int(a.headers["retry-after"]) <= 3600 for a in sign_ups[limit:])
