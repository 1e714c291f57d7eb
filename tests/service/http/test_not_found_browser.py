"""An unknown address in a real browser: what a person sees, and where its links lead.

The whole site served by uvicorn (``tests.service.site``), headless Chromium through
Playwright, one page for everything. Under the API the problem+json shows as text: its
``type`` opens the error page and its ``Link`` the index of operations. Elsewhere the
page names the path, and every link on it leads to a page that answers. Screenshots go
to ``artifacts/screenshots/not-found-*.png``, with one of the command line's roster
table as a terminal shows it.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from shiftsched.checking.audit import audit
from shiftsched.present.roster_text import roster_lines
from tests.cli.test_cli_tables import greedy
from tests.notebooks.test_screenshot import ARTIFACTS, CHROMIUM_ARGS, require_chromium
from tests.service.site import served_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LINKS = (  # the page's links, by their words, and the path each ends on
    ("The API", "/v1/public/"),
    ("the OpenAPI description", "/v1/public/openapi.json"),
    ("The dashboard", "/dashboard/sign-in"),
    ("the front page", "/"),
    ("the error types", "/v1/public/errors/"),
)


def shot(page: Page, name: str, selector: str | None = None) -> None:
    """The whole page, or the element ``selector`` finds."""
    path = ARTIFACTS / f"not-found-{name}.png"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)  # a stale file must not pass for this run's
    if selector is None:
        page.screenshot(path=path, full_page=True)
    else:
        page.locator(selector).screenshot(path=path)
    assert path.stat().st_size > 0


def check_api_path(page: Page, base: str) -> None:
    answer = page.goto(f"{base}/v1/public/solve/nope")
    assert answer is not None and answer.status == 404
    problem = json.loads(page.locator("body").inner_text())
    assert problem["detail"] == (
        "no operation at /v1/public/solve/nope; GET /v1/public lists every operation"
    )
    shot(page, "api")
    [index] = re.findall(r"<([^>]+)>", answer.headers["link"])
    listed = page.goto(index)
    assert listed is not None and listed.status == 200
    assert "operations" in json.loads(page.locator("body").inner_text())
    guide = page.goto(problem["type"])
    assert guide is not None and guide.status == 200
    assert page.get_by_role("heading", name="Not found").count() == 1


def check_site_path(page: Page, base: str) -> None:
    answer = page.goto(f"{base}/no/such/page")
    assert answer is not None and answer.status == 404
    assert page.get_by_role("heading", name="Nothing here").is_visible()
    assert page.locator("main code").first.inner_text() == "/no/such/page"
    shot(page, "site")
    for words, lands_on in LINKS:
        with page.expect_navigation() as navigation:
            page.get_by_role("link", name=words, exact=True).click()
        response = navigation.value
        assert response is not None and response.status == 200, words
        assert page.url.removeprefix(base) == lands_on, words
        page.go_back()


def terminal_render(page: Page) -> None:
    """The 28-day ward roster (its greedy start) as ``--format table`` prints it at 100
    columns, in a terminal's colours."""
    request, roster = greedy("ward_24_7")
    text = "\n".join(roster_lines(request, roster, audit(request, roster).shortages, 100))
    page.set_content(
        '<pre style="background:#101418;color:#d8dee4;font:14px/1.35 monospace;'
        f'padding:18px;margin:0;width:max-content">{html.escape(text)}</pre>'
    )
    shot(page, "cli-table", "pre")


def test_unknown_paths_read_in_a_browser_and_their_links_lead_on(tmp_path: Path) -> None:
    executable = require_chromium()
    with served_site(f"sqlite:///{tmp_path / 'site.db'}") as base, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            check_api_path(page, base)
            check_site_path(page, base)
            terminal_render(page)
        finally:
            browser.close()
