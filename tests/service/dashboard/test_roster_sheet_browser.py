"""The print sheet of a month with duties, in Chromium: datasets/max_size.json (31 days,
50 people, 12 shifts, 15 duties) with every cell at its widest (the longest shift code
and a two-digit duty), on screen and on A4 landscape paper. No cell's text overflows it,
the month is cut into weeks, the codes have a legend and a holiday is marked.

The roster is written by the test, not solved: what is measured holds for any roster,
and the widest one is the hardest to fit. The sheet audits it like any stored answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from shiftsched.service.store import Store
from tests.notebooks.test_screenshot import require_chromium
from tests.service.dashboard.test_dashboard_browser import (
    BrowserLoop,
    in_fresh_context,
    shot,
    sign_up,
    visit,
)
from tests.service.processes import ROOT
from tests.service.site import served_site

pytestmark = pytest.mark.slow  # a served site and a browser

HOLIDAY = "2026-07-15"
# Elements whose content is wider than their box, in every table cell of the sheet.
OVERFLOWING = """() => [...document.querySelectorAll('table.roster td, table.roster th')]
    .filter(cell => cell.scrollWidth > cell.clientWidth + 1).map(cell => cell.innerText)"""
# Dates whose column is cut off at the side of the window (none: each week fits across).
COLUMNS_CUT = """() => [...document.querySelectorAll('table.roster thead th.day')]
    .filter(th => { const r = th.getBoundingClientRect();
                    return r.right > window.innerWidth || r.left < 0; }).length"""


@pytest.fixture(scope="module")
def browser_loop() -> Iterator[BrowserLoop]:
    running = BrowserLoop(require_chromium())
    try:
        yield running
    finally:
        running.close()


def widest_month() -> tuple[dict[str, Any], dict[str, Any]]:
    """max_size.json with a holiday, and an answer with every cell at its widest."""
    request = json.loads((ROOT / "datasets" / "max_size.json").read_text())
    request["schedule_period"]["holidays"] = [HOLIDAY]
    shift = max(request["shifts"], key=lambda s: len(s["id"]))["id"]
    duty = request["duties"][-1]["id"]  # numbered 15: two digits
    start = int(request["schedule_period"]["start_date"][-2:])
    end = int(request["schedule_period"]["end_date"][-2:])
    assignments = [
        {"employee_id": e["id"], "date": f"2026-07-{day:02d}", "shift_id": shift, "duty_id": duty}
        for e in request["employees"]
        for day in range(start, end + 1)
    ]
    metrics = {"solver_runtime_seconds": 1.0, "objective_value": 0.0, "status": "feasible"}
    answer = {"status": "completed", "solution": {"assignments": assignments, "metrics": metrics}}
    return request, answer


def stored_job(database_url: str, email: str) -> str:
    request, answer = widest_month()
    with Store(database_url) as store:
        user = store.users.user_by_email(email)
        assert user is not None
        job = store.jobs.create_job(user.account_id, request, units_reserved=0)
        assert store.jobs.finish_job(
            job.id, "completed", response_json={**answer, "job_id": job.id}
        )
    return job.id


def test_a_month_with_duties_prints_in_weeks_of_short_codes_that_fit(
    tmp_path: Path, browser_loop: BrowserLoop
) -> None:
    database_url = f"sqlite:///{tmp_path / 'site.db'}"
    with served_site(database_url) as base:

        async def body(page: Page) -> None:
            email = await sign_up(page, base)
            job_id = stored_job(database_url, email)
            await visit(page, f"{base}/dashboard/jobs/{job_id}/roster")
            assert await page.locator("table.roster").count() == 5  # Jul 2026: 5 weeks
            first_week = page.locator("table.roster").first
            assert await first_week.locator("thead th.day").count() == 5  # Wed 1 to Sun 5
            cell = (await first_week.locator("tbody td").first.inner_text()).strip()
            assert cell == "pk06/15"  # the first of the longest shift ids
            legend = await page.locator("#sheet-legend").inner_text()
            assert "pk06" in legend and "/15" in legend and "Ground equipment workshop" in legend
            holiday = page.locator(f'th.holiday time[datetime="{HOLIDAY}"]')
            assert await holiday.count() == 1
            assert await page.locator("td.holiday").count() == 50  # its column, every row
            assert await page.evaluate(OVERFLOWING) == []
            assert await page.evaluate(COLUMNS_CUT) == 0  # each whole week on the screen
            await shot(page, "roster-month-screen")

            await page.emulate_media(media="print")
            await page.set_viewport_size({"width": 1123, "height": 794})  # A4 landscape, 96 dpi
            assert await page.evaluate(OVERFLOWING) == []
            assert await page.evaluate(COLUMNS_CUT) == 0
            await shot(page, "roster-month-print")
            pdf = await page.pdf(format="A4", landscape=True)
            assert pdf.startswith(b"%PDF")

        in_fresh_context(browser_loop, body)
