"""The Webhooks page: a pro account adds an endpoint (its secret shown once), sends it a
test event, sees the delivery and each attempt, rotates its secret and removes it; a
basic account is told it needs the pro tier; an address inside is refused with why."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import anyio
import httpx
import pytest
from starlette.testclient import TestClient

from shiftsched.service.store.rows import now
from shiftsched.service.webhooks.sender import sweep
from tests.service.dashboard.test_dashboard import BASE, form, sign_up, store_of
from tests.service.site import site_app, site_settings
from tests.service.webhooks.test_webhooks import Receiver


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'site.db'}"
    settings = site_settings(url, BASE, webhook_allow_loopback=True)
    with TestClient(site_app(settings), base_url=BASE, follow_redirects=False) as client:
        yield client


def test_a_pro_account_manages_its_endpoints_and_sees_each_attempt(site: TestClient) -> None:
    receiver = Receiver(down=1)
    try:
        site.cookies.clear()
        email = sign_up(site)
        store = store_of(site)
        user = store.users.user_by_email(email)
        assert user is not None
        basic = site.get("/dashboard/webhooks").text
        assert "Webhooks need the pro tier" in basic and 'name="url"' not in basic
        store.accounts.set_tier(user.account_id, "pro")
        refused = form(
            site, "/dashboard/webhooks", "/dashboard/webhooks", url="https://10.0.0.7/hook"
        )
        assert "Not added: the address&#39;s host resolves to 10.0.0.7" in refused.text
        added = form(site, "/dashboard/webhooks", "/dashboard/webhooks", url=receiver.url)
        secret = re.search(r'<code id="webhook-secret">([^<]+)</code>', added.text)
        assert secret and secret.group(1).startswith("whsec_")
        [endpoint] = store.webhooks.endpoints(user.account_id)
        action = f"/dashboard/webhooks/{endpoint.id}"
        assert form(site, "/dashboard/webhooks", action + "/test").status_code == 303
        settings = site.app.state.public_api.state.settings  # type: ignore[attr-defined]

        async def send_at(seconds: float) -> int:
            async with httpx.AsyncClient(timeout=10) as http:
                return await sweep(store, settings, http, now() + timedelta(seconds=seconds))

        assert anyio.run(send_at, 0) == 1 and anyio.run(send_at, 6) == 1  # 503, then 200
        page = site.get("/dashboard/webhooks").text
        assert "webhook.test" in page and "delivered" in page
        assert re.search(r"503 \(\d+ ms\); \d\d:\d\d:\d\d 200 \(\d+ ms\)", page), page
        rotated = form(site, "/dashboard/webhooks", action + "/rotate")
        assert secret.group(1) not in rotated.text and 'id="webhook-secret"' in rotated.text
        assert form(site, "/dashboard/webhooks", action + "/delete").status_code == 303
        assert store.webhooks.endpoints(user.account_id) == []
        assert receiver.url not in site.get("/dashboard/webhooks").text
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()


def test_the_nav_links_the_page(site: TestClient, tmp_path: Path) -> None:
    site.cookies.clear()
    sign_up(site)
    assert 'href="/dashboard/webhooks"' in site.get("/dashboard/keys").text
