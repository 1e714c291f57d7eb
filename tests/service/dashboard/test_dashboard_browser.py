"""The dashboard in a real browser, against the whole site served by uvicorn.

Headless Chromium (Debian's package, ``.ci/install-chromium.sh``) is driven by
Playwright's async API, one browser for the module on an event loop of its own thread
(the MCP client of the OAuth test must share that loop with the page that approves it).
Each test gets a fresh browser context (no cookies). Screenshots go to
``artifacts/screenshots/dashboard-<page>.png`` for a reader to look at.

* A person signs up, creates a key (shown once), solves with it over plain HTTP, sees
  the units move on the usage page, and disables the key, which then gets 401.
* An MCP client connects by OAuth exactly as an assistant does (the SDK's
  ``OAuthClientProvider``: discovery, dynamic registration, PKCE, the dashboard's
  sign-in and approval pages, token exchange), solves through the tools, and is cut
  off once the app is revoked on the "Connected apps" page.

Every roster received is checked by the independent auditor.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from playwright.async_api import Browser, Page, Playwright, async_playwright
from pydantic import AnyUrl

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.billing.admission import MORE_UNITS
from shiftsched.service.mcp.server import MCP_PATH
from shiftsched.service.store.connections import CONNECTION_KEY_LABEL
from tests.factories import minimal_request_dict
from tests.notebooks.test_screenshot import ARTIFACTS, CHROMIUM_ARGS, require_chromium
from tests.service.processes import free_port
from tests.service.site import served_site

T = TypeVar("T")
TEST_TIMEOUT_SECONDS = 240  # a whole browser flow; only a hang reaches it, not a busy machine
PASSWORD = "correct horse battery staple"
CLIENT_NAME = "Test Assistant"


class BrowserLoop:
    """One Chromium, driven by Playwright's async API on an event loop in its own thread."""

    def __init__(self, executable: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        try:
            self.playwright: Playwright = self.run(async_playwright().start())
        except BaseException:
            self.stop_loop()
            raise
        try:
            self.browser: Browser = self.run(
                self.playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            )
        except BaseException:
            self.run(self.playwright.stop())
            self.stop_loop()
            raise

    def run(self, work: Coroutine[Any, Any, T], timeout: float = TEST_TIMEOUT_SECONDS) -> T:
        future = asyncio.run_coroutine_threadsafe(work, self.loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def close(self) -> None:
        try:
            self.run(self.browser.close())
            self.run(self.playwright.stop())
        finally:
            self.stop_loop()

    def stop_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served_site(f"sqlite:///{tmp_path_factory.mktemp('db')}/site.db") as base:
        yield base


@pytest.fixture(scope="module")
def browser_loop() -> Iterator[BrowserLoop]:
    running = BrowserLoop(require_chromium())
    try:
        yield running
    finally:
        running.close()


def in_fresh_context(
    browser_loop: BrowserLoop, body: Callable[[Page], Awaitable[None]], **options: Any
) -> None:
    """Run ``body`` with a new page in a new browser context (no cookies) on the loop;
    ``options`` go to the context (permissions, JavaScript off)."""

    async def run() -> None:
        context = await browser_loop.browser.new_context(
            viewport={"width": 1280, "height": 900}, **options
        )
        try:
            await body(await context.new_page())
        finally:
            await context.close()

    browser_loop.run(run())


# ------------------------------------------------------------------------------ helpers


async def visit(page: Page, url: str) -> None:
    response = await page.goto(url)
    assert response is not None and response.status == 200, (url, response and response.status)


async def submit(page: Page, button: Any, status: int = 200) -> None:
    """Click a form's button and wait for the page it leads to (after redirects)."""
    async with page.expect_navigation() as navigation:
        await button.click()
    response = await navigation.value
    assert response is not None and response.status == status, (page.url, response)


async def shot(page: Page, name: str) -> None:
    path = ARTIFACTS / f"dashboard-{name}.png"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)  # a stale file must not pass for this run's
    await page.screenshot(path=path, full_page=True)
    assert path.exists() and path.stat().st_size > 0


async def sign_up(page: Page, base: str, screenshot: bool = False) -> str:
    email = f"person-{uuid.uuid4().hex[:12]}@example.com"
    await visit(page, f"{base}/dashboard/sign-up")
    await page.fill("#email", email)
    await page.fill("#password", PASSWORD)
    await page.fill("#confirm", PASSWORD)
    if screenshot:
        await shot(page, "sign-up")
    await submit(page, page.get_by_role("button", name="Create account"))
    # Sign-up does not sign in (it must not tell whether the email had an account).
    assert urlsplit(page.url).path == "/dashboard/sign-in", page.url
    assert await page.locator("#signed-up").count() == 1
    await page.fill("#email", email)
    await page.fill("#password", PASSWORD)
    await submit(page, page.get_by_role("button", name="Sign in"))
    assert urlsplit(page.url).path == "/dashboard/keys", page.url
    return email


async def figure(page: Page, selector: str) -> int:
    return int((await page.locator(selector).inner_text()).strip())


def check_roster(data: dict[str, Any], body: Any) -> None:
    solved = SolveResponse.model_validate(body)
    assert solved.status == "completed" and solved.solution is not None
    report = audit(parse_request(data), solved.solution.assignments)
    assert report.feasible
    assert compare_with_metrics(report, solved.solution.metrics) == []


async def solve_over_http(base: str, key: str) -> httpx.Response:
    async with httpx.AsyncClient(timeout=60) as http:
        return await http.post(
            f"{base}/v1/public/solve",
            content=json.dumps(minimal_request_dict()),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        content: dict[str, Any] = result.structured_content
        inner: dict[str, Any] = content.get("result", content)
        return inner
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


# -------------------------------------------------------------------------------- tests


def test_sign_up_create_key_solve_and_see_usage_move(site: str, browser_loop: BrowserLoop) -> None:
    async def body(page: Page) -> None:
        await sign_up(page, site, screenshot=True)

        # A key, shown once.
        label = f"script {uuid.uuid4().hex[:6]}"
        await page.fill("#label", label)
        await submit(page, page.get_by_role("button", name="Create key"))
        key = (await page.locator("#new-key").inner_text()).strip()
        assert len(key) > 20
        await shot(page, "keys")
        await visit(page, f"{site}/dashboard/keys")
        assert await page.locator("#new-key").count() == 0
        assert key not in await page.content()
        row = page.locator("tbody tr", has_text=label)
        assert await row.count() == 1
        prefix = (await row.locator("code").inner_text()).strip().rstrip("…")
        assert prefix and key.startswith(prefix) and len(prefix) < len(key)

        # Usage before, a solve over plain HTTP, usage after.
        await visit(page, f"{site}/dashboard/usage")
        available, total = await figure(page, "#available"), await figure(page, "#total-units")
        assert total == 0 and available > 0

        response = await solve_over_http(site, key)
        assert response.status_code == 200, response.text
        consumed = int(response.headers["x-units-consumed"])
        assert consumed >= 1
        check_roster(minimal_request_dict(), response.json())

        await visit(page, f"{site}/dashboard/usage")
        assert await figure(page, "#available") == available - consumed
        assert await figure(page, "#total-units") == total + consumed
        await shot(page, "usage")

        for name in ("jobs", "tier", "apps"):
            await visit(page, f"{site}/dashboard/{name}")
            await shot(page, name)
        await visit(page, f"{site}/dashboard/tier")
        assert (await page.locator("#tier").inner_text()).strip() == "basic"
        # It says what the API's 429 says when the units run out.
        assert MORE_UNITS in await page.locator("main").inner_text()

        # Disabling the key stops it at once.
        await visit(page, f"{site}/dashboard/keys")
        row = page.locator("tbody tr", has_text=label)
        await submit(page, row.get_by_role("button", name=f"Disable key {prefix}"))
        row = page.locator("tbody tr", has_text=label)
        assert "disabled" in await row.inner_text()
        assert await row.get_by_role("button").count() == 0
        refused = await solve_over_http(site, key)
        assert refused.status_code == 401, refused.text

    in_fresh_context(browser_loop, body)


def test_a_new_key_has_a_copy_button_that_copies_it(site: str, browser_loop: BrowserLoop) -> None:
    async def body(page: Page) -> None:
        await sign_up(page, site)
        await submit(page, page.get_by_role("button", name="Create key"))
        key = (await page.locator("#new-key").inner_text()).strip()
        copy = page.get_by_role("button", name="Copy")
        assert await copy.is_visible()
        await copy.click()
        await page.locator("#copy-status", has_text="Copied.").wait_for()
        assert await page.evaluate("navigator.clipboard.readText()") == key

    in_fresh_context(browser_loop, body, permissions=["clipboard-read", "clipboard-write"])


def test_without_javascript_the_key_is_shown_and_no_dead_button(
    site: str, browser_loop: BrowserLoop
) -> None:
    async def body(page: Page) -> None:
        await sign_up(page, site)
        await submit(page, page.get_by_role("button", name="Create key"))
        assert len((await page.locator("#new-key").inner_text()).strip()) > 20
        assert not await page.locator("button[data-copy-from]").is_visible()

    in_fresh_context(browser_loop, body, java_script_enabled=False)


def test_the_front_page_and_an_error_page_render(site: str, browser_loop: BrowserLoop) -> None:
    async def body(page: Page) -> None:
        await visit(page, f"{site}/")
        assert await page.get_by_role("heading", level=1).inner_text() == (
            "Shift scheduling, as a service"
        )
        await shot(page, "front")
        await page.get_by_role("link", name="Error types").first.click()
        await page.get_by_role("link", name="quota-exceeded").click()
        assert await page.get_by_role("heading", name="What to do").count() == 1
        await shot(page, "error-type")

    in_fresh_context(browser_loop, body)


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


async def assert_tokens_refused(base: str, storage: MemoryStorage) -> None:
    assert storage.tokens is not None and storage.client_info is not None
    async with httpx.AsyncClient(timeout=30) as raw:
        refused = await raw.post(
            base + MCP_PATH,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={
                "Authorization": f"Bearer {storage.tokens.access_token}",
                "Accept": "application/json, text/event-stream",
            },
        )
        assert refused.status_code == 401, refused.text
        assert refused.headers["www-authenticate"].startswith("Bearer")
        refreshed = await raw.post(
            f"{base}/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": storage.tokens.refresh_token or "",
                "client_id": storage.client_info.client_id or "",
            },
        )
        assert refreshed.status_code == 400, refreshed.text
        assert refreshed.json()["error"] == "invalid_grant"


class MemoryStorage:
    """The client's token storage (``mcp.client.auth.TokenStorage``), in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def test_mcp_client_connects_by_oauth_and_revoking_cuts_it_off(
    site: str, browser_loop: BrowserLoop
) -> None:
    callback = f"http://127.0.0.1:{free_port()}/callback"
    email_holder: list[str] = []

    async def create_user(page: Page) -> None:
        email_holder.append(await sign_up(page, site))

    in_fresh_context(browser_loop, create_user)
    [email] = email_holder

    async def body(page: Page) -> None:
        authorizations: list[AuthorizationCodeResult] = []

        async def redirect_handler(authorization_url: str) -> None:
            if authorizations:
                raise AssertionError("the client was sent to authorize a second time")
            assert authorization_url.startswith(f"{site}/authorize?")
            # Not signed in in this context: /authorize -> approval page -> sign-in.
            await visit(page, authorization_url)
            assert urlsplit(page.url).path == "/dashboard/sign-in", page.url
            await page.fill("#email", email)
            await page.fill("#password", PASSWORD)
            await submit(page, page.get_by_role("button", name="Sign in"))
            assert urlsplit(page.url).path == "/dashboard/oauth/approve", page.url
            assert (await page.locator("#client-name").inner_text()).strip() == CLIENT_NAME
            assert "127.0.0.1" in await page.content()  # where it will be sent back to
            await shot(page, "approve")
            # Nothing listens on the callback port: the request itself is what counts.
            async with page.expect_request(lambda r: r.url.startswith(callback)) as sent:
                await page.get_by_role("button", name="Allow").click()
            query = parse_qs(urlsplit((await sent.value).url).query)
            assert "error" not in query, query
            authorizations.append(
                AuthorizationCodeResult(code=query["code"][0], state=query["state"][0])
            )

        async def callback_handler() -> AuthorizationCodeResult:
            return authorizations[-1]

        storage = MemoryStorage()
        provider = OAuthClientProvider(
            server_url=site + MCP_PATH,
            client_metadata=OAuthClientMetadata(
                redirect_uris=[AnyUrl(callback)],
                client_name=CLIENT_NAME,
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=storage,
            redirect_handler=redirect_handler,
            callback_handler=callback_handler,
        )
        data = minimal_request_dict()
        final_call = False  # set just before the call a revoked app must not get through
        try:
            async with (
                httpx2.AsyncClient(auth=provider, timeout=60) as http,
                Client(streamable_http_client(site + MCP_PATH, http_client=http)) as client,
            ):
                with anyio.fail_after(60):  # the first call runs the whole OAuth flow
                    before = structured(await client.call_tool("get_usage", {}))
                assert len(authorizations) == 1
                assert storage.tokens is not None and storage.client_info is not None
                solved = await client.call_tool("solve_shift", {"request": data})
                check_roster(data, structured(solved))
                after = structured(await client.call_tool("get_usage", {}))
                assert after["available_units"] < before["available_units"]

                # The dashboard shows the connection and the key it bills to.
                await visit(page, f"{site}/dashboard/keys")
                connection_key = page.locator("tbody tr", has_text=CONNECTION_KEY_LABEL)
                assert await connection_key.count() == 1
                await visit(page, f"{site}/dashboard/apps")
                row = page.locator("tbody tr", has_text=CLIENT_NAME)
                assert await row.count() == 1
                await shot(page, "apps-connected")
                await submit(page, row.get_by_role("button", name=f"Revoke {CLIENT_NAME}"))
                assert await page.locator("tbody tr", has_text=CLIENT_NAME).count() == 0

                # Cut off at once: the old access token gets 401, its refresh token 400.
                await assert_tokens_refused(site, storage)

                # The SDK client gets the 401 and sends the person to authorize again,
                # which the handler refuses: the client's session fails with that error.
                final_call = True
                with anyio.fail_after(60):
                    await client.call_tool("get_usage", {})
        except BaseException as error:  # the transport's task group wraps it
            if not final_call:
                raise
            reasons = [repr(leaf) for leaf in leaves(error)]
            assert any("authorize a second time" in reason for reason in reasons), reasons
        else:
            pytest.fail("a revoked app could still call a tool")
        assert len(authorizations) == 1

    in_fresh_context(browser_loop, body)
