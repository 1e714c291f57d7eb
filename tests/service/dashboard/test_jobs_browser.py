"""The Jobs page in Chromium accounts for every charged unit.

A person signs up and creates a key in the browser; a script then spends it over plain
HTTP on two infeasible requests (each a charged 422), a solve, a re-plan, a
recommendation and an explanation. On the Jobs page every job_id answered has its row,
named and with its operation, and its result link opens that answer; the rows' units add
up to the Usage page's total, to the units the answers' headers reported and to the
units the ledger captured; filtering by operation narrows the rows to one.

Screenshots: ``artifacts/screenshots/dashboard-jobs-charged.png`` (every row) and
``dashboard-jobs-filtered.png`` (the re-plan alone).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from playwright.async_api import Page

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import ReplanResponse
from shiftsched.service.store import Store
from shiftsched.service.store.tables import ledger
from tests.factories import minimal_request_dict
from tests.notebooks.test_screenshot import require_chromium
from tests.service.dashboard.test_dashboard_browser import (
    BrowserLoop,
    in_fresh_context,
    shot,
    sign_up,
    submit,
    visit,
)
from tests.service.site import served_site

pytestmark = pytest.mark.slow  # a served site, Chromium and six charged calls

ROOT = Path(__file__).resolve().parents[3]
INFEASIBLE = ("fixed_assignment", "holiday")


@pytest.fixture(scope="module")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('db')}/site.db"


@pytest.fixture(scope="module")
def site(database_url: str) -> Iterator[str]:
    with served_site(database_url) as base:
        yield base


@pytest.fixture(scope="module")
def browser_loop() -> Iterator[BrowserLoop]:
    running = BrowserLoop(require_chromium())
    try:
        yield running
    finally:
        running.close()


async def spend(base: str, key: str) -> dict[str, httpx.Response]:
    """Every charged call of the module docstring, by what it was; each is checked to be
    the answer it should be (a diagnosed 422, or an audited roster)."""
    auth = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    answers: dict[str, httpx.Response] = {}
    async with httpx.AsyncClient(base_url=f"{base}/v1/public", timeout=120) as http:

        async def post(name: str, path: str, body: Any) -> dict[str, Any]:
            answers[name] = await http.post(path, content=json.dumps(body), headers=auth)
            payload: dict[str, Any] = answers[name].json()
            return payload

        for name in INFEASIBLE:
            data = json.loads((ROOT / "datasets" / "infeasible" / f"{name}.json").read_text())
            assert (await post(name, "/solve", data))["diagnosis"]["causes"], name
        data = minimal_request_dict()
        roster = audited(data, await post("solve", "/solve", data))
        sick = roster[0]
        absent = {"employee_id": sick["employee_id"], "dates": [sick["date"]]}
        replan = {"request": data, "roster": roster, "absences": [absent]}
        audited(data, await post("replan", "/solve/replan", replan))
        slot = {"date": sick["date"], "shift_id": sick["shift_id"]}
        ask = {"request": data, "roster": roster[1:]}
        assert (await post("recommend", "/solve/recommend", {**ask, "slot": slot}))["candidates"]
        assert (await post("explain", "/solve/explain", ask))["explanations"]
    return answers


def audited(data: dict[str, Any], body: dict[str, Any]) -> list[dict[str, Any]]:
    """The roster of a solve's (or re-plan's) answer, checked by the independent audit."""
    solved = ReplanResponse.model_validate(body)  # a solve's answer is one without changes
    assert solved.solution is not None, body
    report = audit(parse_request(data), solved.solution.assignments)
    assert report.feasible
    assert compare_with_metrics(report, solved.solution.metrics, solved.solution.shortages) == []
    return [a.model_dump(mode="json", exclude_none=True) for a in solved.solution.assignments]


def captured_units(database_url: str, key: str) -> int:
    """What the ledger captured from the key's account, read apart from every page."""
    with Store(database_url) as store:
        account = store.accounts.authenticate(key)
        assert account is not None
        query = sa.select(sa.func.coalesce(sa.func.sum(ledger.c.units), 0)).where(
            ledger.c.account_id == account.id, ledger.c.state == "captured"
        )
        with store.db.read() as conn:
            return int(conn.execute(query).scalar_one())


async def rows_charged(page: Page) -> dict[str, int]:
    """The units each row of the page shows as charged, by job id."""
    rows = page.locator("tbody tr[data-job-id]")
    charged = {}
    for index in range(await rows.count()):
        row = rows.nth(index)
        units = row.locator("td.units")
        assert (await units.inner_text()).strip() == await units.get_attribute("data-charged")
        charged[str(await row.get_attribute("data-job-id"))] = int(
            str(await units.get_attribute("data-charged"))
        )
    return charged


def test_every_charged_call_has_its_row_and_the_rows_add_up_to_usage(
    site: str, database_url: str, browser_loop: BrowserLoop
) -> None:
    async def body(page: Page) -> None:
        await sign_up(page, site)
        await submit(page, page.get_by_role("button", name="Create key"))
        key = (await page.locator("#new-key").inner_text()).strip()
        answers = await spend(site, key)
        consumed = {name: int(a.headers["x-units-consumed"]) for name, a in answers.items()}
        jobs = {name: a.json()["job_id"] for name, a in answers.items()}

        await visit(page, f"{site}/dashboard/jobs")
        charged = await rows_charged(page)
        assert set(charged) == set(jobs.values())  # every charge has its row, and no more
        assert {charged[jobs[name]] for name in consumed} == set(consumed.values())
        for name, job_id in jobs.items():
            row = page.locator(f'tr[data-job-id="{job_id}"]')
            link = await row.get_by_role("link", name="result (JSON)").get_attribute("href")
            opened = await page.request.get(f"{site}{link}")
            assert opened.ok and (await opened.json())["job_id"] == job_id, name
            assert charged[job_id] == consumed[name]
        replan_row = page.locator(f'tr[data-job-id="{jobs["replan"]}"]')
        assert (await replan_row.locator("td.operation").inner_text()).strip() == "re-plan"
        assert (await replan_row.locator(".job-name").inner_text()).startswith("Re-plan · ")
        csv = await replan_row.get_by_role("link", name="CSV").get_attribute("href")
        exported = await page.request.get(f"{site}{csv}")  # the re-planned roster's file
        replanned = answers["replan"].json()["solution"]["assignments"]
        assert exported.ok and len((await exported.text()).splitlines()) == 1 + len(replanned)
        shown = int((await page.locator("#units-charged").inner_text()).strip())
        await shot(page, "jobs-charged")

        await page.select_option("#filter-operation", "replan")
        await submit(page, page.get_by_role("button", name="Filter"))
        assert list(await rows_charged(page)) == [jobs["replan"]]
        await shot(page, "jobs-filtered")

        await visit(page, f"{site}/dashboard/usage")
        usage = int((await page.locator("#total-units").inner_text()).strip())
        total = sum(charged.values())
        assert total == shown == usage == sum(consumed.values())
        assert total == captured_units(database_url, key)

    in_fresh_context(browser_loop, body)
