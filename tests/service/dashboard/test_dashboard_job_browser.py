"""Following and stopping a queued job from the dashboard, in Chromium, as `make serve`'s
user does: signed in as the demo account with the sign-in its start printed.

The site is served by uvicorn with its embedded consumer and one solver process; the job
is a large request with a long limit, so only the stop ends it. Whether the stop comes
before its first roster or after depends on the machine, so the test asserts only what
holds either way: the page says it was stopped at the account's request, the units it
says were charged are the ledger's (the Usage page) and the JSON result's, and a kept
roster passes the audit. The roster's print view is shown for a synchronous solve, whose
figures are checked against the audit too.

How the page follows a job is checked on a job moved by the test itself, as the solving
process moves it (its progress, then its end), so each step is reached on purpose: the
page's script moves the figures and charts in place from the job's event stream, the
end brings the ended page, and a refused stream falls back to reloading the page.
Screenshots go to ``artifacts/screenshots/dashboard-job-*.png``.
"""

from __future__ import annotations

import io
import json
import re
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, redirect_stdout
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, expect

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.passwords import hash_password
from shiftsched.service.store import Job, Store
from shiftsched.service.store.users import User
from tests.notebooks.test_screenshot import require_chromium
from tests.service.dashboard.test_dashboard_browser import (
    PASSWORD,
    BrowserLoop,
    figure,
    in_fresh_context,
    shot,
    submit,
    visit,
)
from tests.service.dashboard.test_dashboard_job_page import (
    RUNNING_BODY,
    TRACE,
    UNITS,
    short_request,
    solved_answer,
    text_of,
)
from tests.service.site import served_site
from tests.service.solving.test_jobs import large_request

pytestmark = pytest.mark.slow  # a served site, a queued solve and a browser

EMAIL = "demo@example.com"
LONG_LIMIT = 300  # far beyond the test: only the stop ends the job
WAIT_MS = 90_000  # for the page to show a state; only a broken queue reaches it
PRINTED_KEY = re.compile(r"Demo account ready\. API key \(shown once\): (\S+)")
PRINTED_SIGN_IN = re.compile(
    r"Demo dashboard sign-in at \S+: (\S+), password \(shown once\): (\S+)"
)


@pytest.fixture(scope="module")
def browser_loop() -> Iterator[BrowserLoop]:
    running = BrowserLoop(require_chromium())
    try:
        yield running
    finally:
        running.close()


async def read(page: Page, *selectors: str) -> list[str]:
    """The elements' texts, read at one moment of one page; the page refreshes itself while
    the job runs, so a read that meets a reload is tried again on the new page."""
    script = "selectors => selectors.map(s => document.querySelector(s)?.innerText ?? null)"
    for _ in range(20):
        try:
            await page.locator(selectors[0]).wait_for(timeout=WAIT_MS)
            texts = await page.evaluate(script, list(selectors))
        except PlaywrightError as error:
            if "destroyed" not in str(error) and "navigat" not in str(error):
                raise
            continue
        if None not in texts:
            return [str(text).strip() for text in texts]
    raise AssertionError(f"{selectors} could not be read between reloads")


