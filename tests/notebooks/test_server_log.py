"""A notebook page that works leaves nothing alarming in the server's log.

``marimo run`` serves what a chart reads as a file of its own, dropped as soon as the cell
that made it runs again: a control moved twice re-runs the roster's cell twice, and the
browser could still be fetching the first run's file (``KeyError: 'Virtual file not
found: ….arrow'``, then "response already started", in the log). The explorer's roster
therefore carries its rows inside the page; here the page is used as a person uses it
(a slider moved twice in a row, the next period planned) and the log is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.notebooks.test_screenshot import CHART_TIMEOUT_MS, EXACT, ROSTER, Page, opened, serving

pytestmark = pytest.mark.browser
ALARMS = ("Traceback", "Virtual file not found", "response already started", "ERROR")
CHART_DATA = (".arrow", ".csv", ".json")  # what a chart would fetch as a file
STALE = "document.querySelectorAll('.marimo-output-stale').length"  # outputs being redone


def settled(page: Any) -> None:
    """Once the cells a change set off have run (their outputs are marked stale until
    then) and every chart on the page is drawn again."""
    page.wait_for_function(f"{STALE} > 0", timeout=CHART_TIMEOUT_MS)
    page.wait_for_function(f"{STALE} === 0", timeout=CHART_TIMEOUT_MS)
    page.locator(ROSTER).first.locator("canvas").first.wait_for(timeout=CHART_TIMEOUT_MS)


def test_the_explorer_used_twice_in_a_row_logs_nothing_alarming(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    page_spec = Page("explore", ("--time-limit", "60", *EXACT), "the independent audit agrees", 1)
    fetched: list[str] = []
    with serving(page_spec, log) as url, opened(page_spec, url) as page:
        page.on("request", lambda request: fetched.append(request.url))
        page.locator(ROSTER).first.locator("canvas").first.wait_for(timeout=CHART_TIMEOUT_MS)
        weight = page.get_by_role("slider").nth(2)  # preference weight: a solve each step
        weight.focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")  # the roster's cell runs again before it is drawn
        moved = weight.get_attribute("aria-valuenow")
        settled(page)
        # The plan of the next period after the new roster, with its charts.
        page.get_by_role("switch", name="plan it").click()
        page.get_by_text("The ledger through").filter(visible=True).first.wait_for(
            timeout=CHART_TIMEOUT_MS
        )
    assert moved == "120"  # both steps of 10 from 100 reached the page
    written = log.read_text(errors="replace")
    assert not [alarm for alarm in ALARMS if alarm in written], written[-4000:]
    files = [u for u in fetched if "/@file/" in u and u.endswith(CHART_DATA)]
    assert files == []  # every chart's rows came with the page
