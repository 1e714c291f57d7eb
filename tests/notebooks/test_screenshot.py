"""The roster explorer served by ``marimo run`` shows its roster chart in a real browser.

Headless Chromium (Debian's package, ``.ci/install-chromium.sh``) is driven by
Playwright. Screenshots are saved under ``artifacts/screenshots/`` for a reader to look
at; the test checks that the roster chart is visible, sized, and drawn (not blank).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import sync_playwright

from tests.bento.processes import free_port, stop

ROOT = Path(__file__).parent.parent.parent
ARTIFACTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Flags for a sandboxed machine without network: no first-run or background traffic.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT_SECONDS = 60
CHART_TIMEOUT_MS = 90_000


def require_chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing; .ci/install-chromium.sh installs it")
        pytest.skip("chromium is not installed (bash .ci/install-chromium.sh)")
    return CHROMIUM


@pytest.fixture
def explore_url() -> Iterator[str]:
    port = free_port()
    marimo = Path(sys.executable).parent / "marimo"
    server = subprocess.Popen(
        [
            *(str(marimo), "run", "notebooks/explore.py", "--headless", "--no-token"),
            *("--host", "127.0.0.1", "--port", str(port), "--", "--time-limit", "2"),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while True:
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, "marimo run exited early"
            assert time.monotonic() < deadline, "marimo run did not start"
            time.sleep(0.3)
        yield url
    finally:
        stop(server)


def test_explorer_shows_the_roster_chart_in_chromium(explore_url: str) -> None:
    executable = require_chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            page.goto(explore_url)
            # Vega draws on a canvas (no DOM text); the roster is the page's first chart.
            roster = page.locator(".vega-embed").first
            roster.wait_for(state="visible", timeout=CHART_TIMEOUT_MS)
            page.get_by_text("the independent audit agrees").wait_for(timeout=CHART_TIMEOUT_MS)
            page.wait_for_timeout(500)  # let vega finish drawing
            page.screenshot(path=ARTIFACTS / "explore.png", full_page=True)
            image = roster.screenshot(path=ARTIFACTS / "explore-roster.png")
            box = roster.bounding_box()
            drawn = page.evaluate(
                """() => {
                    const chart = document.querySelector('.vega-embed canvas');
                    return chart ? chart.width * chart.height : 0;
                }"""
            )
        finally:
            browser.close()
    assert box is not None and box["width"] > 200 and box["height"] > 150
    assert image.startswith(b"\x89PNG")
    # A blank rectangle compresses to a few hundred bytes; a coloured roster does not.
    assert len(image) > 8_000
    assert drawn > 0