def api(base: str, key: str, method: str, path: str, data: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    body = None if data is None else json.dumps(data)
    return httpx.request(
        method, f"{base}/v1/public{path}", content=body, headers=headers, timeout=120
    )


def audited(data: dict[str, Any], body: dict[str, Any]) -> SolveResponse:
    answer = SolveResponse.model_validate(body)
    assert answer.status == "completed" and answer.solution is not None
    report = audit(parse_request(data), answer.solution.assignments)
    assert report.hard_violations == []
    solution = answer.solution
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    return answer


def test_the_demo_user_follows_and_stops_a_queued_job_and_prints_a_roster(
    tmp_path: Path, browser_loop: BrowserLoop
) -> None:
    printed = io.StringIO()  # what the start prints (never closed: the server logs on)
    with ExitStack() as stack:
        with redirect_stdout(printed):
            site = served_site(f"sqlite:///{tmp_path / 'site.db'}", demo_email=EMAIL)
            base = stack.enter_context(site)
        key, sign_in = (
            PRINTED_KEY.search(printed.getvalue()),
            PRINTED_SIGN_IN.search(printed.getvalue()),
        )
        assert key and sign_in, printed.getvalue()
        email, password = sign_in.groups()
        assert email == EMAIL

        async def body(page: Page) -> None:
            await visit(page, f"{base}/dashboard/sign-in")
            await page.fill("#email", email)
            await page.fill("#password", password)
            await submit(page, page.get_by_role("button", name="Sign in"))
            await visit(page, f"{base}/dashboard/tier")
            assert await read(page, "#tier") == ["pro"]

            data = large_request(timeout=LONG_LIMIT)
            queued = api(base, key.group(1), "POST", "/solve", data)
            assert queued.status_code == 202, queued.text
            job_id = queued.json()["job_id"]
            links = queued.links  # where the 202 says the job is followed
            assert links["monitor"]["url"] == f"/v1/public/solve/jobs/{job_id}/progress"
            assert links["alternate"]["url"] == f"/dashboard/jobs/{job_id}"
            progress = api(base, key.group(1), "GET", f"/solve/jobs/{job_id}/progress")
            assert progress.status_code == 200 and progress.json()["job_id"] == job_id
            await follow_and_stop(page, base, key.group(1), job_id, data)
            await print_a_roster(page, base, key.group(1))

        in_fresh_context(browser_loop, body)


async def follow_and_stop(page: Page, base: str, key: str, job_id: str, data: Any) -> None:
    await visit(page, f"{base}/dashboard/jobs")
    async with page.expect_navigation():
        await page.get_by_role("link", name=job_id).click()  # the Jobs table links the page
    assert page.url == f"{base}/dashboard/jobs/{job_id}"
    await page.locator("#job-phase[data-phase=solving]").wait_for(timeout=WAIT_MS)
    phase, best, held = await read(page, "#job-phase", "#best-objective", "#units-held")
    assert (best == "none yet") == ("waiting for the first roster" in phase), (phase, best)
    assert int(held) >= 1
    await shot(page, "job-running")

    async with page.expect_response(lambda r: r.request.method == "POST") as posted:
        await page.get_by_role("button", name="Stop the job").click()
    assert (await posted.value).status == 303
    await page.locator("#outcome").wait_for(timeout=WAIT_MS)  # the page refreshes until then
    outcome, units = await read(page, "#outcome", "#units-charged")
    charged = int(units)
    assert outcome.startswith("Stopped at your request"), outcome
    await shot(page, "job-stopped")

    result = api(base, key, "GET", f"/solve/jobs/{job_id}").json()
    if result["status"] == "completed":  # stopped after a roster: kept and charged
        audited(data, result)
        assert "was kept" in outcome and "No roster" not in outcome
        assert charged == result["usage"]["units_consumed"] >= 1
    else:  # stopped before any roster: nothing kept, nothing charged
        assert result["error"]["code"] == "cancelled" and "usage" not in result
        assert "No roster was kept; nothing was charged" in outcome and charged == 0
    await visit(page, f"{base}/dashboard/usage")
    assert await figure(page, "#total-units") == charged
    assert api(base, key, "GET", "/usage").json()["available_units"] == await figure(
        page, "#available"
    )


async def print_a_roster(page: Page, base: str, key: str) -> None:
    data = short_request()  # a head short each day: the sheet lists its shortages
    solved = api(base, key, "POST", "/solve", data)
    assert solved.status_code == 200, solved.text
    answer = audited(data, solved.json())
    report = audit(parse_request(data), answer.solution.assignments if answer.solution else [])
    await visit(page, f"{base}/dashboard/jobs/{answer.job_id}")
    async with page.expect_navigation():
        await page.locator("#print-view").click()
    assert await read(page, "#sheet-objective") == [f"{report.objective_value:,.0f}"]
    assert await page.locator("#roster-sheet tbody tr").count() == 3
    assert await page.locator("#sheet-shortages li").count() == len(report.shortages) > 0
    await shot(page, "roster-screen")
    await page.emulate_media(media="print")
    assert not await page.locator("header.top").is_visible()  # no navigation on paper
    await shot(page, "roster-print")


# ------------------------------------------------------------------------ followed live

FIGURES = ("#elapsed", "#best-objective", "#best-bound", "#gap", "#solutions")


async def signed_in(page: Page, base: str, store: Store) -> User:
    """A new user (made in the store: sign-up is the other tests'), signed in on ``page``."""
    email = f"live-{uuid.uuid4().hex[:12]}@example.com"
    user = store.users.create_user(email, hash_password(PASSWORD))
    await visit(page, f"{base}/dashboard/sign-in")
    await page.fill("#email", user.email)
    await page.fill("#password", PASSWORD)
    await submit(page, page.get_by_role("button", name="Sign in"))
    return user


def queued_job(store: Store, user: User) -> Job:
    """A queued job of the user's account holding ``UNITS``, as admission leaves it; the
    test moves it as the solving process would (its progress, then its end)."""
    reservation = f"job-{uuid.uuid4().hex}"
    assert store.ledger.reserve(user.account_id, UNITS, reservation) is not None
    return store.jobs.create_job(
        user.account_id, RUNNING_BODY, units_reserved=UNITS, reservation_id=reservation
    )


def test_a_running_jobs_page_moves_with_its_stream_and_shows_the_end_unpolled(
    tmp_path: Path, browser_loop: BrowserLoop
) -> None:
    """The page follows the job's event stream: its figures and charts move in place (the
    page is not reloaded), and the job's end brings the ended page, read once. With the
    stream refused, the page falls back to reloading itself, and streams again after."""
    database_url = f"sqlite:///{tmp_path / 'site.db'}"
    with served_site(database_url) as base, Store(database_url) as store:

        async def body(page: Page) -> None:
            job = queued_job(store, await signed_in(page, base, store))
            answer = solved_answer(job.id)  # the roster it ends with
            started = {"elapsed_seconds": 0.4, "best_objective": None, "best_bound": 0.0}
            assert store.jobs.record_progress(job.id, {**started, "solutions": 0})
            events = f"**/dashboard/jobs/{job.id}/events"
            await page.route(events, lambda route: route.abort())
            await visit(page, f"{base}/dashboard/jobs/{job.id}")
            await page.locator("body[data-follow=polling]").wait_for(timeout=WAIT_MS)
            await page.unroute(events)  # the next reload (the fallback's own) streams
            await page.locator("body[data-follow=live]").wait_for(timeout=WAIT_MS)
            assert await page.locator("meta[http-equiv=refresh]").count() == 0
            assert await read(page, "#best-objective", "#follow-hint", "#job-phase") == [
                "none yet",
                "This page follows the job live until it ends.",
                "Solving, waiting for the first roster.",
            ]
            loads: list[str] = []  # the pages read from now on
            page.on("framenavigated", lambda frame: loads.append(frame.url))
            await page.evaluate("window.notReloaded = true")

            record = {"elapsed_seconds": 3.0, "best_objective": 40.0, "best_bound": 20.0}
            assert store.jobs.record_progress(job.id, {**record, "solutions": 2, "trace": TRACE})
            await expect(page.locator("#best-objective")).to_have_text("40", timeout=WAIT_MS)
            await page.locator("#objective-chart").wait_for(timeout=WAIT_MS)  # swapped in
            live = await read(page, *FIGURES, "#job-phase")
            assert await page.evaluate("window.notReloaded === true") and loads == []
            assert await page.get_attribute("body", "data-follow") == "live"
            await shot(page, "job-live")
            again = await page.request.get(page.url)  # the page as the server draws it now
            drawn = [text_of(await again.text(), selector[1:]) for selector in FIGURES]
            assert live == [*drawn, "Solving."]  # the script's words are the server's
            assert drawn == ["3.0", "40", "20", "50.0%", "2"]

            assert store.jobs.finish_job(job.id, "completed", response_json=answer)
            await page.locator("#outcome").wait_for(timeout=WAIT_MS)
            outcome, charged = await read(page, "#outcome", "#units-charged")
            assert outcome == f"Completed with a roster; {UNITS} units charged." and charged == "3"
            assert loads == [page.url]  # read once, at the end, and not since
            assert await page.locator("#print-view").count() == 1
            assert await page.get_attribute("body", "data-follow") is None  # nothing to follow

        in_fresh_context(browser_loop, body)
